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

/** Collects the history while a run goes on: feed it every trace event. */
export class HistoryRecorder {
  private readonly open = new Map<string, { op: Omit<HistoryOp, "outcome" | "output" | "returnUs"> }>();
  private readonly storageCalls = new Map<string, { op: Omit<HistoryOp, "outcome" | "output" | "returnUs"> }>();
  readonly operations: HistoryOp[] = [];

  observe(e: TraceEvent): void {
    if (e.kind === "client") {
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
      return;
    }
    if (e.kind === "send" && e.msg.type === "StorageWrite") {
      const w: StorageWrite = e.msg;
      if (e.dup) return;
      this.storageCalls.set(`${e.from}#${w.reqId}`, {
        op: {
          client: e.from,
          session: e.from,
          seq: w.reqId,
          operation: "storage-write",
          key: w.resource,
          value: `${w.value} (token ${w.token})`,
          callUs: e.t,
        },
      });
      return;
    }
    if (e.kind === "deliver") return;
    if (e.kind === "send" && e.msg.type === "StorageReply") {
      // The reply leaves the storage; the call returns when the holder receives it, approximated here by the send.
      const key = `${e.to}#${e.msg.reqId}`;
      const call = this.storageCalls.get(key);
      if (call === undefined) return;
      this.storageCalls.delete(key);
      this.operations.push({
        ...call.op,
        outcome: e.msg.accepted ? "ok" : "fail",
        output: e.msg.accepted
          ? { accepted: true, highest: e.msg.highest }
          : { accepted: false, reason: e.msg.reason, highest: e.msg.highest },
        returnUs: e.deliverAt,
      });
    }
  }

  /** The history, with operations still open at the end recorded as unknown. */
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
