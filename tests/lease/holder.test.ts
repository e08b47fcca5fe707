/**
 * The lease holder, driven by hand: a fake ProcessContext records what it sends,
 * emits and pauses, a fake local clock is advanced timer by timer, and replies are
 * made up and delivered with onMessage. The statechart itself is also exercised with
 * xstate's pure transition().
 */

import { describe, expect, it } from "vitest";
import { initialTransition, transition } from "xstate";
import { holderStateOf, LeaseHolder } from "../../src/core/holder/holder";
import {
  BACKOFF_JITTER,
  backoffMs,
  type HolderEvent,
  holderMachine,
  leaseTimes,
  MAX_WRITE_ATTEMPTS,
  stateString,
} from "../../src/core/holder/holderMachine";
import type { HolderSettings } from "../../src/core/holder/types";
import type { ClientReply } from "../../src/core/kv/messages";
import type { LeaseRefreshReply } from "../../src/core/lease/types";
import type { ProcessContext } from "../../src/core/sim/process";
import { Rng } from "../../src/core/sim/rng";
import type { Payload, ProcEvent } from "../../src/core/sim/trace";
import { FencedStorage } from "../../src/core/storage/storage";
import type { StorageWrite } from "../../src/core/storage/types";

const SERVERS = ["n1", "n2", "n3"] as const;

function settings(over: Partial<HolderSettings> = {}): HolderSettings {
  return {
    id: "h1",
    servers: SERVERS,
    storage: "s1",
    leaseName: "L",
    resource: "R",
    ttlMs: 3000,
    renewFraction: 1 / 3,
    rebindFraction: 0,
    renewJitter: 0,
    driftMarginPpm: 10_000,
    gracePeriodMs: 0,
    requestTimeoutMs: 200,
    retryBackoffMinMs: 50,
    retryBackoffMaxMs: 400,
    acquireRetryMs: 500,
    workIntervalMs: 250,
    workGapMs: 20,
    holdForMs: 0,
    startAfterMs: 100,
    registerKey: false,
    replicas: false,
    selfFence: true,
    ...over,
  };
}

interface Sent {
  readonly at: number;
  readonly to: string;
  readonly payload: Payload;
}

class FakeCtx implements ProcessContext {
  now = 0;
  pausedUntil: number | null = null;
  readonly sends: Sent[] = [];
  readonly emits: (ProcEvent & { at: number })[] = [];
  readonly pauses: { at: number; durationUs: number }[] = [];
  send(to: string, payload: Payload): void {
    this.sends.push({ at: this.now, to, payload });
  }
  emit(e: ProcEvent): void {
    this.emits.push({ ...e, at: this.now });
  }
  pauseSelf(durationUs: number): void {
    this.pauses.push({ at: this.now, durationUs });
    this.pausedUntil = this.now + durationUs;
  }
}

/** Runs one holder on a fake local clock the way the simulator would: timers at their deadlines, nothing while paused. */
class Driver {
  readonly ctx = new FakeCtx();
  constructor(readonly h: LeaseHolder) {}

  get now(): number {
    return this.ctx.now;
  }

  start(): this {
    this.h.start(this.ctx);
    return this;
  }

  runTo(t: number): void {
    if (t < this.ctx.now) throw new Error(`time runs forwards: ${t} < ${this.ctx.now}`);
    for (let guard = 0; guard < 100_000; guard++) {
      const paused = this.ctx.pausedUntil;
      if (paused !== null) {
        if (paused > t) break;
        // Waking up: the clock has jumped, everything overdue fires now.
        this.ctx.now = paused;
        this.ctx.pausedUntil = null;
      }
      const d = this.h.nextDeadline();
      if (d === null || d > t) break;
      this.ctx.now = Math.max(this.ctx.now, d);
      this.h.onTimer(this.ctx);
    }
    this.ctx.now = t;
  }

  deliver(from: string, p: Payload): void {
    if (this.ctx.pausedUntil !== null && this.ctx.pausedUntil > this.ctx.now) throw new Error("delivering to a paused holder");
    this.h.onMessage(this.ctx, from, p);
  }

  sent<T extends Payload["type"]>(type: T, since = -1): (Sent & { payload: Extract<Payload, { type: T }> })[] {
    return this.ctx.sends.filter((s) => s.payload.type === type && s.at > since) as (Sent & { payload: Extract<Payload, { type: T }> })[];
  }

  last<T extends Payload["type"]>(type: T): Sent & { payload: Extract<Payload, { type: T }> } {
    const all = this.sent(type);
    const s = all[all.length - 1];
    if (s === undefined) throw new Error(`nothing of type ${type} was sent`);
    return s;
  }

  get view() {
    return holderStateOf(this.h);
  }

  holderEvents(): (Extract<ProcEvent, { kind: "holder" }> & { at: number })[] {
    return this.ctx.emits.filter((e) => e.kind === "holder") as (Extract<ProcEvent, { kind: "holder" }> & { at: number })[];
  }
}

function holder(over: Partial<HolderSettings> = {}, seed = 1): Driver {
  return new Driver(new LeaseHolder(settings(over), Rng.fromSeed(seed))).start();
}

function granted(seq: number, token: number, ttlMs = 3000): ClientReply {
  return { type: "ClientReply", seq, ok: true, result: { kind: "granted", name: "L", token, ttlMs, transitions: 1 } };
}

function renewed(reqId: number, ttlMs = 3000): LeaseRefreshReply {
  return { type: "LeaseRefreshReply", reqId, name: "L", ok: true, ttlMs };
}

/** Boots a holder, lets it send its grant at 100 ms and answers it at 130 ms with token 7. */
function holding(over: Partial<HolderSettings> = {}, seed = 1): Driver {
  const d = holder(over, seed);
  d.runTo(130_000);
  const g = d.last("ClientWrite");
  d.deliver(g.to, granted(g.payload.seq, 7));
  return d;
}

describe("LeaseHolder: acquiring", () => {
  it("waits startAfterMs, then asks the server it believes leads for a grant", () => {
    const d = holder();
    expect(d.view.state).toBe("idle");
    expect(d.holderEvents()[0]).toMatchObject({ state: "idle", token: null, deadlineUs: null, event: "start", leaseName: "L" });
    d.runTo(99_999);
    expect(d.ctx.sends).toHaveLength(0);
    d.runTo(100_000);
    const g = d.last("ClientWrite");
    expect(g.at).toBe(100_000);
    expect(SERVERS).toContain(g.to);
    expect(g.payload).toEqual({
      type: "ClientWrite",
      clientId: "h1.1",
      seq: 1,
      op: { type: "grant", name: "L", holder: "h1", ttlMs: 3000 },
    });
    expect(d.view.state).toBe("requesting.sending");
  });

  it("a grant moves it to holding, with a deadline timed from the send and shortened by the drift margin", () => {
    const d = holding();
    const v = d.view;
    expect(v.top).toBe("holding");
    expect(v.state).toBe("holding.waiting");
    expect(v.token).toBe(7);
    expect(v.ttlMs).toBe(3000);
    // Sent at 100 ms, TTL 3 s, margin 10 000 ppm (1%): 100 ms + 2.97 s, not the 130 ms the reply came at.
    expect(v.deadlineUs).toBe(3_070_000);
    expect(v.nominalEndUs).toBe(3_100_000);
    expect(v.renewAtUs).toBe(1_100_000);
    const last = d.holderEvents().at(-1);
    expect(last).toEqual({
      kind: "holder",
      state: v.state,
      leaseName: "L",
      token: 7,
      deadlineUs: 3_070_000,
      event: "GRANTED",
      at: 130_000,
    });
  });

  it("reuses the sequence number on retries and times the lease from the first send (the grant may be a cached answer)", () => {
    const d = holder();
    d.runTo(2_000_000);
    const grants = d.sent("ClientWrite");
    expect(grants.length).toBeGreaterThan(3);
    expect(new Set(grants.map((g) => g.payload.seq))).toEqual(new Set([1]));
    const g = grants[2] as Sent;
    d.deliver(g.to, granted(1, 7));
    expect(d.view.deadlineUs).toBe(100_000 + 2_970_000);
  });

  it("follows a leader hint at once, and without one backs off and tries the server after the one that refused", () => {
    const d = holder();
    d.runTo(100_000);
    const first = d.last("ClientWrite");
    const other = SERVERS.find((s) => s !== first.to) as string;
    d.deliver(first.to, { type: "ClientReply", seq: 1, ok: false, leaderHint: other });
    const second = d.last("ClientWrite");
    expect(second.at).toBe(100_000);
    expect(second.to).toBe(other);
    expect(second.payload.seq).toBe(1);

    d.runTo(110_000);
    d.deliver(other, { type: "ClientReply", seq: 1, ok: false, leaderHint: null });
    expect(d.sent("ClientWrite")).toHaveLength(2);
    expect(d.view.state).toBe("requesting.backoff");
    d.runTo(110_000 + 50_000);
    const third = d.last("ClientWrite");
    const after = SERVERS[(SERVERS.indexOf(other as (typeof SERVERS)[number]) + 1) % 3];
    expect(third.to).toBe(after);
    expect(third.at).toBeGreaterThan(110_000 + 50_000 * (1 - BACKOFF_JITTER) - 1);
    expect(third.payload.seq).toBe(1);
    expect(d.view.target).toBe(after);
  });

  it("treats a server that names itself as leader like no hint (no redirect loop)", () => {
    const d = holder();
    d.runTo(100_000);
    const first = d.last("ClientWrite");
    d.deliver(first.to, { type: "ClientReply", seq: 1, ok: false, leaderHint: first.to });
    expect(d.sent("ClientWrite")).toHaveLength(1);
    expect(d.view.state).toBe("requesting.backoff");
  });

  it("backs off on silence: doubling from retryBackoffMinMs, capped at retryBackoffMaxMs, jittered, cycling through the servers", () => {
    const d = holder();
    d.runTo(5_000_000);
    const sends = d.sent("ClientWrite");
    const gaps = sends.slice(1).map((s, i) => s.at - (sends[i] as Sent).at - 200_000);
    const bases = [50, 100, 200, 400, 400, 400, 400].map((ms) => ms * 1000);
    for (const [i, base] of bases.entries()) {
      expect(gaps[i]).toBeLessThanOrEqual(base);
      expect(gaps[i]).toBeGreaterThanOrEqual(Math.floor(base * (1 - BACKOFF_JITTER)));
    }
    // Each timeout moves on to the next server.
    const start = SERVERS.indexOf(sends[0]?.to as (typeof SERVERS)[number]);
    sends.slice(0, 6).forEach((s, i) => {
      expect(s.to).toBe(SERVERS[(start + i) % 3]);
    });
    expect(backoffMs(settings(), 1, 0)).toBe(50);
    expect(backoffMs(settings(), 3, 0)).toBe(200);
    expect(backoffMs(settings(), 40, 0)).toBe(400);
    expect(backoffMs(settings(), 4, 0.999)).toBeCloseTo(400 * (1 - BACKOFF_JITTER * 0.999));
  });

  it("after a denial waits acquireRetryMs and asks again with a new sequence number", () => {
    const d = holder();
    d.runTo(120_000);
    const g = d.last("ClientWrite");
    d.deliver(g.to, { type: "ClientReply", seq: 1, ok: true, result: { kind: "denied", name: "L", reason: "held", holder: "h2" } });
    expect(d.view.state).toBe("requesting.denied");
    d.runTo(619_999);
    expect(d.sent("ClientWrite")).toHaveLength(1);
    d.runTo(620_000);
    const again = d.last("ClientWrite");
    expect(again.at).toBe(620_000);
    expect(again.payload.seq).toBe(2);
    expect(again.payload.op).toMatchObject({ type: "grant" });
  });

  it("ignores replies to other requests", () => {
    const d = holder();
    d.runTo(120_000);
    const g = d.last("ClientWrite");
    d.deliver(g.to, granted(99, 7));
    expect(d.view.top).toBe("requesting");
    d.deliver(g.to, {
      type: "ClientReply",
      seq: 1,
      ok: true,
      result: { kind: "granted", name: "other", token: 3, ttlMs: 3000, transitions: 0 },
    });
    expect(d.view.top).toBe("requesting");
    d.deliver(g.to, granted(1, 7));
    expect(d.view.top).toBe("holding");
    // A duplicate of the same reply changes nothing.
    const events = d.holderEvents().length;
    d.deliver(g.to, granted(1, 7));
    expect(d.holderEvents()).toHaveLength(events);
  });
});

describe("LeaseHolder: renewing", () => {
  it("renews at the renew fraction of the TTL after the send, and times the new deadline from the refresh's send", () => {
    const d = holding();
    const target = d.view.target as string;
    d.runTo(1_099_999);
    expect(d.sent("LeaseRefresh")).toHaveLength(0);
    d.runTo(1_100_000);
    const r = d.last("LeaseRefresh");
    expect(r.to).toBe(target);
    expect(r.payload).toEqual({ type: "LeaseRefresh", name: "L", holder: "h1", token: 7, reqId: 1 });
    expect(d.view.state).toBe("holding.renewing");
    d.runTo(1_150_000);
    d.deliver(target, renewed(1));
    expect(d.view.deadlineUs).toBe(1_100_000 + 2_970_000);
    expect(d.view.renewAtUs).toBe(2_100_000);
    expect(d.view.state).toBe("holding.waiting");
    d.runTo(2_100_000);
    expect(d.last("LeaseRefresh").payload.reqId).toBe(2);
    expect(d.last("LeaseRefresh").at).toBe(2_100_000);
  });

  it("DHCP rebinding: past rebindFraction of the TTL without a renewal, a refresh goes to every server; not-leader answers to it are ignored", () => {
    // Lease sent at 100 ms, TTL 3 s: renew (T1) at 1.6 s, rebind (T2) from 100 ms + 7/8 x 3 s = 2.725 s.
    const d = holding({ renewFraction: 1 / 2, rebindFraction: 7 / 8, requestTimeoutMs: 100 });
    d.runTo(2_724_999);
    const early = d.sent("LeaseRefresh");
    expect(early.length).toBeGreaterThanOrEqual(2);
    for (const r of early) expect(early.filter((x) => x.payload.reqId === r.payload.reqId)).toHaveLength(1); // one server at a time
    // Step until the first refresh round after T2 (before the lease's nominal end at 3.1 s).
    let late = d.sent("LeaseRefresh", 2_724_999);
    let round = late[0];
    for (let t = 2_725_000; round === undefined && t < 3_100_000; t += 5_000) {
      d.runTo(t);
      late = d.sent("LeaseRefresh", 2_724_999);
      round = late[0];
    }
    if (round === undefined) throw new Error("no refresh after T2");
    expect(
      late
        .filter((x) => x.payload.reqId === round.payload.reqId)
        .map((r) => r.to)
        .sort(),
    ).toEqual([...SERVERS]);
    // Followers say "not leader": that changes nothing. The leader's yes renews.
    const stateBefore = d.view.state;
    const attempts = d.sent("LeaseRefresh").length;
    d.deliver("n1", {
      type: "LeaseRefreshReply",
      reqId: round.payload.reqId,
      name: "L",
      ok: false,
      reason: "not-leader",
      leaderHint: null,
    });
    d.deliver("n2", {
      type: "LeaseRefreshReply",
      reqId: round.payload.reqId,
      name: "L",
      ok: false,
      reason: "not-leader",
      leaderHint: "n3",
    });
    expect(d.view.state).toBe(stateBefore);
    expect(d.sent("LeaseRefresh")).toHaveLength(attempts);
    d.deliver("n3", renewed(round.payload.reqId));
    expect(d.view.state).toBe("holding.waiting");
    expect(d.view.deadlineUs).toBe(round.at + 2_970_000);
  });

  it("spreads renewals by renewJitter, deterministically per seed", () => {
    const times = [1, 2, 3, 4, 5, 6, 7, 8].map((seed) => holding({ renewJitter: 0.2 }, seed).view.renewAtUs as number);
    for (const t of times) {
      expect(t).toBeGreaterThanOrEqual(100_000 + 800_000);
      expect(t).toBeLessThanOrEqual(100_000 + 1_200_000);
    }
    expect(new Set(times).size).toBeGreaterThan(1);
    expect(holding({ renewJitter: 0.2 }, 3).view.renewAtUs).toBe(times[2]);
  });

  it("follows a not-leader hint for refreshes; an older refresh's redirect is out of date", () => {
    const d = holding();
    d.runTo(1_100_000);
    const r1 = d.last("LeaseRefresh");
    const other = SERVERS.find((s) => s !== r1.to) as string;
    d.deliver(r1.to, { type: "LeaseRefreshReply", reqId: 1, name: "L", ok: false, reason: "not-leader", leaderHint: other });
    const r2 = d.last("LeaseRefresh");
    expect(r2.at).toBe(1_100_000);
    expect(r2.to).toBe(other);
    expect(r2.payload.reqId).toBe(2);
    d.deliver(r1.to, { type: "LeaseRefreshReply", reqId: 1, name: "L", ok: false, reason: "not-leader", leaderHint: r1.to });
    expect(d.sent("LeaseRefresh")).toHaveLength(2);
    d.runTo(1_120_000);
    d.deliver(other, renewed(2));
    expect(d.view.state).toBe("holding.waiting");
    expect(d.view.deadlineUs).toBe(1_100_000 + 2_970_000);
  });

  it("a late answer to a refresh that timed out still renews, timed from that refresh's send; duplicates change nothing", () => {
    const d = holding();
    d.runTo(1_320_000);
    expect(d.view.state).toBe("holding.backoff");
    const r1 = d.sent("LeaseRefresh")[0] as Sent;
    d.deliver(r1.to, renewed(1));
    expect(d.view.state).toBe("holding.waiting");
    expect(d.view.deadlineUs).toBe(1_100_000 + 2_970_000);
    const events = d.holderEvents().length;
    d.runTo(1_330_000);
    d.deliver(r1.to, renewed(1));
    expect(d.view.deadlineUs).toBe(1_100_000 + 2_970_000);
    expect(d.holderEvents().filter((e) => e.event === "RENEWED")).toHaveLength(1);
    expect(d.holderEvents().length).toBeGreaterThanOrEqual(events);
  });

  it("a refresh answered 'expired' means the lease is lost", () => {
    const d = holding();
    d.runTo(1_100_000);
    const r = d.last("LeaseRefresh");
    d.deliver(r.to, { type: "LeaseRefreshReply", reqId: 1, name: "L", ok: false, reason: "expired", leaderHint: null });
    expect(d.view.state).toBe("lost");
    expect(d.view.token).toBeNull();
    expect(d.holderEvents().at(-1)).toMatchObject({ state: "lost", token: null, deadlineUs: null, event: "REFRESH_LOST" });
  });
});

describe("LeaseHolder: jeopardy, grace and loss", () => {
  it("enters jeopardy at its deadline when no renewal lands, stops writing, keeps refreshing, and is lost at the nominal end", () => {
    const d = holding();
    d.runTo(3_069_999);
    expect(d.view.top).toBe("holding");
    const writesBefore = d.sent("StorageWrite");
    expect(writesBefore.length).toBeGreaterThan(5);
    d.runTo(3_070_000);
    expect(d.view.state).toBe("jeopardy.renewing");
    expect(d.holderEvents().at(-1)).toMatchObject({
      state: "jeopardy.renewing",
      token: 7,
      deadlineUs: 3_070_000,
      event: "after:untilDeadline",
    });
    d.runTo(3_099_999);
    expect(d.sent("LeaseRefresh", 3_069_999).length).toBeGreaterThan(0);
    // Every write followed a check made before the deadline.
    for (const w of d.sent("StorageWrite")) expect(w.at - 20_000).toBeLessThan(3_070_000);
    expect(d.sent("StorageWrite")).toHaveLength(writesBefore.length);

    d.runTo(3_100_000);
    expect(d.view.state).toBe("lost");
    expect(d.view.token).toBeNull();
    expect(d.holderEvents().at(-1)?.event).toBe("after:untilNominalEnd");
    // lost -> requesting again after acquireRetryMs: a new grant, a new sequence number.
    d.runTo(3_600_000);
    expect(d.view.top).toBe("requesting");
    expect(d.last("ClientWrite").payload).toMatchObject({ seq: 2, op: { type: "grant" } });
    expect(d.sent("StorageWrite")).toHaveLength(writesBefore.length);
  });

  it("rides through in grace: a renewal that lands after the nominal end brings it back to holding", () => {
    const d = holding({ gracePeriodMs: 2000 });
    d.runTo(3_100_000);
    expect(d.view.state).toBe("grace.renewing");
    d.runTo(3_500_000);
    expect(d.view.top).toBe("grace");
    const r = d.last("LeaseRefresh");
    const writes = d.sent("StorageWrite").length;
    d.deliver(r.to, renewed(r.payload.reqId));
    expect(d.view.top).toBe("holding");
    expect(d.view.deadlineUs).toBe(r.at + 2_970_000);
    expect(d.holderEvents().at(-1)).toMatchObject({ token: 7, event: "RENEWED" });
    d.runTo(4_000_000);
    const resumed = d.sent("StorageWrite");
    expect(resumed.length).toBeGreaterThan(writes);
    expect(resumed.at(-1)?.payload.token).toBe(7);
  });

  it("is lost when the grace period ends without a renewal", () => {
    const d = holding({ gracePeriodMs: 2000 });
    d.runTo(5_099_999);
    expect(d.view.top).toBe("grace");
    expect(d.view.graceEndUs).toBe(5_100_000);
    d.runTo(5_100_000);
    expect(d.view.state).toBe("lost");
  });
});

describe("LeaseHolder: the work loop and the GC pause", () => {
  it("checks every workIntervalMs and writes workGapMs later with its token", () => {
    const d = holding();
    d.runTo(1_000_000);
    const writes = d.sent("StorageWrite");
    expect(writes.map((w) => w.at)).toEqual([400_000, 650_000, 900_000]);
    expect(writes[0]).toEqual({
      at: 400_000,
      to: "s1",
      payload: { type: "StorageWrite", reqId: 1, resource: "R", holder: "h1", token: 7, value: "h1#1" },
    });
    expect(writes.map((w) => w.payload.reqId)).toEqual([1, 2, 3]);
    d.deliver("s1", { type: "StorageReply", reqId: 1, resource: "R", accepted: true, highest: 7 });
    d.deliver("s1", { type: "StorageReply", reqId: 2, resource: "R", accepted: false, reason: "stale-token", highest: 9 });
    expect(d.h.storageResults.map((r) => [r.reqId, r.token, r.accepted, r.highest])).toEqual([
      [1, 7, true, 7],
      [2, 7, false, 9],
    ]);
    // Storage answers do not move the statechart.
    expect(d.view.top).toBe("holding");
    expect(d.view.storageRejected).toBe(1);
  });

  it("armGcPause pauses right after the next successful check; the write goes out after the pause with the old token and is fenced off", () => {
    const d = holding();
    d.runTo(200_000);
    d.h.armGcPause(5_000_000);
    expect(d.view.gcPauseArmedUs).toBe(5_000_000);
    d.runTo(380_000);
    expect(d.ctx.pauses).toEqual([{ at: 380_000, durationUs: 5_000_000 }]);
    expect(d.view.gcPauseArmedUs).toBeNull();
    expect(d.sent("StorageWrite")).toHaveLength(0);

    d.runTo(6_000_000);
    const late = d.sent("StorageWrite")[0];
    expect(late?.at).toBe(5_380_000);
    expect(late?.payload.token).toBe(7);
    // Its own deadline had long passed: the check came before the pause, nothing checked after it.
    expect(late?.at).toBeGreaterThan(3_070_000);
    expect(d.sent("StorageWrite")).toHaveLength(1);
    expect(d.view.top).not.toBe("holding");

    // Meanwhile h2 got the lease (token 9) and wrote: fenced storage rejects the late write,
    // an efficiency lock lets it through.
    const fenced = new FencedStorage("s1", { fencing: true });
    const unfenced = new FencedStorage("s1", { fencing: false });
    const sctx = new FakeCtx();
    const h2: StorageWrite = { type: "StorageWrite", reqId: 1, resource: "R", holder: "h2", token: 9, value: "h2#1" };
    for (const s of [fenced, unfenced]) {
      s.onMessage(sctx, "h2", h2);
      s.onMessage(sctx, "h1", late?.payload as StorageWrite);
    }
    expect(fenced.log.at(-1)).toMatchObject({ holder: "h1", token: 7, accepted: false, reason: "stale-token", highestAfter: 9 });
    expect(unfenced.log.at(-1)).toMatchObject({ holder: "h1", token: 7, accepted: true, highestAfter: 9 });
  });

  it("freezes at once: with no gap the write still waits for the end of the pause", () => {
    const d = holding({ workGapMs: 0 });
    d.h.armGcPause(1_000_000);
    d.runTo(380_000);
    expect(d.ctx.pauses).toEqual([{ at: 380_000, durationUs: 1_000_000 }]);
    expect(d.sent("StorageWrite")).toHaveLength(0);
    d.runTo(1_380_000);
    // The write checked before the pause, then (the lease still valid) a fresh check and its write.
    expect(d.sent("StorageWrite").map((w) => [w.at, w.payload.reqId])).toEqual([
      [1_380_000, 1],
      [1_380_000, 2],
    ]);
  });

  it("a write checked in holding still goes out after the state has moved on", () => {
    // Checks at 130 ms + k x 250 ms; the one at 2.88 s is valid, its write is due 200 ms later,
    // after the deadline (3.07 s) moved the holder to jeopardy.
    const d = holding({ workGapMs: 200 });
    d.runTo(3_070_000);
    expect(d.view.top).toBe("jeopardy");
    const before = d.sent("StorageWrite").length;
    d.runTo(3_080_000);
    const late = d.sent("StorageWrite").slice(before);
    expect(late.map((w) => [w.at, w.payload.token])).toEqual([[3_080_000, 7]]);
    expect(d.view.top).toBe("jeopardy");
    // And nothing checks again while not holding.
    d.runTo(3_099_999);
    expect(d.sent("StorageWrite")).toHaveLength(before + 1);
    expect(d.h.work.phase).toBe("off");
  });

  it("checks validity against its own deadline: a check that comes late, after the deadline, does not write", () => {
    const d = holding();
    // The clock jumps past the deadline, 3.07 s (as after a pause): the overdue check, due at 380 ms, fires first.
    d.ctx.now = 3_080_000;
    d.h.onTimer(d.ctx);
    expect(d.h.work.checks).toBe(1);
    expect(d.h.work.lastCheckUs).toBe(3_080_000);
    expect(d.sent("StorageWrite")).toHaveLength(0);
    expect(d.view.top).toBe("jeopardy");
  });

  it("keeps its period from check to check across jeopardy and back to holding", () => {
    const d = holding();
    d.runTo(3_070_000);
    expect(d.view.top).toBe("jeopardy");
    // The last check was at 2.88 s (130 ms + 11 x 250 ms).
    expect(d.h.work.lastCheckUs).toBe(2_880_000);
    d.runTo(3_090_000);
    const r = d.last("LeaseRefresh");
    d.deliver(r.to, renewed(r.payload.reqId));
    expect(d.view.top).toBe("holding");
    // The next check was due at 3.13 s: it comes at 3.13 s, then every 250 ms from there.
    d.runTo(3_600_000);
    expect(d.sent("StorageWrite", 3_070_000).map((w) => w.at)).toEqual([3_150_000, 3_400_000]);
  });

  it("does not pause on a failed check", () => {
    const d = holding();
    d.h.armGcPause(1_000_000);
    d.runTo(300_000);
    expect(() => d.h.armGcPause(0)).toThrow();
    expect(d.ctx.pauses).toHaveLength(0);
  });
});

describe("LeaseHolder: releasing and registering", () => {
  it("release() revokes the lease it holds and ends released for good", () => {
    const d = holding();
    d.runTo(500_000);
    d.h.release(d.ctx);
    expect(d.view.state).toBe("releasing.sending");
    const rv = d.last("ClientWrite");
    expect(rv.payload).toEqual({
      type: "ClientWrite",
      clientId: "h1.1",
      seq: 2,
      op: { type: "revoke", name: "L", holder: "h1", token: 7 },
    });
    d.runTo(520_000);
    d.deliver(rv.to, { type: "ClientReply", seq: 2, ok: true, result: { kind: "revoked", name: "L", token: 7 } });
    expect(d.view.state).toBe("released");
    expect(d.view.token).toBeNull();
    const sends = d.ctx.sends.length;
    d.runTo(30_000_000);
    expect(d.ctx.sends).toHaveLength(sends);
    expect(d.h.nextDeadline()).toBeNull();
  });

  it("holdForMs releases by itself after holding that long, across renewals", () => {
    const d = holding({ holdForMs: 1500 });
    d.runTo(1_100_000);
    const r = d.last("LeaseRefresh");
    d.deliver(r.to, renewed(1));
    d.runTo(1_629_999);
    expect(d.view.top).toBe("holding");
    d.runTo(1_630_000);
    expect(d.view.top).toBe("releasing");
    expect(d.last("ClientWrite").payload.op).toEqual({ type: "revoke", name: "L", holder: "h1", token: 7 });
  });

  it("gives up a revoke nobody answers after a bounded number of tries", () => {
    const d = holding();
    d.h.release(d.ctx);
    d.runTo(20_000_000);
    const revokes = d.sent("ClientWrite").filter((s) => s.payload.op.type === "revoke");
    expect(revokes).toHaveLength(MAX_WRITE_ATTEMPTS);
    expect(new Set(revokes.map((s) => s.payload.seq)).size).toBe(1);
    expect(d.view.state).toBe("released");
  });

  it("release() before it holds anything just stops", () => {
    const d = holder();
    d.runTo(100_000);
    d.h.release(d.ctx);
    expect(d.view.state).toBe("released");
    d.runTo(10_000_000);
    expect(d.sent("ClientWrite")).toHaveLength(1);
  });

  it("registerKey writes /holders/<id> attached to the lease once per grant", () => {
    const d = holding({ registerKey: true });
    const put = d.last("ClientWrite");
    expect(put.at).toBe(130_000);
    expect(put.payload).toEqual({
      type: "ClientWrite",
      clientId: "h1.1",
      seq: 2,
      op: { type: "put", key: "/holders/h1", value: "h1", lease: "L" },
    });
    // The registration is process code beside the statechart, like the work loop.
    expect(d.view.state).toBe("holding.waiting");
    expect(d.h.registration).toMatchObject({ phase: "sending", written: false, attempts: 1 });
    // Unanswered: retried with the same sequence number.
    d.runTo(400_000);
    const puts = d.sent("ClientWrite").filter((s) => s.payload.op.type === "put");
    expect(puts).toHaveLength(2);
    expect(puts[1]?.payload.seq).toBe(2);
    d.deliver(puts[1]?.to as string, { type: "ClientReply", seq: 2, ok: true, result: { kind: "kv", value: "h1" } });
    expect(d.h.registration).toMatchObject({ phase: "done", written: true, attempts: 2 });
    d.runTo(1_100_000);
    d.deliver(d.last("LeaseRefresh").to, renewed(1));
    d.runTo(2_000_000);
    expect(d.sent("ClientWrite").filter((s) => s.payload.op.type === "put")).toHaveLength(2);
  });
});

describe("LeaseHolder: the key registration (process code while holding)", () => {
  it("follows a hint at once, backs off on a refusal without one, and gives up after MAX_WRITE_ATTEMPTS sends", () => {
    const d = holding({ registerKey: true });
    const put = d.last("ClientWrite");
    const other = SERVERS.find((n) => n !== put.to) as string;
    d.deliver(put.to, { type: "ClientReply", seq: 2, ok: false, leaderHint: other });
    const hinted = d.last("ClientWrite");
    expect(hinted.to).toBe(other);
    expect(hinted.payload.seq).toBe(2);
    expect(d.h.registration).toMatchObject({ phase: "sending", attempts: 2, redirects: 1, failures: 0 });
    d.deliver(other, { type: "ClientReply", seq: 2, ok: false, leaderHint: null });
    expect(d.h.registration).toMatchObject({ phase: "backoff", failures: 1, redirects: 0 });
    expect(d.view.target).toBe(SERVERS[(SERVERS.indexOf(other as (typeof SERVERS)[number]) + 1) % SERVERS.length]);
    // Keep renewing so it stays in holding while the put goes unanswered.
    for (let t = 200_000; t <= 20_000_000; t += 100_000) {
      d.runTo(t);
      const r = d.sent("LeaseRefresh", t - 100_000).at(-1);
      if (r !== undefined) d.deliver(r.to, renewed(r.payload.reqId));
    }
    const puts = d.sent("ClientWrite").filter((s) => s.payload.op.type === "put");
    expect(puts).toHaveLength(MAX_WRITE_ATTEMPTS);
    expect(d.h.registration.phase).toBe("failed");
    expect(d.view.state).toBe("holding.waiting");
  });
});

describe("LeaseHolder: crash, restart, clone", () => {
  it("a crash drops everything volatile; a restart is a new incarnation from idle", () => {
    const d = holding();
    d.runTo(700_000);
    const writes = d.sent("StorageWrite").length;
    d.h.crash();
    expect(d.h.nextDeadline()).toBeNull();
    expect(d.view.state).toBe("down");
    expect(d.view.token).toBeNull();
    d.ctx.now = 1_000_000;
    d.h.start(d.ctx);
    expect(d.view.state).toBe("idle");
    expect(d.view.incarnation).toBe(2);
    d.runTo(1_100_000);
    expect(d.last("ClientWrite").payload).toMatchObject({ clientId: "h1.2", seq: 1, op: { type: "grant" } });
    const g = d.last("ClientWrite");
    d.deliver(g.to, granted(1, 12));
    d.runTo(1_400_000);
    // Storage request ids and values stay unique across incarnations.
    expect(d.last("StorageWrite").payload).toMatchObject({ reqId: writes + 1, token: 12, value: `h1#${writes + 1}` });
  });

  it("a clone is independent: driving it leaves the original untouched", () => {
    const d = holding({ renewJitter: 0.3, registerKey: true });
    d.runTo(1_500_000);
    const before = JSON.stringify({ v: d.view, t: d.h.timers, c: d.h.context, w: d.h.work, r: d.h.storageResults });
    const copy = new Driver(d.h.clone());
    copy.ctx.now = d.now;
    copy.deliver(d.last("LeaseRefresh").to, renewed(1));
    copy.h.armGcPause(1000);
    copy.runTo(9_000_000);
    copy.h.release(copy.ctx);
    copy.h.crash();
    expect(JSON.stringify({ v: d.view, t: d.h.timers, c: d.h.context, w: d.h.work, r: d.h.storageResults })).toBe(before);
    expect(d.view.gcPauseArmedUs).toBeNull();
  });

  it("a clone continues exactly as the original would (state, timers and random stream)", () => {
    const d = holding({ renewJitter: 0.3, registerKey: true }, 42);
    d.runTo(900_000);
    const a = new Driver(d.h.clone());
    const b = new Driver(d.h.clone());
    for (const x of [a, b]) {
      x.ctx.now = d.now;
      x.runTo(1_500_000);
      const r = x.last("LeaseRefresh");
      x.deliver(r.to, renewed(r.payload.reqId));
      x.runTo(20_000_000);
    }
    expect(a.ctx.sends.length).toBeGreaterThan(20);
    expect(JSON.stringify(a.ctx.sends)).toBe(JSON.stringify(b.ctx.sends));
    expect(JSON.stringify(a.ctx.emits)).toBe(JSON.stringify(b.ctx.emits));
    expect(a.view).toEqual(b.view);
    // And the original, driven the same way, does the same.
    d.runTo(1_500_000);
    const r = d.last("LeaseRefresh");
    d.deliver(r.to, renewed(r.payload.reqId));
    d.runTo(20_000_000);
    expect(JSON.stringify(d.ctx.sends.filter((s) => s.at > 900_000))).toBe(JSON.stringify(a.ctx.sends));
  });

  it("emits a holder event only when state, token or deadline change", () => {
    const d = holding({ gracePeriodMs: 1000, registerKey: true });
    d.runTo(10_000_000);
    const evs = d.holderEvents();
    expect(evs.length).toBeGreaterThan(10);
    evs.slice(1).forEach((e, i) => {
      const p = evs[i] as (typeof evs)[number];
      expect([e.state, e.token, e.deadlineUs]).not.toEqual([p.state, p.token, p.deadlineUs]);
    });
    const tops = new Set(evs.map((e) => e.state.split(".")[0]));
    expect([...tops]).toEqual(expect.arrayContaining(["idle", "requesting", "holding", "jeopardy", "grace", "lost"]));
  });
});

describe("holderMachine with pure transition()", () => {
  const cfg = settings();
  const at = (e: { type: string } & Record<string, unknown>, nowUs: number, rand = 0): HolderEvent =>
    ({ ...e, nowUs, rand }) as HolderEvent;

  it("starts idle with one delayed raise, and each after-event leads on", () => {
    const [s0, a0] = initialTransition(holderMachine, { cfg });
    expect(s0.value).toBe("idle");
    expect(a0.map((a) => [a.type, a.params])).toEqual([
      ["xstate.raise", { event: { type: "xstate.after.startDelay.holder.idle" }, id: "xstate.after.startDelay.holder.idle", delay: 100 }],
    ]);
    const [s1, a1] = transition(holderMachine, s0, at({ type: "xstate.after.startDelay.holder.idle" }, 100_000));
    expect(s1.value).toEqual({ requesting: "sending" });
    expect(s1.context).toMatchObject({ attempts: 1, opSentAtUs: 100_000 });
    // The process numbers the operation (newOp) and picks the server.
    expect(a1.map((a) => a.type)).toEqual(["xstate.cancel", "newOp", "sendGrant", "xstate.raise"]);
    expect(a1[0]?.params).toEqual({ sendId: "xstate.after.startDelay.holder.idle" });
    expect(a1[3]?.params).toMatchObject({ id: "xstate.after.requestTimeout.holder.requesting.sending", delay: 200 });

    const [s2, a2] = transition(holderMachine, s1, at({ type: "GRANTED", token: 5, ttlMs: 2000 }, 150_000, 0.5));
    expect(stateString(s2.value)).toBe("holding.waiting");
    expect(s2.context).toMatchObject({ token: 5, deadlineUs: 100_000 + 1_980_000, nominalEndUs: 2_100_000 });
    expect(a2[0]).toMatchObject({ type: "xstate.cancel", params: { sendId: "xstate.after.requestTimeout.holder.requesting.sending" } });
    const delays = Object.fromEntries(
      a2.filter((a) => a.type === "xstate.raise").map((a) => [(a.params as { id: string }).id, (a.params as { delay: number }).delay]),
    );
    expect(delays).toEqual({
      "xstate.after.untilHoldEnd.holder.holding": Number.POSITIVE_INFINITY,
      "xstate.after.untilRenew.holder.holding.waiting": (100_000 + Math.round(2_000_000 / 3) - 150_000) / 1000,
      "xstate.after.untilDeadline.holder.holding.waiting": (2_080_000 - 150_000) / 1000,
    });
    // The work loop and the key registration are the process's: entering holding starts them.
    expect(a2.map((a) => a.type)).toContain("startWork");
    expect(a2.map((a) => a.type)).toContain("startRegister");
  });

  it("starts the work loop on entering holding and stops it on leaving, back from jeopardy too", () => {
    const [s0] = initialTransition(holderMachine, { cfg });
    const [s1] = transition(holderMachine, s0, at({ type: "xstate.after.startDelay.holder.idle" }, 100_000));
    const [s2, a2] = transition(holderMachine, s1, at({ type: "GRANTED", token: 5, ttlMs: 3000 }, 110_000));
    expect(a2.filter((a) => a.type.endsWith("Work")).map((a) => a.type)).toEqual(["startWork"]);
    const [s3, a3] = transition(holderMachine, s2, at({ type: "xstate.after.untilDeadline.holder.holding.waiting" }, 3_070_000));
    expect(s3.value).toEqual({ jeopardy: "renewing" });
    expect(a3.filter((a) => a.type.endsWith("Work")).map((a) => a.type)).toEqual(["stopWork"]);
    const [s4, a4] = transition(holderMachine, s3, at({ type: "RENEWED", reqId: s3.context.reqId, ttlMs: 3000 }, 3_080_000));
    expect(stateString(s4.value)).toBe("holding.waiting");
    expect(a4.filter((a) => a.type.endsWith("Work")).map((a) => a.type)).toEqual(["startWork"]);
    // Renewing inside holding neither stops nor restarts it.
    const [s5, a5] = transition(holderMachine, s4, at({ type: "xstate.after.untilRenew.holder.holding.waiting" }, 4_080_000));
    expect(stateString(s5.value)).toBe("holding.renewing");
    expect(a5.filter((a) => a.type.endsWith("Work"))).toEqual([]);
  });

  it("leaseTimes and stateString", () => {
    expect(leaseTimes(settings({ renewJitter: 0.5 }), 1_000, 1000, 0)).toEqual({
      deadlineUs: 1_000 + 990_000,
      nominalEndUs: 1_001_000,
      renewAtUs: 1_000 + Math.round((1_000_000 / 3) * 0.5),
    });
    expect(stateString("lost")).toBe("lost");
    expect(stateString({ requesting: "backoff" })).toBe("requesting.backoff");
    expect(stateString({ holding: { renewal: "waiting", register: { active: "sending" } } })).toBe(
      "holding.{renewal.waiting,register.active.sending}",
    );
  });
});
