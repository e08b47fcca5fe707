/**
 * A Raft node's state as plain data: what it persists (term, vote, log, snapshot), what it
 * knows (role, leader, commit index, deadlines), what it knows as a leader (progress, reads,
 * a transfer), and the changes it has not yet reported in a Ready.
 */
import type { LocalUs } from "../sim/time";
import { copyLeaseState, freshLeaseState, type LeaseState } from "./leases";
import type { Progress } from "./progress";
import type { Entry, HardState, LogStart, NodeEvent, NodeId, Outgoing, ReadState, Role, Snapshot } from "./types";

/** The shared empty list handed out when there is nothing: by ready(), as a heartbeat's entries (never mutated). */
export const NONE: readonly never[] = Object.freeze([]);

/** Where a log that was never compacted starts. */
export const UNCOMPACTED: LogStart = Object.freeze({ index: 0, term: 0, snapshot: null });

/** A ReadIndex request: the commit index it must wait for, and who confirmed its heartbeat round. */
export interface PendingRead {
  ctx: number;
  index: number;
  round: number;
  acks: NodeId[];
}

/** Every field is plain data so a snapshot is a cheap, explicit copy. */
export interface RaftState {
  term: number;
  votedFor: NodeId | null;
  /** log[i - logStart - 1] is the entry with index i (the log starts after logStart). */
  log: Entry[];
  /** The index of the entry before the log's first (compacted away, or 0), and its term. */
  logStart: number;
  logStartTerm: number;
  /** The latest snapshot (covers at least up to logStart; null if the log was never compacted). */
  snapshot: Snapshot | null;
  role: Role;
  leader: NodeId | null;
  commitIndex: number;
  electionDeadline: number;
  /** Local time the election timer was last started (for drawing how much of it is left). */
  electionTimerFrom: number;
  heartbeatDeadline: number;
  checkQuorumDeadline: number;
  /** Local time we last heard from a leader (or, as leader, last confirmed a quorum). */
  leaderContactAt: LocalUs;
  votes: Record<NodeId, boolean>;
  progress: Record<NodeId, Progress>;
  /** ReadIndex requests waiting for a quorum round. */
  reads: PendingRead[];
  /** Read requests that arrived before this leader committed an entry of its term. */
  readsWaitingForCommit: number[];
  readRound: number;
  /** A leadership transfer in progress: the server leadership goes to (null: none). */
  transferee: NodeId | null;
  /** Local time at which the transfer is given up (an election timeout after it started). */
  transferDeadline: number;
  /** TimeoutNow has been sent to the transferee. */
  transferSent: boolean;
  /**
   * The configuration in use (dissertation 4.1): the voters of the latest config entry in the
   * log, else of the snapshot, else the first configuration. configIndex is that entry's index
   * (the snapshot's index for a snapshot's, 0 for the first): a change is pending while it is
   * past the commit index.
   */
  config: readonly NodeId[];
  configIndex: number;
  /** The local time of the latest input (a step, a timer): for decisions made inside others. */
  lastNow: number;
  /** Leader leases and read leases (leases.ts); untouched while both are off. */
  lease: LeaseState;
  // Unreported changes (the next Ready).
  hardDirty: boolean;
  truncateFrom: number | null;
  appendFrom: number | null;
  /** A snapshot installed from the leader, for the next Ready. */
  installed: Snapshot | null;
  outbox: Outgoing[];
  readStates: ReadState[];
  events: NodeEvent[];
}

/**
 * The state a node boots with from what it persisted: the log after `start`, and the
 * snapshot there (whatever a snapshot covers is committed). `voters` is the first
 * configuration (the node then finds the one in use in the log or the snapshot).
 */
export function bootState(voters: readonly NodeId[], hard: HardState, log: readonly Entry[], start: LogStart, now: LocalUs): RaftState {
  for (let i = 0; i < log.length; i++) {
    if ((log[i] as Entry).index !== start.index + i + 1) throw new Error(`persisted log is not contiguous at ${start.index + i + 1}`);
  }
  if (start.index > 0 && (start.snapshot === null || start.snapshot.index < start.index)) {
    throw new Error(`persisted log starts after ${start.index} without a snapshot covering it`);
  }
  return {
    term: hard.term,
    votedFor: hard.votedFor,
    log: log.slice(),
    logStart: start.index,
    logStartTerm: start.term,
    snapshot: start.snapshot,
    role: "follower",
    leader: null,
    commitIndex: start.snapshot?.index ?? 0,
    electionDeadline: 0,
    electionTimerFrom: 0,
    heartbeatDeadline: 0,
    checkQuorumDeadline: 0,
    leaderContactAt: Number.NEGATIVE_INFINITY,
    votes: {},
    progress: {},
    reads: [],
    readsWaitingForCommit: [],
    readRound: 0,
    transferee: null,
    transferDeadline: 0,
    transferSent: false,
    config: voters,
    configIndex: 0,
    lastNow: now,
    lease: freshLeaseState(now),
    hardDirty: false,
    truncateFrom: null,
    appendFrom: null,
    installed: null,
    outbox: [],
    readStates: [],
    events: [],
  };
}

/**
 * A deep copy of the volatile and persistent state (entries are shared: they are
 * immutable). Without `copyLog` the copy's log is empty (the caller keeps it another way).
 */
export function copyRaftState(s: RaftState, copyLog: boolean): RaftState {
  const progress: Record<NodeId, Progress> = {};
  for (const k in s.progress) {
    const pr = s.progress[k] as Progress;
    progress[k] = { ...pr, inflight: pr.inflight.slice() };
  }
  return {
    ...s,
    log: copyLog ? s.log.slice() : [],
    votes: { ...s.votes },
    progress,
    reads: s.reads.map((r) => ({ ...r, acks: r.acks.slice() })),
    readsWaitingForCommit: s.readsWaitingForCommit.slice(),
    lease: copyLeaseState(s.lease),
    outbox: s.outbox.slice(),
    readStates: s.readStates.slice(),
    events: s.events.slice(),
  };
}
