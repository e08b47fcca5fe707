/** Simulation settings: every timing in milliseconds (units last in names), each declared once, in the schema below. */
import { z } from "zod";
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

/** A setting's range, in the words every problem uses: "must be between 1 and 600000 (got 0)". */
function between(lo: number, hi: number, opts: { int?: boolean; why?: string } = {}): z.ZodNumber {
  const words = opts.int === true ? `a whole number from ${lo} to ${hi}` : `between ${lo} and ${hi}`;
  const error = (iss: { input?: unknown }): string => `must be ${words} (got ${clip(String(iss.input))})${opts.why ?? ""}`;
  const n = z.number({ error });
  return (opts.int === true ? n.int({ error }) : n).min(lo, { error }).max(hi, { error });
}

const MINUTES_10 = 600_000;
const HOUR = 3_600_000;
const flag = (d: boolean) => z.boolean().default(d);

/*
 * Every setting, declared once: its type, default and range. SimConfig is derived from these,
 * so are a scenario file's sections (scenario/schema.ts), and configProblems adds only the
 * checks that compare two settings.
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
  reads: z.enum(["read-index", "leader-lease"]).default("read-index"),
  /** The bound on clock drift the leases assume (ppm, on every clock): 20,000 is the holders' margin too. */
  leaseDriftBoundPpm: between(0, 500_000, { int: true }).default(20_000),
  /** Read leases: the leader lends them to up to this many followers, which then answer reads locally (0: off). */
  readLeaseFollowers: between(0, MAX_NODES - 1, { int: true }).default(0),
  /** How long a read lease lasts, on the leader's clock from its grant. */
  readLeaseMs: between(1, MINUTES_10).default(500),
};

/** A table by type of message ("AppendEntriesResp"); a key that names no type is refused, naming the types. */
export function byMessageType<T extends z.ZodType>(value: T) {
  return z.record(z.string(), value).superRefine((table, ctx) => {
    for (const t of Object.keys(table)) {
      if (!(MESSAGE_TYPES as readonly string[]).includes(t))
        ctx.addIssue({ code: "custom", path: [t], message: `${clip(t)} is not a type of message (${MESSAGE_TYPES.join(", ")})` });
    }
  });
}
/** A latency range in milliseconds, for one type of message. */
export const latencyRange = z.strictObject({ minMs: between(0, MINUTES_10), maxMs: between(0, MINUTES_10) });

const networkFields = {
  latencyMinMs: between(0, MINUTES_10).default(10),
  latencyMaxMs: between(0, MINUTES_10).default(20),
  /**
   * Latency by type of message, instead of the range above: replies slower than requests
   * (6.824's long reordering), or snapshots slower than heartbeats.
   */
  latencyByType: byMessageType(latencyRange).default(() => ({})),
  /** Probability (0..1) that a message is lost. */
  dropRate: between(0, 1).default(0),
  /** Probability (0..1) that a message is delivered twice. */
  duplicateRate: between(0, 1).default(0),
};

const clientFields = {
  count: between(0, MAX_CLIENTS, { int: true }).default(0),
  /** "random": each client keeps issuing reads and appends; "none": only what a scenario asks. */
  workload: z.enum(["none", "random"]).default("none"),
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

const LEASE_NAMES = "must name at least one lease, each 1 to 64 characters";
const REBIND = "must be 0 (off) or between 0.01 and 0.99";

/** The lease holders h1..hN; holder i wants leaseNames[i mod length] and writes to the resource of that name. */
const holderFields = {
  count: between(0, MAX_HOLDERS_SIMULATED, { int: true }).default(0),
  leaseNames: z
    .array(z.string({ error: LEASE_NAMES }).min(1, { error: LEASE_NAMES }).max(64, { error: LEASE_NAMES }), { error: LEASE_NAMES })
    .min(1, { error: LEASE_NAMES })
    .default(() => ["lock"]),
  ttlMs: between(1, HOUR).default(2000),
  renewFraction: between(0.01, 0.99).default(1 / 3),
  /** DHCP T2: from this fraction of the TTL on, refreshes go to every server (0 = off). */
  rebindFraction: z
    .number({ error: REBIND })
    .refine((f) => f === 0 || (f >= 0.01 && f <= 0.99), { error: (iss) => `${REBIND} (got ${clip(String(iss.input))})` })
    .default(0),
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

const wholeSeed = (iss: { input?: unknown }): string => `must be a whole number (got ${clip(String(iss.input))})`;

export const simConfigSchema = z.strictObject({
  seed: z.number({ error: wholeSeed }).refine(Number.isSafeInteger, { error: wholeSeed }).default(1),
  /** The cluster's first configuration: n1..n<nodes>. */
  nodes: between(1, MAX_NODES, { int: true }).default(5),
  /** Spare servers after them (running, empty, outside the configuration until a change adds them). */
  spares: between(0, MAX_NODES - 1, { int: true }).default(0),
  raft: z.strictObject(raftFields).prefault({}),
  network: z.strictObject(networkFields).prefault({}),
  clients: z.strictObject(clientFields).prefault({}),
  lease: z.strictObject(leaseFields).prefault({}),
  holders: z.strictObject(holderFields).prefault({}),
  /** The fenced storage process (present when there are holders). */
  storage: z.strictObject(storageFields).prefault({}),
  /** Run the invariant checkers on every event. */
  checkers: flag(true),
  /** Keep a running hash of the trace (determinism checks, the CLI's traceHash). */
  hashTrace: flag(true),
  /** Stop advancing at the first violation (the UI pauses there). */
  stopOnViolation: flag(false),
  /** Messages kept for a paused process before further ones are dropped. */
  inboxLimit: between(1, 1_000_000, { int: true }).default(10_000),
});

export type SimConfig = z.output<typeof simConfigSchema>;
export type RaftSettings = SimConfig["raft"];
export type NetworkSettings = SimConfig["network"];
export type ClientSettings = SimConfig["clients"];
export type LeaseSettings = SimConfig["lease"];
export type HolderGroupSettings = SimConfig["holders"];

export function defaultConfig(): SimConfig {
  return simConfigSchema.parse({});
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
function settingName(path: readonly PropertyKey[]): string {
  const parts = path.map(String);
  return parts[0] === "raft" || parts[0] === "network" ? parts.slice(1).join(".") : parts.join(".");
}

/** Every problem with a configuration, in words a user can act on; empty when valid. */
export function configProblems(c: SimConfig): string[] {
  const r = simConfigSchema.safeParse(c);
  if (!r.success) return r.error.issues.map((i) => `${settingName(i.path) || "settings"} ${i.message}`);
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
