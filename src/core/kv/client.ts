/**
 * A key-value client process: one operation at a time, finds the leader by
 * following redirects (redirect.ts), retries on timeout with the same sequence number (so the
 * service applies a retried write once), and records its history as trace events
 * (invoke, then ok, fail, or info when the outcome is unknown).
 */
import type { ProcessContext, ProcessLogic } from "../sim/process";
import { Rng } from "../sim/rng";
import type { Payload, ProcId } from "../sim/trace";
import type { LeaseQuery } from "../lease/types";
import type { KvOp, KvQuery, NodeId } from "../raft/types";
import { afterRefusal, afterSilence, hintIndex, type Next, sent, type Tries } from "./redirect";

/** A key-value write, or a read: a key, or a lease query (time to live, list), served through ReadIndex. */
export type ClientRequest = { readonly write: KvOp } | { readonly read: KvQuery | LeaseQuery };

export interface KvClientConfig {
  readonly id: ProcId;
  readonly servers: readonly NodeId[];
  readonly requestTimeoutUs: number;
  /** Wait after a redirect without a hint, or after a timeout, before the next try. */
  readonly retryBackoffUs: number;
  /** After this many attempts the outcome is recorded as unknown ("info") and the client moves on. */
  readonly maxAttempts: number;
  /** Random workload: none, or operations on `keys` keys with think time in between. */
  readonly workload: "none" | "random";
  readonly keys: number;
  readonly readFraction: number;
  readonly thinkTimeMinUs: number;
  readonly thinkTimeMaxUs: number;
  /**
   * Random workload: once this client has seen a key's value reach this many characters, its
   * next write to that key is a put of a fresh value instead of an append, so values (and the
   * replies, log entries and snapshots that carry them) stay bounded however long the run.
   * 0: no cap (appends without end). Absent: 0.
   */
  readonly maxValueChars?: number;
  /**
   * Send each read first to this client's own server (the one it started with), not the
   * leader it found: with read leases a follower may answer it locally. Absent: false.
   */
  readonly readsAtHome?: boolean;
}

interface Current extends Tries {
  readonly seq: number;
  readonly op: ClientRequest;
  attempts: number;
  failures: number;
  redirects: number;
  deadline: number;
}

interface ClientState {
  /** Persisted across crashes: each incarnation uses a fresh client id. */
  incarnation: number;
  /** The server this incarnation started with (readsAtHome sends reads there first). */
  home?: number;
  // Volatile:
  up: boolean;
  seq: number;
  target: number;
  current: Current | null;
  queue: ClientRequest[];
  nextOpAt: number | null;
  /** Random workload: the length of each key's value in the last answer this incarnation got about it. */
  seen: Record<string, number>;
}

export class KvClient implements ProcessLogic {
  readonly kind = "client" as const;

  constructor(
    readonly cfg: KvClientConfig,
    private readonly rng: Rng,
    private st: ClientState = { incarnation: 0, up: false, seq: 0, target: 0, current: null, queue: [], nextOpAt: null, seen: {} },
  ) {
    if (cfg.servers.length === 0) throw new Error("a client needs at least one server");
  }

  get id(): ProcId {
    return this.cfg.id;
  }
  get clientId(): string {
    return `${this.cfg.id}.${this.st.incarnation}`;
  }
  get busy(): boolean {
    return this.st.current !== null || this.st.queue.length > 0;
  }
  /** Read-only, for views: requests made in this incarnation, the one in progress, how many wait. */
  get progress(): {
    readonly sent: number;
    readonly current: { readonly seq: number; readonly op: ClientRequest; readonly attempts: number; readonly server: NodeId } | null;
    readonly queued: number;
  } {
    const s = this.st;
    const c = s.current;
    return {
      sent: s.seq,
      current: c === null ? null : { seq: c.seq, op: c.op, attempts: c.attempts, server: this.cfg.servers[s.target] ?? "?" },
      queued: s.queue.length,
    };
  }

  clone(): KvClient {
    const s = this.st;
    return new KvClient(this.cfg, Rng.restore(this.rng.snapshot()), {
      ...s,
      current: s.current === null ? null : { ...s.current },
      queue: s.queue.slice(),
      seen: { ...s.seen },
    });
  }

  /** How many times it has started (persisted across crashes: each incarnation uses a fresh client id). */
  get incarnation(): number {
    return this.st.incarnation;
  }

  /** A live run's restarted worker continues the count its disk kept (before start()). */
  continueIncarnations(n: number): void {
    this.st.incarnation = n;
  }

  start(ctx: ProcessContext): void {
    const s = this.st;
    s.incarnation += 1;
    s.up = true;
    s.seq = 0;
    s.current = null;
    s.target = this.rng.int(0, this.cfg.servers.length - 1);
    if (this.cfg.readsAtHome === true) s.home = s.target;
    s.nextOpAt = this.cfg.workload === "random" ? ctx.now + this.think() : null;
    this.pump(ctx);
  }

  crash(): void {
    const s = this.st;
    s.up = false;
    s.current = null;
    s.queue = [];
    s.nextOpAt = null;
    s.seen = {};
  }

  /** Queues an operation (a scenario's or the user's). */
  submit(ctx: ProcessContext, op: ClientRequest): void {
    if (!this.st.up) return;
    this.st.queue.push(op);
    this.pump(ctx);
  }

  nextDeadline(): number | null {
    const s = this.st;
    if (!s.up) return null;
    if (s.current !== null) return s.current.deadline;
    if (s.queue.length > 0) return null;
    return s.nextOpAt;
  }

  onTimer(ctx: ProcessContext): void {
    const s = this.st;
    const cur = s.current;
    if (cur !== null) {
      if (ctx.now < cur.deadline) return;
      // No answer in time: the next server, at once (the timeout was the wait). The wait after
      // a refusal ends here too, so it also moves past the server chosen then.
      this.retarget(afterSilence(this.cfg.servers.length, s.target, cur), cur);
      this.attempt(ctx, cur);
      return;
    }
    this.pump(ctx);
  }

  onMessage(ctx: ProcessContext, from: ProcId, p: Payload): void {
    const s = this.st;
    const cur = s.current;
    if (p.type !== "ClientReply" || cur === null || p.seq !== cur.seq) return;
    if (p.ok) {
      const body = opBody(cur.op);
      ctx.emit({ kind: "client", phase: "ok", clientId: this.clientId, seq: cur.seq, op: body, result: p.result });
      if (p.result.kind === "kv" && "key" in body) s.seen[body.key] = p.result.value?.length ?? 0;
      s.current = null;
      if (this.cfg.workload === "random") s.nextOpAt = ctx.now + this.think();
      this.pump(ctx);
      return;
    }
    const servers = this.cfg.servers;
    // Hints are followed without a bound: each one costs an attempt, and attempts are bounded.
    const next = afterRefusal(servers.length, Number.POSITIVE_INFINITY, cur, hintIndex(servers, p.leaderHint), servers.indexOf(from));
    this.retarget(next, cur);
    if (next.now) this.attempt(ctx, cur);
    // No leader known there: back off, then try the next server.
    else cur.deadline = ctx.now + this.cfg.retryBackoffUs;
  }

  private retarget(next: Next, cur: Current): void {
    this.st.target = next.target;
    cur.failures = next.failures;
    cur.redirects = next.redirects;
  }

  private pump(ctx: ProcessContext): void {
    const s = this.st;
    if (!s.up || s.current !== null) return;
    let op = s.queue.shift();
    if (op === undefined && s.nextOpAt !== null && ctx.now >= s.nextOpAt) {
      op = this.randomOp();
      s.nextOpAt = null;
    }
    if (op === undefined) return;
    s.seq += 1;
    if (this.cfg.readsAtHome === true && "read" in op && s.home !== undefined) s.target = s.home;
    const cur: Current = { seq: s.seq, op, attempts: 0, failures: 0, redirects: 0, deadline: 0 };
    s.current = cur;
    ctx.emit({ kind: "client", phase: "invoke", clientId: this.clientId, seq: cur.seq, op: opBody(op) });
    this.attempt(ctx, cur);
  }

  private attempt(ctx: ProcessContext, cur: Current): void {
    const s = this.st;
    if (cur.attempts >= this.cfg.maxAttempts) {
      // A write may still be committed later (unknown outcome); a read had no effect.
      const phase = "write" in cur.op ? "info" : "fail";
      ctx.emit({
        kind: "client",
        phase,
        clientId: this.clientId,
        seq: cur.seq,
        op: opBody(cur.op),
        note: `gave up after ${cur.attempts} attempts`,
      });
      s.current = null;
      if (this.cfg.workload === "random") s.nextOpAt = ctx.now + this.think();
      this.pump(ctx);
      return;
    }
    cur.attempts = sent(cur).attempts;
    cur.deadline = ctx.now + this.cfg.requestTimeoutUs;
    const to = this.cfg.servers[s.target] as NodeId;
    if ("write" in cur.op) ctx.send(to, { type: "ClientWrite", clientId: this.clientId, seq: cur.seq, op: cur.op.write });
    else ctx.send(to, { type: "ClientRead", clientId: this.clientId, seq: cur.seq, query: cur.op.read });
  }

  private think(): number {
    return this.rng.int(this.cfg.thinkTimeMinUs, this.cfg.thinkTimeMaxUs);
  }

  private randomOp(): ClientRequest {
    const key = `k${this.rng.int(1, Math.max(1, this.cfg.keys))}`;
    if (this.rng.chance(this.cfg.readFraction)) return { read: { type: "get", key } };
    // Unique values make "applied exactly once" checkable, and let staleReads name the append a read missed.
    const value = `${this.clientId}:${this.st.seq + 1};`;
    const cap = this.cfg.maxValueChars ?? 0;
    // Drawing nothing more here keeps a run the same as before the cap until a value reaches it.
    if (cap > 0 && (this.st.seen[key] ?? 0) >= cap) return { write: { type: "put", key, value } };
    return { write: { type: "append", key, value } };
  }
}

export function opBody(op: ClientRequest): KvOp | KvQuery | LeaseQuery {
  return "write" in op ? op.write : op.read;
}
