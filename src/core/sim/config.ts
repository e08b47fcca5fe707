/**
 * Simulation settings: every timing in milliseconds (units last in names), each declared once, below.
 *
 * A declaration is plain data (its kind, range and default) with the check that gives a bad
 * value its words, so the page and the worker's first run need no schema library. The
 * scenario file's zod schema is built from the same declarations (configSchema.ts), with the
 * same words for the same mistakes.
 */
import type { HolderSettings } from "../holder/types";
import type { LeaseServerSettings } from "../lease/types";
import { clip } from "./time";
import { MESSAGE_TYPES } from "./trace";

export const MAX_NODES = 9;
/** The longest extra delay a slow link may add (µs): a minute. */
export const MAX_SLOW_LINK_US = 60_000_000;
export const MAX_CLIENTS = 50;
/** The most holders the page and the CLI offer. */
export const MAX_HOLDERS = 50;
/** The most a simulation takes (a scenario file, the benchmarks' 100-holder run): more than the page offers. */
const MAX_HOLDERS_SIMULATED = 100;
/** Clients think at least 1 ms between operations, so virtual time moves even when the network has no latency. */
export const MIN_THINK_TIME_MS = 1;

/** One setting: its kind, its default, and what is wrong with a value (null: nothing). */
export interface Setting<T> {
  readonly kind: "number" | "flag" | "oneOf" | "special";
  /** A fresh default value (a list or table is never shared between configurations). */
  readonly initial: () => T;
  /** The problem with `v` in a user's words ("must be between 1 and 600000 (got 0)"), or null when it is fine. */
  readonly problem: (v: unknown) => string | null;
  /** kind "number": the range, and whether null is allowed too (it means "derive it"). */
  readonly range?: NumberRange;
  readonly nullable?: boolean;
  /** kind "oneOf": the allowed values. */
  readonly values?: readonly string[];
}

export interface NumberRange {
  readonly lo: number;
  readonly hi: number;
  readonly int: boolean;
  /** Added after the range in the problem's words: why the bound is there. */
  readonly why: string;
}

/** A number setting's problem: "must be between 1 and 600000 (got 0)", or "a whole number from 0 to 8". */
export function numberProblem(r: NumberRange, v: unknown): string | null {
  const ok = typeof v === "number" && Number.isFinite(v) && (!r.int || Number.isSafeInteger(v)) && v >= r.lo && v <= r.hi;
  if (ok) return null;
  const words = r.int ? `a whole number from ${r.lo} to ${r.hi}` : `between ${r.lo} and ${r.hi}`;
  return `must be ${words} (got ${clip(String(v))})${r.why}`;
}

/** The words zod uses for a value of the wrong type ("received string"), so both checks read alike. */
function received(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number" && Number.isNaN(v)) return "NaN";
  return typeof v;
}

interface Between {
  default(d: number): Setting<number>;
  nullable(): { default(d: null): Setting<number | null> };
}

/** A setting's range, in the words every problem uses: "must be between 1 and 600000 (got 0)". */
function between(lo: number, hi: number, opts: { int?: boolean; why?: string } = {}): Between {
  const range: NumberRange = { lo, hi, int: opts.int === true, why: opts.why ?? "" };
  const problem = (v: unknown) => numberProblem(range, v);
  return {
    default: (d) => ({ kind: "number", range, initial: () => d, problem }),
    nullable: () => ({
      default: (d) => ({ kind: "number", range, nullable: true, initial: () => d, problem: (v) => (v === null ? null : problem(v)) }),
    }),
  };
}

const flag = (d: boolean): Setting<boolean> => ({
  kind: "flag",
  initial: () => d,
  problem: (v) => (typeof v === "boolean" ? null : `Invalid input: expected boolean, received ${received(v)}`),
});

function oneOf<const V extends string>(values: readonly V[], d: V): Setting<V> {
  return {
    kind: "oneOf",
    values,
    initial: () => d,
    problem: (v) => ((values as readonly unknown[]).includes(v) ? null : `Invalid option: expected one of ${values.map((x) => JSON.stringify(x)).join("|")}`),
  };
}

/** A setting with a rule of its own (configSchema.ts gives its file form the same words). */
function special<T>(initial: () => T, problem: (v: unknown) => string | null): Setting<T> {
  return { kind: "special", initial, problem };
}

const MINUTES_10 = 600_000;
const HOUR = 3_600_000;

/*
 * Every setting, declared once: its type, default and range. SimConfig is derived from these,
 * so are a scenario file's sections (scenario/schema.ts, through configSchema.ts), and
 * configProblems adds only the checks that compare two settings.
 */

const raftFields = {
  electionTimeoutMinMs: between(1, MINUTES_10).default(150),
  electionTimeoutMaxMs: between(1, MINUTES_10).default(300),
  heartbeatIntervalMs: between(1, MINUTES_10).default(50),
  preVote: flag(true),
  checkQuorum: flag(true),
  maxEntriesPerAppend: between(1, 10_000, { int: true }).default(64),
  /** Log compaction: each node snapshots its state machine once it has applied this many entries past its last snapshot (0: never). */
  snapshotEveryEntries: between(0, 1_000_000, { int: true }).default(1000),
  /** Entries kept before the snapshot's index, so a follower just behind still gets appends. */
  snapshotKeepEntries: between(0, 1_000_000, { int: true }).default(100),
  /** How the leader confirms a read: a heartbeat round per read (ReadIndex), or its lease (docs/reads.md). */
  reads: oneOf(["read-index", "leader-lease"], "read-index"),
  /** The bound on clock drift the leases assume (ppm, on every clock): 20,000 is the holders' margin too. */
  leaseDriftBoundPpm: between(0, 500_000, { int: true }).default(20_000),
  /** Read leases: the leader lends them to up to this many followers, which then answer reads locally (0: off). */
  readLeaseFollowers: between(0, MAX_NODES - 1, { int: true }).default(0),
  /** How long a read lease lasts, on the leader's clock from its grant. */
  readLeaseMs: between(1, MINUTES_10).default(500),
};

/** The range of each end of a latency, in milliseconds (latencyByType's minMs and maxMs). */
export const LATENCY_RANGE: NumberRange = { lo: 0, hi: MINUTES_10, int: false, why: "" };

export type LatencyTable = Record<string, { minMs: number; maxMs: number }>;

/** latencyByType's problem: a type of message that does not exist, or a range out of bounds (the file's schema says the same). */
function latencyTableProblem(v: unknown): string | null {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return `Invalid input: expected record, received ${received(v)}`;
  for (const [t, r] of Object.entries(v)) {
    if (!(MESSAGE_TYPES as readonly string[]).includes(t)) return `${clip(t)} is not a type of message (${MESSAGE_TYPES.join(", ")})`;
    if (typeof r !== "object" || r === null) return `${t}: Invalid input: expected object, received ${received(r)}`;
    for (const k of Object.keys(r)) if (k !== "minMs" && k !== "maxMs") return `${t}: Unrecognized key: ${JSON.stringify(k)}`;
    const bad = numberProblem(LATENCY_RANGE, (r as { minMs?: unknown }).minMs) ?? numberProblem(LATENCY_RANGE, (r as { maxMs?: unknown }).maxMs);
    if (bad !== null) return `${t}: ${bad}`;
  }
  return null;
}

const networkFields = {
  latencyMinMs: between(0, MINUTES_10).default(10),
  latencyMaxMs: between(0, MINUTES_10).default(20),
  /**
   * Latency by type of message, instead of the range above: replies slower than requests
   * (6.824's long reordering), or snapshots slower than heartbeats.
   */
  latencyByType: special<LatencyTable>(() => ({}), latencyTableProblem),
  /** Probability (0..1) that a message is lost. */
  dropRate: between(0, 1).default(0),
  /** Probability (0..1) that a message is delivered twice. */
  duplicateRate: between(0, 1).default(0),
};

const clientFields = {
  count: between(0, MAX_CLIENTS, { int: true }).default(0),
  /** "random": each client keeps issuing reads and appends; "none": only what a scenario asks. */
  workload: oneOf(["none", "random"], "none"),
  keys: between(1, 1000, { int: true }).default(5),
  readFraction: between(0, 1).default(0.3),
  /**
   * "random": once a client sees a key's value this long, it puts a fresh value there instead
   * of appending, so an hour-long run costs per minute what its first minutes cost. 0: no cap.
   */
  maxValueChars: between(0, 1_000_000, { int: true }).default(256),
  // With zero latency (also set later by a network action) and zero think time, clients would issue
  // requests forever at one virtual instant; at 1 µs they crawl (a million operations a second).
  thinkTimeMinMs: between(MIN_THINK_TIME_MS, MINUTES_10, {
    why: ": with no think time and no latency, clients would send requests forever at one instant",
  }).default(50),
  thinkTimeMaxMs: between(0, MINUTES_10).default(250),
  requestTimeoutMs: between(1, MINUTES_10).default(300),
  retryBackoffMs: between(0, MINUTES_10).default(50),
  maxAttempts: between(1, 100_000, { int: true }).default(100),
};

/** The lease service's settings (see LeaseServerSettings for each; null means "derive from Raft's timing"). */
const leaseFields = {
  /** Null: 1.5 x the maximum election timeout, as etcd. */
  minTtlMs: between(1, HOUR).nullable().default(null),
  expiryCheckIntervalMs: between(1, MINUTES_10).default(100),
  expirySlackFactor: between(1, 10).default(1),
  lockDelayMs: between(0, HOUR).default(0),
  checkpoint: flag(false),
  checkpointIntervalMs: between(1, HOUR).default(1000),
  /** Null: the maximum election timeout (etcd extends by an election timeout). */
  leaderChangeExtensionMs: between(0, HOUR).nullable().default(null),
  poolSize: between(0, 10_000, { int: true }).default(0),
  poolShortenAt: between(0, 1).default(0),
  poolShortTtlMs: between(1, HOUR).default(1000),
  poolDenyRenewalsWhenFull: flag(false),
};

export const LEASE_NAMES = "must name at least one lease, each 1 to 64 characters";
export const REBIND = "must be 0 (off) or between 0.01 and 0.99";

const leaseNamesProblem = (v: unknown): string | null =>
  Array.isArray(v) && v.length >= 1 && v.every((n) => typeof n === "string" && n.length >= 1 && n.length <= 64) ? null : LEASE_NAMES;

const rebindProblem = (v: unknown): string | null => {
  if (typeof v !== "number" || !Number.isFinite(v)) return REBIND;
  return v === 0 || (v >= 0.01 && v <= 0.99) ? null : `${REBIND} (got ${clip(String(v))})`;
};

/** The lease holders h1..hN; holder i wants leaseNames[i mod length] and writes to the resource of that name. */
const holderFields = {
  count: between(0, MAX_HOLDERS_SIMULATED, { int: true }).default(0),
  leaseNames: special<string[]>(() => ["lock"], leaseNamesProblem),
  ttlMs: between(1, HOUR).default(2000),
  renewFraction: between(0.01, 0.99).default(1 / 3),
  /** DHCP T2: from this fraction of the TTL on, refreshes go to every server (0 = off). */
  rebindFraction: special<number>(() => 0, rebindProblem),
  renewJitter: between(0, 0.5).default(0.1),
  driftMarginPpm: between(0, 500_000, { int: true }).default(20_000),
  gracePeriodMs: between(0, HOUR).default(0),
  requestTimeoutMs: between(1, MINUTES_10).default(300),
  retryBackoffMinMs: between(1, MINUTES_10).default(50),
  retryBackoffMaxMs: between(1, MINUTES_10).default(800),
  acquireRetryMs: between(1, MINUTES_10).default(500),
  workIntervalMs: between(1, MINUTES_10).default(250),
  workGapMs: between(0, MINUTES_10).default(20),
  holdForMs: between(0, HOUR).default(0),
  /** Holder i starts acquiring at startAfterMs + i x startStaggerMs. */
  startAfterMs: between(0, HOUR).default(500),
  startStaggerMs: between(0, MINUTES_10).default(100),
  registerKey: flag(true),
  /** The holders are database replicas: the one holding the lease is the primary and takes the writes, the others are secondaries (docs/failover.md). */
  replicas: flag(false),
  /** The holder's own watchdog: at its own deadline it stops using the lease (a primary takes itself offline); false: it goes on until the service says the lease is gone. */
  selfFence: flag(true),
};

const storageFields = { fencing: flag(true) };

/** The sections of the settings a scenario file sets field by field (its `cluster` is raft, plus nodes and spares). */
export const SETTING_FIELDS = {
  raft: raftFields,
  network: networkFields,
  clients: clientFields,
  lease: leaseFields,
  holders: holderFields,
  storage: storageFields,
};

const wholeSeed = (v: unknown): string | null => (typeof v === "number" && Number.isSafeInteger(v) ? null : `must be a whole number (got ${clip(String(v))})`);

/** The settings outside the sections. */
export const TOP_FIELDS = {
  seed: special<number>(() => 1, wholeSeed),
  /** The cluster's first configuration: n1..n<nodes>. */
  nodes: between(1, MAX_NODES, { int: true }).default(5),
  /** Spare servers after them (running, empty, outside the configuration until a change adds them). */
  spares: between(0, MAX_NODES - 1, { int: true }).default(0),
  /** Run the invariant checkers on every event. */
  checkers: flag(true),
  /** Keep a running hash of the trace (determinism checks, the CLI's traceHash). */
  hashTrace: flag(true),
  /** Stop advancing at the first violation (the UI pauses there). */
  stopOnViolation: flag(false),
  /** Messages kept for a paused process before further ones are dropped. */
  inboxLimit: between(1, 1_000_000, { int: true }).default(10_000),
};

type Fields = Record<string, Setting<unknown>>;
type ValuesOf<F> = { [K in keyof F]: F[K] extends Setting<infer T> ? T : never };
type SectionName = keyof typeof SETTING_FIELDS;

export type SimConfig = ValuesOf<typeof TOP_FIELDS> & { [S in SectionName]: ValuesOf<(typeof SETTING_FIELDS)[S]> };

export type RaftSettings = SimConfig["raft"];
export type NetworkSettings = SimConfig["network"];
export type ClientSettings = SimConfig["clients"];
export type LeaseSettings = SimConfig["lease"];
export type HolderGroupSettings = SimConfig["holders"];

function defaultsOf(fields: Fields): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, f.initial()]));
}

/** The defaults, in the order the settings are declared (the order a scenario file's schema gives them). */
export function defaultConfig(): SimConfig {
  const top = defaultsOf(TOP_FIELDS);
  return {
    seed: top.seed,
    nodes: top.nodes,
    spares: top.spares,
    raft: defaultsOf(raftFields),
    network: defaultsOf(networkFields),
    clients: defaultsOf(clientFields),
    lease: defaultsOf(leaseFields),
    holders: defaultsOf(holderFields),
    storage: defaultsOf(storageFields),
    checkers: top.checkers,
    hashTrace: top.hashTrace,
    stopOnViolation: top.stopOnViolation,
    inboxLimit: top.inboxLimit,
  } as SimConfig;
}

export type ConfigPatch = {
  [K in keyof SimConfig]?: SimConfig[K] extends object ? Partial<SimConfig[K]> : SimConfig[K];
};

export function mergeConfig(base: SimConfig, patch: ConfigPatch): SimConfig {
  return {
    ...base,
    ...patch,
    raft: { ...base.raft, ...patch.raft },
    network: { ...base.network, ...patch.network },
    clients: { ...base.clients, ...patch.clients },
    lease: { ...base.lease, ...patch.lease },
    holders: { ...base.holders, ...patch.holders },
    storage: { ...base.storage, ...patch.storage },
  } as SimConfig;
}

/**
 * How a setting is named in a problem: the fields a scenario file lists under `cluster` and
 * `network` by their own name ("heartbeatIntervalMs"), the others with their section
 * ("holders.ttlMs").
 */
function settingName(section: string | null, name: string): string {
  return section === null || section === "raft" || section === "network" ? name : `${section}.${name}`;
}

/** Keys an object has that its fields do not declare, in zod's words ("Unrecognized key: \"x\""). */
function unknownKeys(o: object, fields: object): string | null {
  const extra = Object.keys(o).filter((k) => !(k in fields));
  if (extra.length === 0) return null;
  return `Unrecognized key${extra.length > 1 ? "s" : ""}: ${extra.map((k) => JSON.stringify(k)).join(", ")}`;
}

/** Each setting's own problem (its type and range), named as configProblems names them. */
function fieldProblems(c: SimConfig): string[] {
  const out: string[] = [];
  const check = (o: unknown, fields: Fields, section: string | null): void => {
    if (typeof o !== "object" || o === null) {
      out.push(`${section ?? "settings"} Invalid input: expected object, received ${o === null ? "null" : typeof o}`);
      return;
    }
    const extra = unknownKeys(o, section === null ? { ...fields, ...SETTING_FIELDS } : fields);
    if (extra !== null) out.push(`${section ?? "settings"} ${extra}`);
    for (const [name, f] of Object.entries(fields)) {
      const p = f.problem((o as Record<string, unknown>)[name]);
      if (p !== null) out.push(`${settingName(section, name)} ${p}`);
    }
  };
  check(c, TOP_FIELDS, null);
  if (typeof c === "object" && c !== null) for (const s of Object.keys(SETTING_FIELDS) as SectionName[]) check(c[s], SETTING_FIELDS[s], s);
  return out;
}

/** Every problem with a configuration, in words a user can act on; empty when valid. */
export function configProblems(c: SimConfig): string[] {
  const own = fieldProblems(c);
  if (own.length > 0) return own;
  // Each setting's own range is in the schema: only what compares two settings is checked here.
  const p: string[] = [];
  if (c.nodes + c.spares > MAX_NODES) p.push(`nodes and spares together must be at most ${MAX_NODES} (got ${c.nodes} + ${c.spares})`);
  if (c.raft.electionTimeoutMaxMs < c.raft.electionTimeoutMinMs) p.push("electionTimeoutMaxMs must be at least electionTimeoutMinMs");
  if (c.raft.heartbeatIntervalMs >= c.raft.electionTimeoutMinMs) {
    p.push("heartbeatIntervalMs must be shorter than electionTimeoutMinMs, or followers time out between heartbeats");
  }
  if (c.raft.reads === "leader-lease" && !c.raft.preVote && !c.raft.checkQuorum) {
    p.push('reads "leader-lease" needs preVote or checkQuorum: without either, followers do not refuse votes while they hear the leader, so its lease proves nothing');
  }
  if (c.network.latencyMaxMs < c.network.latencyMinMs) p.push("latencyMaxMs must be at least latencyMinMs");
  for (const [type, r] of Object.entries(c.network.latencyByType)) {
    if (r !== undefined && r.maxMs < r.minMs) p.push(`latencyByType.${type}: maxMs must be at least minMs`);
  }
  if (c.clients.thinkTimeMaxMs < c.clients.thinkTimeMinMs) p.push("clients.thinkTimeMaxMs must be at least thinkTimeMinMs");
  const h = c.holders;
  if (h.rebindFraction !== 0 && h.rebindFraction <= h.renewFraction)
    p.push("holders.rebindFraction must be above renewFraction (DHCP: T1 = 1/2, T2 = 7/8)");
  if (h.retryBackoffMaxMs < h.retryBackoffMinMs) p.push("holders.retryBackoffMaxMs must be at least retryBackoffMinMs");
  return p;
}

export function nodeIds(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `n${i + 1}`);
}

export function clientIds(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `c${i + 1}`);
}

export function holderIds(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `h${i + 1}`);
}

export const STORAGE_ID = "s1";

/** The settings of holder i (h1 is 0): it wants leaseNames[i mod n] and writes to the resource of that name. */
export function holderSettings(c: SimConfig, i: number): HolderSettings {
  const { count: _count, leaseNames, startAfterMs, startStaggerMs, ...shared } = c.holders;
  const leaseName = leaseNames[i % leaseNames.length] as string;
  return {
    ...shared,
    id: `h${i + 1}`,
    servers: nodeIds(c.nodes + c.spares),
    storage: STORAGE_ID,
    leaseName,
    resource: leaseName,
    startAfterMs: startAfterMs + i * startStaggerMs,
  };
}

/** The lease service settings every node uses, with the derived defaults filled in. */
export function leaseServerSettings(c: SimConfig): LeaseServerSettings {
  const l = c.lease;
  return {
    minTtlMs: l.minTtlMs ?? Math.ceil(1.5 * c.raft.electionTimeoutMaxMs),
    expiryCheckIntervalMs: l.expiryCheckIntervalMs,
    expirySlackFactor: l.expirySlackFactor,
    lockDelayMs: l.lockDelayMs,
    checkpoint: l.checkpoint,
    checkpointIntervalMs: l.checkpointIntervalMs,
    leaderChangeExtensionMs: l.leaderChangeExtensionMs ?? c.raft.electionTimeoutMaxMs,
    poolSize: l.poolSize,
    poolShortenAt: l.poolShortenAt,
    poolShortTtlMs: l.poolShortTtlMs,
    poolDenyRenewalsWhenFull: l.poolDenyRenewalsWhenFull,
  };
}
