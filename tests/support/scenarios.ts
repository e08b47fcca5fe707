import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { LeaseServerSettings } from "../../src/core/lease/types";
import { runScenario, unexpected } from "../../src/core/scenario/runner";
import { parseScenarioText, type Scenario } from "../../src/core/scenario/schema";

/** Reads and validates a shipped scenario file; throws with the validation errors. */
export function loadScenario(dir: string, file: string): Scenario {
  const r = parseScenarioText(readFileSync(join(dir, file), "utf8"));
  if (!r.ok) throw new Error(`${file}: ${r.errors.join("; ")}`);
  return r.scenario;
}

/** Everything that went wrong in a run, in words, each with the seed that reproduces it. */
export function scenarioFailures(s: Scenario): string[] {
  const r = runScenario(s);
  return [
    ...unexpected(s, r.violations).map((v) => `violation ${v.invariant}: ${v.detail} (seed ${v.seed})`),
    ...r.expectations.filter((x) => !x.ok).map((x) => `${x.description}: ${x.detail} (seed ${r.seed})`),
    ...r.actionFailures.map((f) => `action ${f.action.type} failed: ${f.error} (seed ${r.seed})`),
  ];
}

/** Lease service settings for unit tests: defaults with every optional feature off. */
export const testLeaseSettings: LeaseServerSettings = {
  minTtlMs: 450,
  expiryCheckIntervalMs: 100,
  expirySlackFactor: 1,
  lockDelayMs: 0,
  checkpoint: false,
  checkpointIntervalMs: 1000,
  leaderChangeExtensionMs: 300,
  poolSize: 0,
  poolShortenAt: 0,
  poolShortTtlMs: 1000,
  poolDenyRenewalsWhenFull: false,
};
