import { describe, expect, it } from "vitest";
import { runScenario } from "../../src/core/scenario/runner";
import { parseScenario } from "../../src/core/scenario/schema";

const SEEDS = 500;

describe("random nemesis sweep with lease holders and fenced storage (swarm mixes)", () => {
  it(`${SEEDS} seeds: crashes and pauses of nodes and holders, holders restarted near their lease's expiry, partitions, drift, loss: no violation, and the cluster recovers`, () => {
    const parsed = parseScenario({
      name: "lease sweep",
      duration: "10s",
      clients: { count: 1, workload: "random" },
      holders: { count: 3, ttlMs: 1500 },
      storage: { fencing: true },
      nemesis: { includeClients: true, intervalMin: "100ms", intervalMax: "700ms", quietAfter: "7s" },
      expect: [{ that: "leader-exists" }],
    });
    if (!parsed.ok) throw new Error(parsed.errors.join("; "));
    const bad: string[] = [];
    let grants = 0;
    let rejected = 0;
    const bounds: string[] = [];
    let nearExpiry = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      const r = runScenario(parsed.scenario, {
        seed,
        onTrace: (e) => {
          if (e.kind === "note" && e.text.includes("near the expiry")) nearExpiry++;
        },
      });
      for (const v of r.violations) bad.push(`seed ${seed}: ${v.invariant} at ${v.time}µs: ${v.detail}`);
      for (const x of r.expectations) if (!x.ok) bad.push(`seed ${seed}: ${x.description}: ${x.detail}`);
      grants += r.leases.reduce((n, l) => n + (l.token > 0 ? 1 : 0), 0);
      rejected += r.storageLog.filter((w) => !w.accepted).length;
      for (const b of r.boundsBroken) bounds.push(`seed ${seed}: ${b.detail}`);
    }
    console.log(`lease sweep: ${bounds.length} run(s) broke the clock bound the holders assume (reported, not violations)`);
    expect(bad).toEqual([]);
    // The sweep must actually exercise leases and fencing, or it proves nothing.
    expect(grants).toBeGreaterThan(SEEDS / 2);
    expect(rejected).toBeGreaterThan(0);
    // The nemesis makes clocks run far faster than the holders' 2 % margin: a holder then
    // outlives its lease on its own clock. That is reported as a broken bound, never hidden.
    expect(bounds.length).toBeGreaterThan(0);
    for (const b of bounds) expect(b).toMatch(/clock (ran \d+ % fast|went back)/);
    // Holders restarted just as the leader expires their lease: the re-grant race is hunted.
    expect(nearExpiry).toBeGreaterThan(SEEDS / 4);
  });
});
