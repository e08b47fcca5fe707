/**
 * The trace: every state change and every message send, delivery and drop, as
 * typed data. The UI, the CLI, the checkers and the exports all read this stream.
 */
import type { KvMessage, OpResult } from "../kv/messages";
import type { LeaseMessage, LeaseQuery } from "../lease/types";
import type { ClientOp, KvQuery, NodeId, RaftMessage, ReadLeasePhase, Role } from "../raft/types";
import type { StorageMessage } from "../storage/types";
import { hashString } from "./rng";
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

/** Running 64-bit hash of the trace (two 32-bit lanes), fed field by field without building strings. */
export class TraceHasher {
  /** Two 32-bit lanes in a typed array: int32 values in object fields would be boxed. */
  private readonly h: Int32Array;

  constructor(a = 0x811c9dc5, b = 0x01000193) {
    this.h = new Int32Array([a, b]);
  }

  private num(x: number): void {
    const h = this.h;
    const lo = x | 0;
    const hi = (x / 4294967296) | 0;
    let a = h[0] as number;
    let b = h[1] as number;
    a = Math.imul(a ^ lo, 0x01000193);
    a = Math.imul(a ^ hi, 0x01000193);
    b = Math.imul(b ^ lo, 0x5bd1e995);
    b = Math.imul(b ^ (b >>> 15) ^ hi, 0x5bd1e995);
    h[0] = a;
    h[1] = b;
  }

  private str(x: string | null): void {
    this.num(x === null ? -1 : internedHash(x));
  }

  private bool(x: boolean): void {
    this.num(x ? 1 : 0);
  }

  add(e: TraceEvent): void {
    this.num(e.t);
    this.num(e.n);
    this.str(e.kind);
    switch (e.kind) {
      case "send":
        this.num(e.id);
        this.str(e.from);
        this.str(e.to);
        this.num(e.deliverAt);
        this.bool(e.dup);
        this.message(e.msg);
        return;
      case "deliver":
        this.num(e.id);
        this.str(e.from);
        this.str(e.to);
        return;
      case "drop":
        this.num(e.id);
        this.str(e.from);
        this.str(e.to);
        this.str(e.reason);
        return;
      case "hard":
        this.str(e.proc);
        this.num(e.term);
        this.str(e.votedFor);
        return;
      case "log":
        this.str(e.proc);
        this.num(e.truncatedFrom ?? -1);
        this.num(e.from);
        this.num(e.lastIndex);
        this.num(e.lastTerm);
        return;
      case "commit":
        this.str(e.proc);
        this.num(e.index);
        return;
      case "snapshot":
        this.str(e.proc);
        this.str(e.op);
        this.num(e.index);
        this.num(e.term);
        this.num(e.digest);
        this.num(e.logStart);
        this.num(e.lastIndex);
        return;
      case "apply":
        this.str(e.proc);
        this.num(e.from);
        this.num(e.to);
        return;
      case "holder":
        this.str(e.proc);
        this.str(e.state);
        this.str(e.leaseName);
        this.num(e.token ?? -1);
        this.num(e.deadlineUs ?? -1);
        this.str(e.event);
        return;
      case "lease":
        this.str(e.proc);
        this.str(e.op);
        this.str(e.name);
        this.str(e.holder);
        this.num(e.token);
        this.num(e.index ?? -1);
        this.num(e.grantIndex ?? -1);
        this.num(e.ttlMs ?? -1);
        this.num(e.transitions ?? -1);
        this.num(e.expiresAtUs ?? -1);
        this.str(e.reason ?? null);
        return;
      case "storage":
        this.str(e.proc);
        this.num(e.reqId);
        this.str(e.resource);
        this.str(e.holder);
        this.num(e.token);
        this.bool(e.accepted);
        this.str(e.reason);
        this.num(e.highest);
        this.bool(e.fencing);
        return;
      default:
        this.str(hashText(e));
    }
  }

  /** Entries are named by (index, term): by Log Matching that names their content. */
  private message(m: Payload): void {
    this.str(m.type);
    switch (m.type) {
      case "AppendEntries": {
        const last = m.entries[m.entries.length - 1];
        this.num(m.term);
        this.num(m.prevLogIndex);
        this.num(m.prevLogTerm);
        this.num(m.entries.length);
        this.num(last ? last.term : 0);
        this.num(m.leaderCommit);
        this.num(m.readCtx);
        // Read leases only (absent otherwise, so runs without them hash as before).
        if (m.visible !== undefined) this.num(m.visible);
        if (m.grant !== undefined) {
          this.num(m.grant.askId);
          this.num(m.grant.floor);
        }
        return;
      }
      case "AppendEntriesResp":
        this.num(m.term);
        this.bool(m.success);
        this.num(m.matchIndex);
        this.num(m.rejectIndex);
        this.num(m.conflictIndex);
        this.num(m.conflictTerm);
        this.num(m.readCtx);
        if (m.leaseAsk !== undefined) this.num(m.leaseAsk);
        if (m.applied !== undefined) this.num(m.applied);
        return;
      case "RequestVote":
        this.num(m.term);
        this.num(m.lastLogIndex);
        this.num(m.lastLogTerm);
        this.bool(m.preVote);
        this.bool(m.transfer === true);
        return;
      case "TimeoutNow":
        this.num(m.term);
        return;
      case "RequestVoteResp":
        this.num(m.term);
        this.bool(m.granted);
        this.bool(m.preVote);
        return;
      case "InstallSnapshot":
        // The snapshot by its index, term and digest: hashing its data would cost a walk of the state.
        this.num(m.term);
        this.num(m.snapshot.index);
        this.num(m.snapshot.term);
        this.num(m.snapshot.digest);
        return;
      case "LeaseRefresh":
        this.num(m.reqId);
        this.str(m.name);
        this.str(m.holder);
        this.num(m.token);
        return;
      case "LeaseRefreshReply":
        this.num(m.reqId);
        this.str(m.name);
        this.bool(m.ok);
        if (m.ok) this.num(m.ttlMs);
        else {
          this.str(m.reason);
          this.str(m.leaderHint);
        }
        return;
      case "StorageWrite":
        this.num(m.reqId);
        this.str(m.resource);
        this.str(m.holder);
        this.num(m.token);
        this.str(m.value);
        return;
      case "StorageReply":
        this.num(m.reqId);
        this.str(m.resource);
        this.bool(m.accepted);
        this.num(m.highest);
        return;
      default:
        this.str(hashText(m));
    }
  }

  get hex(): string {
    const [a, b] = this.h as unknown as [number, number];
    return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
  }

  state(): [number, number] {
    return [this.h[0] as number, this.h[1] as number];
  }
}

/** Strings longer than this are hashed by their length (hashText). */
export const HASHED_STRING_CHARS = 256;

/**
 * The text hashed for an event or message without a field-by-field case: its JSON, with
 * every string longer than HASHED_STRING_CHARS replaced by its length (so the hash of a run
 * whose strings are all short is its JSON's). A client's answer carries the value of the key
 * it wrote, and appends make values grow for as long as the run lasts: hashing them whole
 * made replay (time travel) slower the longer the run, and reading them flattened V8's
 * appended strings (chains of pieces shared with earlier versions) into copies that the
 * snapshots kept. Values are covered by the checkers (applied exactly once) and by the
 * Raft log, whose entries the hash names.
 */
function hashText(x: unknown): string {
  return JSON.stringify(x, longByLength);
}

function longByLength(_key: string, v: unknown): unknown {
  return typeof v === "string" && v.length > HASHED_STRING_CHARS ? { chars: v.length } : v;
}

const interned = new Map<string, number>();

/** hashString with a cache for the short strings (ids, kinds) that recur on every event. */
function internedHash(x: string): number {
  if (x.length > 24) return hashString(x);
  let h = interned.get(x);
  if (h === undefined) {
    if (interned.size > 4096) interned.clear();
    h = hashString(x);
    interned.set(x, h);
  }
  return h;
}

/** Serialises a trace event as one NDJSON line (messages keep their full content). */
export function toNdjson(e: TraceEvent): string {
  const { t, n, ...rest } = e;
  return JSON.stringify({ t, n, ...rest });
}
