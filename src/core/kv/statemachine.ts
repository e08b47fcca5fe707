/**
 * The replicated key-value state machine, with client sessions so that a command
 * retried by its client is applied once (Raft dissertation 6.3). The duplicate
 * check happens when the entry is applied, so every replica decides the same way.
 */
import type { KvOp, KvQuery } from "../raft/types";
import type { KvResult } from "./messages";

interface Session {
  lastSeq: number;
  lastResult: KvResult;
}

export type ApplyOutcome =
  | { readonly kind: "applied"; readonly result: KvResult }
  | { readonly kind: "duplicate"; readonly result: KvResult }
  | { readonly kind: "stale" };

export class KvStateMachine {
  private constructor(
    private data: Record<string, string>,
    private sessions: Record<string, Session>,
  ) {}

  static empty(): KvStateMachine {
    return new KvStateMachine({}, {});
  }

  clone(): KvStateMachine {
    const sessions: Record<string, Session> = {};
    for (const k in this.sessions) sessions[k] = { ...(this.sessions[k] as Session) };
    return new KvStateMachine({ ...this.data }, sessions);
  }

  /** Applies a client command, once per (clientId, seq). */
  apply(clientId: string, seq: number, op: KvOp): ApplyOutcome {
    const session = this.sessions[clientId];
    if (session !== undefined && seq <= session.lastSeq) {
      return seq === session.lastSeq ? { kind: "duplicate", result: session.lastResult } : { kind: "stale" };
    }
    const result = this.exec(op);
    this.sessions[clientId] = { lastSeq: seq, lastResult: result };
    return { kind: "applied", result };
  }

  /** The answer already given to (clientId, seq), if that command was applied. */
  cached(clientId: string, seq: number): ApplyOutcome | null {
    const session = this.sessions[clientId];
    if (session === undefined || seq > session.lastSeq) return null;
    return seq === session.lastSeq ? { kind: "duplicate", result: session.lastResult } : { kind: "stale" };
  }

  query(q: KvQuery): KvResult {
    return { value: this.data[q.key] ?? null };
  }

  get(key: string): string | null {
    return this.data[key] ?? null;
  }

  entries(): [string, string][] {
    return Object.entries(this.data).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  private exec(op: KvOp): KvResult {
    const d = this.data;
    switch (op.type) {
      case "put":
        d[op.key] = op.value;
        return { value: op.value };
      case "append": {
        const v = (d[op.key] ?? "") + op.value;
        d[op.key] = v;
        return { value: v };
      }
      case "delete":
        delete d[op.key];
        return { value: null };
      case "cas": {
        const cur = d[op.key] ?? null;
        if (cur !== op.expect) return { value: cur, applied: false };
        d[op.key] = op.value;
        return { value: op.value, applied: true };
      }
    }
  }
}
