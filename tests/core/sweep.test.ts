import { describe, expect, it } from "vitest";
import { runScenario } from "../../src/core/scenario/runner";
import { loadScenario } from "../support/scenarios";
import { LinSweep, reproduce, sweeps } from "../support/sweeps";

const SEEDS = 500;

describe("random nemesis seed sweep (swarm: each seed draws its own fault mix)", () => {
  it(`${SEEDS} seeds of swarm mixes (crashes, leader crashes, restart storms, partitions, cuts, pauses, drift, jumps, delays, loss): no violation, linearizable histories, and the cluster recovers`, () => {
    const scenario = loadScenario(sweeps, "raft-sweep.json");
    const bad: string[] = [];
    const kinds = new Set<string>();
    let crashes = 0;
    const lin = new LinSweep("raft sweep");
    for (let seed = 1; seed <= SEEDS; seed++) {
      const r = runScenario(scenario, {
        seed,
        history: true,
        onTrace: (e) => {
          if (e.kind === "crash") crashes++;
        },
      });
      for (const k of /mix: ([^;]*);/.exec(r.nemesisMix ?? "")?.[1]?.split(" ") ?? []) kinds.add(k.split("×")[0] as string);
      for (const v of r.violations)
        bad.push(`seed ${seed}: ${v.invariant} at ${v.time}µs: ${v.detail} (${reproduce("raft-sweep.json", seed)})`);
      for (const x of r.expectations)
        if (!x.ok) bad.push(`seed ${seed}: ${x.description}: ${x.detail} (${reproduce("raft-sweep.json", seed)})`);
      lin.check(r, reproduce("raft-sweep.json", seed));
    }
    lin.report();
    expect(bad).toEqual([]);
    expect(lin.violations).toEqual([]);
    expect(lin.reads).toBeGreaterThan(SEEDS);
    // The swarm must actually draw every kind that applies without holders, and crash things.
    expect([...kinds].sort()).toEqual(
      ["clock", "crash", "cut", "delay", "leader-crash", "leader-isolate", "network", "partition", "pause", "membership", "restart-storm", "slow-link", "transfer"].sort(),
    );
    expect(crashes).toBeGreaterThan(SEEDS);
  });
});
