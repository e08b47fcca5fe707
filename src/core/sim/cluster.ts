/**
 * The cluster the simulator runs: the processes it builds from the settings (Raft nodes,
 * key-value clients, lease holders, the fenced storage), the simulator's record of each
 * (status, clock, timer, pause, inbox), and typed access to a process's logic by its kind.
 */
import { LeaseHolder } from "../holder/holder";
import { KvClient } from "../kv/client";
import { type Disk, RaftServer } from "../raft/server";
import type { RaftConfig } from "../raft/types";
import { FencedStorage } from "../storage/storage";
import { type ClockState, newClock } from "./clock";
import { clientIds, holderIds, holderSettings, leaseServerSettings, nodeIds, STORAGE_ID, type SimConfig } from "./config";
import type { ProcessLogic } from "./process";
import type { Rng } from "./rng";
import { type VirtualUs, ms } from "./time";
import type { Envelope } from "./sim";
import type { ProcId } from "./trace";

export type ProcStatus = "up" | "down" | "paused";

/** The logic behind each kind of process. */
export interface LogicOf {
  node: RaftServer;
  client: KvClient;
  holder: LeaseHolder;
  storage: FencedStorage;
}
export type ProcessKind = keyof LogicOf;

/** What the simulator keeps for one process besides its logic. */
export interface ProcRecord {
  readonly id: ProcId;
  logic: ProcessLogic;
  status: ProcStatus;
  clock: ClockState;
  timerGen: number;
  /** When its timer event is queued (virtual). */
  timerAt: VirtualUs | null;
  pauseGen: number;
  pausedUntil: VirtualUs | null;
  /** Messages that arrived while paused, with their arrival time. */
  inbox: { env: Envelope; at: VirtualUs }[];
}

/** The process's logic if it is of that kind, else null (every process names its kind). */
export function logicOf<K extends ProcessKind>(p: ProcRecord | undefined, kind: K): LogicOf[K] | null {
  return p !== undefined && p.logic.kind === kind ? (p.logic as LogicOf[K]) : null;
}

export interface Cluster {
  /** Every server: the first configuration's, then the spares. */
  readonly nodeIds: readonly ProcId[];
  readonly clientIds: readonly ProcId[];
  readonly holderIds: readonly ProcId[];
  /** The fenced storage process, present when there are holders. */
  readonly storageId: ProcId | null;
  readonly procs: Map<ProcId, ProcRecord>;
}

/**
 * Builds every process the settings ask for, each with its own stream forked from `root`
 * (by name, so adding a holder does not change a node's draws).
 */
export function buildCluster(config: SimConfig, root: Rng): Cluster {
  const ids = clusterIds(config);
  const procs = new Map<ProcId, ProcRecord>();
  for (const id of [...ids.nodeIds, ...ids.clientIds, ...ids.holderIds]) procs.set(id, newProc(id, buildProcess(config, root, id)));
  if (ids.storageId !== null) procs.set(ids.storageId, newProc(ids.storageId, buildProcess(config, root, ids.storageId)));
  return { ...ids, procs };
}

/** The ids of every process the settings ask for, by kind. */
export function clusterIds(config: SimConfig): Omit<Cluster, "procs"> {
  return {
    nodeIds: nodeIds(config.nodes + config.spares),
    clientIds: clientIds(config.clients.count),
    holderIds: holderIds(config.holders.count),
    storageId: config.holders.count > 0 ? STORAGE_ID : null,
  };
}

/**
 * One process of the cluster, fresh, with its stream forked from `root` by its name: the
 * simulator builds every process this way, and so does a live run's worker (which builds
 * only its own). `rngLabel` replaces the name's label (a live run's restarted worker draws
 * from a stream of its own); `disk` is what survived a crash (a Raft node's disk).
 */
export function buildProcess(config: SimConfig, root: Rng, id: ProcId, rngLabel?: string, disk?: Disk): ProcessLogic {
  const ids = clusterIds(config);
  const r = config.raft;
  const fork = (kind: string): Rng => root.fork(rngLabel ?? `${kind}:${id}`);
  if (ids.nodeIds.includes(id)) {
    const raft: RaftConfig = {
      id,
      voters: nodeIds(config.nodes),
      electionTimeoutMinUs: ms(r.electionTimeoutMinMs),
      electionTimeoutMaxUs: ms(r.electionTimeoutMaxMs),
      heartbeatIntervalUs: ms(r.heartbeatIntervalMs),
      preVote: r.preVote,
      checkQuorum: r.checkQuorum,
      maxEntriesPerAppend: r.maxEntriesPerAppend,
      reads: r.reads,
      leaseDriftBoundPpm: r.leaseDriftBoundPpm,
      readLeaseFollowers: r.readLeaseFollowers,
      readLeaseUs: ms(r.readLeaseMs),
    };
    const compaction = { everyEntries: r.snapshotEveryEntries, keepEntries: r.snapshotKeepEntries };
    return new RaftServer({ raft, lease: leaseServerSettings(config), compaction }, fork("node"), disk);
  }
  if (ids.clientIds.includes(id)) {
    const c = config.clients;
    const settings = {
      id,
      servers: ids.nodeIds,
      requestTimeoutUs: ms(c.requestTimeoutMs),
      retryBackoffUs: ms(c.retryBackoffMs),
      maxAttempts: c.maxAttempts,
      workload: c.workload,
      keys: c.keys,
      readFraction: c.readFraction,
      thinkTimeMinUs: ms(c.thinkTimeMinMs),
      thinkTimeMaxUs: ms(c.thinkTimeMaxMs),
      maxValueChars: c.maxValueChars,
      // With read leases, reads go first to the client's own server (a follower may answer them).
      readsAtHome: r.readLeaseFollowers > 0,
    };
    return new KvClient(settings, fork("client"));
  }
  const h = ids.holderIds.indexOf(id);
  if (h >= 0) return new LeaseHolder(holderSettings(config, h), fork("holder"));
  if (id === ids.storageId) return new FencedStorage(id, { fencing: config.storage.fencing });
  throw new Error(`no process named "${id}" in this cluster`);
}

function newProc(id: ProcId, logic: ProcessLogic): ProcRecord {
  return { id, logic, status: "up", clock: newClock(), timerGen: 0, timerAt: null, pauseGen: 0, pausedUntil: null, inbox: [] };
}

export function cloneProc(p: ProcRecord): ProcRecord {
  return { ...p, logic: p.logic.clone(), inbox: p.inbox.slice() };
}

/** The copy a snapshot keeps (restore() clones it again). */
export function freezeProc(p: ProcRecord): ProcRecord {
  return { ...p, logic: p.logic.freeze?.() ?? p.logic.clone(), inbox: p.inbox.slice() };
}
