/** Types shared by the Raft node, its host and the simulator. */
import type { LeaseOp, SystemOp } from "../lease/types";

export type NodeId = string;

/** Operations of the replicated key-value state machine. */
export type KvOp =
  /** With `lease`, the key is attached to that lease and deleted when the lease ends. */
  | { readonly type: "put"; readonly key: string; readonly value: string; readonly lease?: string }
  | { readonly type: "append"; readonly key: string; readonly value: string }
  | { readonly type: "delete"; readonly key: string }
  | { readonly type: "cas"; readonly key: string; readonly expect: string | null; readonly value: string };

/** Read-only queries, served through ReadIndex (never written to the log). */
export type KvQuery = { readonly type: "get"; readonly key: string };

/** What a client may write: a key-value operation or a lease request. */
export type ClientOp = KvOp | LeaseOp;

/** What a log entry carries. A no-op is appended by every new leader; system commands come from the leader's lease tracker. */
export type Command =
  | { readonly type: "noop" }
  | { readonly type: "client"; readonly clientId: string; readonly seq: number; readonly op: ClientOp }
  | { readonly type: "system"; readonly op: SystemOp }
  /**
   * A configuration change (dissertation 4.1): the whole new set of voters, which differs
   * from the one before by exactly one server. A server uses the latest configuration in
   * its log, committed or not.
   */
  | { readonly type: "config"; readonly voters: readonly NodeId[] };

/** A log entry. Entries are immutable once created and shared between logs. */
export interface Entry {
  readonly index: number;
  readonly term: number;
  readonly cmd: Command;
}

/** What Raft persists before it acts (Figure 2, "persistent state on all servers"). */
export interface HardState {
  readonly term: number;
  readonly votedFor: NodeId | null;
}

export type Role = "follower" | "precandidate" | "candidate" | "leader";

export interface RequestVote {
  readonly type: "RequestVote";
  /** For a PreVote this is the term the candidate would campaign in (its term + 1). */
  readonly term: number;
  readonly lastLogIndex: number;
  readonly lastLogTerm: number;
  readonly preVote: boolean;
  /**
   * The election was started by a leadership transfer (TimeoutNow): voters grant it even
   * though they heard the leader recently (dissertation 3.10; etcd's campaignTransfer).
   */
  readonly transfer?: boolean;
}

export interface RequestVoteResp {
  readonly type: "RequestVoteResp";
  readonly term: number;
  readonly granted: boolean;
  readonly preVote: boolean;
}

export interface AppendEntries {
  readonly type: "AppendEntries";
  readonly term: number;
  readonly prevLogIndex: number;
  readonly prevLogTerm: number;
  readonly entries: readonly Entry[];
  readonly leaderCommit: number;
  /** Highest ReadIndex round this message confirms (0: none). Echoed in the response. */
  readonly readCtx: number;
  /** Read leases only: the leader's visible index (every current read-lease holder has applied up to it). */
  readonly visible?: number;
  /** Read leases only: a read lease granted to the receiver, for its ask `askId`; serve once applied to `floor`. */
  readonly grant?: { readonly askId: number; readonly floor: number };
}

export interface AppendEntriesResp {
  readonly type: "AppendEntriesResp";
  readonly term: number;
  readonly success: boolean;
  /** On success: the index of the last entry known to match the leader's log. */
  readonly matchIndex: number;
  /** On failure: the prevLogIndex that was rejected (lets the leader ignore stale rejections). */
  readonly rejectIndex: number;
  /** Fast back-up hint (Raft paper section 5.3): the first index of conflictTerm, or lastIndex + 1. */
  readonly conflictIndex: number;
  /** Term of the follower's entry at rejectIndex; 0 when its log is too short. */
  readonly conflictTerm: number;
  readonly readCtx: number;
  /** Read leases only: the sender asks for a read lease (its ask's id; the sender times the lease from this ask). */
  readonly leaseAsk?: number;
  /** Read leases only: the sender's commit index (it applies up to it before it answers anything else). */
  readonly applied?: number;
}

/** Leader -> the server it hands leadership to: start an election now (dissertation 3.10). */
export interface TimeoutNow {
  readonly type: "TimeoutNow";
  readonly term: number;
}

/**
 * A snapshot of the replicated state machine (Raft paper section 7, Figure 12): the
 * state after applying every entry up to `index`. Immutable: the disk, the node, the
 * messages carrying it and every frozen copy of the simulation share one object.
 */
export interface Snapshot {
  /** The last included index and its term. */
  readonly index: number;
  readonly term: number;
  /** The configuration as of `index` (fixed today: every voter). */
  readonly voters: readonly NodeId[];
  /** The state machine's data; Raft never looks inside. */
  readonly data: unknown;
  /** A hash of `data`, so the trace and the checkers can compare snapshots without reading them. */
  readonly digest: number;
}

/**
 * InstallSnapshot (Raft paper, Figure 13), sent in one message: the simulated network
 * carries any size, so there is no chunking (no offset or done fields). The follower
 * answers with an AppendEntriesResp whose matchIndex is the snapshot's index, as etcd's
 * followers answer MsgSnap with MsgAppResp.
 */
export interface InstallSnapshot {
  readonly type: "InstallSnapshot";
  readonly term: number;
  readonly snapshot: Snapshot;
}

export type RaftMessage = RequestVote | RequestVoteResp | AppendEntries | AppendEntriesResp | TimeoutNow | InstallSnapshot;

export interface RaftConfig {
  readonly id: NodeId;
  /**
   * The cluster's first configuration (every voter, in a fixed order). A spare server is not
   * in it: it votes for nobody's majority and starts no election until a configuration
   * change adds it. Later configurations come from the log (or the snapshot).
   */
  readonly voters: readonly NodeId[];
  readonly electionTimeoutMinUs: number;
  readonly electionTimeoutMaxUs: number;
  readonly heartbeatIntervalUs: number;
  readonly preVote: boolean;
  readonly checkQuorum: boolean;
  readonly maxEntriesPerAppend: number;
  /**
   * How the leader confirms a read (docs/reads.md): "read-index" (default) runs a heartbeat
   * round per read (dissertation 6.4); "leader-lease" answers from the leader's own state
   * while its lease holds: from the send time of the latest heartbeat round a majority
   * acknowledged, for leaseUs(electionTimeoutMinUs, leaseDriftBoundPpm).
   */
  readonly reads?: "read-index" | "leader-lease";
  /** The bound on any clock's rate error, in ppm, that the leases assume (both leader and read leases). */
  readonly leaseDriftBoundPpm?: number;
  /** Read leases (docs/reads.md): the leader grants them to up to this many followers (0: none). */
  readonly readLeaseFollowers?: number;
  /** How long a read lease lasts, on the leader's clock from its grant (µs). */
  readonly readLeaseUs?: number;
}

/**
 * Where a log starts: the entry before its first one (index and term; 0 and 0 for a log
 * that starts at 1), and the snapshot covering everything up to at least there.
 */
export interface LogStart {
  readonly index: number;
  readonly term: number;
  readonly snapshot: Snapshot | null;
}

/** Things the node reports for the trace. */
export type NodeEvent =
  | { readonly type: "role"; readonly role: Role; readonly term: number; readonly leader: NodeId | null; readonly reason: string }
  | { readonly type: "vote"; readonly term: number; readonly candidate: NodeId }
  | { readonly type: "commit"; readonly index: number }
  /**
   * A leadership transfer (dissertation 3.10): `started` (the leader stops taking proposals
   * and catches `to` up), `timeout-now` (it told `to` to campaign), `aborted` (with why).
   */
  /** The configuration this node uses changed (an entry appended, truncated, or a snapshot installed). */
  | { readonly type: "config"; readonly voters: readonly NodeId[]; readonly index: number }
  | { readonly type: "transfer"; readonly to: NodeId; readonly phase: "started" | "timeout-now" | "aborted"; readonly reason: string }
  /** Read leases (docs/reads.md): granted (leader, to `peer`), held (follower), expired, dropped (with why). */
  | { readonly type: "readlease"; readonly phase: ReadLeasePhase; readonly peer: NodeId; readonly untilLocal: number; readonly reason: string };

export type ReadLeasePhase = "granted" | "held" | "expired" | "dropped";

export interface Outgoing {
  readonly to: NodeId;
  readonly msg: RaftMessage;
}

export interface ReadState {
  /** The host's request id. */
  readonly ctx: number;
  /** The commit index that must be applied before the read is served. */
  readonly index: number;
  /** Confirmed by the leader's lease rather than a heartbeat round. */
  readonly lease?: true;
}

/**
 * What the host must do, in order: persist hardState and the log changes, then send
 * the messages, then apply entries up to commitIndex and serve readStates.
 */
export interface Ready {
  readonly hardState: HardState | null;
  /** Drop every persisted entry with index >= truncateFrom before appending. */
  readonly truncateFrom: number | null;
  /**
   * A snapshot received from the leader (InstallSnapshot), to persist before anything else
   * in this Ready: keep the persisted entries after its index if the entry at its index has
   * its term (Figure 13 step 6), else drop them all; then load the state machine from it.
   */
  readonly snapshot: Snapshot | null;
  /** Entries to append to the persisted log (after truncation), in order. */
  readonly entries: readonly Entry[];
  readonly messages: readonly Outgoing[];
  readonly commitIndex: number;
  readonly readStates: readonly ReadState[];
  readonly events: readonly NodeEvent[];
}
