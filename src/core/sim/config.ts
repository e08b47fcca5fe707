/** Simulation settings: every timing in milliseconds (units last in names), validated in one place. */
import type { HolderSettings } from "../holder/types";
import type { LeaseServerSettings } from "../lease/types";

export interface RaftSettings {
  electionTimeoutMinMs: number;
  electionTimeoutMaxMs: number;
  heartbeatIntervalMs: number;
  preVote: boolean;
  checkQuorum: boolean;
  maxEntriesPerAppend: number;
  /** Log compaction: each node snapshots its state machine once it has applied this many entries past its last snapshot (0: never). */
  snapshotEveryEntries: number;
  /** Entries kept before the snapshot's index, so a follower just behind still gets appends. */
  snapshotKeepEntries: number;
}

export interface NetworkSettings {
  latencyMinMs: number;
  latencyMaxMs: number;
  /** Probability (0..1) that a message is lost. */
  dropRate: number;
  /** Probability (0..1) that a message is delivered twice. */
  duplicateRate: number;
}

export interface ClientSettings {
  count: number;
  /** "random": each client keeps issuing reads and appends; "none": only what a scenario asks. */
  workload: "none" | "random";
  keys: number;
  readFraction: number;
  thinkTimeMinMs: number;
  thinkTimeMaxMs: number;
  requestTimeoutMs: number;
  retryBackoffMs: number;
  maxAttempts: number;
}

/** The lease service's settings (see LeaseServerSettings for each; null means "derive from Raft's timing"). */
export interface LeaseSettings {
  /** Null: 1.5 x the maximum election timeout, as etcd. */
  minTtlMs: number | null;
  expiryCheckIntervalMs: number;
  expirySlackFactor: number;
  lockDelayMs: number;
  checkpoint: boolean;
  checkpointIntervalMs: number;
  /** Null: the maximum election timeout (etcd extends by an election timeout). */
  leaderChangeExtensionMs: number | null;
  poolSize: number;
  poolShortenAt: number;
  poolShortTtlMs: number;
  poolDenyRenewalsWhenFull: boolean;
}

/** The lease holders h1..hN; holder i wants leaseNames[i mod length] and writes to the resource of that name. */
export interface HolderGroupSettings {
  count: number;
  leaseNames: string[];
  ttlMs: number;
  renewFraction: number;
  /** DHCP T2: from this fraction of the TTL on, refreshes go to every server (0 = off). */
  rebindFraction: number;
  renewJitter: number;
  driftMarginPpm: number;
  gracePeriodMs: number;
  requestTimeoutMs: number;
  retryBackoffMinMs: number;
  retryBackoffMaxMs: number;
  acquireRetryMs: number;
  workIntervalMs: number;
  workGapMs: number;
  holdForMs: number;
  /** Holder i starts acquiring at startAfterMs + i x startStaggerMs. */
  startAfterMs: number;
  startStaggerMs: number;
  registerKey: boolean;
}

export interface SimConfig {
  seed: number;
  /** The cluster's first configuration: n1..n<nodes>. */
  nodes: number;
  /** Spare servers after them (running, empty, outside the configuration until a change adds them). */
  spares: number;
  raft: RaftSettings;
  network: NetworkSettings;
  clients: ClientSettings;
  lease: LeaseSettings;
  holders: HolderGroupSettings;
  /** The fenced storage process (present when there are holders). */
  storage: { fencing: boolean };
  /** Run the invariant checkers on every event. */
  checkers: boolean;
  /** Keep a running hash of the trace (determinism checks, the CLI's traceHash). */
  hashTrace: boolean;
  /** Stop advancing at the first violation (the UI pauses there). */
  stopOnViolation: boolean;
  /** Messages kept for a paused process before further ones are dropped. */
  inboxLimit: number;
}

export const MAX_NODES = 9;
/** The longest extra delay a slow link may add (µs): a minute. */
export const MAX_SLOW_LINK_US = 60_000_000;
export const MAX_CLIENTS = 50;
export const MAX_HOLDERS = 50;
/** Clients think at least 1 ms between operations, so virtual time moves even when the network has no latency. */
export const MIN_THINK_TIME_MS = 1;

export function defaultConfig(): SimConfig {
  return {
    seed: 1,
    nodes: 5,
    spares: 0,
    raft: {
      electionTimeoutMinMs: 150,
      electionTimeoutMaxMs: 300,
      heartbeatIntervalMs: 50,
      preVote: true,
      checkQuorum: true,
      maxEntriesPerAppend: 64,
      snapshotEveryEntries: 1000,
      snapshotKeepEntries: 100,
    },
    network: { latencyMinMs: 10, latencyMaxMs: 20, dropRate: 0, duplicateRate: 0 },
    clients: {
      count: 0,
      workload: "none",
      keys: 5,
      readFraction: 0.3,
      thinkTimeMinMs: 50,
      thinkTimeMaxMs: 250,
      requestTimeoutMs: 300,
      retryBackoffMs: 50,
      maxAttempts: 100,
    },
    lease: {
      minTtlMs: null,
      expiryCheckIntervalMs: 100,
      expirySlackFactor: 1,
      lockDelayMs: 0,
      checkpoint: false,
      checkpointIntervalMs: 1000,
      leaderChangeExtensionMs: null,
      poolSize: 0,
      poolShortenAt: 0,
      poolShortTtlMs: 1000,
      poolDenyRenewalsWhenFull: false,
    },
    holders: {
      count: 0,
      leaseNames: ["lock"],
      ttlMs: 2000,
      renewFraction: 1 / 3,
      rebindFraction: 0,
      renewJitter: 0.1,
      driftMarginPpm: 20_000,
      gracePeriodMs: 0,
      requestTimeoutMs: 300,
      retryBackoffMinMs: 50,
      retryBackoffMaxMs: 800,
      acquireRetryMs: 500,
      workIntervalMs: 250,
      workGapMs: 20,
      holdForMs: 0,
      startAfterMs: 500,
      startStaggerMs: 100,
      registerKey: true,
    },
    storage: { fencing: true },
    checkers: true,
    hashTrace: true,
    stopOnViolation: false,
    inboxLimit: 10_000,
  };
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

/** Every problem with a configuration, in words a user can act on; empty when valid. */
export function configProblems(c: SimConfig): string[] {
  const p: string[] = [];
  const int = (v: number, lo: number, hi: number, name: string): void => {
    if (!Number.isInteger(v) || v < lo || v > hi) p.push(`${name} must be a whole number from ${lo} to ${hi} (got ${v})`);
  };
  const num = (v: number, lo: number, hi: number, name: string): void => {
    if (!Number.isFinite(v) || v < lo || v > hi) p.push(`${name} must be between ${lo} and ${hi} (got ${v})`);
  };
  if (!Number.isSafeInteger(c.seed)) p.push(`seed must be a whole number (got ${c.seed})`);
  int(c.nodes, 1, MAX_NODES, "nodes");
  int(c.spares, 0, MAX_NODES - 1, "spares");
  if (c.nodes + c.spares > MAX_NODES) p.push(`nodes and spares together must be at most ${MAX_NODES} (got ${c.nodes} + ${c.spares})`);
  num(c.raft.electionTimeoutMinMs, 1, 600_000, "electionTimeoutMinMs");
  num(c.raft.electionTimeoutMaxMs, 1, 600_000, "electionTimeoutMaxMs");
  if (c.raft.electionTimeoutMaxMs < c.raft.electionTimeoutMinMs) p.push("electionTimeoutMaxMs must be at least electionTimeoutMinMs");
  num(c.raft.heartbeatIntervalMs, 1, 600_000, "heartbeatIntervalMs");
  if (c.raft.heartbeatIntervalMs >= c.raft.electionTimeoutMinMs) {
    p.push("heartbeatIntervalMs must be shorter than electionTimeoutMinMs, or followers time out between heartbeats");
  }
  int(c.raft.maxEntriesPerAppend, 1, 10_000, "maxEntriesPerAppend");
  int(c.raft.snapshotEveryEntries, 0, 1_000_000, "snapshotEveryEntries");
  int(c.raft.snapshotKeepEntries, 0, 1_000_000, "snapshotKeepEntries");
  num(c.network.latencyMinMs, 0, 600_000, "latencyMinMs");
  num(c.network.latencyMaxMs, 0, 600_000, "latencyMaxMs");
  if (c.network.latencyMaxMs < c.network.latencyMinMs) p.push("latencyMaxMs must be at least latencyMinMs");
  num(c.network.dropRate, 0, 1, "dropRate");
  num(c.network.duplicateRate, 0, 1, "duplicateRate");
  int(c.clients.count, 0, MAX_CLIENTS, "clients.count");
  int(c.clients.keys, 1, 1000, "clients.keys");
  num(c.clients.readFraction, 0, 1, "clients.readFraction");
  // With zero latency (also set later by a network action) and zero think time, clients would issue
  // requests forever at one virtual instant; at 1 µs they crawl (a million operations a second).
  const think = c.clients.thinkTimeMinMs;
  if (!(Number.isFinite(think) && think >= MIN_THINK_TIME_MS && think <= 600_000))
    p.push(
      `clients.thinkTimeMinMs must be between ${MIN_THINK_TIME_MS} and 600000 (got ${think}): ` +
        "with no think time and no latency, clients would send requests forever at one instant",
    );
  num(c.clients.thinkTimeMaxMs, 0, 600_000, "clients.thinkTimeMaxMs");
  if (c.clients.thinkTimeMaxMs < c.clients.thinkTimeMinMs) p.push("clients.thinkTimeMaxMs must be at least thinkTimeMinMs");
  num(c.clients.requestTimeoutMs, 1, 600_000, "clients.requestTimeoutMs");
  num(c.clients.retryBackoffMs, 0, 600_000, "clients.retryBackoffMs");
  int(c.clients.maxAttempts, 1, 100_000, "clients.maxAttempts");
  int(c.inboxLimit, 1, 1_000_000, "inboxLimit");
  const l = c.lease;
  if (l.minTtlMs !== null) num(l.minTtlMs, 1, 3_600_000, "lease.minTtlMs");
  num(l.expiryCheckIntervalMs, 1, 600_000, "lease.expiryCheckIntervalMs");
  num(l.expirySlackFactor, 1, 10, "lease.expirySlackFactor");
  num(l.lockDelayMs, 0, 3_600_000, "lease.lockDelayMs");
  num(l.checkpointIntervalMs, 1, 3_600_000, "lease.checkpointIntervalMs");
  if (l.leaderChangeExtensionMs !== null) num(l.leaderChangeExtensionMs, 0, 3_600_000, "lease.leaderChangeExtensionMs");
  int(l.poolSize, 0, 10_000, "lease.poolSize");
  num(l.poolShortenAt, 0, 1, "lease.poolShortenAt");
  num(l.poolShortTtlMs, 1, 3_600_000, "lease.poolShortTtlMs");
  const h = c.holders;
  int(h.count, 0, MAX_HOLDERS, "holders.count");
  if (h.leaseNames.length === 0 || h.leaseNames.some((n) => n.length === 0 || n.length > 64))
    p.push("holders.leaseNames must name at least one lease, each 1 to 64 characters");
  num(h.ttlMs, 1, 3_600_000, "holders.ttlMs");
  num(h.renewFraction, 0.01, 0.99, "holders.renewFraction");
  if (h.rebindFraction !== 0) {
    num(h.rebindFraction, 0.01, 0.99, "holders.rebindFraction");
    if (h.rebindFraction <= h.renewFraction) p.push("holders.rebindFraction must be above renewFraction (DHCP: T1 = 1/2, T2 = 7/8)");
  }
  num(h.renewJitter, 0, 0.5, "holders.renewJitter");
  int(h.driftMarginPpm, 0, 500_000, "holders.driftMarginPpm");
  num(h.gracePeriodMs, 0, 3_600_000, "holders.gracePeriodMs");
  num(h.requestTimeoutMs, 1, 600_000, "holders.requestTimeoutMs");
  num(h.retryBackoffMinMs, 1, 600_000, "holders.retryBackoffMinMs");
  num(h.retryBackoffMaxMs, 1, 600_000, "holders.retryBackoffMaxMs");
  if (h.retryBackoffMaxMs < h.retryBackoffMinMs) p.push("holders.retryBackoffMaxMs must be at least retryBackoffMinMs");
  num(h.acquireRetryMs, 1, 600_000, "holders.acquireRetryMs");
  num(h.workIntervalMs, 1, 600_000, "holders.workIntervalMs");
  num(h.workGapMs, 0, 600_000, "holders.workGapMs");
  num(h.holdForMs, 0, 3_600_000, "holders.holdForMs");
  num(h.startAfterMs, 0, 3_600_000, "holders.startAfterMs");
  num(h.startStaggerMs, 0, 600_000, "holders.startStaggerMs");
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
