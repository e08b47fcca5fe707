/**
 * Live runs: the router's network model against the simulator's, and the replay of a recording
 * against the live run that made it (every process's state digest the same at the end).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeDurable, encodeDurable, NOT_STATE, stateDigest, throughDisk } from "../../src/core/live/durable";
import { type LiveMessage, LiveProcess } from "../../src/core/live/process";
import { ReplaySimulation } from "../../src/core/live/replay";
import { LiveRouter } from "../../src/core/live/router";
import type { LiveRecording, ScriptItem } from "../../src/core/live/recording";
import { Timeline } from "../../src/core/replay/timeline";
import { formatInstant } from "../../src/core/sim/time";
import { Simulation } from "../../src/core/sim/sim";
import type { TraceEvent } from "../../src/core/sim/trace";
import { LiveHarness } from "../support/liveHarness";
import { faultyRun, liveConfig as config } from "../support/liveRuns";

/** Replays a recording whole: null when it is the live run again (no divergence, every digest the same), else what is not. */
function notExact(rec: LiveRecording): string | null {
  const replay = new ReplaySimulation(rec.config, rec);
  replay.advanceTo(rec.endAt);
  const problems = replay.violations.filter((v) => v.invariant === "assertion").map((v) => v.detail);
  if (problems.length > 0) return problems.join("; ");
  const digests = replay.digests();
  const differ = Object.keys(digests).filter((id) => digests[id] !== rec.digests[id]);
  return differ.length === 0 ? null : `digests differ: ${differ.map((id) => `${id} ${digests[id]} replayed, ${rec.digests[id]} live`).join("; ")}`;
}

describe("the router's network model", () => {
  it("gives each message the fate the simulator gives it for the same draws", () => {
    const cfg = config(5, { network: { dropRate: 0.1, duplicateRate: 0.1, latencyMinMs: 1, latencyMaxMs: 30 } });
    const sends: Extract<TraceEvent, { kind: "send" }>[] = [];
    const drops = new Map<number, string>();
    const sim = new Simulation(cfg, undefined, (e) => {
      if (e.kind === "send") sends.push(e);
      if (e.kind === "drop") drops.set(e.id, e.reason);
    });
    sim.advanceTo(3_000_000);
    expect(sends.length).toBeGreaterThan(100);
    // The router, sent the same messages in the same order, draws the same copies, latencies and losses.
    const router = new LiveRouter(cfg);
    const byKey = new Map<string, Extract<TraceEvent, { kind: "send" }>[]>();
    let i = 0;
    for (const s of sends) {
      if (s.dup) {
        byKey.get(String(i - 1))?.push(s);
        continue;
      }
      router.route(s.t, { key: String(i), from: s.from, to: s.to, sentAt: s.t, payload: s.msg });
      byKey.set(String(i++), [s]);
    }
    for (const [key, simCopies] of byKey) {
      expect(router.planOf(key), key).toEqual(simCopies.map((c) => Math.max(c.deliverAt, c.t + 1)));
    }
    // And drops the copies the simulator lost on the way (no partition here: loss is the only fate).
    router.due(10_000_000);
    const recorded = router.takeScript().items.flatMap((x) => (x.proc === null && x.input.kind === "drop" ? [x.input] : []));
    const lost = [...drops.values()].filter((r) => r === "loss").length;
    expect(recorded.filter((d) => d.reason === "loss").length).toBe(lost);
  });

  it("drops a message to a partitioned or dead receiver when it is due, and says why", () => {
    const router = new LiveRouter(config(1));
    expect(router.act(0, { type: "partition", groups: [["n1"], ["n2"]] })).toBeNull();
    router.route(0, { key: "a", from: "n1", to: "n2", sentAt: 0, payload: { type: "TimeoutNow", term: 1 } as never });
    router.route(0, { key: "b", from: "n1", to: "n3", sentAt: 0, payload: { type: "TimeoutNow", term: 1 } as never });
    router.crashed(0, "n3");
    expect(router.due(1_000_000)).toEqual([]);
    const reasons = router.takeScript().items.flatMap((x) => (x.input.kind === "drop" ? [`${x.input.key}:${x.input.reason}`] : []));
    expect(reasons.sort()).toEqual(["a:partition", "b:down"]);
    expect(router.act(0, { type: "partition", groups: [["n1"], ["n1", "n2"]] })).toMatch(/two groups/);
  });
});

describe("threads whose clocks differ (each worker reads its own)", () => {
  it("a kill just after a report, the router's clock behind the worker's: the crash still comes after what the worker reported", () => {
    const router = new LiveRouter(config(3));
    router.report(1_000_000, "n1", 0, [{ at: 1_000_400, kind: "timer" }], []);
    router.crashed(1_000_100, "n1");
    const mine = router.takeScript().items.filter((x) => x.proc === "n1");
    expect(mine.map((x) => x.input.kind)).toEqual(["timer", "crash"]);
    expect(mine[1]?.input.at).toBe(1_000_400);
  });

  it("kills that come right after a report, on threads whose clocks run ahead of the router's, replay exactly", () => {
    // Each seed: a run with threads' clocks up to 3 ms apart; every node is killed at a moment
    // its clock reads ahead of the router's (when it last handled something there).
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), (seed) => {
        const h = new LiveHarness(config(seed), seed, undefined, 3_000);
        let t = 800_000;
        let kills = 0;
        while (kills < 3 && t < 4_000_000) {
          t += 997;
          h.runTo(t);
          for (const [id, w] of h.workers) {
            if (id.startsWith("n") && w.last > h.now && kills < 3) {
              h.crash(id);
              kills++;
            }
          }
        }
        h.runTo(t + 600_000);
        for (const id of h.router.ids) h.restart(id);
        h.runTo(t + 1_500_000);
        const problem = kills === 0 ? "no kill came just after a report" : notExact(h.recording());
        if (problem !== null) throw new Error(`seed ${seed}: ${problem}`);
      }),
      { numRuns: 10, seed: 20261127 },
    );
  });

  it("a message whose sender's clock runs ahead is handled after it was sent, and never before the receiver's last input", () => {
    const p = new LiveProcess(config(4), "n2", 0, null);
    p.boot(0);
    p.takeInputs();
    const msg = (key: string, sentAt: number): LiveMessage => ({ key, copy: 0, from: "n1", to: "n2", sentAt, payload: { type: "TimeoutNow", term: 0 } as never });
    p.message(10_000, msg("a", 12_000));
    p.message(10_500, msg("b", 10_200));
    expect(p.takeInputs().map((i) => i.at)).toEqual([12_001, 12_001]);
  });
});

describe("the recording's limit", () => {
  it("says the recording is full once it holds the most inputs it may", () => {
    const router = new LiveRouter(config(2), 3);
    const send = { key: "k", from: "n1", to: "n2", sentAt: 0, payload: { type: "TimeoutNow", term: 1 } as never };
    router.report(0, "n1", 0, [{ at: 0, kind: "timer" }], []);
    router.report(1, "n2", 0, [{ at: 1, kind: "timer" }], [send]);
    expect(router.full).toBe(false);
    router.report(2, "n1", 0, [{ at: 2, kind: "timer" }], []);
    expect(router.full).toBe(true);
  });
});

describe("a process's disk", () => {
  it("keeps Maps through its written form, and the digest sees every change", () => {
    const h = faultyRun(3, 2_000_000);
    const storage = h.workers.get("s1")?.proc;
    expect(storage).toBeDefined();
    const st = {
      kind: "storage" as const,
      state: { fencing: true, highest: new Map([["r", 3]]), values: new Map([["r", "x"]]), log: [], writes: 1, accepted: 1, rejected: 0 },
    };
    expect(decodeDurable(encodeDurable(st))).toEqual(st);
    expect(stateDigest(throughDisk(st))).toBe(stateDigest(st));
    expect(stateDigest({ ...st, state: { ...st.state, highest: new Map([["r", 4]]) } })).not.toBe(stateDigest(st));
    expect(() => decodeDurable('{"kind":"floppy"}')).toThrow(/not a process's disk/);
  });

  it("digests a state by its value, not by which of its parts are the same object", () => {
    // A request sent twice is one object in the replay (the sender's own) and two copies in a
    // worker (postMessage clones each message): the same state either way.
    const cmd = { op: "put", key: "k1", value: "v", client: "c1", seq: 4 };
    const shared = { log: [{ term: 2, cmd }, { term: 2, cmd }] };
    const copies = { log: [{ term: 2, cmd: { ...cmd } }, { term: 2, cmd: { ...cmd } }] };
    expect(stateDigest(shared)).toBe(stateDigest(copies));
    expect(stateDigest({ a: new Map([["x", cmd]]), b: [cmd] })).toBe(stateDigest({ a: new Map([["x", { ...cmd }]]), b: [{ ...cmd }] }));
    expect(stateDigest(copies)).not.toBe(stateDigest({ log: [{ term: 2, cmd }, { term: 3, cmd }] }));
    // A cycle still ends, and is not the same as the value without it.
    const ring: { next: unknown; n: number } = { next: null, n: 1 };
    ring.next = ring;
    expect(stateDigest(ring)).toMatch(/^[0-9a-f]{16}$/);
    expect(stateDigest(ring)).not.toBe(stateDigest({ next: null, n: 1 }));
  });

  it("every process of a replay digests the same as a copy of it that shares nothing (what a worker holds)", () => {
    /** A deep copy in which every object reached is a copy of its own (prototypes and functions kept, cycles kept as cycles). */
    const unshared = (v: unknown, open = new Map<object, object>()): unknown => {
      if (v === null || typeof v !== "object") return v;
      const seen = open.get(v);
      if (seen !== undefined) return seen;
      let out: object;
      if (Array.isArray(v)) out = [];
      else if (v instanceof Map) out = new Map();
      else if (v instanceof Set) out = new Set();
      else if (ArrayBuffer.isView(v)) return (v as Uint8Array).slice();
      else out = Object.create(Object.getPrototypeOf(v) as object | null) as object;
      open.set(v, out);
      if (Array.isArray(v)) for (const x of v) (out as unknown[]).push(unshared(x, open));
      else if (v instanceof Map) for (const [k, x] of v) (out as Map<unknown, unknown>).set(unshared(k, open), unshared(x, open));
      else if (v instanceof Set) for (const x of v) (out as Set<unknown>).add(unshared(x, open));
      else
        for (const k of Object.keys(v)) {
          const x = (v as Record<string, unknown>)[k];
          // The digest leaves caches out: kept as they are (the statechart's snapshot is a large graph).
          (out as Record<string, unknown>)[k] = NOT_STATE.has(k) ? x : unshared(x, open);
        }
      open.delete(v);
      return out;
    };
    const h = faultyRun(6, 4_000_000);
    const rec = h.recording();
    const replay = new ReplaySimulation(rec.config, rec);
    replay.advanceTo(rec.endAt);
    const procs = replay as unknown as { proc(id: string): { logic: object; clock: object } };
    for (const id of h.router.ids) {
      const p = procs.proc(id);
      expect(stateDigest(unshared({ logic: p.logic, clock: p.clock })), id).toBe(stateDigest({ logic: p.logic, clock: p.clock }));
    }
  });

  it("a restarted node reads its term, vote and log back from it", () => {
    const h = faultyRun(4, 1_500_000);
    const n1 = h.workers.get("n1");
    h.crash("n1");
    const disk = decodeDurable(h.disks.get("n1") as string);
    h.restart("n1");
    const back = h.workers.get("n1")?.proc as LiveProcess;
    expect(back.incarnation).toBe((n1?.proc.incarnation ?? 0) + 1);
    expect(disk.kind).toBe("node");
    const server = back.logic as unknown as { disk: { hard: unknown; log: unknown[] } };
    if (disk.kind === "node") {
      expect(server.disk.hard).toEqual(disk.disk.hard);
      expect(server.disk.log.length).toBe(disk.disk.log.length);
    }
  });
});

describe("the replay of a live run", () => {
  it("ends with every process in the state it ended in live, through kills, pauses, partitions and drift", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), (seed) => {
        const problem = notExact(faultyRun(seed, 6_000_000).recording());
        if (problem !== null) throw new Error(`seed ${seed}: ${problem}`);
      }),
      { numRuns: 12, seed: 20261125 },
    );
  });

  it("ends the same through kills, pauses, partitions and drift, the threads' clocks up to 2 ms apart (each worker reads its own)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), (seed) => {
        const problem = notExact(faultyRun(seed, 6_000_000, { skewUs: 2_000 }).recording());
        if (problem !== null) throw new Error(`seed ${seed}: ${problem}`);
      }),
      { numRuns: 12, seed: 20261127 },
    );
  });

  it("checking every call: each process is, after each input, in the state its worker was in (kills, pauses, partitions, drift)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), (seed) => {
        const rec = faultyRun(seed, 4_000_000, { verify: true, skewUs: 1_000 }).recording();
        const checked = rec.script.filter((x) => x.proc !== null && x.after !== undefined).length;
        const problem = notExact(rec);
        if (checked < 500 || problem !== null) throw new Error(`seed ${seed}: ${checked} calls checked; ${problem ?? "replays exactly"}`);
      }),
      { numRuns: 3, seed: 20261127 },
    );
  });

  it("checking every call: a process whose state differs from its worker's after a call stops the replay at that call, saying which", () => {
    const h = faultyRun(5, 3_000_000, { verify: true });
    const rec = h.recording();
    const i = rec.script.findIndex((x) => x.proc === "n2" && x.input.kind === "timer" && x.input.at > 1_000_000 && x.after !== undefined);
    const item = rec.script[i] as Extract<ScriptItem, { proc: string }>;
    const script = rec.script.slice();
    script[i] = { ...item, after: "0123456789abcdef" };
    const replay = new ReplaySimulation(rec.config, { ...rec, script });
    replay.advanceTo(rec.endAt);
    expect(replay.halted).toBe(true);
    expect(replay.now).toBe(item.input.at);
    expect(replay.violations.map((v) => v.detail)).toEqual([
      expect.stringMatching(new RegExp(`^the replay diverged from the live run: n2's state after its timer at ${formatInstant(item.input.at).replace(".", "\\.")} is not the one its worker had \\(digest [0-9a-f]{16} here, 0123456789abcdef live\\)$`)),
    ]);
  });

  it("plays the same through time travel: snapshots, seeking back and playing again", () => {
    const h = faultyRun(77, 5_000_000);
    const rec = h.recording();
    const tl = new Timeline(new ReplaySimulation(rec.config, rec), [], { snapshotEveryUs: 250_000 });
    tl.advanceTo(rec.endAt);
    const hash = tl.sim.traceHash;
    expect((tl.sim as ReplaySimulation).digests()).toEqual(rec.digests);
    tl.seek(1_700_000);
    tl.advanceTo(rec.endAt);
    expect(tl.sim.traceHash).toBe(hash);
    expect((tl.sim as ReplaySimulation).digests()).toEqual(rec.digests);
  });

  it("grows while it plays: appended in pieces, it plays the same as in one go", () => {
    const h = faultyRun(9, 4_000_000);
    const rec = h.recording();
    const whole = new ReplaySimulation(rec.config, rec);
    whole.advanceTo(rec.endAt);
    const shadow = new ReplaySimulation(rec.config);
    const plans = Object.entries(rec.plans);
    for (let t = 250_000; t <= rec.endAt + 250_000; t += 250_000) {
      shadow.append(
        rec.script.filter((x) => x.input.at > t - 250_000 && x.input.at <= t),
        plans,
      );
      shadow.advanceTo(Math.min(t, rec.endAt));
    }
    expect(shadow.traceHash).toBe(whole.traceHash);
    expect(shadow.digests()).toEqual(rec.digests);
  });

  it("says it diverged when the recording does not fit the run (a live process that sent what the replay does not)", () => {
    const h = faultyRun(12, 2_000_000);
    const rec = h.recording();
    const other = { ...rec, config: { ...rec.config, seed: rec.config.seed + 1 } };
    const replay = new ReplaySimulation(other.config, other);
    replay.advanceTo(rec.endAt);
    expect(replay.halted).toBe(true);
    expect(replay.violations.map((v) => v.detail).join()).toMatch(/diverged from the live run/);
  });

  it("becomes a simulation of its own when the user acts (a what-if from the live run)", () => {
    const h = faultyRun(21, 3_000_000);
    const rec = h.recording();
    const tl = new Timeline(new ReplaySimulation(rec.config, rec));
    tl.advanceTo(1_500_000);
    tl.act({ type: "crash", proc: "n2" });
    tl.advanceTo(4_000_000);
    const sim = tl.sim as ReplaySimulation;
    expect(sim.scripted).toBe(false);
    expect(sim.violations.filter((v) => v.invariant === "assertion")).toEqual([]);
    expect(sim.now).toBe(4_000_000);
  });
});
