/**
 * Reads under leases (docs/reads.md): the leader-lease stale read of
 * scenarios/reads/leader-lease-drift.json, and the same file made safe.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkLinearizability } from "../../src/core/lin/check";
import { runScenario } from "../../src/core/scenario/runner";
import type { Scenario } from "../../src/core/scenario/schema";
import { loadScenario } from "../support/scenarios";

const dir = join(import.meta.dirname, "../../scenarios/reads");
const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8];

function withCluster(s: Scenario, cluster: Partial<Scenario["cluster"]>): Scenario {
  return { ...s, cluster: { ...s.cluster, ...cluster } };
}

function verdict(s: Scenario, seed: number): { verdict: string; leaseReads: number; ok: boolean } {
  let leaseReads = 0;
  const r = runScenario(s, {
    seed,
    history: true,
    onTrace: (e) => {
      if (e.kind === "lease-read") leaseReads++;
    },
  });
  return { verdict: checkLinearizability(r.history?.operations ?? []).verdict, leaseReads, ok: r.ok };
}

describe("leader lease: scenarios/reads/leader-lease-drift.json", () => {
  const file = loadScenario(dir, "leader-lease-drift.json");

  it("as shipped (drift beyond the bound): its expectations hold, and the checker finds the stale read for every seed", () => {
    for (const seed of SEEDS) {
      const r = verdict(file, seed);
      expect({ seed, ...r }).toEqual({ seed, verdict: "violation", leaseReads: r.leaseReads, ok: true });
    }
  });

  it("with the drift inside the bound (leaseDriftBoundPpm 500000): linearizable for every seed, still served by the lease", () => {
    const safe = withCluster(file, { leaseDriftBoundPpm: 500_000 });
    for (const seed of SEEDS) {
      const r = verdict(safe, seed);
      expect({ seed, verdict: r.verdict }).toEqual({ seed, verdict: "ok" });
      expect(r.leaseReads).toBeGreaterThan(0);
    }
  });

  it("with ReadIndex: linearizable for every seed, and no read skips its heartbeat round", () => {
    const readIndex = withCluster(file, { reads: "read-index" });
    for (const seed of SEEDS) {
      const r = verdict(readIndex, seed);
      expect({ seed, verdict: r.verdict, leaseReads: r.leaseReads }).toEqual({ seed, verdict: "ok", leaseReads: 0 });
    }
  });
});
