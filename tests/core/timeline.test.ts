import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyActionsTo, Timeline } from "../../src/core/replay/timeline";
import type { TimedAction } from "../../src/core/scenario/record";
import { defaultConfig, mergeConfig } from "../../src/core/sim/config";
import { type Action, Simulation } from "../../src/core/sim/sim";

const config = (seed: number) =>
  mergeConfig(defaultConfig(), { seed, clients: { count: 2, workload: "random" }, holders: { count: 3 } });

/** A fresh run of the same actions straight to `t`: the reference every timeline state is compared with. */
function reference(seed: number, actions: readonly TimedAction[], t: number): Simulation {
  const sim = new Simulation(config(seed));
  applyActionsTo(sim, actions, 0, t);
  return sim;
}

const ACTIONS: readonly Action[] = [
  { type: "crash", proc: "leader" },
  { type: "restart", proc: "n1" },
  { type: "pause", proc: "h1", durationUs: 3_000_000 },
  { type: "gc-pause", holder: "h2", durationUs: 4_000_000 },
  { type: "partition", groups: [["n1", "n2"], ["others"]] },
  { type: "heal" },
  { type: "clock", proc: "n3", driftPpm: 50_000 },
  { type: "timeout", proc: "n4" },
  { type: "fencing", on: false },
];

const timed = fc.array(
  fc.record({ at: fc.integer({ min: 0, max: 8_000_000 }), action: fc.constantFrom(...ACTIONS) }),
  { maxLength: 6 },
);

describe("timeline", () => {
  it("seeking anywhere gives exactly the state a fresh run reaches at that time (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), timed, fc.array(fc.integer({ min: 0, max: 10_000_000 }), { minLength: 1, maxLength: 5 }), (seed, raw, seeks) => {
        const actions = raw.slice().sort((a, b) => a.at - b.at);
        const tl = new Timeline(new Simulation(config(seed)), actions, { snapshotEveryUs: 700_000, maxSnapshots: 6 });
        tl.advanceTo(10_000_000);
        for (const t of seeks) {
          tl.seek(t);
          const ref = reference(seed, actions, t);
          expect(tl.now).toBe(t);
          expect(tl.sim.traceHash, `seed ${seed}, seek to ${t}µs`).toBe(ref.traceHash);
          expect(tl.sim.eventsHandled).toBe(ref.eventsHandled);
        }
      }),
      { numRuns: 20, seed: 20261122, verbose: true },
    );
  });

  it("acting with `keep` leaves the kept recorded actions ahead (no new branch when nothing was explored past the cursor)", () => {
    const script: TimedAction[] = [
      { at: 3_000_000, action: { type: "crash", proc: "n1" } },
      { at: 4_000_000, action: { type: "restart", proc: "n1" } },
    ];
    const keep = (a: TimedAction) => script.includes(a);
    const tl = new Timeline(new Simulation(config(4)), script, { snapshotEveryUs: 500_000 });
    tl.advanceTo(1_000_000);
    tl.act({ type: "heal" }, keep);
    expect(tl.branches()).toHaveLength(1);
    expect(tl.actions.map((a) => a.action.type)).toEqual(["heal", "crash", "restart"]);
    tl.advanceTo(5_000_000);
    const straight = reference(4, [{ at: 1_000_000, action: { type: "heal" } }, ...script], 5_000_000);
    expect(tl.sim.traceHash).toBe(straight.traceHash);
    // In the past: a new branch, with the kept actions still ahead and the unkept one gone.
    tl.seek(2_000_000);
    tl.act({ type: "timeout", proc: "n2" }, keep);
    expect(tl.branches()).toHaveLength(2);
    expect(tl.actions.map((a) => a.action.type)).toEqual(["heal", "timeout", "crash", "restart"]);
    // Without `keep`, as before: the future is dropped.
    tl.seek(1_500_000);
    tl.act({ type: "heal" });
    expect(tl.actions.map((a) => a.action.type)).toEqual(["heal", "heal"]);
  });

  it("seekMoment returns to a moment exactly, even one stopped between events due at the same microsecond", () => {
    const actions: TimedAction[] = [{ at: 1_500_000, action: { type: "gc-pause", holder: "h1", durationUs: 2_000_000 } }];
    const tl = new Timeline(new Simulation(config(9)), actions, { snapshotEveryUs: 300_000, maxSnapshots: 8 });
    const moments: { t: number; handled: number; hash: string }[] = [];
    for (const stopAt of [37, 250, 251, 900, 1400]) {
      tl.advanceTo(8_000_000, () => tl.sim.eventsHandled >= stopAt);
      moments.push({ t: tl.now, handled: tl.sim.eventsHandled, hash: tl.sim.traceHash });
    }
    tl.advanceTo(9_000_000);
    moments.push({ t: tl.now, handled: tl.sim.eventsHandled, hash: tl.sim.traceHash });
    for (const m of [...moments].reverse().concat(moments)) {
      tl.seekMoment(m.t, m.handled);
      expect({ t: tl.now, handled: tl.sim.eventsHandled, hash: tl.sim.traceHash }).toEqual(m);
    }
  });

  it("playing in chunks, with snapshots, equals one straight run (and the snapshot count stays bounded)", () => {
    const actions: TimedAction[] = [
      { at: 1_000_000, action: { type: "crash", proc: "leader" } },
      { at: 3_000_017, action: { type: "restart", proc: "n1" } },
    ];
    const tl = new Timeline(new Simulation(config(5)), actions, { snapshotEveryUs: 100_000, maxSnapshots: 8 });
    for (let t = 0; t <= 20_000_000; t += 333_333) tl.advanceTo(t);
    tl.advanceTo(20_000_000);
    expect(tl.sim.traceHash).toBe(reference(5, actions, 20_000_000).traceHash);
    expect(tl.snapshotCount).toBeLessThanOrEqual(8);
    expect(tl.snapshotCount).toBeGreaterThanOrEqual(4);
  });

  it("a memory budget thins snapshots further; seeks stay exact", () => {
    const tl = new Timeline(new Simulation(config(6)), [], {
      snapshotEveryUs: 100_000,
      maxSnapshots: 100,
      maxSnapshotBytes: 8_000,
      snapshotBytes: () => 1_000,
    });
    tl.advanceTo(10_000_000);
    expect(tl.snapshotBytesHeld).toBeLessThanOrEqual(8_000);
    expect(tl.snapshotCount).toBeLessThanOrEqual(8);
    tl.seek(3_210_987);
    expect(tl.sim.traceHash).toBe(reference(6, [], 3_210_987).traceHash);
  });

  it("the memory budget holds for the whole run: other branches give up snapshots first", () => {
    const tl = new Timeline(new Simulation(config(6)), [], {
      snapshotEveryUs: 100_000,
      maxSnapshots: 100,
      maxSnapshotBytes: 30_000,
      snapshotBytes: () => 1_000,
    });
    tl.advanceTo(4_000_000);
    tl.seek(1_000_000);
    tl.act({ type: "heal" });
    tl.advanceTo(8_000_000);
    expect(tl.snapshotBytesHeld).toBeLessThanOrEqual(30_000);
    const [main, branch] = tl.branches();
    // The branch being played keeps more of its snapshots than the one left behind.
    expect(branch?.snapshots).toBeGreaterThan(main?.snapshots ?? 0);
    tl.switchTo(0);
    expect(tl.sim.traceHash).toBe(reference(6, [], 4_000_000).traceHash);
  });

  it("step back undoes exactly one event; stepping forward again gives the same state", () => {
    const tl = new Timeline(new Simulation(config(9)), [], { snapshotEveryUs: 250_000 });
    tl.advanceTo(1_234_567);
    for (let i = 0; i < 5; i++) tl.step();
    const handled = tl.sim.eventsHandled;
    const hash = tl.sim.traceHash;
    const now = tl.now;
    expect(tl.stepBack()).toBe(true);
    expect(tl.sim.eventsHandled).toBe(handled - 1);
    expect(tl.sim.traceHash).not.toBe(hash);
    tl.step();
    expect(tl.sim.eventsHandled).toBe(handled);
    expect(tl.sim.traceHash).toBe(hash);
    expect(tl.now).toBe(now);
  });

  it("step back over a user action undoes the action", () => {
    const tl = new Timeline(new Simulation(config(9)));
    tl.advanceTo(2_000_000);
    const leader = tl.sim.leader() as string;
    expect(leader).not.toBeNull();
    tl.act({ type: "crash", proc: leader });
    expect(tl.sim.status(leader)).toBe("down");
    tl.stepBack();
    expect(tl.sim.status(leader)).toBe("up");
    expect(tl.now).toBeLessThanOrEqual(2_000_000);
  });

  it("acting in the past starts a branch; the old future is kept and can be returned to", () => {
    const tl = new Timeline(new Simulation(config(11)));
    tl.advanceTo(6_000_000);
    const mainHash = tl.sim.traceHash;
    const mainLeader = tl.sim.leader();
    tl.seek(2_500_000);
    expect(tl.end).toBeGreaterThan(tl.now);
    const leader = tl.sim.leader() as string;
    tl.act({ type: "crash", proc: leader });
    expect(tl.branchId).not.toBe(0);
    expect(tl.branches()).toHaveLength(2);
    const branch = tl.branches()[1];
    expect(branch?.forkedAt).toBe(2_500_000);
    expect(branch?.firstAction?.action).toEqual({ type: "crash", proc: leader });
    tl.advanceTo(6_000_000);
    const branchHash = tl.sim.traceHash;
    expect(branchHash).not.toBe(mainHash);
    // Back to main, at its end: exactly the state it was left in.
    tl.switchTo(0);
    expect(tl.now).toBe(6_000_000);
    expect(tl.sim.traceHash).toBe(mainHash);
    expect(tl.sim.leader()).toBe(mainLeader);
    // And to the branch again.
    tl.switchTo(branch?.id as number);
    expect(tl.sim.traceHash).toBe(branchHash);
    // The branch replays like a fresh run of its own actions.
    expect(branchHash).toBe(reference(11, tl.actions, 6_000_000).traceHash);
  });

  it("acting at the end of the branch appends, without a new branch", () => {
    const tl = new Timeline(new Simulation(config(2)));
    tl.advanceTo(1_000_000);
    tl.act({ type: "pause", proc: "h1", durationUs: 1_000_000 });
    tl.advanceTo(2_000_000);
    tl.act({ type: "heal" });
    expect(tl.branches()).toHaveLength(1);
    expect(tl.actions.map((a) => a.at)).toEqual([1_000_000, 2_000_000]);
  });

  it("markers: elections, expiries, rejections; kept per branch up to the fork", () => {
    const tl = new Timeline(new Simulation(config(13)), [{ at: 2_000_000, action: { type: "gc-pause", holder: "h1", durationUs: 5_000_000 } }]);
    tl.advanceTo(10_000_000);
    const kinds = new Set(tl.markers.map((m) => m.kind));
    expect(kinds.has("election")).toBe(true);
    expect(kinds.has("expiry")).toBe(true);
    // One marker per expire entry, though every node applies it.
    const expiries = tl.markers.filter((m) => m.kind === "expiry");
    expect(new Set(expiries.map((m) => m.index)).size).toBe(expiries.length);
    const count = tl.markers.length;
    // Seeking back and playing again adds no duplicates.
    tl.seek(1_000_000);
    tl.advanceTo(10_000_000);
    expect(tl.markers.length).toBe(count);
    const firstElection = tl.markers.find((m) => m.kind === "election");
    tl.seek(1_000_000);
    tl.act({ type: "heal" });
    expect(tl.markers.every((m) => m.t <= 1_000_000)).toBe(true);
    expect(tl.markers[0]).toEqual(firstElection);
  });

  it("the bytes held are each snapshot and each shared part counted once, however the snapshots were thinned, forked and forgotten (property)", () => {
    // A companion whose saved states share parts: every fourth one starts a new part, and the others hold it too.
    let part = { bytes: 500 };
    let saves = 0;
    const companion = {
      save: () => {
        if (saves++ % 4 === 0) part = { bytes: 500 + saves };
        return { part, own: 100 + (saves % 7) };
      },
      load: () => {},
      savedBytes: (s: unknown) => {
        const x = s as { part: { bytes: number }; own: number };
        return { own: x.own, shared: [x.part] };
      },
    };
    /** The count walked from scratch, as the timeline did it before it kept a running total. */
    const walked = (tl: Timeline): number => {
      const branches = (tl as unknown as { branchList: { snaps: { bytes: number; shared: { bytes: number }[] }[] }[] }).branchList;
      const seen = new Set<unknown>();
      const parts = new Set<unknown>();
      let n = 0;
      for (const b of branches) {
        for (const s of b.snaps) {
          if (seen.has(s)) continue;
          seen.add(s);
          n += s.bytes;
          for (const p of s.shared) {
            if (parts.has(p)) continue;
            parts.add(p);
            n += p.bytes;
          }
        }
      }
      return n;
    };
    fc.assert(
      fc.property(fc.array(fc.record({ back: fc.integer({ min: 0, max: 3_000_000 }), on: fc.integer({ min: 100_000, max: 2_000_000 }) }), { minLength: 1, maxLength: 8 }), (moves) => {
        const tl = new Timeline(new Simulation(config(3)), [], {
          snapshotEveryUs: 100_000,
          maxSnapshots: 12,
          maxSnapshotBytes: 9_000,
          maxBranches: 3,
          snapshotBytes: () => 1_000,
          companion,
        });
        for (const m of moves) {
          tl.seek(Math.max(0, tl.now - m.back));
          tl.act({ type: "heal" });
          tl.advanceTo(tl.now + m.on);
          expect(tl.snapshotBytesHeld).toBe(walked(tl));
        }
      }),
      { numRuns: 15 },
    );
  });
});
