/**
 * Run settings <-> scenarios and simulator configuration (shared by the worker and the page).
 *
 * The worker always runs a Scenario: the page's settings become one (scenarioFromSettings),
 * so a run made in the browser and the same run from a scenario file or a share link
 * are built by the very same code as the CLI's (scenarioConfig).
 */
import { scenarioConfig } from "../core/scenario/settings";
import type { Scenario } from "../core/scenario/schema";
import { defaultConfig, SETTING_FIELDS, type Setting, type SimConfig, TOP_FIELDS } from "../core/sim/config";
import { DEFAULT_SPEED, MAX_SPEED, MIN_SPEED, type RunSettings, type TimingSettings } from "./protocol";

/** The scenario file text (input side) for run settings: everything the page can set, written out. */
export function scenarioInputFromSettings(s: RunSettings): Record<string, unknown> {
  const t = s.timing;
  return {
    version: 1,
    name: `Lease Lab run, seed ${s.seed}`,
    seed: s.seed,
    cluster: {
      nodes: s.nodes,
      ...(s.spares > 0 ? { spares: s.spares } : {}),
      electionTimeoutMinMs: t.electionTimeoutMinMs,
      electionTimeoutMaxMs: t.electionTimeoutMaxMs,
      heartbeatIntervalMs: t.heartbeatIntervalMs,
      ...readsSection(t),
    },
    network: { latencyMinMs: t.latencyMinMs, latencyMaxMs: t.latencyMaxMs },
    clients: { count: s.clients.count, workload: s.clients.workload },
    holders: {
      count: s.holders,
      ttlMs: t.leaseTtlMs,
      renewFraction: t.renewFraction,
      gracePeriodMs: t.gracePeriodMs,
      ...(t.driftMarginPpm !== LEASE_DEFAULTS.driftMarginPpm ? { driftMarginPpm: t.driftMarginPpm } : {}),
    },
    ...leaseSection(t),
  };
}

const LEASE_DEFAULTS = timingOf(defaultConfig());

/** The lease section of the scenario, only the settings that differ from the defaults (short share links). */
function leaseSection(t: TimingSettings): { lease?: Record<string, unknown> } {
  const d = LEASE_DEFAULTS;
  const lease: Record<string, unknown> = {};
  if (t.checkpoint !== d.checkpoint) lease.checkpoint = t.checkpoint;
  if (t.checkpointIntervalMs !== d.checkpointIntervalMs) lease.checkpointIntervalMs = t.checkpointIntervalMs;
  if (t.lockDelayMs !== d.lockDelayMs) lease.lockDelayMs = t.lockDelayMs;
  if (t.expirySlackFactor !== d.expirySlackFactor) lease.expirySlackFactor = t.expirySlackFactor;
  if (t.poolSize !== d.poolSize) lease.poolSize = t.poolSize;
  return Object.keys(lease).length > 0 ? { lease } : {};
}

/** The cluster's settings for reads, only those that differ from the defaults (short share links). */
function readsSection(t: TimingSettings): Record<string, unknown> {
  const d = defaultConfig().raft;
  const out: Record<string, unknown> = {};
  for (const k of ["reads", "leaseDriftBoundPpm", "readLeaseFollowers", "readLeaseMs"] as const) {
    if (t[k] !== undefined && t[k] !== d[k]) out[k] = t[k];
  }
  return out;
}

/** A section of the scenario as the file's schema gives it: the fields set, in their declared order, each checked. */
function section(given: Record<string, unknown> | undefined, fields: Record<string, Setting<unknown>>, problems: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (given === undefined) return out;
  for (const k of Object.keys(given)) if (!(k in fields)) problems.push(`unknown setting ${k}`);
  for (const [k, f] of Object.entries(fields)) {
    const v = given[k];
    if (v === undefined) continue;
    const p = f.problem(v);
    if (p !== null) problems.push(`${k} ${p}`);
    out[k] = v;
  }
  return out;
}

/**
 * The scenario the worker runs for page settings (no actions yet): what the file schema
 * would make of scenarioInputFromSettings, built directly (a run from the page needs no
 * schema library; tests/worker/settings.test.ts checks the two agree).
 */
export function scenarioFromSettings(s: RunSettings): Scenario {
  const input = scenarioInputFromSettings(s) as Record<string, Record<string, unknown> | undefined> & { name: string; seed: number };
  const problems: string[] = [];
  const seedProblem = TOP_FIELDS.seed.problem(input.seed);
  if (seedProblem !== null) problems.push(`seed ${seedProblem}`);
  const clusterFields = { ...SETTING_FIELDS.raft, nodes: TOP_FIELDS.nodes, spares: TOP_FIELDS.spares };
  const scenario = {
    version: 1,
    name: input.name,
    description: "",
    seed: input.seed,
    duration: 10_000_000,
    cluster: section(input.cluster, clusterFields, problems),
    network: section(input.network, SETTING_FIELDS.network, problems),
    clients: section(input.clients, SETTING_FIELDS.clients, problems),
    lease: section(input.lease, SETTING_FIELDS.lease, problems),
    holders: section(input.holders, SETTING_FIELDS.holders, problems),
    storage: {},
    actions: [],
    expect: [],
  };
  if (problems.length > 0) throw new Error(`these settings make no scenario: ${problems.join("; ")}`);
  return scenario as unknown as Scenario;
}

/** What the page shows for a scenario (a file or a share link): its settings, as far as the page has knobs for them. */
export function settingsFromScenario(sc: Scenario, show: { speed: number; autoplay: boolean }): RunSettings {
  const c = scenarioConfig(sc);
  return {
    seed: c.seed,
    nodes: c.nodes,
    spares: c.spares,
    clients: { count: c.clients.count, workload: c.clients.workload },
    holders: c.holders.count,
    speed: clampSpeed(sc.ui?.speed ?? show.speed),
    autoplay: show.autoplay,
    timing: timingOf(c),
  };
}

/** The timing knobs the page offers, as a configuration sets them. */
export function timingOf(c: SimConfig): TimingSettings {
  return {
    electionTimeoutMinMs: c.raft.electionTimeoutMinMs,
    electionTimeoutMaxMs: c.raft.electionTimeoutMaxMs,
    heartbeatIntervalMs: c.raft.heartbeatIntervalMs,
    latencyMinMs: c.network.latencyMinMs,
    latencyMaxMs: c.network.latencyMaxMs,
    leaseTtlMs: c.holders.ttlMs,
    renewFraction: c.holders.renewFraction,
    gracePeriodMs: c.holders.gracePeriodMs,
    checkpoint: c.lease.checkpoint,
    checkpointIntervalMs: c.lease.checkpointIntervalMs,
    lockDelayMs: c.lease.lockDelayMs,
    driftMarginPpm: c.holders.driftMarginPpm,
    expirySlackFactor: c.lease.expirySlackFactor,
    poolSize: c.lease.poolSize,
    ...readsOf(c),
  };
}

/** The reads settings of a configuration that differ from the defaults (absent: the default). */
function readsOf(c: SimConfig): Partial<TimingSettings> {
  const d = defaultConfig().raft;
  const out: { -readonly [K in "reads" | "leaseDriftBoundPpm" | "readLeaseFollowers" | "readLeaseMs"]?: SimConfig["raft"][K] } = {};
  for (const k of ["reads", "leaseDriftBoundPpm", "readLeaseFollowers", "readLeaseMs"] as const) {
    if (c.raft[k] !== d[k]) (out as Record<string, unknown>)[k] = c.raft[k];
  }
  return out;
}

export function configFor(s: RunSettings): SimConfig {
  return scenarioConfig(scenarioFromSettings(s));
}


export function clampSpeed(speed: number): number {
  if (!Number.isFinite(speed)) return DEFAULT_SPEED;
  return Math.min(MAX_SPEED, Math.max(MIN_SPEED, speed));
}
