/**
 * The trace: every state change and every message send, delivery and drop, as
 * typed data. The UI, the CLI, the checkers and the exports all read this stream.
 */
import type { KvMessage, OpResult } from "../kv/messages";
import type { LeaseMessage, LeaseQuery } from "../lease/types";
import type { ClientOp, KvQuery, NodeId, RaftMessage, ReadLeasePhase, Role } from "../raft/types";
import type { StorageMessage } from "../storage/types";
import type { LocalUs, VirtualUs } from "./time";

export type ProcId = string;
export type Payload = RaftMessage | KvMessage | LeaseMessage | StorageMessage;
export type MessageType = Payload["type"];

/** Every type of message, by name (the compiler keeps this list and Payload the same). */
export const MESSAGE_TYPES = Object.keys({
  RequestVote: true,
  RequestVoteResp: true,
  AppendEntries: true,
  AppendEntriesResp: true,
  InstallSnapshot: true,
  TimeoutNow: true,
  ClientWrite: true,
  ClientRead: true,
  ClientReply: true,
  LeaseRefresh: true,
  LeaseRefreshReply: true,
  StorageWrite: true,
  StorageReply: true,
} satisfies Record<MessageType, true>) as MessageType[];

export type DropReason = "partition" | "cut" | "loss" | "down" | "user" | "inbox-full";

/** Events a process reports about itself (the simulator adds time and process id). */
export type ProcEvent =
  | { readonly kind: "role"; readonly role: Role; readonly term: number; readonly leader: NodeId | null; readonly reason: string }
  | { readonly kind: "vote"; readonly term: number; readonly candidate: NodeId }
  /** The persisted hard state changed. */
  | { readonly kind: "hard"; readonly term: number; readonly votedFor: NodeId | null }
  /** The persisted log changed: entries from `from` on were (re)written; it now ends at lastIndex. */
  | {
      readonly kind: "log";
      readonly truncatedFrom: number | null;
      readonly from: number;
      readonly lastIndex: number;
      readonly lastTerm: number;
    }
  /**
   * Log compaction (Raft paper section 7). "take": the node snapshotted its state machine
   * at `index` and dropped its persisted entries up to `logStart`. "install": it persisted
   * a snapshot from the leader (InstallSnapshot) and loads its state machine from it; its
   * log starts after `logStart` (= index) and keeps the entries after it only if it held
   * the snapshot's last entry. `digest` hashes the snapshot's data.
   */
  | {
      readonly kind: "snapshot";
      readonly op: "take" | "install";
      readonly index: number;
      readonly term: number;
      readonly digest: number;
      readonly logStart: number;
      readonly lastIndex: number;
    }
  | { readonly kind: "commit"; readonly index: number }
  /** The configuration the node uses changed (a config entry appended or undone, or a snapshot installed). */
  | { readonly kind: "config"; readonly voters: readonly NodeId[]; readonly index: number }
  /** A leadership transfer: started, TimeoutNow sent to `to`, or aborted (reason). */
  | {
      readonly kind: "transfer";
      readonly to: NodeId;
      readonly phase: "started" | "timeout-now" | "aborted";
      readonly reason: string;
    }
  | { readonly kind: "apply"; readonly from: number; readonly to: number }
  /**
   * Read leases (docs/reads.md). On the leader: `granted` to `peer`, or `expired` on its clock
   * (untilLocal: the leader's local end). On a follower: `held` (granted by `peer`, the leader),
   * `expired`, or `dropped` (a new term or leader; `reason`).
   */
  | { readonly kind: "readlease"; readonly phase: ReadLeasePhase; readonly peer: NodeId; readonly untilLocal: number; readonly reason: string }
  /**
   * A read served without a heartbeat round: `local` at a follower holding a read lease,
   * `leader-lease` by the leader under its lease; from the state at applied index `index`.
   */
  | { readonly kind: "lease-read"; readonly via: "local" | "leader-lease"; readonly client: ProcId; readonly seq: number; readonly index: number }
  /**
   * The leader applied the write at `index` but holds its answer (or a read's, at that index):
   * the read-lease holders `waitingOn` have not yet applied it and their leases still hold.
   */
  | { readonly kind: "write-wait"; readonly index: number; readonly waitingOn: readonly NodeId[] }
  | {
      readonly kind: "client";
      readonly phase: "invoke" | "ok" | "fail" | "info";
      readonly clientId: string;
      readonly seq: number;
      readonly op: ClientOp | KvQuery | LeaseQuery;
      readonly result?: OpResult;
      readonly note?: string;
    }
  /**
   * The lease service. On every node: grant, deny, revoke, expire, free, checkpoint as
   * committed entries are applied (`index`). On the leader only: timed (it starts timing a
   * new grant), refresh, refresh-denied, expiring (it proposed an Expire), extended (a new
   * leader gave a lease a fresh TTL);
   * `expiresAtUs` is the leader's local clock reading at which it will expire the lease.
   */
  | {
      readonly kind: "lease";
      readonly op:
        | "grant"
        | "deny"
        | "revoke"
        | "expire"
        | "expire-skipped"
        | "free"
        | "checkpoint"
        | "timed"
        | "refresh"
        | "refresh-denied"
        | "expiring"
        | "extended";
      readonly name: string;
      readonly holder: string | null;
      readonly token: number;
      readonly index?: number;
      readonly grantIndex?: number;
      readonly ttlMs?: number;
      readonly transitions?: number;
      readonly expiresAtUs?: number;
      readonly reason?: string;
      /** expire, revoke: the keys attached to the lease, deleted with it (absent when none were). */
      readonly keys?: readonly string[];
    }
  /** A holder's statechart moved: `state` is its state value ("holding.working", "jeopardy", ...). */
  | {
      readonly kind: "holder";
      readonly state: string;
      readonly leaseName: string;
      readonly token: number | null;
      /** The holder's own conservative deadline, on its local clock (µs), while it believes it holds the lease. */
      /** On the holder's own clock. */
      readonly deadlineUs: LocalUs | null;
      readonly event: string;
    }
  /**
   * A database replica's role changed (holders with `replicas` on): primary (it holds the lease
   * and takes the writes), secondary, or offline (its own watchdog took it offline: it could not
   * renew before its own deadline). `token`: the lease it holds, or held when it went offline.
   */
  | {
      readonly kind: "replica";
      readonly role: "primary" | "secondary" | "offline";
      readonly leaseName: string;
      readonly token: number | null;
      /** What moved it (the holder's event: "GRANTED", "after:untilDeadline", "REFRESH_LOST", ...). */
      readonly cause: string;
    }
  /** The storage process handled a write. */
  | {
      readonly kind: "storage";
      readonly reqId: number;
      readonly resource: string;
      readonly holder: string;
      readonly token: number;
      readonly accepted: boolean;
      readonly reason: string | null;
      /** Highest token accepted for the resource after this write. */
      readonly highest: number;
      readonly fencing: boolean;
      /** The value written (stored only if accepted). */
      readonly value: string;
      /** The storage's local clock reading when it handled the write (µs). */
      readonly atUs: number;
    };

export type SimEvent =
  | {
      readonly kind: "send";
      readonly id: number;
      readonly from: ProcId;
      readonly to: ProcId;
      readonly deliverAt: VirtualUs;
      readonly msg: Payload;
      readonly dup: boolean;
    }
  | { readonly kind: "deliver"; readonly id: number; readonly from: ProcId; readonly to: ProcId }
  | { readonly kind: "drop"; readonly id: number; readonly from: ProcId; readonly to: ProcId; readonly reason: DropReason }
  | { readonly kind: "crash"; readonly proc: ProcId }
  | { readonly kind: "restart"; readonly proc: ProcId }
  | { readonly kind: "pause"; readonly proc: ProcId; readonly untilUs: VirtualUs }
  | { readonly kind: "resume"; readonly proc: ProcId }
  | { readonly kind: "clock"; readonly proc: ProcId; readonly driftPpm: number; readonly jumpUs: number }
  | { readonly kind: "partition"; readonly groups: readonly (readonly ProcId[])[] }
  | { readonly kind: "heal" }
  | { readonly kind: "cut"; readonly from: ProcId; readonly to: ProcId }
  | { readonly kind: "slow-link"; readonly from: ProcId; readonly to: ProcId; readonly delayUs: number }
  /** A process cut off from every other (both ways), or joined back. */
  | { readonly kind: "disconnect" | "connect"; readonly proc: ProcId }
  | {
      readonly kind: "network";
      readonly dropRate: number;
      readonly duplicateRate: number;
      readonly latencyMinUs: number;
      readonly latencyMaxUs: number;
      /** Present when some types of message have their own latency range. */
      readonly latencyByType?: Readonly<Record<string, { readonly minUs: number; readonly maxUs: number }>>;
    }
  | { readonly kind: "timeout"; readonly proc: ProcId }
  | { readonly kind: "note"; readonly text: string }
  | { readonly kind: "violation"; readonly invariant: string; readonly nodes: readonly ProcId[]; readonly detail: string };

/** One trace record: time (virtual µs), position in the run, and who it is about. */
export type TraceEvent = { readonly t: VirtualUs; readonly n: number } & (({ readonly proc: ProcId } & ProcEvent) | SimEvent);

/** Serialises a trace event as one NDJSON line (messages keep their full content). */
export function toNdjson(e: TraceEvent): string {
  const { t, n, ...rest } = e;
  return JSON.stringify({ t, n, ...rest });
}
