import { describe, expect, it } from "vitest";
import { runScenario } from "../../src/core/scenario/runner";
import { parseScenario } from "../../src/core/scenario/schema";

const SEEDS = 500;

describe("random nemesis seed sweep", () => {
  it(`${SEEDS} seeds of crashes, partitions, cuts, pauses, drift, clock jumps and loss: no violation, and the cluster recovers`, () => {
    const parsed = parseScenario({
      name: "sweep",
      duration: "10s",
      clients: { count: 3, workload: "random" },
      nemesis: { includeClients: true, intervalMin: "100ms", intervalMax: "700ms", quietAfter: "7s" },
      expect: [{ that: "leader-exists" }],
    });
    if (!parsed.ok) throw new Error(parsed.errors.join("; "));
    const bad: string[] = [];
    for (let seed = 1; seed <= SEEDS; seed++) {
      const r = runScenario(parsed.scenario, { seed });
      for (const v of r.violations)
        bad.push(`seed ${seed}: ${v.invariant} at ${v.time}µs: ${v.detail} (npm run sim -- --nemesis random --seed ${seed})`);
      for (const x of r.expectations) if (!x.ok) bad.push(`seed ${seed}: ${x.description}: ${x.detail}`);
    }
    expect(bad).toEqual([]);
  });
});
