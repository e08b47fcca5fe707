/**
 * A lease holder process: acquires a lease from the lease service, renews it, uses it
 * to write to the fenced storage, and gives it back. Its behaviour is the statechart
 * in holderMachine.ts, run with xstate's pure transition(): this class feeds it events
 * stamped with the local clock and a random draw, keeps its delayed events as plain
 * timers on the simulated clock, and carries out its named actions with the
 * ProcessContext. The work loop (check the lease, then write to storage) and the key
 * registration (a one-off put of /holders/<id> attached to the lease, with retries) are
 * its own timer code, run while the statechart is in holding (its startWork / stopWork and
 * startRegister / stopRegister actions). It also keeps the transport details: the server
 * it believes leads and the sequence numbers of its ClientWrite operations.
 * Everything it holds is plain data, so a clone is a deep copy.
 */
import { initialTransition, type StateValue } from "xstate";
import type { ProcessContext, ProcessLogic } from "../sim/process";
import { Rng } from "../sim/rng";
import type { Payload, ProcId } from "../sim/trace";
import type { ClientOp } from "../raft/types";
import {
  type HolderContext,
  type HolderEvent,
  type HolderInputEvent,
  type HolderSnapshot,
  backoffMs,
  holderMachine,
  holderTransition,
  MAX_WRITE_ATTEMPTS,
  nextServer,
  stateString,
  topState,
} from "./holderMachine";
import type { HolderSettings } from "./types";

export { holderMachine, stateString, topState } from "./holderMachine";

/** Timers that may fire in one onTimer call: more means a zero-delay loop, a bug. */
const MAX_FIRINGS_PER_CALL = 256;
/** Storage replies remembered for the UI. */
const STORAGE_RESULTS_LIMIT = 50;
/** Timer ids and event types of the work loop (process code, not statechart events). */
const WORK_CHECK = "work.check";
const WORK_WRITE = "work.write";
/** Timer ids and event types of the key registration (process code too). */
const REGISTER_TIMEOUT = "register.timeout";
const REGISTER_BACKOFF = "register.backoff";

/** A delayed event of the statechart, due on the holder's local clock. */
export interface HolderTimer {
  readonly id: string;
  readonly event: { readonly type: string } & Record<string, unknown>;
  readonly dueUs: number;
  /** Insertion order: breaks ties between timers due at the same time. */
  readonly order: number;
}

export interface StorageResult {
  readonly reqId: number;
  /** The token the write carried (null if the write is too old to remember). */
  readonly token: number | null;
  readonly accepted: boolean;
  /** The highest token the storage had seen when it answered. */
  readonly highest: number;
  readonly atUs: number;
}

/**
 * The work loop, run by the process while the statechart is in holding: every
 * workIntervalMs it checks the lease is valid on the local clock; if so, workGapMs later
 * it writes to storage with the token it checked, without checking again.
 */
export interface WorkLoop {
  /** off: not holding; idle: waiting for the next check; gap: checked, the write is due. */
  phase: "off" | "idle" | "gap";
  /** The last validity check (the period is kept from check to check); null for a new grant. */
  lastCheckUs: number | null;
  /** Validity checks made (for the UI). */
  checks: number;
}

/**
 * The key registration (registerKey), run by the process while the statechart is in
 * holding: a ClientWrite put of /holders/<id> attached to the lease, sent to the server
 * believed to lead, following hints, backing off (capped exponential, jittered) on
 * silence or refusal, given up after MAX_WRITE_ATTEMPTS sends. Once per grant: back in
 * holding from jeopardy or grace it is written again only if it was not written.
 */
export interface RegisterLoop {
  /** off: not holding; sending: a put awaits its answer; backoff: waiting to retry; done: written (or not wanted); failed: gave up. */
  phase: "off" | "sending" | "backoff" | "done" | "failed";
  /** The key of the current grant is written. */
  written: boolean;
  /** Sends of the current put, failed tries in a row, hints followed in a row. */
  attempts: number;
  failures: number;
  redirects: number;
}

interface HolderState {
  /** Persisted across crashes: each incarnation uses a fresh client id. */
  incarnation: number;
  /** Persisted: storage writes so far, so values and request ids stay unique across restarts. */
  writes: number;
  // Volatile:
  up: boolean;
  machine: { value: StateValue; context: HolderContext } | null;
  /** Index into settings.servers of the server believed to lead. */
  target: number;
  /** Sequence number of the current ClientWrite operation (grant, put or revoke); retries reuse it, the next one is seq + 1. */
  seq: number;
  register: RegisterLoop;
  timers: HolderTimer[];
  timerOrder: number;
  work: WorkLoop;
  /** An armed GC pause (µs), taken right after the next successful validity check. */
  gcPauseUs: number | null;
  /** The refresh that went to every server (DHCP rebinding): its not-leader answers are expected noise. */
  rebindReqId: number | null;
  storageResults: StorageResult[];
  /** Recent storage writes (reqId -> token), to label the replies. */
  sentWrites: { reqId: number; token: number }[];
  storageAccepted: number;
  storageRejected: number;
  /** What the last "holder" trace event said, to emit only on change. */
  lastReport: string;
  /** The write operation (grant, put, revoke) whose call is in the history and awaits its answer. */
  openOp: { seq: number; op: ClientOp } | null;
}

function freshState(): HolderState {
  return {
    incarnation: 0,
    writes: 0,
    up: false,
    machine: null,
    target: 0,
    seq: 0,
    register: freshRegister(),
    timers: [],
    timerOrder: 0,
    work: freshWork(),
    gcPauseUs: null,
    rebindReqId: null,
    storageResults: [],
    sentWrites: [],
    storageAccepted: 0,
    storageRejected: 0,
    lastReport: "",
    openOp: null,
  };
}

function freshWork(): WorkLoop {
  return { phase: "off", lastCheckUs: null, checks: 0 };
}

function freshRegister(): RegisterLoop {
  return { phase: "off", written: false, attempts: 0, failures: 0, redirects: 0 };
}

function pushBounded<T>(list: T[], item: T): void {
  list.push(item);
  if (list.length > STORAGE_RESULTS_LIMIT) list.shift();
}

/** A deep copy of plain data (the machine's value and context, timer events). */
function copyPlain<T>(x: T): T {
  if (x === null || typeof x !== "object") return x;
  if (Array.isArray(x)) return x.map(copyPlain) as T;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(x)) out[k] = copyPlain(v);
  return out as T;
}

export class LeaseHolder implements ProcessLogic {
  readonly kind = "holder" as const;
  /** The live snapshot, rebuilt from st.machine on clone (xstate snapshots are never mutated). */
  private snap: HolderSnapshot | null = null;
  /** Set when this call froze the process: nothing more happens until the simulator wakes it. */
  private pausedInCall = false;
  /** The state string of the last reported snapshot, and its active state nodes (a cache: the same nodes, the same state). */
  private shownNodes: readonly unknown[] | null = null;
  private shownState = "";

  constructor(
    readonly settings: HolderSettings,
    private readonly rng: Rng,
    private readonly st: HolderState = freshState(),
  ) {
    if (settings.servers.length === 0) throw new Error(`holder ${settings.id}: needs at least one server`);
    if (!(settings.requestTimeoutMs > 0)) throw new Error(`holder ${settings.id}: requestTimeoutMs must be > 0`);
    if (!(settings.retryBackoffMinMs > 0) || settings.retryBackoffMaxMs < settings.retryBackoffMinMs) {
      throw new Error(`holder ${settings.id}: need 0 < retryBackoffMinMs <= retryBackoffMaxMs`);
    }
    if (!(settings.workIntervalMs > 0)) throw new Error(`holder ${settings.id}: workIntervalMs must be > 0`);
    if (!(settings.acquireRetryMs > 0)) throw new Error(`holder ${settings.id}: acquireRetryMs must be > 0`);
    if (st.machine !== null) this.snap = holderMachine.resolveState(st.machine);
  }

  get id(): string {
    return this.settings.id;
  }
  get clientId(): string {
    return `${this.settings.id}.${this.st.incarnation}`;
  }
  get incarnation(): number {
    return this.st.incarnation;
  }
  get up(): boolean {
    return this.st.up;
  }
  /** The statechart's state value, or null while crashed. */
  get value(): StateValue | null {
    return this.st.machine?.value ?? null;
  }
  /** The statechart's context, or null while crashed. */
  get context(): HolderContext | null {
    return this.st.machine?.context ?? null;
  }
  /** How it times the lease it believes it holds (for the checkers), or null when it holds none. */
  get timing(): { readonly sentAtUs: number; readonly ttlMs: number; readonly driftMarginPpm: number } | null {
    const c = this.st.machine?.context;
    if (c === undefined || c.token === null || c.nominalEndUs === null) return null;
    // leaseTimes: nominalEnd = sentAt + ttl.
    return { sentAtUs: c.nominalEndUs - Math.round(c.ttlMs * 1000), ttlMs: c.ttlMs, driftMarginPpm: c.cfg.driftMarginPpm };
  }
  get timers(): readonly HolderTimer[] {
    return this.st.timers;
  }
  /** The work loop's state (read-only). */
  get work(): Readonly<WorkLoop> {
    return this.st.work;
  }
  /** The key registration's state (read-only). */
  get registration(): Readonly<RegisterLoop> {
    return this.st.register;
  }
  /** The server it believes leads, or null while crashed. */
  get target(): string | null {
    return this.st.machine === null ? null : (this.settings.servers[this.st.target] ?? null);
  }
  /** The sequence number of its current ClientWrite operation. */
  get seq(): number {
    return this.st.seq;
  }
  get gcPauseArmed(): number | null {
    return this.st.gcPauseUs;
  }
  get storageResults(): readonly StorageResult[] {
    return this.st.storageResults;
  }
  get storageTotals(): { readonly accepted: number; readonly rejected: number } {
    return { accepted: this.st.storageAccepted, rejected: this.st.storageRejected };
  }

  clone(): LeaseHolder {
    const s = this.st;
    return new LeaseHolder(this.settings, Rng.restore(this.rng.snapshot()), {
      ...s,
      // The settings object is shared: it is read-only.
      machine:
        s.machine === null ? null : { value: copyPlain(s.machine.value), context: { ...copyPlain(s.machine.context), cfg: this.settings } },
      timers: s.timers.map((t) => ({ ...t, event: copyPlain(t.event) })),
      work: { ...s.work },
      register: { ...s.register },
      storageResults: s.storageResults.slice(),
      sentWrites: s.sentWrites.map((w) => ({ ...w })),
      openOp: s.openOp === null ? null : { ...s.openOp },
    });
  }

  start(ctx: ProcessContext): void {
    const s = this.st;
    s.incarnation += 1;
    s.up = true;
    s.timers = [];
    s.work = freshWork();
    s.gcPauseUs = null;
    s.lastReport = "";
    s.register = freshRegister();
    s.seq = 0;
    s.target = this.rng.int(0, this.settings.servers.length - 1);
    const [snap, actions] = initialTransition(holderMachine, { cfg: this.settings });
    this.commit(snap);
    this.report(ctx, "start");
    this.execute(ctx, actions);
  }

  crash(): void {
    const s = this.st;
    s.up = false;
    s.machine = null;
    this.snap = null;
    s.timers = [];
    s.work = freshWork();
    s.register = freshRegister();
    s.gcPauseUs = null;
    s.rebindReqId = null;
    s.storageResults = [];
    s.sentWrites = [];
    s.storageAccepted = 0;
    s.storageRejected = 0;
    s.lastReport = "";
    s.openOp = null;
  }

  nextDeadline(): number | null {
    if (!this.st.up) return null;
    let best: number | null = null;
    for (const t of this.st.timers) if (best === null || t.dueUs < best) best = t.dueUs;
    return best;
  }

  onTimer(ctx: ProcessContext): void {
    const s = this.st;
    this.pausedInCall = false;
    for (let fired = 0; s.up && !this.pausedInCall; fired++) {
      let i = -1;
      for (let j = 0; j < s.timers.length; j++) {
        const t = s.timers[j] as HolderTimer;
        if (t.dueUs > ctx.now) continue;
        const b = i < 0 ? null : (s.timers[i] as HolderTimer);
        if (b === null || t.dueUs < b.dueUs || (t.dueUs === b.dueUs && t.order < b.order)) i = j;
      }
      if (i < 0) return;
      if (fired >= MAX_FIRINGS_PER_CALL) throw new Error(`holder ${this.id}: more than ${MAX_FIRINGS_PER_CALL} timers due at once`);
      const [t] = s.timers.splice(i, 1) as [HolderTimer];
      const e = t.event;
      if (e.type === WORK_CHECK) this.workCheck(ctx);
      else if (e.type === WORK_WRITE) this.workWrite(ctx, e.token as number);
      else if (e.type === REGISTER_TIMEOUT) this.registerTimeout(ctx);
      else if (e.type === REGISTER_BACKOFF) this.registerRetry(ctx);
      else this.feed(ctx, e as unknown as HolderInputEvent);
    }
  }

  onMessage(ctx: ProcessContext, from: ProcId, p: Payload): void {
    const s = this.st;
    const c = s.machine?.context;
    if (!s.up || c === undefined) return;
    const servers = this.settings.servers;
    switch (p.type) {
      case "ClientReply": {
        if (p.seq !== s.seq) return;
        if (!p.ok) {
          const hint = p.leaderHint === null ? -1 : servers.indexOf(p.leaderHint);
          // In holding, the writes are the key registration's (the statechart has none there).
          if (s.register.phase !== "off") this.registerRejected(ctx, hint < 0 ? null : hint, servers.indexOf(from));
          else this.feed(ctx, { type: "WRITE_REJECTED", hint: hint < 0 ? null : hint, from: servers.indexOf(from) });
          return;
        }
        const r = p.result;
        const open = s.openOp;
        if (open !== null && open.seq === p.seq) {
          // The operation's answer, for the clients' history (a retried send of it is not a new call).
          ctx.emit({ kind: "client", phase: "ok", clientId: this.clientId, seq: p.seq, op: open.op, result: r });
          s.openOp = null;
        }
        if (r.kind === "granted" && r.name === this.settings.leaseName) this.feed(ctx, { type: "GRANTED", token: r.token, ttlMs: r.ttlMs });
        else if (r.kind === "denied" && r.name === this.settings.leaseName) this.feed(ctx, { type: "DENIED", reason: r.reason });
        else if (r.kind === "revoked" || r.kind === "not-holder") this.feed(ctx, { type: "REVOKED" });
        else if (r.kind === "kv") this.registerWritten();
        return;
      }
      case "LeaseRefreshReply": {
        if (p.name !== this.settings.leaseName || !c.refreshes.some((r) => r.reqId === p.reqId)) return;
        if (p.ok) this.feed(ctx, { type: "RENEWED", reqId: p.reqId, ttlMs: p.ttlMs });
        else if (p.reason === "not-leader" && p.reqId === s.rebindReqId) {
          // Rebinding asked every server; the leader's answer is the one that counts.
          return;
        } else if (p.reason === "not-leader" || p.reason === "pool-short") {
          // Only the refresh in flight redirects: an older one's answer is out of date.
          if (p.reqId !== c.reqId) return;
          const hint = p.leaderHint === null ? -1 : servers.indexOf(p.leaderHint);
          this.feed(ctx, { type: "REFRESH_REJECTED", reason: p.reason, hint: hint < 0 ? null : hint, from: servers.indexOf(from) });
        } else this.feed(ctx, { type: "REFRESH_LOST", reason: p.reason });
        return;
      }
      case "StorageReply": {
        // Recorded for the UI; a rejection tells the holder nothing the lease service has not.
        if (p.accepted) s.storageAccepted += 1;
        else s.storageRejected += 1;
        const token = s.sentWrites.find((w) => w.reqId === p.reqId)?.token ?? null;
        pushBounded(s.storageResults, { reqId: p.reqId, token, accepted: p.accepted, highest: p.highest, atUs: ctx.now });
        return;
      }
      default:
        return;
    }
  }

  /** Gives the lease back now (a user or a scenario asked): revoke if held, then released for good. */
  release(ctx: ProcessContext): void {
    if (!this.st.up || this.st.machine === null) return;
    this.feed(ctx, { type: "RELEASE" });
  }

  /**
   * Arms a GC pause: right after its next successful validity check the holder freezes
   * for `durationUs`, so the write that follows the check goes out late, with the token
   * it checked.
   */
  armGcPause(durationUs: number): void {
    if (!Number.isSafeInteger(durationUs) || durationUs <= 0) throw new Error(`holder ${this.id}: GC pause must be a positive integer µs`);
    this.st.gcPauseUs = durationUs;
  }

  // ---- the interpreter -------------------------------------------------------------

  private feed(ctx: ProcessContext, e: HolderInputEvent): void {
    const snap = this.snap;
    if (snap === null) throw new Error(`holder ${this.id}: event ${e.type} while down`);
    // Every event carries the local clock and one random draw: the machine stays pure.
    const event = { ...e, nowUs: ctx.now, rand: this.rng.nextU32() / 0x100000000 } as HolderEvent;
    const [next, actions] = holderTransition(snap, event);
    this.commit(next);
    this.report(ctx, eventLabel(e.type));
    this.execute(ctx, actions);
  }

  private commit(snap: HolderSnapshot): void {
    this.snap = snap;
    this.st.machine = { value: snap.value as StateValue, context: snap.context };
  }

  private execute(
    ctx: ProcessContext,
    actions: readonly { type: string; params: unknown; info: { context: unknown; event: unknown } }[],
  ): void {
    const s = this.st;
    let startRegister = false;
    for (const a of actions) {
      const c = a.info.context as HolderContext;
      switch (a.type) {
        // Timers are appended, never replaced: two checked writes may be due at once, and
        // xstate cancels an `after` timer before it arms the same id again.
        case "xstate.raise": {
          const p = a.params as { event: HolderTimer["event"]; id: string | undefined; delay: number | undefined };
          if (p.delay === undefined) break; // an immediate raise is handled inside transition()
          // Infinity is the machine's "never" (e.g. holdForMs = 0).
          if (!Number.isFinite(p.delay)) break;
          this.addTimer(ctx, p.id ?? "", p.event, p.delay);
          break;
        }
        case "xstate.cancel": {
          const id = (a.params as { sendId: string }).sendId;
          s.timers = s.timers.filter((t) => t.id !== id);
          break;
        }
        case "newOp":
          s.seq += 1;
          break;
        case "toNextServer":
          s.target = nextServer(this.settings.servers, s.target);
          break;
        case "toServerAfterSender":
          s.target = nextServer(this.settings.servers, (a.info.event as { from: number }).from);
          break;
        case "toHintedServer":
          s.target = (a.info.event as { hint: number }).hint;
          break;
        case "sendGrant":
          this.sendWrite(ctx, { type: "grant", name: this.settings.leaseName, holder: this.id, ttlMs: this.settings.ttlMs });
          break;
        case "sendRevoke":
          if (c.token === null) throw new Error(`holder ${this.id}: revoke without a token`);
          this.sendWrite(ctx, { type: "revoke", name: this.settings.leaseName, holder: this.id, token: c.token });
          break;
        case "sendRefresh": {
          if (c.token === null) throw new Error(`holder ${this.id}: refresh without a token`);
          const refresh = { type: "LeaseRefresh" as const, name: this.settings.leaseName, holder: this.id, token: c.token, reqId: c.reqId };
          if (this.rebinding(c, ctx.now)) {
            s.rebindReqId = c.reqId;
            for (const server of this.settings.servers) ctx.send(server, refresh);
          } else {
            ctx.send(this.server(), refresh);
          }
          break;
        }
        case "startWork":
          s.work.phase = "idle";
          // A new grant starts the period afresh; back from jeopardy or grace it keeps it.
          if ((a.info.event as HolderEvent).type === "GRANTED") s.work.lastCheckUs = null;
          this.armCheck(ctx);
          break;
        case "stopWork":
          // The next check is off; a write already checked still goes out.
          s.work.phase = "off";
          s.timers = s.timers.filter((t) => t.id !== WORK_CHECK);
          break;
        case "startRegister":
          // A new grant's key is not written yet; back from jeopardy or grace it may be.
          if ((a.info.event as HolderEvent).type === "GRANTED") s.register.written = false;
          // Started once the transition's other actions are carried out, as the statechart's own region was.
          startRegister = true;
          break;
        case "stopRegister":
          // A put already sent may still be applied; its answer is ignored.
          s.register.phase = "off";
          s.timers = s.timers.filter((t) => t.id !== REGISTER_TIMEOUT && t.id !== REGISTER_BACKOFF);
          break;
        default:
          // assign and the like are resolved inside transition(); nothing else is expected.
          if (!a.type.startsWith("xstate.")) throw new Error(`holder ${this.id}: unknown action ${a.type}`);
      }
    }
    if (startRegister) this.registerStart(ctx);
  }

  private addTimer(ctx: ProcessContext, id: string, event: HolderTimer["event"], delayMs: number): void {
    const s = this.st;
    s.timers.push({ id, event, dueUs: ctx.now + Math.max(0, Math.round(delayMs * 1000)), order: s.timerOrder++ });
  }

  // ---- the work loop ---------------------------------------------------------------

  /** Arms the next validity check: the period is kept from check to check, whatever the gap. */
  private armCheck(ctx: ProcessContext): void {
    const w = this.st.work;
    const interval = this.settings.workIntervalMs;
    const delayMs = w.lastCheckUs === null ? interval : Math.max(0, w.lastCheckUs + interval * 1000 - ctx.now) / 1000;
    this.addTimer(ctx, WORK_CHECK, { type: WORK_CHECK }, delayMs);
  }

  /** Is the lease still valid on my own clock? If so, pause if armed, and write after the gap. */
  private workCheck(ctx: ProcessContext): void {
    const s = this.st;
    const w = s.work;
    const c = s.machine?.context;
    if (w.phase !== "idle" || c === undefined) throw new Error(`holder ${this.id}: a work check while ${w.phase}`);
    // One draw per event handled, as for the statechart's events: the random stream does not depend on how the loop is run.
    this.rng.nextU32();
    w.lastCheckUs = ctx.now;
    w.checks += 1;
    if (c.token === null || c.deadlineUs === null || ctx.now >= c.deadlineUs) {
      this.armCheck(ctx);
      return;
    }
    w.phase = "gap";
    // A GC pause strikes right after the check: the write that follows goes out late.
    if (s.gcPauseUs !== null) {
      const d = s.gcPauseUs;
      s.gcPauseUs = null;
      ctx.pauseSelf(d);
      this.pausedInCall = true;
    }
    this.addTimer(ctx, WORK_WRITE, { type: WORK_WRITE, token: c.token }, this.settings.workGapMs);
  }

  /** The gap after a check is over: write with the token checked, whatever the state is now. */
  private workWrite(ctx: ProcessContext, token: number): void {
    const s = this.st;
    this.rng.nextU32();
    s.writes += 1;
    pushBounded(s.sentWrites, { reqId: s.writes, token });
    ctx.send(this.settings.storage, {
      type: "StorageWrite",
      reqId: s.writes,
      resource: this.settings.resource,
      holder: this.id,
      token,
      value: `${this.id}#${s.writes}`,
    });
    if (s.work.phase === "gap") {
      s.work.phase = "idle";
      this.armCheck(ctx);
    }
  }

  // ---- the key registration ------------------------------------------------------

  /** On entering holding: write the key if it is wanted and not written for this grant. */
  private registerStart(ctx: ProcessContext): void {
    const r = this.st.register;
    if (!this.settings.registerKey || r.written) {
      r.phase = "done";
      return;
    }
    this.st.seq += 1;
    r.attempts = 0;
    r.failures = 0;
    r.redirects = 0;
    this.registerSend(ctx);
  }

  private registerSend(ctx: ProcessContext): void {
    const r = this.st.register;
    r.phase = "sending";
    r.attempts += 1;
    this.sendWrite(ctx, { type: "put", key: `/holders/${this.id}`, value: this.id, lease: this.settings.leaseName });
    this.addTimer(ctx, REGISTER_TIMEOUT, { type: REGISTER_TIMEOUT }, this.settings.requestTimeoutMs);
  }

  /** One draw per event handled, as for the statechart's events (the backoff jitter uses it). */
  private draw(): number {
    return this.rng.nextU32() / 0x100000000;
  }

  private registerBackoff(ctx: ProcessContext, rand: number): void {
    const r = this.st.register;
    r.phase = "backoff";
    this.addTimer(ctx, REGISTER_BACKOFF, { type: REGISTER_BACKOFF }, backoffMs(this.settings, r.failures, rand));
  }

  /** No answer in time: back off and try the next server. */
  private registerTimeout(ctx: ProcessContext): void {
    const s = this.st;
    const r = s.register;
    const rand = this.draw();
    if (r.phase !== "sending") throw new Error(`holder ${this.id}: a registration timeout while ${r.phase}`);
    r.failures += 1;
    r.redirects = 0;
    s.target = nextServer(this.settings.servers, s.target);
    this.registerBackoff(ctx, rand);
  }

  private registerRetry(ctx: ProcessContext): void {
    const r = this.st.register;
    this.draw();
    if (r.phase !== "backoff") throw new Error(`holder ${this.id}: a registration retry while ${r.phase}`);
    if (r.attempts < MAX_WRITE_ATTEMPTS) this.registerSend(ctx);
    else r.phase = "failed";
  }

  /** Refused: follow a usable hint at once, else back off and try the server after the one that refused. */
  private registerRejected(ctx: ProcessContext, hint: number | null, from: number): void {
    const s = this.st;
    const r = s.register;
    const rand = this.draw();
    if (r.phase !== "sending") return;
    s.timers = s.timers.filter((t) => t.id !== REGISTER_TIMEOUT);
    if (hint !== null && hint !== from && r.redirects < this.settings.servers.length) {
      r.redirects += 1;
      s.target = hint;
      this.registerSend(ctx);
      return;
    }
    r.failures += 1;
    r.redirects = 0;
    s.target = nextServer(this.settings.servers, from);
    this.registerBackoff(ctx, rand);
  }

  /** The put's answer (a late one after the holder left holding is ignored). */
  private registerWritten(): void {
    const s = this.st;
    const r = s.register;
    this.draw();
    if (r.phase !== "sending" && r.phase !== "backoff") return;
    s.timers = s.timers.filter((t) => t.id !== REGISTER_TIMEOUT && t.id !== REGISTER_BACKOFF);
    r.written = true;
    r.phase = "done";
  }

  private sendWrite(ctx: ProcessContext, op: ClientOp): void {
    const s = this.st;
    const seq = s.seq;
    if (s.openOp?.seq !== seq) {
      // A new operation: an older one still open was given up, its outcome unknown.
      if (s.openOp !== null) {
        ctx.emit({ kind: "client", phase: "info", clientId: this.clientId, seq: s.openOp.seq, op: s.openOp.op, note: "gave up" });
      }
      s.openOp = { seq, op };
      ctx.emit({ kind: "client", phase: "invoke", clientId: this.clientId, seq, op });
    }
    ctx.send(this.server(), { type: "ClientWrite", clientId: this.clientId, seq, op });
  }

  /** DHCP T2: past rebindFraction of the lease's TTL with no renewal, ask every server. */
  private rebinding(c: HolderContext, now: number): boolean {
    const f = this.settings.rebindFraction;
    if (f <= 0 || c.nominalEndUs === null) return false;
    const ttlUs = c.ttlMs * 1000;
    return now >= c.nominalEndUs - ttlUs + Math.round(ttlUs * f);
  }

  private server(): string {
    const to = this.settings.servers[this.st.target];
    if (to === undefined) throw new Error(`holder ${this.id}: no server at index ${this.st.target}`);
    return to;
  }

  /**
   * stateString(snap.value), computed only when the state changed: xstate builds a new
   * value object on every transition, but the active state nodes are the machine's own.
   */
  private stateOf(snap: HolderSnapshot): string {
    const nodes = snap._nodes;
    if (this.shownNodes === null || !sameNodes(nodes, this.shownNodes)) {
      this.shownNodes = nodes;
      this.shownState = stateString(snap.value);
    }
    return this.shownState;
  }

  /** Emits a "holder" trace event when the state, token or deadline changed. */
  private report(ctx: ProcessContext, cause: string): void {
    const m = this.st.machine;
    const snap = this.snap;
    if (m === null || snap === null) return;
    const state = this.stateOf(snap);
    const token = m.context.token;
    const deadlineUs = token === null ? null : m.context.deadlineUs;
    const key = `${state}|${token}|${deadlineUs}`;
    if (key === this.st.lastReport) return;
    this.st.lastReport = key;
    ctx.emit({ kind: "holder", state, leaseName: this.settings.leaseName, token, deadlineUs, event: cause });
  }
}

/** The same state nodes in the same order (the same configuration of the statechart). */
function sameNodes(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** "xstate.after.untilDeadline.holder.holding..." -> "after:untilDeadline"; other event types as they are. */
function eventLabel(type: string): string {
  if (!type.startsWith("xstate.after.")) return type;
  const rest = type.slice("xstate.after.".length);
  const dot = rest.indexOf(".");
  return `after:${dot < 0 ? rest : rest.slice(0, dot)}`;
}

export interface HolderView {
  readonly id: string;
  readonly up: boolean;
  readonly incarnation: number;
  /** Dotted state string ("holding.waiting", "jeopardy.renewing", ...), or "down". */
  readonly state: string;
  /** Top-level state ("holding", "jeopardy", ...), or "down". */
  readonly top: string;
  readonly value: StateValue | null;
  readonly leaseName: string;
  readonly token: number | null;
  /** The holder's own conservative deadline (local µs) while it has a token. */
  readonly deadlineUs: number | null;
  readonly nominalEndUs: number | null;
  readonly renewAtUs: number | null;
  /** Where grace ends (local µs), when there is a grace period and a token. */
  readonly graceEndUs: number | null;
  readonly ttlMs: number | null;
  /** The server it believes leads. */
  readonly target: string | null;
  readonly gcPauseArmedUs: number | null;
  readonly storageAccepted: number;
  readonly storageRejected: number;
}

/** A read-only summary of a holder for the UI, the CLI and tests. */
export function holderStateOf(h: LeaseHolder): HolderView {
  const v = h.value;
  const c = h.context;
  const has = c !== null && c.token !== null;
  return {
    id: h.id,
    up: h.up,
    incarnation: h.incarnation,
    state: v === null ? "down" : stateString(v),
    top: v === null ? "down" : topState(v),
    value: v,
    leaseName: h.settings.leaseName,
    token: has ? c.token : null,
    deadlineUs: has ? c.deadlineUs : null,
    nominalEndUs: has ? c.nominalEndUs : null,
    renewAtUs: has ? c.renewAtUs : null,
    graceEndUs: has && c.nominalEndUs !== null && h.settings.gracePeriodMs > 0 ? c.nominalEndUs + h.settings.gracePeriodMs * 1000 : null,
    ttlMs: has ? c.ttlMs : null,
    target: h.target,
    gcPauseArmedUs: h.gcPauseArmed,
    storageAccepted: h.storageTotals.accepted,
    storageRejected: h.storageTotals.rejected,
  };
}
