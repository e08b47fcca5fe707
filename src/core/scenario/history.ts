/**
 * The clients' operation history, gathered from the trace, in a shape external
 * linearizability checkers can read (one record per operation: who, what, the
 * answer, when it was called and when it returned). Documented in docs/history.md.
 */
import type { OpResult } from "../kv/messages";
import type { StorageWrite } from "../storage/types";
import type { TraceEvent } from "../sim/trace";

export interface HistoryOp {
  /** The process that called (client c1, holder h1). */
  readonly client: string;
  /** The session it called from (its id and incarnation), for deduplicated writes. */
  readonly session: string;
  readonly seq: number;
  /** put, append, delete, cas, get, grant, revoke, lease-ttl, lease-list, or storage-write. */
  readonly operation: string;
  readonly key: string | null;
  readonly value: string | null;
  /** A put's lease, when it attached the key to one (the key is deleted when the lease ends). */
  readonly lease?: string;
  /** A cas's expected value (null: the key absent). */
  readonly expect?: string | null;
  /** ok: completed with `output`; fail: certainly had no effect; info: unknown (it may have happened). */
  readonly outcome: "ok" | "fail" | "info";
  readonly output: unknown;
  /** Virtual time (µs) of the call and of the return; return is null when the outcome is unknown. */
  readonly callUs: number;
  readonly returnUs: number | null;
}

export interface History {
  readonly format: "lease-lab-history/1";
  readonly seed: number;
  readonly operations: HistoryOp[];
}

type OpenOp = Omit<HistoryOp, "outcome" | "output" | "returnUs">;

/** The session of the lease-service's own operations (a key deleted because its lease ended). */
export const SYSTEM_SESSION = "system";

/**
 * Collects the history while a run goes on: feed it every trace event, from the run's start.
 *
 * - A holder's storage writes are in the session of its incarnation (`h1.2`), the same as its
 *   key-value and lease operations; the incarnation is counted from the holder's `start` events.
 * - A storage write returns when its reply is delivered; a reply that is dropped (every copy)
 *   leaves it `info`: the holder never learned whether the write was accepted.
 * - A key deleted because the lease it was attached to ended (expired or revoked) is recorded
 *   as a `delete` in the `system` session, called and returned at the instant the first node
 *   applied the lease's end (docs/history.md says why that instant).
 */
export class HistoryRecorder {
  private readonly open = new Map<string, { op: OpenOp }>();
  private readonly storageCalls = new Map<string, { op: OpenOp }>();
  /** Storage replies in flight, by message id: the call they answer and what they say. */
  private readonly replies = new Map<number, { call: string; op: OpenOp; outcome: "ok" | "fail"; output: unknown }>();
  /** Each holder's incarnation, counted from its statechart's start events. */
  private readonly incarnations = new Map<string, number>();
  /** Log indexes of lease ends already recorded (every node applies each one). */
  private readonly leaseEnds = new Set<number>();
  readonly operations: HistoryOp[] = [];

  observe(e: TraceEvent): void {
    switch (e.kind) {
      case "client":
        this.onClient(e);
        return;
      case "holder":
        if (e.event === "start") this.incarnations.set(e.proc, (this.incarnations.get(e.proc) ?? 0) + 1);
        return;
      case "lease":
        this.onLease(e);
        return;
      case "send":
        this.onSend(e);
        return;
      case "deliver":
      case "drop":
        this.onArrival(e.id, e.kind === "deliver" ? e.t : null);
        return;
      default:
    }
  }

  private onClient(e: TraceEvent & { kind: "client" }): void {
    const id = `${e.clientId}#${e.seq}`;
    if (e.phase === "invoke") {
      const op = e.op;
      this.open.set(id, {
        op: {
          client: e.proc,
          session: e.clientId,
          seq: e.seq,
          operation: op.type,
          key: "key" in op ? op.key : "name" in op ? op.name : null,
          value: "value" in op ? op.value : null,
          ...(op.type === "put" && op.lease !== undefined ? { lease: op.lease } : {}),
          ...(op.type === "cas" ? { expect: op.expect } : {}),
          callUs: e.t,
        },
      });
      return;
    }
    const call = this.open.get(id);
    if (call === undefined) return;
    this.open.delete(id);
    this.operations.push({
      ...call.op,
      outcome: e.phase,
      output: e.phase === "ok" ? outputOf(e.result) : null,
      returnUs: e.phase === "info" ? null : e.t,
    });
  }

  /** The keys a lease's end deleted, once per log entry, at the first node that applied it. */
  private onLease(e: TraceEvent & { kind: "lease" }): void {
    if (e.keys === undefined || e.keys.length === 0 || e.index === undefined || this.leaseEnds.has(e.index)) return;
    this.leaseEnds.add(e.index);
    for (const key of e.keys) {
      this.operations.push({
        client: SYSTEM_SESSION,
        session: SYSTEM_SESSION,
        seq: e.index,
        operation: "delete",
        key,
        value: null,
        lease: e.name,
        outcome: "ok",
        output: { value: null },
        callUs: e.t,
        returnUs: e.t,
      });
    }
  }

  private onSend(e: TraceEvent & { kind: "send" }): void {
    if (e.msg.type === "StorageWrite") {
      const w: StorageWrite = e.msg;
      if (e.dup) return;
      const incarnation = this.incarnations.get(e.from);
      this.storageCalls.set(`${e.from}#${w.reqId}`, {
        op: {
          client: e.from,
          session: incarnation === undefined ? e.from : `${e.from}.${incarnation}`,
          seq: w.reqId,
          operation: "storage-write",
          key: w.resource,
          value: `${w.value} (token ${w.token})`,
          callUs: e.t,
        },
      });
      return;
    }
    if (e.msg.type !== "StorageReply") return;
    const call = `${e.to}#${e.msg.reqId}`;
    const open = this.storageCalls.get(call);
    if (open === undefined) return;
    this.replies.set(e.id, {
      call,
      op: open.op,
      outcome: e.msg.accepted ? "ok" : "fail",
      output: e.msg.accepted
        ? { accepted: true, highest: e.msg.highest }
        : { accepted: false, reason: e.msg.reason, highest: e.msg.highest },
    });
  }

  /** A storage reply arrived (at `t`) or was dropped (null): the first delivered copy answers the call. */
  private onArrival(id: number, t: number | null): void {
    const r = this.replies.get(id);
    if (r === undefined) return;
    this.replies.delete(id);
    if (t === null || !this.storageCalls.has(r.call)) return;
    this.storageCalls.delete(r.call);
    this.operations.push({ ...r.op, outcome: r.outcome, output: r.output, returnUs: t });
  }

  /** The history, with operations still open at the end (or whose every reply was lost) recorded as unknown. */
  finish(seed: number): History {
    const pending = [...this.open.values(), ...this.storageCalls.values()].map((c) => ({
      ...c.op,
      outcome: "info" as const,
      output: null,
      returnUs: null,
    }));
    const operations = [...this.operations, ...pending].sort((a, b) => a.callUs - b.callUs || a.client.localeCompare(b.client));
    return { format: "lease-lab-history/1", seed, operations };
  }
}

function outputOf(r: OpResult | undefined): unknown {
  if (r === undefined) return null;
  if (r.kind === "kv")
    return r.error !== undefined
      ? { error: r.error }
      : r.applied !== undefined
        ? { value: r.value, applied: r.applied }
        : { value: r.value };
  return r;
}
