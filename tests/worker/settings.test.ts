import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS } from "../../src/app/params";
import { scenarioSchema } from "../../src/core/scenario/schema";
import { configProblems, defaultConfig } from "../../src/core/sim/config";
import { simConfigSchemaForTests } from "./configSchemaForTests";
import type { RunSettings } from "../../src/worker/protocol";
import { scenarioFromSettings, scenarioInputFromSettings } from "../../src/worker/settings";

const RUNS: RunSettings[] = [
  DEFAULT_SETTINGS,
  { ...DEFAULT_SETTINGS, seed: -12, nodes: 7, spares: 2, holders: 0, clients: { count: 0, workload: "none" } },
  {
    ...DEFAULT_SETTINGS,
    timing: {
      ...DEFAULT_SETTINGS.timing,
      checkpoint: true,
      lockDelayMs: 750,
      driftMarginPpm: 50_000,
      poolSize: 2,
      reads: "leader-lease",
      readLeaseFollowers: 2,
      readLeaseMs: 800,
      leaseDriftBoundPpm: 40_000,
    },
  },
];

describe("a run from the page's settings, without the file schema", () => {
  it("is the very scenario the file schema makes of the same settings, field for field and in the same order", () => {
    for (const s of RUNS) {
      expect(JSON.stringify(scenarioFromSettings(s))).toBe(JSON.stringify(scenarioSchema.parse(scenarioInputFromSettings(s))));
    }
  });

  it("refuses settings out of range in the engine's words", () => {
    expect(() => scenarioFromSettings({ ...DEFAULT_SETTINGS, nodes: 12 })).toThrow(/nodes must be a whole number from 1 to 9 \(got 12\)/);
    expect(() => scenarioFromSettings({ ...DEFAULT_SETTINGS, timing: { ...DEFAULT_SETTINGS.timing, leaseTtlMs: 0 } })).toThrow(
      /ttlMs must be between 1 and 3600000 \(got 0\)/,
    );
  });
});

describe("the settings' plain declarations", () => {
  it("give the defaults the zod schema gives, in the same order", () => {
    expect(JSON.stringify(defaultConfig())).toBe(JSON.stringify(simConfigSchemaForTests.parse({})));
  });

  it("find the problems the zod schema finds, in the same words", () => {
    const bad = [
      { nodes: 0 },
      { seed: 1.5 },
      { raft: { heartbeatIntervalMs: -1 } },
      { raft: { reads: "sometimes" } },
      { raft: { preVote: "yes" } },
      { clients: { thinkTimeMinMs: 0 } },
      { holders: { rebindFraction: 0.005 } },
      { holders: { leaseNames: [] } },
      { lease: { minTtlMs: 0 } },
      { network: { latencyByType: { Nope: { minMs: 1, maxMs: 2 } } } },
      { inboxLimit: 2.5 },
    ];
    for (const patch of bad) {
      const c = { ...defaultConfig(), ...patch } as Record<string, unknown>;
      for (const k of ["raft", "network", "clients", "lease", "holders"])
        if (k in patch) c[k] = { ...(defaultConfig() as unknown as Record<string, object>)[k], ...(patch as unknown as Record<string, object>)[k] };
      const z = simConfigSchemaForTests.safeParse(c);
      expect(z.success, JSON.stringify(patch)).toBe(false);
      const words = z.success ? [] : z.error.issues.map((i) => i.message);
      const plain = configProblems(c as never);
      expect(plain, JSON.stringify(patch)).toHaveLength(1);
      expect(words.some((w) => (plain[0] as string).endsWith(w)), `${JSON.stringify(patch)}: ${plain[0]} vs ${words.join(" | ")}`).toBe(true);
    }
  });
});
