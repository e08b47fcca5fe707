/**
 * Snapshot and restore: a snapshot taken mid-run and continued gives the same trace
 * hash as restoring it (in the same or a fresh simulation) and continuing again, and
 * the same as a run that never stopped, however time is advanced.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ConfigPatch } from "../../src/core/sim/config";
import { ALL_FAULTS, type NemesisConfig } from "../../src/core/sim/nemesis";
import type { Action, Simulation } from "../../src/core/sim/sim";
import { ms, sec } from "../../src/core/sim/time";
import { expectNoViolations, History, makeSim, tag, withSeed } from "./helpers";

const PATCH: ConfigPatch = { clients: { count: 3, workload: "random", keys: 3 } };
const NEMESIS: NemesisConfig = {
  intervalMinUs: ms(50),
  intervalMaxUs: ms(500),
  faults: ALL_FAULTS,
  quietAfterUs: sec(4),
  includeClients: true,
};

/** A compact picture of the state, to compare beyond the hash. */
function fingerprint(sim: Simulation): string {
  const nodes = sim.nodeIds.map((id) => {
    const n = sim.server(id).node;
    return n === null
      ? `${id}:down`
      : `${id}:${sim.status(id)}:${n.role}@${n.term}:${n.lastIndex}/${n.commitIndex}:${JSON.stringify(sim.server(id).stateMachine?.entries())}`;
  });
  return `${sim.now} ${sim.eventsProcessed} ${sim.pendingEvents} ${sim.violations.length} ${nodes.join(" ")}`;
}

function scheduleAll(sim: Simulation, actions: readonly (readonly [number, Action])[]): void {
  for (const [at, a] of actions) sim.schedule(at, a);
}

const userAction = fc.oneof(
  fc.constantFrom<Action>(
    { type: "crash", proc: "n1" },
    { type: "restart", proc: "n1" },
    { type: "crash", proc: "n3" },
    { type: "restart", proc: "n3" },
    { type: "heal" },
    {
      type: "partition",
      groups: [
        ["n1", "n2"],
        ["n3", "n4", "n5"],
      ],
    },
    { type: "pause", proc: "n2", durationUs: ms(400) },
    { type: "clock", proc: "n4", driftPpm: 50_000 },
    { type: "network", dropRate: 0.1, duplicateRate: 0.05 },
    { type: "submit", client: "c1", op: { write: { type: "append", key: "k1", value: "user;" } } },
    { type: "submit", client: "c2", op: { read: { type: "get", key: "k1" } } },
  ),
);

describe("snapshot / restore", () => {
  it("continuing after a snapshot, after restoring it, and without stopping give one trace hash", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.integer({ min: 0, max: sec(5) }),
        fc.integer({ min: 1, max: sec(3) }),
        fc.boolean(),
        fc.array(fc.tuple(fc.integer({ min: 0, max: sec(6) }), userAction), { maxLength: 6 }),
        fc.array(fc.integer({ min: 1, max: ms(700) }), { minLength: 1, maxLength: 20 }),
        (seed, cut, rest, withNemesis, actions, chunks) =>
          withSeed(seed, () => {
            const nemesis = withNemesis ? NEMESIS : undefined;
            const end = cut + rest;
            const a = makeSim(seed, PATCH, nemesis);
            scheduleAll(a, actions);
            a.advanceTo(cut);
            const snap = a.snapshot();
            const atCut = a.traceHash;
            a.advanceTo(end);
            const hashA = a.traceHash;
            const printA = fingerprint(a);

            // Restore into the same simulation and run the same stretch again.
            a.restore(snap);
            expect(a.traceHash, `${tag(a)}: hash right after restore`).toBe(atCut);
            a.advanceTo(end);
            expect(a.traceHash, `${tag(a)}: cut at ${cut}µs, restored in place`).toBe(hashA);
            expect(fingerprint(a), `${tag(a)}: state after restore in place`).toBe(printA);

            // Restore into a fresh simulation (the snapshot stays reusable).
            const b = makeSim(seed, PATCH, nemesis);
            b.restore(snap);
            b.advanceTo(end);
            expect(b.traceHash, `${tag(b)}: cut at ${cut}µs, restored in a fresh simulation`).toBe(hashA);
            expect(fingerprint(b), `${tag(b)}: state after restore in a fresh simulation`).toBe(printA);

            // A run that never stopped, advanced in uneven chunks, reaches the same hash.
            const c = makeSim(seed, PATCH, nemesis);
            scheduleAll(c, actions);
            let i = 0;
            while (c.now < end) c.advanceTo(Math.min(end, c.now + (chunks[i++ % chunks.length] as number)));
            expect(c.traceHash, `${tag(c)}: uninterrupted run in ${i} chunks`).toBe(hashA);
            expect(fingerprint(c), `${tag(c)}: state of the uninterrupted run`).toBe(printA);

            for (const s of [a, b, c]) expectNoViolations(s);
          }),
      ),
      { numRuns: Number(process.env.SNAPSHOT_RUNS ?? 25) },
    );
  });

  it("a restored snapshot is independent of the run it came from", () =>
    withSeed(77, () => {
      const sim = makeSim(77, PATCH, NEMESIS);
      const hist = new History(sim);
      sim.advanceTo(sec(3));
      const snap = sim.snapshot();
      const okAtCut = hist.count("ok");
      sim.advanceTo(sec(8));
      const hash = sim.traceHash;
      const print = fingerprint(sim);
      // Mutating the live simulation after the snapshot must not leak into it.
      sim.act({ type: "crash", proc: "n1" });
      sim.act({ type: "partition", groups: [["n2"], ["n3", "n4", "n5"]] });
      sim.advanceTo(sec(9));
      for (let round = 0; round < 3; round++) {
        sim.restore(snap);
        expect(sim.now, `${tag(sim)}: time after restore`).toBe(sec(3));
        sim.advanceTo(sec(8));
        expect(sim.traceHash, `${tag(sim)}: hash after restore #${round + 1}`).toBe(hash);
        expect(fingerprint(sim), `${tag(sim)}: state after restore #${round + 1}`).toBe(print);
      }
      expect(hist.count("ok"), `${tag(sim)}: the history listener kept running`).toBeGreaterThan(okAtCut);
      expectNoViolations(sim);
    }));
});
