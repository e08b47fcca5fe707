import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LeaseTable } from "../../src/core/lease/table";
import { LeaseTracker, type TrackerEvent } from "../../src/core/lease/tracker";
import type { LeaseServerSettings } from "../../src/core/lease/types";
import { testLeaseSettings } from "../support/scenarios";

const base: LeaseServerSettings = testLeaseSettings;
const ms = 1000;

/** A leader at local time `now` with one lease granted at that time. */
function leaderWithLease(s: LeaseServerSettings, now = 0) {
  const table = LeaseTable.empty(s);
  const tracker = LeaseTracker.promote(s, now, [], []);
  const events: TrackerEvent[] = [];
  tracker.onApplied(now, table.applyClient({ type: "grant", name: "lock", holder: "h1", ttlMs: 2000 }, 1), events);
  return { table, tracker, events };
}

describe("the leader's lease tracker", () => {
  it("starts timing a grant when it is applied and expires it after the TTL, at a check", () => {
    const { tracker, events } = leaderWithLease(base);
    expect(events).toEqual([{ op: "timed", name: "lock", holder: "h1", token: 1, expiresAtUs: 2000 * ms, ttlMs: 2000 }]);
    expect(tracker.due(1900 * ms, true, [])).toEqual([]);
    const out: TrackerEvent[] = [];
    expect(tracker.due(2000 * ms, true, out)).toEqual([{ type: "expire", name: "lock", token: 1, grantIndex: 1 }]);
    expect(out.map((e) => e.op)).toEqual(["expiring"]);
    // Proposed once only.
    expect(tracker.due(2200 * ms, true, [])).toEqual([]);
  });

  it("checks only every expiryCheckIntervalMs", () => {
    const { tracker } = leaderWithLease(base);
    expect(tracker.due(50 * ms, true, [])).toEqual([]);
    expect(tracker.nextDeadline()).toBe(100 * ms);
    tracker.due(100 * ms, true, []);
    expect(tracker.nextDeadline()).toBe(200 * ms);
  });

  it("a refresh restarts the TTL on the leader's clock; refreshes of an expiring lease are refused", () => {
    const { tracker } = leaderWithLease(base);
    expect(tracker.refresh(1500 * ms, "lock", "h1", 1, false, [])).toEqual({ ok: true, ttlMs: 2000 });
    expect(tracker.due(2100 * ms, true, [])).toEqual([]);
    expect(tracker.remainingMs(2100 * ms, "lock")).toBe(1400);
    expect(tracker.due(3500 * ms, true, [])).toEqual([{ type: "expire", name: "lock", token: 1, grantIndex: 1 }]);
    expect(tracker.refresh(3501 * ms, "lock", "h1", 1, false, [])).toEqual({ ok: false, reason: "expired" });
  });

  it("refuses refreshes from another holder or for another grant", () => {
    const { tracker } = leaderWithLease(base);
    expect(tracker.refresh(10, "lock", "h2", 1, false, [])).toEqual({ ok: false, reason: "unknown-lease" });
    expect(tracker.refresh(10, "lock", "h1", 2, false, [])).toEqual({ ok: false, reason: "unknown-lease" });
    expect(tracker.refresh(10, "nope", "h1", 1, false, [])).toEqual({ ok: false, reason: "unknown-lease" });
  });

  it("never expires anything while it has not heard from a majority (etcd 15247)", () => {
    const { tracker } = leaderWithLease(base);
    expect(tracker.due(5000 * ms, false, [])).toEqual([]);
    expect(tracker.due(5100 * ms, true, [])).toEqual([{ type: "expire", name: "lock", token: 1, grantIndex: 1 }]);
  });

  it("Consul-style slack: the leader waits ttl x factor before expiring", () => {
    const { tracker } = leaderWithLease({ ...base, expirySlackFactor: 2 });
    expect(tracker.due(3900 * ms, true, [])).toEqual([]);
    expect(tracker.due(4000 * ms, true, [])).toEqual([{ type: "expire", name: "lock", token: 1, grantIndex: 1 }]);
  });

  it("a new leader gives every lease a full TTL again plus the extension (so elections can keep a lease alive)", () => {
    const { table } = leaderWithLease(base);
    const events: TrackerEvent[] = [];
    const next = LeaseTracker.promote(base, 10_000 * ms, table.list(), events);
    expect(events).toEqual([
      { op: "extended", name: "lock", holder: "h1", token: 1, expiresAtUs: (10_000 + 300 + 2000) * ms, ttlMs: 2000 },
    ]);
    expect(next.due(12_200 * ms, true, [])).toEqual([]);
    expect(next.due(12_300 * ms, true, [])).toEqual([{ type: "expire", name: "lock", token: 1, grantIndex: 1 }]);
  });

  it("with checkpointing, a new leader starts from the checkpointed remaining TTL", () => {
    const s = { ...base, checkpoint: true, checkpointIntervalMs: 500 };
    const { table, tracker } = leaderWithLease(s);
    const ops = tracker.due(500 * ms, true, []);
    expect(ops).toEqual([{ type: "checkpoint", leases: [{ name: "lock", token: 1, grantIndex: 1, remainingMs: 1500 }] }]);
    for (const op of ops) table.applySystem(op);
    const events: TrackerEvent[] = [];
    LeaseTracker.promote(s, 1000 * ms, table.list(), events);
    expect(events[0]?.expiresAtUs).toBe((1000 + 300 + 1500) * ms);
  });

  it("lock-delay: after an expiry it proposes freeing the name once the delay has passed", () => {
    const s = { ...base, lockDelayMs: 1000 };
    const { table, tracker } = leaderWithLease(s);
    const [expire] = tracker.due(2000 * ms, true, []);
    if (expire === undefined) throw new Error("expected an expire");
    tracker.onApplied(2050 * ms, table.applySystem(expire), []);
    expect(tracker.due(2900 * ms, true, [])).toEqual([]);
    expect(tracker.due(3100 * ms, true, [])).toEqual([{ type: "free", name: "lock" }]);
  });

  it("pool-short: refuses renewals when the pool is full and the setting is on", () => {
    const { tracker } = leaderWithLease({ ...base, poolDenyRenewalsWhenFull: true });
    expect(tracker.refresh(10, "lock", "h1", 1, true, [])).toEqual({ ok: false, reason: "pool-short" });
    expect(tracker.refresh(10, "lock", "h1", 1, false, [])).toMatchObject({ ok: true });
  });

  it("a repeated grant applied while an Expire is on its way restarts the clock; the Expire is skipped and nothing more is proposed", () => {
    const { table, tracker } = leaderWithLease(base);
    const [expire] = tracker.due(2000 * ms, true, []);
    expect(expire).toEqual({ type: "expire", name: "lock", token: 1, grantIndex: 1 });
    if (expire === undefined) throw new Error("expected an expire");
    // h1 restarted; its new grant request was proposed before the Expire and is applied first.
    const events: TrackerEvent[] = [];
    tracker.onApplied(2010 * ms, table.applyClient({ type: "grant", name: "lock", holder: "h1", ttlMs: 2000 }, 12), events);
    expect(events).toEqual([{ op: "timed", name: "lock", holder: "h1", token: 1, expiresAtUs: 4010 * ms, ttlMs: 2000 }]);
    // The lease is no longer expiring: h1 may refresh it.
    expect(tracker.refresh(2020 * ms, "lock", "h1", 1, false, [])).toMatchObject({ ok: true });
    const skipped = table.applySystem(expire);
    expect(skipped.event?.op).toBe("expire-skipped");
    tracker.onApplied(2030 * ms, skipped, []);
    expect(table.isHeld("lock")).toBe(true);
    expect(tracker.remainingMs(2030 * ms, "lock")).toBe(1990);
    // Only the refreshed holding's own end brings the next Expire, naming the new grant.
    expect(tracker.due(4000 * ms, true, [])).toEqual([]);
    expect(tracker.due(4100 * ms, true, [])).toEqual([{ type: "expire", name: "lock", token: 1, grantIndex: 12 }]);
  });

  it("is idle (no timer) when it tracks nothing", () => {
    const t = LeaseTracker.promote(base, 0, [], []);
    expect(t.nextDeadline()).toBe(Number.POSITIVE_INFINITY);
  });

  it("is idle again once every lease it timed has ended and its lock-delay is over (and its copies too)", () => {
    const s = { ...base, lockDelayMs: 500 };
    const table = LeaseTable.empty(s);
    const t = LeaseTracker.promote(s, 0, [], []);
    t.onApplied(0, table.applyClient({ type: "grant", name: "a", holder: "h1", ttlMs: 2000 }, 1), []);
    t.onApplied(0, table.applyClient({ type: "grant", name: "b", holder: "h2", ttlMs: 2000 }, 2), []);
    // A repeated grant of a lease already timed counts it once.
    t.onApplied(10 * ms, table.applyClient({ type: "grant", name: "a", holder: "h1", ttlMs: 2000 }, 3), []);
    t.onApplied(20 * ms, table.applyClient({ type: "revoke", name: "b", holder: "h2", token: 2 }, 4), []);
    expect(t.nextDeadline()).toBe(100 * ms);
    const ops = t.due(2100 * ms, true, []);
    expect(ops).toEqual([{ type: "expire", name: "a", token: 1, grantIndex: 3 }]);
    t.onApplied(2110 * ms, table.applySystem(ops[0] as (typeof ops)[number]), []);
    // Expired, in its lock-delay: the tracker still has a name to free.
    expect(t.nextDeadline()).toBe(2200 * ms);
    const copy = t.clone();
    for (const tr of [t, copy]) {
      const free = tr.due(2700 * ms, true, []);
      expect(free).toEqual([{ type: "free", name: "a" }]);
      expect(tr.nextDeadline()).toBe(Number.POSITIVE_INFINITY);
    }
  });
});

describe("the tracker's expiry check with many leases (it scans them only once one may be due)", () => {
  it("proposes exactly the leases whose time ran out, whatever the grants, refreshes and checks in between (property)", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ op: fc.constantFrom("grant", "refresh", "check", "clone"), lease: fc.integer({ min: 0, max: 7 }), dtMs: fc.integer({ min: 0, max: 1500 }) }),
          { maxLength: 120 },
        ),
        (steps) => {
          let table = LeaseTable.empty(base);
          let tracker = LeaseTracker.promote(base, 0, [], []);
          let now = 0;
          let index = 0;
          /** The model: when each lease expires on the leader's clock, from the events it reported. */
          const expiresAt = new Map<string, { token: number; at: number }>();
          for (const st of steps) {
            now += st.dtMs * ms;
            const name = `l${st.lease}`;
            const events: TrackerEvent[] = [];
            if (st.op === "grant") {
              index += 1;
              tracker.onApplied(now, table.applyClient({ type: "grant", name, holder: `h${st.lease}`, ttlMs: 1000 + 250 * st.lease }, index), events);
            } else if (st.op === "refresh") {
              const held = expiresAt.get(name);
              if (held !== undefined) tracker.refresh(now, name, `h${st.lease}`, held.token, false, events);
            } else if (st.op === "clone") {
              tracker = tracker.clone();
              table = table.clone();
            } else {
              // A check runs at most every expiryCheckIntervalMs (nextDeadline says when): a due lease waits for it.
              const checks = tracker.nextDeadline() <= now;
              const ops = tracker.due(now, true, events);
              const expected = checks ? [...expiresAt].filter(([, e]) => now >= e.at).map(([n]) => n).sort() : [];
              const proposed = ops.flatMap((o) => (o.type === "expire" ? [o.name] : []));
              expect(proposed).toEqual(expected);
              for (const n of proposed) expiresAt.delete(n);
            }
            for (const e of events) {
              if ((e.op === "timed" || e.op === "refresh") && e.expiresAtUs !== undefined) expiresAt.set(e.name, { token: e.token, at: e.expiresAtUs });
            }
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});
