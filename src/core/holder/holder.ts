/**
 * A lease holder process: acquires a lease from the lease service, renews it, uses it
 * to write to the fenced storage, and gives it back. Its behaviour is the statechart
 * in holderMachine.ts, run with xstate's pure transition(): this class feeds it events
 * stamped with the local clock and a random draw, keeps its delayed events as plain
 * timers on the simulated clock, and carries out its named actions with the
 * ProcessContext. The work loop (work.ts: check the lease, then write to storage) and the
 * key registration (register.ts: a one-off put of /holders/<id> attached to the lease,
 * with retries) are its own timer code, run while the statechart is in holding (its
 * startWork / stopWork and startRegister / stopRegister actions). It also keeps the
 * transport details (transport.ts): the server it believes leads and the sequence numbers
 * of its ClientWrite operations. Everything it holds is plain data (state.ts), so a clone
 * is a deep copy.
 */
import type { LocalUs } from "../sim/time";
import type { StateValue } from "xstate";
import { hintIndex, nextServer } from "../kv/redirect";
import type { ProcessContext, ProcessLogic } from "../sim/process";
import { Rng } from "../sim/rng";
import type { Payload, ProcId } from "../sim/trace";
import {
  type HolderAction,
  type HolderContext,
  type HolderEvent,
  type HolderSnapshot,
  type ProcessActionParams,
  holderInitialTransition,
  holderMachine,
  isDelayedEvent,
  stateString,
  topState,
} from "./holderMachine";
import { type ReplicaRole, replicaRole } from "./replica";
import { registerRejected, registerRetry, registerTimeout, registerWritten, startRegister, stopRegister } from "./register";
import {
  copyHolderState,
  draw,
  dropTimers,
  freshRegister,
  freshState,
  freshWork,
  type HolderParts,
  type HolderState,
  type HolderTimer,
  pushBounded,
  REGISTER_BACKOFF,
  REGISTER_TIMEOUT,
  addTimer,
  type RegisterLoop,
  type StorageResult,
  takeDueTimer,
  WORK_CHECK,
  WORK_WRITE,
  type WorkLoop,
} from "./state";
import { holderTransition } from "./transition";
import { clientIdOf, sendWrite, server } from "./transport";
import type { HolderSettings } from "./types";
import { startWork, stopWork, workCheck, workWrite } from "./work";

export { holderMachine, stateString, topState } from "./holderMachine";
export type { HolderTimer, RegisterLoop, StorageResult, TimerEvent, WorkLoop } from "./state";
export { type HolderLocalView, holderStateOf } from "./view";
export { type ReplicaRole, replicaRole } from "./replica";

/** Timers that may fire in one onTimer call: more means a zero-delay loop, a bug. */
const MAX_FIRINGS_PER_CALL = 256;

export class LeaseHolder implements ProcessLogic {
  readonly kind = "holder" as const;
  /** The live snapshot, rebuilt from st.machine on clone (xstate snapshots are never mutated). */
  private snap: HolderSnapshot | null = null;
  /** Set when this call froze the process: nothing more happens until the simulator wakes it. */
  private pausedInCall = false;
  /** The state string of the last reported snapshot, and its state value (a cache: the same value, the same state). */
  private shownValue: StateValue | null = null;
  private shownState = "";
  /** The settings, state and random stream, for the process code in work.ts, register.ts and transport.ts. */
  private readonly parts: HolderParts;

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
    this.parts = { settings, st, rng };
  }

  get id(): string {
    return this.settings.id;
  }

  /** A live run's restarted worker continues the count its disk kept (before start()). */
  continueIncarnations(n: number): void {
    this.st.incarnation = n;
  }
  get clientId(): string {
    return clientIdOf(this.parts);
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
  get timing(): { readonly sentAtUs: LocalUs; readonly ttlMs: number; readonly driftMarginPpm: number } | null {
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
  /** A replica's role (primary, secondary, offline), or null for a plain lease holder or while crashed. */
  get role(): ReplicaRole | null {
    const m = this.st.machine;
    return !this.settings.replicas || m === null ? null : replicaRole(topState(m.value), m.context.token);
  }
  /** Clients' writes a replica did not accept: it was no longer primary when they were due. */
  get unsentWrites(): number {
    return this.st.unsentWrites;
  }
  get storageTotals(): { readonly accepted: number; readonly rejected: number } {
    return { accepted: this.st.storageAccepted, rejected: this.st.storageRejected };
  }

  clone(): LeaseHolder {
    return new LeaseHolder(this.settings, Rng.restore(this.rng.snapshot()), copyHolderState(this.st, this.settings));
  }

  start(ctx: ProcessContext): void {
    const s = this.st;
    s.incarnation += 1;
    s.up = true;
    s.timers = [];
    s.work = freshWork();
    s.gcPauseUs = null;
    s.lastReport = null;
    s.lastRole = "";
    s.register = freshRegister();
    s.seq = 0;
    s.target = this.rng.int(0, this.settings.servers.length - 1);
    const [snap, actions] = holderInitialTransition(this.settings);
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
    s.lastReport = null;
    s.lastRole = "";
    s.unsentWrites = 0;
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
      const t = takeDueTimer(s, ctx.now);
      if (t === null) return;
      if (fired >= MAX_FIRINGS_PER_CALL) throw new Error(`holder ${this.id}: more than ${MAX_FIRINGS_PER_CALL} timers due at once`);
      const e = t.event;
      if (e.type === WORK_CHECK) this.pausedInCall = workCheck(this.parts, ctx);
      else if (e.type === WORK_WRITE) workWrite(this.parts, ctx, e.token);
      else if (e.type === REGISTER_TIMEOUT) registerTimeout(this.parts, ctx);
      else if (e.type === REGISTER_BACKOFF) registerRetry(this.parts, ctx);
      else this.feed(ctx, { type: e.type, nowUs: ctx.now, rand: draw(this.rng) });
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
          const hint = hintIndex(servers, p.leaderHint);
          // In holding, the writes are the key registration's (the statechart has none there).
          if (s.register.phase !== "off") registerRejected(this.parts, ctx, hint, servers.indexOf(from));
          else this.feed(ctx, { type: "WRITE_REJECTED", hint, from: servers.indexOf(from), nowUs: ctx.now, rand: draw(this.rng) });
          return;
        }
        const r = p.result;
        const open = s.openOp;
        if (open !== null && open.seq === p.seq) {
          // The operation's answer, for the clients' history (a retried send of it is not a new call).
          ctx.emit({ kind: "client", phase: "ok", clientId: this.clientId, seq: p.seq, op: open.op, result: r });
          s.openOp = null;
        }
        if (r.kind === "granted" && r.name === this.settings.leaseName) this.feed(ctx, { type: "GRANTED", token: r.token, ttlMs: r.ttlMs, nowUs: ctx.now, rand: draw(this.rng) });
        else if (r.kind === "denied" && r.name === this.settings.leaseName) this.feed(ctx, { type: "DENIED", reason: r.reason, nowUs: ctx.now, rand: draw(this.rng) });
        else if (r.kind === "revoked" || r.kind === "not-holder") this.feed(ctx, { type: "REVOKED", nowUs: ctx.now, rand: draw(this.rng) });
        else if (r.kind === "kv") registerWritten(this.parts);
        return;
      }
      case "LeaseRefreshReply": {
        if (p.name !== this.settings.leaseName || !hasRefresh(c.refreshes, p.reqId)) return;
        if (p.ok) this.feed(ctx, { type: "RENEWED", reqId: p.reqId, ttlMs: p.ttlMs, nowUs: ctx.now, rand: draw(this.rng) });
        else if (p.reason === "not-leader" && p.reqId === s.rebindReqId) {
          // Rebinding asked every server; the leader's answer is the one that counts.
          return;
        } else if (p.reason === "not-leader" || p.reason === "pool-short") {
          // Only the refresh in flight redirects: an older one's answer is out of date.
          if (p.reqId !== c.reqId) return;
          const hint = hintIndex(servers, p.leaderHint);
          this.feed(ctx, { type: "REFRESH_REJECTED", reason: p.reason, hint, from: servers.indexOf(from), nowUs: ctx.now, rand: draw(this.rng) });
        } else this.feed(ctx, { type: "REFRESH_LOST", reason: p.reason, nowUs: ctx.now, rand: draw(this.rng) });
        return;
      }
      case "StorageReply": {
        // Recorded for the UI; a rejection tells the holder nothing the lease service has not.
        if (p.accepted) s.storageAccepted += 1;
        else s.storageRejected += 1;
        let token: number | null = null;
        // Request ids are unique and the answer is most likely to a recent write: look from the newest.
        for (let i = s.sentWrites.length - 1; i >= 0 && token === null; i--) {
          const w = s.sentWrites[i] as { reqId: number; token: number };
          if (w.reqId === p.reqId) token = w.token;
        }
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
    this.feed(ctx, { type: "RELEASE", nowUs: ctx.now, rand: draw(this.rng) });
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

  /**
   * Every event carries the local clock and one random draw (the machine stays pure): the
   * callers stamp it as they build it, `nowUs: ctx.now, rand: draw(this.rng)` (an object
   * spread here cost more than the whole transition).
   */
  private feed(ctx: ProcessContext, event: HolderEvent): void {
    const snap = this.snap;
    if (snap === null) throw new Error(`holder ${this.id}: event ${event.type} while down`);
    const [next, actions] = holderTransition(snap, event);
    this.commit(next);
    this.report(ctx, eventLabel(event.type));
    this.execute(ctx, actions);
  }

  private commit(snap: HolderSnapshot): void {
    this.snap = snap;
    // Plain data of this process alone (a clone deep-copies it): updated in place.
    const m = this.st.machine;
    if (m === null) this.st.machine = { value: snap.value, context: snap.context };
    else {
      m.value = snap.value;
      m.context = snap.context;
    }
  }

  private execute(ctx: ProcessContext, actions: readonly HolderAction[]): void {
    const s = this.st;
    let registerAfter = false;
    for (const a of actions) {
      switch (a.type) {
        // Timers are appended, never replaced: two checked writes may be due at once, and
        // xstate cancels an `after` timer before it arms the same id again.
        case "xstate.raise": {
          const p = a.params;
          if (p.delay === undefined) break; // an immediate raise is handled inside transition()
          // Infinity is the machine's "never" (e.g. holdForMs = 0).
          if (!Number.isFinite(p.delay)) break;
          if (!isDelayedEvent(p.event)) throw new Error(`holder ${this.id}: a delayed ${p.event.type} is not an after event`);
          addTimer(s, ctx.now, p.id ?? "", p.event, p.delay);
          break;
        }
        case "xstate.cancel":
          dropTimers(s, a.params.sendId);
          break;
        case "newOp":
          s.seq += 1;
          break;
        case "toNextServer":
          s.target = nextServer(this.settings.servers.length, s.target);
          break;
        case "toServerAfterSender":
          s.target = nextServer(this.settings.servers.length, a.params.from);
          break;
        case "toHintedServer":
          s.target = a.params.hint;
          break;
        case "sendGrant":
          sendWrite(this.parts, ctx, { type: "grant", name: this.settings.leaseName, holder: this.id, ttlMs: this.settings.ttlMs });
          break;
        case "sendRevoke":
          if (a.params.token === null) throw new Error(`holder ${this.id}: revoke without a token`);
          sendWrite(this.parts, ctx, { type: "revoke", name: this.settings.leaseName, holder: this.id, token: a.params.token });
          break;
        case "sendRefresh":
          this.sendRefresh(ctx, a.params);
          break;
        case "startWork":
          startWork(this.parts, ctx, a.params.newGrant);
          break;
        case "stopWork":
          stopWork(this.parts);
          break;
        case "startRegister":
          // A new grant's key is not written yet; back from jeopardy or grace it may be.
          if (a.params.newGrant) s.register.written = false;
          // Started once the transition's other actions are carried out, as the statechart's own region was.
          registerAfter = true;
          break;
        case "stopRegister":
          stopRegister(this.parts);
          break;
      }
    }
    if (registerAfter) startRegister(this.parts, ctx);
  }

  private sendRefresh(ctx: ProcessContext, p: ProcessActionParams["sendRefresh"]): void {
    if (p.token === null) throw new Error(`holder ${this.id}: refresh without a token`);
    const refresh = { type: "LeaseRefresh" as const, name: this.settings.leaseName, holder: this.id, token: p.token, reqId: p.reqId };
    if (p.everyServer) {
      this.st.rebindReqId = p.reqId;
      for (const to of this.settings.servers) ctx.send(to, refresh);
    } else {
      ctx.send(server(this.parts), refresh);
    }
  }

  /**
   * stateString(snap.value): xstate builds a new value object on every transition it takes,
   * but never changes one, so each value's string is computed once (stateStringOf).
   */
  private stateOf(snap: HolderSnapshot): string {
    // Replayed transitions share one value object per state: most steps stop at the identity test.
    if (snap.value !== this.shownValue) {
      this.shownValue = snap.value;
      this.shownState = stateStringOf(snap.value);
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
    // Compared field by field, and updated in place (it is this process's own plain data).
    const last = this.st.lastReport;
    if (last === null) this.st.lastReport = { state, token, deadlineUs };
    else if (last.state === state && last.token === token && last.deadlineUs === deadlineUs) return;
    else {
      last.state = state;
      last.token = token;
      last.deadlineUs = deadlineUs;
    }
    ctx.emit({ kind: "holder", state, leaseName: this.settings.leaseName, token, deadlineUs, event: cause });
    if (this.settings.replicas) this.reportRole(ctx, topState(snap.value), token, cause);
  }

  /** Emits a "replica" trace event when a replica's role changed (offline keeps the token it held). */
  private reportRole(ctx: ProcessContext, top: string, token: number | null, cause: string): void {
    const role = replicaRole(top, token);
    if (role === this.st.lastRole) return;
    this.st.lastRole = role;
    ctx.emit({ kind: "replica", role, leaseName: this.settings.leaseName, token, cause });
  }
}

/** Whether a refresh with this request id is outstanding (a loop, not some() with a new closure per reply). */
function hasRefresh(refreshes: HolderContext["refreshes"], reqId: number): boolean {
  for (const r of refreshes) if (r.reqId === reqId) return true;
  return false;
}

/** The state string of each state value met, by identity (a state value is never changed once made). */
const stateStrings = new WeakMap<object, string>();

function stateStringOf(value: StateValue): string {
  if (typeof value === "string") return value;
  let s = stateStrings.get(value);
  if (s === undefined) {
    s = stateString(value);
    stateStrings.set(value, s);
  }
  return s;
}

/** The labels of the delayed events met so far (a few dozen: one per `after` of the statechart). */
const afterLabels = new Map<string, string>();

/** "xstate.after.untilDeadline.holder.holding..." -> "after:untilDeadline"; other event types as they are. */
function eventLabel(type: string): string {
  if (!type.startsWith("xstate.after.")) return type;
  let label = afterLabels.get(type);
  if (label === undefined) {
    const rest = type.slice("xstate.after.".length);
    const dot = rest.indexOf(".");
    label = `after:${dot < 0 ? rest : rest.slice(0, dot)}`;
    afterLabels.set(type, label);
  }
  return label;
}
