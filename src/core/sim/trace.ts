/**
 * The trace: every state change and every message send, delivery and drop, as
 * typed data. The UI, the CLI, the checkers and the exports all read this stream.
 */
import type { KvMessage, KvResult } from "../kv/messages";
import type { KvOp, KvQuery, NodeId, RaftMessage, Role } from "../raft/types";
import { hashString } from "./rng";

export type ProcId = string;
export type Payload = RaftMessage | KvMessage;

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
  | { readonly kind: "commit"; readonly index: number }
  | { readonly kind: "apply"; readonly from: number; readonly to: number }
  | {
      readonly kind: "client";
      readonly phase: "invoke" | "ok" | "fail" | "info";
      readonly clientId: string;
      readonly seq: number;
      readonly op: KvOp | KvQuery;
      readonly result?: KvResult;
      readonly note?: string;
    };

export type SimEvent =
  | {
      readonly kind: "send";
      readonly id: number;
      readonly from: ProcId;
      readonly to: ProcId;
      readonly deliverAt: number;
      readonly msg: Payload;
      readonly dup: boolean;
    }
  | { readonly kind: "deliver"; readonly id: number; readonly from: ProcId; readonly to: ProcId }
  | { readonly kind: "drop"; readonly id: number; readonly from: ProcId; readonly to: ProcId; readonly reason: DropReason }
  | { readonly kind: "crash"; readonly proc: ProcId }
  | { readonly kind: "restart"; readonly proc: ProcId }
  | { readonly kind: "pause"; readonly proc: ProcId; readonly untilUs: number }
  | { readonly kind: "resume"; readonly proc: ProcId }
  | { readonly kind: "clock"; readonly proc: ProcId; readonly driftPpm: number; readonly jumpUs: number }
  | { readonly kind: "partition"; readonly groups: readonly (readonly ProcId[])[] }
  | { readonly kind: "heal" }
  | { readonly kind: "cut"; readonly from: ProcId; readonly to: ProcId }
  | {
      readonly kind: "network";
      readonly dropRate: number;
      readonly duplicateRate: number;
      readonly latencyMinUs: number;
      readonly latencyMaxUs: number;
    }
  | { readonly kind: "timeout"; readonly proc: ProcId }
  | { readonly kind: "note"; readonly text: string }
  | { readonly kind: "violation"; readonly invariant: string; readonly nodes: readonly ProcId[]; readonly detail: string };

/** One trace record: time (virtual µs), position in the run, and who it is about. */
export type TraceEvent = { readonly t: number; readonly n: number } & (({ readonly proc: ProcId } & ProcEvent) | SimEvent);

/** Short label of a message, as the UI and the event log show it. */
export function messageLabel(m: Payload): string {
  switch (m.type) {
    case "RequestVote":
      return m.preVote ? "pre-vote" : "vote";
    case "RequestVoteResp":
      return m.preVote ? "pre-vote reply" : "vote reply";
    case "AppendEntries":
      return m.entries.length === 0 ? "heartbeat" : "append";
    case "AppendEntriesResp":
      return "append reply";
    case "ClientWrite":
      return "write";
    case "ClientRead":
      return "read";
    case "ClientReply":
      return "reply";
  }
}

/**
 * A compact, canonical text of a message for hashing: entries are named by
 * (index, term) only, which by Log Matching names their content.
 */
function messageKey(m: Payload): string {
  switch (m.type) {
    case "AppendEntries": {
      const last = m.entries[m.entries.length - 1];
      return `AE ${m.term} ${m.prevLogIndex} ${m.prevLogTerm} ${m.entries.length} ${last ? last.term : 0} ${m.leaderCommit} ${m.readCtx}`;
    }
    case "AppendEntriesResp":
      return `AR ${m.term} ${m.success ? 1 : 0} ${m.matchIndex} ${m.rejectIndex} ${m.conflictIndex} ${m.conflictTerm} ${m.readCtx}`;
    case "RequestVote":
      return `RV ${m.term} ${m.lastLogIndex} ${m.lastLogTerm} ${m.preVote ? 1 : 0}`;
    case "RequestVoteResp":
      return `VR ${m.term} ${m.granted ? 1 : 0} ${m.preVote ? 1 : 0}`;
    default:
      return JSON.stringify(m);
  }
}

/** Canonical one-line form of an event, used for the trace hash. */
export function eventKey(e: TraceEvent): string {
  if (e.kind === "send") return `${e.t} send ${e.id} ${e.from} ${e.to} ${e.deliverAt} ${e.dup ? 1 : 0} ${messageKey(e.msg)}`;
  return JSON.stringify(e);
}

/** Running 64-bit (two lanes of FNV-1a) hash of the trace. */
export class TraceHasher {
  constructor(
    private a = 0x811c9dc5,
    private b = 0x01000193,
  ) {}
  add(e: TraceEvent): void {
    const k = eventKey(e);
    this.a = hashString(k, this.a);
    this.b = hashString(k, this.b ^ 0x5bd1e995);
  }
  get hex(): string {
    return this.a.toString(16).padStart(8, "0") + this.b.toString(16).padStart(8, "0");
  }
  state(): [number, number] {
    return [this.a, this.b];
  }
}

/** Serialises a trace event as one NDJSON line (messages keep their full content). */
export function toNdjson(e: TraceEvent): string {
  return JSON.stringify(e);
}
