/** Simulation settings: every timing in milliseconds (units last in names), validated in one place. */

export interface RaftSettings {
  electionTimeoutMinMs: number;
  electionTimeoutMaxMs: number;
  heartbeatIntervalMs: number;
  preVote: boolean;
  checkQuorum: boolean;
  maxEntriesPerAppend: number;
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

export interface SimConfig {
  seed: number;
  nodes: number;
  raft: RaftSettings;
  network: NetworkSettings;
  clients: ClientSettings;
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
export const MAX_CLIENTS = 50;

export function defaultConfig(): SimConfig {
  return {
    seed: 1,
    nodes: 5,
    raft: {
      electionTimeoutMinMs: 150,
      electionTimeoutMaxMs: 300,
      heartbeatIntervalMs: 50,
      preVote: true,
      checkQuorum: true,
      maxEntriesPerAppend: 64,
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
  num(c.raft.electionTimeoutMinMs, 1, 600_000, "electionTimeoutMinMs");
  num(c.raft.electionTimeoutMaxMs, 1, 600_000, "electionTimeoutMaxMs");
  if (c.raft.electionTimeoutMaxMs < c.raft.electionTimeoutMinMs) p.push("electionTimeoutMaxMs must be at least electionTimeoutMinMs");
  num(c.raft.heartbeatIntervalMs, 1, 600_000, "heartbeatIntervalMs");
  if (c.raft.heartbeatIntervalMs >= c.raft.electionTimeoutMinMs) {
    p.push("heartbeatIntervalMs must be shorter than electionTimeoutMinMs, or followers time out between heartbeats");
  }
  int(c.raft.maxEntriesPerAppend, 1, 10_000, "maxEntriesPerAppend");
  num(c.network.latencyMinMs, 0, 600_000, "latencyMinMs");
  num(c.network.latencyMaxMs, 0, 600_000, "latencyMaxMs");
  if (c.network.latencyMaxMs < c.network.latencyMinMs) p.push("latencyMaxMs must be at least latencyMinMs");
  num(c.network.dropRate, 0, 1, "dropRate");
  num(c.network.duplicateRate, 0, 1, "duplicateRate");
  int(c.clients.count, 0, MAX_CLIENTS, "clients.count");
  int(c.clients.keys, 1, 1000, "clients.keys");
  num(c.clients.readFraction, 0, 1, "clients.readFraction");
  num(c.clients.thinkTimeMinMs, 0, 600_000, "clients.thinkTimeMinMs");
  num(c.clients.thinkTimeMaxMs, 0, 600_000, "clients.thinkTimeMaxMs");
  if (c.clients.thinkTimeMaxMs < c.clients.thinkTimeMinMs) p.push("clients.thinkTimeMaxMs must be at least thinkTimeMinMs");
  num(c.clients.requestTimeoutMs, 1, 600_000, "clients.requestTimeoutMs");
  num(c.clients.retryBackoffMs, 0, 600_000, "clients.retryBackoffMs");
  int(c.clients.maxAttempts, 1, 100_000, "clients.maxAttempts");
  int(c.inboxLimit, 1, 1_000_000, "inboxLimit");
  return p;
}

export function nodeIds(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `n${i + 1}`);
}

export function clientIds(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `c${i + 1}`);
}
