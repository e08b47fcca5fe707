import { describe, expect, it } from "vitest";
import { CoreStateMachine } from "../../src/core/kv/statemachine";
import { LeaseTable } from "../../src/core/lease/table";
import type { LeaseServerSettings } from "../../src/core/lease/types";
import { testLeaseSettings } from "../support/scenarios";

const settings: LeaseServerSettings = testLeaseSettings;

const grant = (name: string, holder: string, ttlMs = 2000) => ({ type: "grant" as const, name, holder, ttlMs });

describe("lease table (the replicated lease state)", () => {
  it("grants a free name with the log index as fencing token, and denies it to others while held", () => {
    const t = LeaseTable.empty(settings);
    expect(t.applyClient(grant("lock", "h1"), 7).result).toEqual({ kind: "granted", name: "lock", token: 7, ttlMs: 2000, transitions: 0 });
    expect(t.applyClient(grant("lock", "h2"), 9).result).toEqual({ kind: "denied", name: "lock", reason: "held", holder: "h1" });
    // The same holder asking again (its first answer was lost) gets the same grant, not a new token.
    expect(t.applyClient(grant("lock", "h1"), 11).result).toMatchObject({ kind: "granted", token: 7 });
  });

  it("raises a too-short TTL to the minimum (etcd: 1.5 x election timeout)", () => {
    const t = LeaseTable.empty(settings);
    expect(t.applyClient(grant("lock", "h1", 100), 1).result).toMatchObject({ ttlMs: 450 });
  });

  it("counts transitions only when the holder changes (Kubernetes leaseTransitions)", () => {
    const t = LeaseTable.empty(settings);
    t.applyClient(grant("lock", "h1"), 1);
    t.applySystem({ type: "expire", name: "lock", token: 1, grantIndex: 1 });
    expect(t.applyClient(grant("lock", "h1"), 2).result).toMatchObject({ token: 2, transitions: 0 });
    t.applyClient({ type: "revoke", name: "lock", holder: "h1", token: 2 }, 3);
    expect(t.applyClient(grant("lock", "h2"), 4).result).toMatchObject({ token: 4, transitions: 1 });
    t.applySystem({ type: "expire", name: "lock", token: 4, grantIndex: 4 });
    expect(t.applyClient(grant("lock", "h1"), 5).result).toMatchObject({ token: 5, transitions: 2 });
  });

  it("an expire for an older grant does nothing (the token must match)", () => {
    const t = LeaseTable.empty(settings);
    t.applyClient(grant("lock", "h1"), 1);
    t.applyClient({ type: "revoke", name: "lock", holder: "h1", token: 1 }, 2);
    t.applyClient(grant("lock", "h2"), 3);
    expect(t.applySystem({ type: "expire", name: "lock", token: 1, grantIndex: 1 }).event).toMatchObject({
      op: "expire-skipped",
      reason: "granted-to-another",
    });
    expect(t.info("lock")).toMatchObject({ state: "held", holder: "h2", token: 3 });
  });

  it("compare-and-expire: an Expire decided before the holder's repeated grant is skipped (the re-grant race)", () => {
    const t = LeaseTable.empty(settings);
    t.applyClient(grant("lock", "h1"), 2);
    // h1 restarts and asks again; the leader, meanwhile, decides the old holding ran out.
    const again = t.applyClient(grant("lock", "h1"), 12);
    expect(again.result).toMatchObject({ kind: "granted", token: 2, ttlMs: 2000 });
    expect(again.event).toMatchObject({ op: "grant", token: 2, grantIndex: 12 });
    // The Expire names the holding it timed (grantIndex 2), which no longer exists.
    const skipped = t.applySystem({ type: "expire", name: "lock", token: 2, grantIndex: 2 });
    expect(skipped.event).toMatchObject({ op: "expire-skipped", holder: "h1", token: 2, reason: "granted-again" });
    expect(skipped.deleteKeys).toEqual([]);
    expect(t.info("lock")).toMatchObject({ state: "held", holder: "h1", token: 2, grantIndex: 12 });
    // An Expire for the holding as it now stands applies.
    expect(t.applySystem({ type: "expire", name: "lock", token: 2, grantIndex: 12 }).event).toMatchObject({ op: "expire" });
    expect(t.isHeld("lock")).toBe(false);
  });

  it("an Expire for a lease that already ended is a visible no-op", () => {
    const t = LeaseTable.empty(settings);
    t.applyClient(grant("lock", "h1"), 1);
    t.applyClient({ type: "revoke", name: "lock", holder: "h1", token: 1 }, 2);
    expect(t.applySystem({ type: "expire", name: "lock", token: 1, grantIndex: 1 }).event).toMatchObject({
      op: "expire-skipped",
      reason: "already-ended",
    });
    expect(t.applySystem({ type: "expire", name: "nothing", token: 1, grantIndex: 1 }).event).toMatchObject({ op: "expire-skipped" });
  });

  it("revoke only by the holder of the current grant", () => {
    const t = LeaseTable.empty(settings);
    t.applyClient(grant("lock", "h1"), 1);
    expect(t.applyClient({ type: "revoke", name: "lock", holder: "h2", token: 1 }, 2).result).toEqual({ kind: "not-holder", name: "lock" });
    expect(t.applyClient({ type: "revoke", name: "lock", holder: "h1", token: 99 }, 3).result).toEqual({
      kind: "not-holder",
      name: "lock",
    });
    expect(t.applyClient({ type: "revoke", name: "lock", holder: "h1", token: 1 }, 4).result).toEqual({
      kind: "revoked",
      name: "lock",
      token: 1,
    });
  });

  it("lock-delay: after an expiry nobody gets the name until the leader frees it; a release frees at once", () => {
    const t = LeaseTable.empty({ ...settings, lockDelayMs: 1000 });
    t.applyClient(grant("lock", "h1"), 1);
    t.applySystem({ type: "expire", name: "lock", token: 1, grantIndex: 1 });
    expect(t.applyClient(grant("lock", "h2"), 2).result).toMatchObject({ kind: "denied", reason: "lock-delay" });
    t.applySystem({ type: "free", name: "lock" });
    expect(t.applyClient(grant("lock", "h2"), 3).result).toMatchObject({ kind: "granted", token: 3 });
    t.applyClient({ type: "revoke", name: "lock", holder: "h2", token: 3 }, 4);
    expect(t.applyClient(grant("lock", "h1"), 5).result).toMatchObject({ kind: "granted", token: 5 });
  });

  it("a limited pool shortens TTLs when running short and denies grants when exhausted (seed 004, DHCP)", () => {
    const t = LeaseTable.empty({ ...settings, poolSize: 4, poolShortenAt: 0.75, poolShortTtlMs: 600 });
    expect(t.applyClient(grant("a", "h1"), 1).result).toMatchObject({ ttlMs: 2000 });
    expect(t.applyClient(grant("b", "h2"), 2).result).toMatchObject({ ttlMs: 2000 });
    expect(t.applyClient(grant("c", "h3"), 3).result).toMatchObject({ ttlMs: 600 });
    expect(t.applyClient(grant("d", "h4"), 4).result).toMatchObject({ ttlMs: 600 });
    expect(t.applyClient(grant("e", "h5"), 5).result).toMatchObject({ kind: "denied", reason: "pool-exhausted" });
  });

  it("checkpoints record remaining TTL only for the grant they name", () => {
    const t = LeaseTable.empty(settings);
    t.applyClient(grant("lock", "h1"), 1);
    t.applySystem({
      type: "checkpoint",
      leases: [
        { name: "lock", token: 1, grantIndex: 1, remainingMs: 700 },
        { name: "other", token: 5, grantIndex: 5, remainingMs: 1 },
      ],
    });
    expect(t.info("lock")?.checkpointRemainingMs).toBe(700);
    expect(t.info("other")).toBeNull();
  });

  it("a checkpoint measured before the holder was granted the lease again is stale: not recorded (the re-grant race's neighbour)", () => {
    const t = LeaseTable.empty(settings);
    t.applyClient(grant("lock", "h1"), 1);
    // The leader measures 300 ms left; before its checkpoint applies, h1 (restarted) is granted it again: a full TTL.
    t.applyClient(grant("lock", "h1"), 9);
    t.applySystem({ type: "checkpoint", leases: [{ name: "lock", token: 1, grantIndex: 1, remainingMs: 300 }] });
    expect(t.info("lock")?.checkpointRemainingMs).toBeNull();
    t.applySystem({ type: "checkpoint", leases: [{ name: "lock", token: 1, grantIndex: 9, remainingMs: 1800 }] });
    expect(t.info("lock")?.checkpointRemainingMs).toBe(1800);
  });
});

describe("core state machine: keys attached to leases", () => {
  it("deletes attached keys in the same applied command that ends the lease", () => {
    const sm = CoreStateMachine.empty(settings);
    sm.apply("h1.1", 1, grant("lock", "h1"), 1);
    expect(sm.apply("h1.1", 2, { type: "put", key: "/servers/1", value: "h1", lease: "lock" }, 2)).toMatchObject({ kind: "applied" });
    sm.apply("c1.1", 1, { type: "put", key: "plain", value: "x" }, 3);
    expect(sm.get("/servers/1")).toBe("h1");
    const effect = sm.applySystem({ type: "expire", name: "lock", token: 1, grantIndex: 1 });
    expect(effect.deleteKeys).toEqual(["/servers/1"]);
    expect(sm.get("/servers/1")).toBeNull();
    expect(sm.get("plain")).toBe("x");
    expect(sm.danglingKeys()).toEqual([]);
  });

  it("refuses to attach a key to a lease that is not held", () => {
    const sm = CoreStateMachine.empty(settings);
    const out = sm.apply("c1.1", 1, { type: "put", key: "k", value: "v", lease: "nope" }, 1);
    expect(out).toMatchObject({ kind: "applied", result: { kind: "kv", error: "lease nope is not held" } });
    expect(sm.get("k")).toBeNull();
  });

  it("a key rewritten without a lease no longer dies with it", () => {
    const sm = CoreStateMachine.empty(settings);
    sm.apply("h1.1", 1, grant("lock", "h1"), 1);
    sm.apply("h1.1", 2, { type: "put", key: "k", value: "v1", lease: "lock" }, 2);
    sm.apply("c1.1", 1, { type: "put", key: "k", value: "v2" }, 3);
    sm.apply("h1.1", 3, { type: "revoke", name: "lock", holder: "h1", token: 1 }, 4);
    expect(sm.get("k")).toBe("v2");
  });

  it("a retried grant is applied once: the duplicate gets the first answer", () => {
    const sm = CoreStateMachine.empty(settings);
    const first = sm.apply("h1.1", 1, grant("lock", "h1"), 5);
    const again = sm.apply("h1.1", 1, grant("lock", "h1"), 9);
    expect(first).toMatchObject({ kind: "applied", result: { token: 5 } });
    expect(again).toEqual({ kind: "duplicate", result: { kind: "granted", name: "lock", token: 5, ttlMs: 2000, transitions: 0 } });
  });

  it("answers lease queries with the leader's remaining time", () => {
    const sm = CoreStateMachine.empty(settings);
    sm.apply("h1.1", 1, grant("lock", "h1"), 1);
    expect(sm.query({ type: "lease-ttl", name: "lock" }, () => 1234)).toMatchObject({
      kind: "lease-info",
      remainingMs: 1234,
      lease: { holder: "h1" },
    });
    expect(sm.query({ type: "lease-list" })).toMatchObject({ kind: "lease-list", leases: [{ name: "lock" }] });
  });
});
