/**
 * The Consistent Core's replicated state machine: keys and values, leases (keys
 * may be attached to a lease and vanish with it), and client sessions so that a
 * command retried by its client is applied once (Raft dissertation 6.3). The
 * duplicate check happens when the entry is applied, so every replica decides
 * the same way.
 */
import { LeaseTable } from "../lease/table";
import type { LeaseEffect, LeaseRecordData } from "../lease/table";
import type { LeaseInfo, LeaseQuery, LeaseServerSettings, SystemOp } from "../lease/types";
import type { ClientOp, KvOp, KvQuery } from "../raft/types";
import { hashString } from "../sim/rng";
import type { KvResult, OpResult } from "./messages";

interface Session {
  lastSeq: number;
  lastResult: OpResult;
}

/**
 * Everything the state machine holds, as plain data in a canonical order (sorted by key),
 * for a Raft snapshot: equal states give equal data, so their digests compare. Never
 * changed once made (frozen copies of the simulation share it).
 */
export interface CoreSnapshotData {
  readonly kv: readonly (readonly [string, string])[];
  readonly owners: readonly (readonly [string, string])[];
  readonly sessions: readonly (readonly [string, number, OpResult])[];
  readonly leases: readonly LeaseRecordData[];
}

/**
 * A hash of a snapshot's data, to compare snapshots (the checkers) and name them (the trace)
 * without comparing whole states. It reads the keys and the lengths of their values, not
 * the values: V8 builds an appended value as a chain of pieces shared with its earlier
 * versions, and reading it (JSON.stringify would) flattens it into one string, so every
 * snapshot kept for time travel would hold its own copy of every value. For the same
 * reason sessions count by their sequence number and the kind of their answer.
 */
export function snapshotDigest(d: CoreSnapshotData): number {
  const parts: (string | number)[] = [];
  for (const [k, v] of d.kv) parts.push(k, v.length);
  for (const [k, lease] of d.owners) parts.push(k, lease);
  for (const [k, seq, result] of d.sessions) parts.push(k, seq, result.kind);
  return hashString(JSON.stringify([parts, d.leases]));
}

function sortedPairs<T>(r: Record<string, T>): [string, T][] {
  return Object.keys(r)
    .sort()
    .map((k) => [k, r[k] as T]);
}

export type ApplyOutcome =
  | { readonly kind: "applied"; readonly result: OpResult; readonly lease: LeaseEffect | null }
  | { readonly kind: "duplicate"; readonly result: OpResult }
  | { readonly kind: "stale" };

export class CoreStateMachine {
  private constructor(
    private data: Record<string, string>,
    private sessions: Record<string, Session>,
    readonly leases: LeaseTable,
    /**
     * The lease each attached key belongs to, kept apart from the lease table's own key
     * lists so the checkers can compare the two (see danglingKeys).
     */
    private owners: Record<string, string>,
  ) {}

  static empty(settings: LeaseServerSettings): CoreStateMachine {
    return new CoreStateMachine({}, {}, LeaseTable.empty(settings), {});
  }

  clone(): CoreStateMachine {
    const sessions: Record<string, Session> = {};
    for (const k in this.sessions) sessions[k] = { ...(this.sessions[k] as Session) };
    return new CoreStateMachine({ ...this.data }, sessions, this.leases.clone(), { ...this.owners });
  }

  /** The state as snapshot data (see CoreSnapshotData). Session results are shared: they are never changed. */
  toSnapshot(): CoreSnapshotData {
    return {
      kv: sortedPairs(this.data),
      owners: sortedPairs(this.owners),
      sessions: sortedPairs(this.sessions).map(([k, s]) => [k, s.lastSeq, s.lastResult] as const),
      leases: this.leases.toSnapshot(),
    };
  }

  /** A state machine holding a snapshot's data (copied: the snapshot stays untouched). */
  static fromSnapshot(settings: LeaseServerSettings, d: CoreSnapshotData): CoreStateMachine {
    const data: Record<string, string> = {};
    for (const [k, v] of d.kv) data[k] = v;
    const owners: Record<string, string> = {};
    for (const [k, v] of d.owners) owners[k] = v;
    const sessions: Record<string, Session> = {};
    for (const [k, lastSeq, lastResult] of d.sessions) sessions[k] = { lastSeq, lastResult };
    return new CoreStateMachine(data, sessions, LeaseTable.fromSnapshot(settings, d.leases), owners);
  }

  /** Keys still present although the lease they were attached to has ended (should always be empty). */
  danglingKeys(): string[] {
    const out: string[] = [];
    for (const key in this.owners) {
      if (key in this.data && !this.leases.isHeld(this.owners[key] as string)) out.push(key);
    }
    return out.sort();
  }

  /** Applies a client command at log index `index`, once per (clientId, seq). */
  apply(clientId: string, seq: number, op: ClientOp, index: number): ApplyOutcome {
    const cached = this.cached(clientId, seq);
    if (cached !== null) return cached;
    let result: OpResult;
    let lease: LeaseEffect | null = null;
    if (op.type === "grant" || op.type === "revoke") {
      lease = this.leases.applyClient(op, index);
      this.deleteKeys(lease.deleteKeys);
      result = lease.result as OpResult;
    } else {
      result = this.exec(op);
    }
    this.sessions[clientId] = { lastSeq: seq, lastResult: result };
    return { kind: "applied", result, lease };
  }

  /** Applies a command of the leader's lease tracker (expire, free, checkpoint). */
  applySystem(op: SystemOp): LeaseEffect {
    const effect = this.leases.applySystem(op);
    this.deleteKeys(effect.deleteKeys);
    return effect;
  }

  /** The answer already given to (clientId, seq), if that command was applied. */
  cached(clientId: string, seq: number): Exclude<ApplyOutcome, { kind: "applied" }> | null {
    const session = this.sessions[clientId];
    if (session === undefined || seq > session.lastSeq) return null;
    return seq === session.lastSeq ? { kind: "duplicate", result: session.lastResult } : { kind: "stale" };
  }

  /** A read (KV get or lease query); `remainingMs` is the leader's view of a lease's time left, if known. */
  query(q: KvQuery | LeaseQuery, remainingMs: (name: string) => number | null = () => null): OpResult {
    switch (q.type) {
      case "get":
        return { kind: "kv", value: this.data[q.key] ?? null };
      case "lease-ttl":
        return { kind: "lease-info", lease: this.leases.info(q.name), remainingMs: remainingMs(q.name) };
      case "lease-list":
        return { kind: "lease-list", leases: this.leases.list() };
    }
  }

  get(key: string): string | null {
    return this.data[key] ?? null;
  }

  entries(): [string, string][] {
    return Object.entries(this.data).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  leaseList(): LeaseInfo[] {
    return this.leases.list();
  }

  private deleteKeys(keys: readonly string[]): void {
    for (const k of keys) {
      delete this.data[k];
      delete this.owners[k];
    }
  }

  private exec(op: KvOp): KvResult {
    const d = this.data;
    switch (op.type) {
      case "put":
        if (op.lease !== undefined && !this.leases.isHeld(op.lease)) {
          return { kind: "kv", value: d[op.key] ?? null, error: `lease ${op.lease} is not held` };
        }
        // A key belongs to at most one lease: the one named by its latest write.
        this.leases.detach(op.key);
        delete this.owners[op.key];
        if (op.lease !== undefined) {
          this.leases.attach(op.key, op.lease);
          this.owners[op.key] = op.lease;
        }
        d[op.key] = op.value;
        return { kind: "kv", value: op.value };
      case "append": {
        const v = (d[op.key] ?? "") + op.value;
        d[op.key] = v;
        return { kind: "kv", value: v };
      }
      case "delete":
        this.leases.detach(op.key);
        delete this.owners[op.key];
        delete d[op.key];
        return { kind: "kv", value: null };
      case "cas": {
        const cur = d[op.key] ?? null;
        if (cur !== op.expect) return { kind: "kv", value: cur, applied: false };
        d[op.key] = op.value;
        return { kind: "kv", value: op.value, applied: true };
      }
    }
  }
}
