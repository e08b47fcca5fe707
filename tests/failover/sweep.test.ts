import { describe, expect, it } from "vitest";
import { runScenario } from "../../src/core/scenario/runner";
import type { Scenario } from "../../src/core/scenario/schema";
import { loadScenario } from "../support/scenarios";
import { reproduce, sweeps } from "../support/sweeps";

const SEEDS = 150;
const FILE = "failover-sweep.json";

/** Runs the sweep; counts failovers (a replica becoming primary after another) and replicas taking themselves offline. */
function sweep(s: Scenario) {
  const bad: string[] = [];
  const twoPrimaries: number[] = [];
  let failovers = 0;
  let offline = 0;
  let bounds = 0;
  for (let seed = 1; seed <= SEEDS; seed++) {
    let last: string | null = null;
    const r = runScenario(s, {
      seed,
      onTrace: (e) => {
        if (e.kind !== "replica") return;
        if (e.role === "offline") offline++;
        if (e.role !== "primary") return;
        if (last !== null && last !== e.proc) failovers++;
        last = e.proc;
      },
    });
    if (r.boundsBroken.length > 0) bounds++;
    if (r.violations.some((v) => v.invariant === "two-primaries")) twoPrimaries.push(seed);
    // A broken clock bound excuses two primaries and their interleaved writes, nothing else.
    const excused = (inv: string) => r.boundsBroken.length > 0 && (inv === "two-primaries" || inv === "storage-corruption");
    for (const v of r.violations) if (!excused(v.invariant)) bad.push(`seed ${seed}: ${v.invariant}: ${v.detail} (${reproduce(FILE, seed)})`);
  }
  return { bad, twoPrimaries, failovers, offline, bounds };
}

describe("random nemesis sweep with database replicas, their watchdog on, and no fencing", () => {
  it(`${SEEDS} seeds: failovers happen, replicas take themselves offline, and never two primaries at once (unless a clock broke its bound)`, () => {
    const r = sweep(loadScenario(sweeps, FILE));
    console.log(`failover sweep: ${r.failovers} failovers, ${r.offline} replicas offline (self-fenced), ${r.bounds} run(s) broke the clock bound`);
    expect(r.bad).toEqual([]);
    // The sweep must exercise failovers and the watchdog, or it proves nothing.
    expect(r.failovers).toBeGreaterThan(SEEDS / 5);
    expect(r.offline).toBeGreaterThan(0);
  });

  it("with the watchdog off, the same sweep finds two primaries", () => {
    const s = loadScenario(sweeps, FILE);
    const r = sweep({ ...s, holders: { ...s.holders, selfFence: false } });
    expect(r.twoPrimaries.length).toBeGreaterThan(0);
  });
});
