/**
 * The views of the cluster's parts that SimView carries (nodes, leases, storage, messages,
 * checkers), split out of protocol.ts, which re-exports them: protocol.ts stays the contract's
 * entry point, so the page imports them from there.
 */
import type { Role } from "../core/raft/types";
import type { ClockState } from "../core/sim/clock";
import type { ProcStatus } from "../core/sim/sim";
import type { NodeReadsView } from "./readsView";

/**
 * What a log entry does, for the log grid's glyph and colour: a lease grant (its log index
 * is the fencing token if the grant is fresh), a revoke (release), the leader's expiry of a
 * lease, the end of a lock-delay (free), a TTL checkpoint, a key-value write, a new leader's
 * no-op, a configuration change.
 */
export type EntryKind = "grant" | "revoke" | "expire" | "free" | "checkpoint" | "put" | "noop" | "config";

/** One log entry as drawn in the log grid. */
export interface EntryView {
  readonly index: number;
  readonly term: number;
  /** Short label: "noop", "put k2", "grant lock h1", "expire lock", ... */
  readonly label: string;
  readonly kind: EntryKind;
}

export interface ProgressView {
  readonly peer: string;
  readonly next: number;
  readonly match: number;
}

export interface NodeView {
  readonly id: string;
  readonly status: ProcStatus;
  /** null while the node is down (it has no volatile state). */
  readonly role: Role | null;
  /** The persisted term (survives a crash). */
  readonly term: number;
  /** In the cluster's configuration (SimView.config): a voter. A spare or removed server is not. */
  readonly member: boolean;
  /** null while the node is down (the commit index is volatile). */
  readonly commitIndex: number | null;
  /** Index of the last entry in the persisted log. */
  readonly lastIndex: number;
  /** The first index still in the log: the entries before it are compacted into the snapshot (1 without one). */
  readonly firstIndex: number;
  /** The last index the node's snapshot covers (0: no snapshot yet). */
  readonly snapshotIndex: number;
  readonly votedFor: string | null;
  /** Who the node believes leads (null: nobody known, or down). */
  readonly leaderHint: string | null;
  /** Peers that granted this (pre-)candidate a vote in its current round. */
  readonly votesFrom: readonly string[];
  /** When the election timer fires (virtual µs); null for a leader or a down node. */
  readonly electionTimerAt: number | null;
  /** When the election timer was last started (virtual µs), for drawing the arc. */
  readonly electionTimerFrom: number | null;
  /**
   * The node's local clock: at virtual time t it reads localTime(clock, t) (core/sim/clock.ts,
   * the one conversion). A clock, not a reading, so the view stays the same while nothing else changes.
   */
  readonly clock: ClockState;
  readonly driftPpm: number;
  /** While paused: when it wakes (virtual µs). */
  readonly pausedUntil: number | null;
  /** Entries in the shared log window (see SimView.logWindow), oldest first. */
  readonly entries: readonly EntryView[];
  /** On the leader: next and match index per follower. Empty otherwise. */
  readonly progress: readonly ProgressView[];
  /** Its leases for reads (docs/reads.md): absent while down, or with neither read leases nor leader leases on. */
  readonly reads?: NodeReadsView;
}

/** One interval on the lease timeline. */
export interface LeaseSpan {
  readonly holder: string;
  readonly token: number;
  readonly from: number;
  /** null: still open (draw up to `until`, or now). */
  readonly to: number | null;
  /** How it ended: "expire", "revoke", "lost", "released", "crash", or null while open. */
  readonly end: string | null;
}

/** A point on the lease timeline. */
export interface LeaseMark {
  readonly t: number;
  /** Jeopardy, grace, grace-renewed (a renewal that came back during grace) and lost are the holder's; the rest the leader's. */
  readonly kind:
    | "grant"
    | "deny"
    | "refresh"
    | "refresh-denied"
    | "expiring"
    | "expire"
    | "revoke"
    | "extended"
    | "jeopardy"
    | "grace"
    | "grace-renewed"
    | "lost";
  readonly holder: string | null;
  readonly token: number;
}

export interface LeaseRowView {
  readonly name: string;
  /** Committed state, as applied by the leader (or the most advanced up node). */
  readonly state: "held" | "delayed" | "free";
  readonly holder: string | null;
  readonly token: number;
  readonly ttlMs: number;
  readonly transitions: number;
  readonly keys: readonly string[];
  /** The leader's expiry for the current grant, on virtual time; null when no leader times it. */
  readonly leaderExpiresAt: number | null;
  readonly leaderId: string | null;
  /** The leader's view: one span per grant (recent ones). */
  readonly leaderSpans: readonly LeaseSpan[];
  /** Each holder's own view: when it believed it held the lease (recent ones). */
  readonly holderSpans: readonly LeaseSpan[];
  readonly marks: readonly LeaseMark[];
}

export interface StorageWriteView {
  /** Virtual time the storage handled it. */
  readonly t: number;
  readonly holder: string;
  readonly resource: string;
  readonly token: number;
  readonly accepted: boolean;
  /** Why it was rejected, in words, or null. */
  readonly reason: string | null;
  readonly highestAfter: number;
  readonly fencing: boolean;
}

export interface StorageView {
  readonly id: string;
  readonly status: ProcStatus;
  readonly fencing: boolean;
  readonly resources: readonly { readonly resource: string; readonly highest: number; readonly value: string | null }[];
  /** The most recent writes, newest last. */
  readonly writes: readonly StorageWriteView[];
  readonly accepted: number;
  readonly rejected: number;
}

/** A message on the wire (or arrived and waiting in a paused process's inbox). */
export interface MessageView {
  readonly id: number;
  readonly from: string;
  readonly to: string;
  readonly sentAt: number;
  readonly deliverAt: number;
  /** "vote", "pre-vote", "vote reply", "append", "heartbeat", "append reply", "grant", "refresh", "write", ... */
  readonly label: string;
  /** One line: the interesting fields. */
  readonly detail: string;
  /** Decided at send time: it will be lost or blocked on the way. */
  readonly fate: "ok" | "loss" | "partition" | "cut";
  readonly dup: boolean;
  /** Arrived at a paused process and waits there. */
  readonly queued: boolean;
}

/** A message that was dropped recently (drawn as lost for a moment). */
export interface DropView {
  readonly id: number;
  readonly from: string;
  readonly to: string;
  readonly sentAt: number;
  readonly droppedAt: number;
  readonly label: string;
  readonly reason: string;
}

export interface NetworkView {
  /** Partition groups (each a list of process ids); empty when healed. */
  readonly groups: readonly (readonly string[])[];
  /** One-way cut links. */
  readonly cuts: readonly { readonly from: string; readonly to: string }[];
  /** Processes cut off from every other (disconnect). */
  readonly isolated: readonly string[];
  /** One-way slow links: messages from `from` to `to` take `delayUs` longer. */
  readonly slow: readonly { readonly from: string; readonly to: string; readonly delayUs: number }[];
  readonly dropRate: number;
  readonly duplicateRate: number;
  readonly latencyMinUs: number;
  readonly latencyMaxUs: number;
}

export interface CheckerView {
  readonly invariant: string;
  /** One sentence: what must hold. */
  readonly rule: string;
  readonly violations: number;
  readonly firstAt: number | null;
}

export interface ViolationView {
  readonly invariant: string;
  readonly timeUs: number;
  readonly nodes: readonly string[];
  readonly detail: string;
  /** What went wrong, in plain words for a student. */
  readonly explanation: string;
}
