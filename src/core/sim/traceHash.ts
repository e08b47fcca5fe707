/**
 * The trace hash: a running 64-bit hash (two 32-bit lanes) of every trace event in order, fed
 * field by field without building strings. Every event and every message has its own case
 * (the switches end in `never` checks, so a new kind does not compile without one): there is
 * no JSON fallback and no cache. Strings are streamed, two characters at a time, after their
 * length; numbers by their exact value (integers as two 32-bit words, other numbers by the
 * little-endian bits of their double, so the hash is the same on every platform).
 *
 * A string costs its length, so the hash of an event costs what the event holds: the random
 * workload keeps values bounded (clients.maxValueChars) to keep an hour-long run's cost per
 * minute flat. Two things are named rather than walked: an AppendEntries' entries by their
 * indexes and terms (by Log Matching that names their content, which the `client` events and
 * the state machine's digest cover), and a snapshot by its index, term, voters and digest.
 */
import type { KvResult, OpResult } from "../kv/messages";
import type { LeaseInfo, LeaseQuery, LeaseResult } from "../lease/types";
import type { ClientOp, KvQuery } from "../raft/types";
import type { Payload, ProcEvent, SimEvent, TraceEvent } from "./trace";
import { HashLanes } from "./traceHashLanes";

function impossible(x: never): never {
  throw new Error(`the trace hash has no case for ${JSON.stringify(x)}`);
}

type ProcKind = ProcEvent["kind"];
/** The events add() hashes in its own switch (the ones that come by the thousand). */
type Frequent = "send" | "deliver" | "drop" | "timeout" | "hard" | "log" | "commit" | "apply" | "holder" | "lease" | "client";
type Rare = Exclude<TraceEvent, { readonly kind: Frequent }>;
type Query = ClientOp | KvQuery | LeaseQuery;
type SendEvent = Extract<TraceEvent, { readonly kind: "send" }>;
type DeliverEvent = Extract<TraceEvent, { readonly kind: "deliver" }>;
type DropEvent = Extract<TraceEvent, { readonly kind: "drop" }>;

export class TraceHasher extends HashLanes {
  /**
   * The kernel's own three (half of all events) have entry points of their own, which the
   * kernel calls directly: their field reads then see one shape each, not every kind's.
   * The words are the same as add() gives them: time, position, kind, then the fields.
   */
  addSend(e: SendEvent): void {
    this.envelope(e.t, e.n, e.kind, e.id, e.from, e.to);
    this.num(e.deliverAt);
    this.bool(e.dup);
    this.message(e.msg);
  }

  addDeliver(e: DeliverEvent): void {
    this.envelope(e.t, e.n, e.kind, e.id, e.from, e.to);
  }

  addDrop(e: DropEvent): void {
    this.envelope(e.t, e.n, e.kind, e.id, e.from, e.to);
    this.str(e.reason);
  }

  /** The words every message event starts with: time, position, kind, message id, sender, receiver (plain values, so one shape). */
  private envelope(t: number, n: number, kind: string, id: number, from: string, to: string): void {
    this.num(t);
    this.num(n);
    this.str(kind);
    this.num(id);
    this.str(from);
    this.str(to);
  }

  add(e: TraceEvent): void {
    switch (e.kind) {
      case "send":
        this.addSend(e);
        return;
      case "deliver":
        this.addDeliver(e);
        return;
      case "drop":
        this.addDrop(e);
        return;
    }
    this.num(e.t);
    this.num(e.n);
    this.str(e.kind);
    switch (e.kind) {
      case "timeout":
        this.str(e.proc);
        return;
      case "hard":
        this.str(e.proc);
        this.num(e.term);
        this.str(e.votedFor);
        return;
      case "log":
        this.str(e.proc);
        this.opt(e.truncatedFrom);
        this.num(e.from);
        this.num(e.lastIndex);
        this.num(e.lastTerm);
        return;
      case "commit":
        this.str(e.proc);
        this.num(e.index);
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
        this.opt(e.token);
        this.opt(e.deadlineUs);
        this.str(e.event);
        return;
      case "lease":
        this.leaseEvent(e);
        return;
      case "client":
        this.str(e.proc);
        this.str(e.phase);
        this.str(e.clientId);
        this.num(e.seq);
        this.query(e.op);
        if (e.result === undefined) this.word(-4, 0x7fffffff);
        else this.result(e.result);
        this.str(e.note);
        return;
      default:
        if (isProcEvent(e)) this.procEvent(e);
        else this.simEvent(e as Exclude<Rare, { readonly kind: ProcKind }>);
    }
  }

  private leaseEvent(e: Extract<TraceEvent, { readonly kind: "lease" }>): void {
    this.str(e.proc);
    this.str(e.op);
    this.str(e.name);
    this.str(e.holder);
    this.num(e.token);
    this.opt(e.index);
    this.opt(e.grantIndex);
    this.opt(e.ttlMs);
    this.opt(e.transitions);
    this.opt(e.expiresAtUs);
    this.str(e.reason);
    this.strs(e.keys);
  }

  /** The less frequent events a process reports about itself. */
  private procEvent(e: Extract<Rare, { readonly kind: ProcKind }>): void {
    this.str(e.proc);
    switch (e.kind) {
      case "role":
        this.str(e.role);
        this.num(e.term);
        this.str(e.leader);
        this.str(e.reason);
        return;
      case "vote":
        this.num(e.term);
        this.str(e.candidate);
        return;
      case "snapshot":
        this.str(e.op);
        this.num(e.index);
        this.num(e.term);
        this.num(e.digest);
        this.num(e.logStart);
        this.num(e.lastIndex);
        return;
      case "config":
        this.strs(e.voters);
        this.num(e.index);
        return;
      case "transfer":
        this.str(e.to);
        this.str(e.phase);
        this.str(e.reason);
        return;
      case "readlease":
        this.str(e.phase);
        this.str(e.peer);
        this.num(e.untilLocal);
        this.str(e.reason);
        return;
      case "lease-read":
        this.str(e.via);
        this.str(e.client);
        this.num(e.seq);
        this.num(e.index);
        return;
      case "write-wait":
        this.num(e.index);
        this.strs(e.waitingOn);
        return;
      case "replica":
        this.str(e.role);
        this.str(e.leaseName);
        this.opt(e.token);
        this.str(e.cause);
        return;
      case "storage":
        this.num(e.reqId);
        this.str(e.resource);
        this.str(e.holder);
        this.num(e.token);
        this.bool(e.accepted);
        this.str(e.reason);
        this.num(e.highest);
        this.bool(e.fencing);
        this.str(e.value);
        this.num(e.atUs);
        return;
      default:
        impossible(e);
    }
  }

  /** The simulator's own events (faults, the network, notes, violations), but for the frequent ones. */
  private simEvent(e: Exclude<Rare, { readonly kind: ProcKind }>): void {
    switch (e.kind) {
      case "crash":
      case "restart":
      case "resume":
      case "disconnect":
      case "connect":
        this.str(e.proc);
        return;
      case "pause":
        this.str(e.proc);
        this.num(e.untilUs);
        return;
      case "clock":
        this.str(e.proc);
        this.num(e.driftPpm);
        this.num(e.jumpUs);
        return;
      case "partition":
        this.num(e.groups.length);
        for (const g of e.groups) this.strs(g);
        return;
      case "heal":
        return;
      case "cut":
        this.str(e.from);
        this.str(e.to);
        return;
      case "slow-link":
        this.str(e.from);
        this.str(e.to);
        this.num(e.delayUs);
        return;
      case "network":
        this.network(e);
        return;
      case "note":
        this.str(e.text);
        return;
      case "violation":
        this.str(e.invariant);
        this.strs(e.nodes);
        this.str(e.detail);
        return;
      default:
        impossible(e);
    }
  }

  private network(e: Extract<SimEvent, { readonly kind: "network" }>): void {
    this.num(e.dropRate);
    this.num(e.duplicateRate);
    this.num(e.latencyMinUs);
    this.num(e.latencyMaxUs);
    const by = e.latencyByType;
    if (by === undefined) {
      this.word(-5, 0x7fffffff);
      return;
    }
    const types = Object.keys(by);
    this.num(types.length);
    for (const t of types) {
      const r = by[t] as { readonly minUs: number; readonly maxUs: number };
      this.str(t);
      this.num(r.minUs);
      this.num(r.maxUs);
    }
  }

  /** Entries are named by (index, term): by Log Matching that names their content. */
  private message(m: Payload): void {
    this.str(m.type);
    switch (m.type) {
      case "AppendEntries":
        this.num(m.term);
        this.num(m.prevLogIndex);
        this.num(m.prevLogTerm);
        this.num(m.entries.length);
        for (const en of m.entries) this.num(en.term);
        this.num(m.leaderCommit);
        this.num(m.readCtx);
        this.opt(m.visible);
        if (m.grant === undefined) this.word(-6, 0x7fffffff);
        else {
          this.num(m.grant.askId);
          this.num(m.grant.floor);
        }
        return;
      case "AppendEntriesResp":
        this.num(m.term);
        this.bool(m.success);
        this.num(m.matchIndex);
        this.num(m.rejectIndex);
        this.num(m.conflictIndex);
        this.num(m.conflictTerm);
        this.num(m.readCtx);
        this.opt(m.leaseAsk);
        this.opt(m.applied);
        return;
      case "RequestVote":
        this.num(m.term);
        this.num(m.lastLogIndex);
        this.num(m.lastLogTerm);
        this.bool(m.preVote);
        this.bool(m.transfer);
        return;
      case "RequestVoteResp":
        this.num(m.term);
        this.bool(m.granted);
        this.bool(m.preVote);
        return;
      case "TimeoutNow":
        this.num(m.term);
        return;
      case "InstallSnapshot":
        // The snapshot by its index, term, voters and digest: hashing its data would cost a walk of the state.
        this.num(m.term);
        this.num(m.snapshot.index);
        this.num(m.snapshot.term);
        this.strs(m.snapshot.voters);
        this.num(m.snapshot.digest);
        return;
      default:
        this.serviceMessage(m);
    }
  }

  /** The messages of the services on top of Raft: clients, leases, storage. */
  private serviceMessage(m: Exclude<Payload, { readonly type: "AppendEntries" | "AppendEntriesResp" | "RequestVote" | "RequestVoteResp" | "TimeoutNow" | "InstallSnapshot" }>): void {
    switch (m.type) {
      case "ClientWrite":
        this.str(m.clientId);
        this.num(m.seq);
        this.query(m.op);
        return;
      case "ClientRead":
        this.str(m.clientId);
        this.num(m.seq);
        this.query(m.query);
        return;
      case "ClientReply":
        this.num(m.seq);
        this.bool(m.ok);
        if (m.ok) this.result(m.result);
        else this.str(m.leaderHint);
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
        if (!m.accepted) this.str(m.reason);
        return;
      default:
        impossible(m);
    }
  }

  /** A client's operation: a key-value write or read, or a lease request or query. */
  private query(q: Query): void {
    this.str(q.type);
    switch (q.type) {
      case "put":
        this.str(q.key);
        this.str(q.value);
        this.str(q.lease);
        return;
      case "append":
        this.str(q.key);
        this.str(q.value);
        return;
      case "delete":
      case "get":
        this.str(q.key);
        return;
      case "cas":
        this.str(q.key);
        this.str(q.expect);
        this.str(q.value);
        return;
      case "grant":
        this.str(q.name);
        this.str(q.holder);
        this.num(q.ttlMs);
        return;
      case "revoke":
        this.str(q.name);
        this.str(q.holder);
        this.num(q.token);
        return;
      case "lease-ttl":
        this.str(q.name);
        return;
      case "lease-list":
        return;
      default:
        impossible(q);
    }
  }

  private result(r: OpResult): void {
    this.str(r.kind);
    if (r.kind === "kv") this.kvResult(r);
    else this.leaseResult(r);
  }

  private kvResult(r: KvResult): void {
    this.str(r.value);
    this.bool(r.applied);
    this.str(r.error);
  }

  private leaseResult(r: LeaseResult): void {
    switch (r.kind) {
      case "granted":
        this.str(r.name);
        this.num(r.token);
        this.num(r.ttlMs);
        this.num(r.transitions);
        return;
      case "denied":
        this.str(r.name);
        this.str(r.reason);
        this.str(r.holder);
        return;
      case "revoked":
        this.str(r.name);
        this.num(r.token);
        return;
      case "not-holder":
        this.str(r.name);
        return;
      case "lease-info":
        if (r.lease === null) this.word(-7, 0x7fffffff);
        else this.leaseInfo(r.lease);
        this.opt(r.remainingMs);
        return;
      case "lease-list":
        this.num(r.leases.length);
        for (const l of r.leases) this.leaseInfo(l);
        return;
      default:
        impossible(r);
    }
  }

  private leaseInfo(l: LeaseInfo): void {
    this.str(l.name);
    this.str(l.state);
    this.str(l.holder);
    this.num(l.token);
    this.num(l.grantIndex);
    this.num(l.ttlMs);
    this.num(l.transitions);
    this.strs(l.keys);
    this.opt(l.checkpointRemainingMs);
  }
}

/** Every kind of event a process reports (the compiler keeps this list and ProcEvent the same). */
const PROC_EVENTS: ReadonlySet<string> = new Set(
  Object.keys({
    role: true,
    vote: true,
    hard: true,
    log: true,
    snapshot: true,
    commit: true,
    config: true,
    transfer: true,
    apply: true,
    readlease: true,
    "lease-read": true,
    "write-wait": true,
    client: true,
    lease: true,
    holder: true,
    replica: true,
    storage: true,
  } satisfies Record<ProcKind, true>),
);

function isProcEvent(e: Rare): e is Extract<Rare, { readonly kind: ProcKind }> {
  return PROC_EVENTS.has(e.kind);
}
