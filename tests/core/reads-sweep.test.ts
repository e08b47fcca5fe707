/**
 * The nemesis sweep with the leader's lease and read leases on (scenarios/sweeps/reads-sweep.json):
 * every kind of fault but clock drifts and jumps (the leases assume the drift bound holds),
 * and every history must be linearizable, with reads actually served under both leases.
 */
import { describe, expect, it } from "vitest";
import { checkLinearizability } from "../../src/core/lin/check";
import { runScenario } from "../../src/core/scenario/runner";
import { loadScenario } from "../support/scenarios";
import { reproduce, sweeps } from "../support/sweeps";

const SEEDS = 500;

describe("reads sweep: leader lease and read leases under the nemesis", () => {
  it(`${SEEDS} seeds: no violation, every history linearizable, and reads served locally and under the leader's lease`, () => {
    const scenario = loadScenario(sweeps, "reads-sweep.json");
    const bad: string[] = [];
    let local = 0;
    let leaderLease = 0;
    let unknown = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      const r = runScenario(scenario, {
        seed,
        history: true,
        onTrace: (e) => {
          if (e.kind === "lease-read") {
            if (e.via === "local") local++;
            else leaderLease++;
          }
        },
      });
      const lin = checkLinearizability(r.history?.operations ?? []);
      if (lin.verdict === "violation") bad.push(`seed ${seed}: not linearizable (${reproduce("reads-sweep.json", seed)} --check linearizability)`);
      if (lin.verdict === "unknown") unknown++;
      for (const v of r.violations) bad.push(`seed ${seed}: ${v.invariant}: ${v.detail} (${reproduce("reads-sweep.json", seed)})`);
      for (const x of r.expectations) if (!x.ok) bad.push(`seed ${seed}: ${x.description}: ${x.detail}`);
    }
    console.log(`reads sweep: ${SEEDS} seeds, ${local} local reads, ${leaderLease} leader-lease reads, ${unknown} unknown verdicts`);
    expect(bad).toEqual([]);
    expect(unknown).toBe(0);
    expect(local).toBeGreaterThan(SEEDS);
    expect(leaderLease).toBeGreaterThan(SEEDS);
  });
});
