/**
 * The kernel: the event queue, the processes' lifecycle (timers, pauses, crashes, message
 * delivery), the trace, the checkers' hooks and snapshots. What runs on it (the cluster,
 * cluster.ts), the network it sends through (network.ts) and what actions do (actions.ts)
 * are their own modules, and so are its data types (kernelTypes.ts); Simulation (sim.ts) puts them together.
 */
import type { CoreStateMachine } from "../kv/statemachine";
import type { Disk } from "../raft/server";
import type { Action } from "./actions";
import type { BoundBroken, CheckerHost, Checkers, HolderTiming, Violation } from "./checkers";
import { cloneProc, freezeProc, type ProcRecord, type ProcStatus } from "./cluster";
import { type ClockState, localTime, virtualAt } from "./clock";
import type { SimConfig } from "./config";
import { EventHeap } from "./heap";
import type { NemesisState } from "./nemesis";
import { Network } from "./network";
import type { ProcessContext } from "./process";
import type { ActionFailure, Envelope, QItem, SimSnapshot, TraceListener } from "./kernelTypes";
import { ActionRefused, errorMessage } from "./refusal";
import { Rng } from "./rng";
import type { LocalUs, VirtualUs } from "./time";
import type { DropReason, Payload, ProcEvent, ProcId, SimEvent, TraceEvent } from "./trace";
import { TraceHasher } from "./traceHash";

type MutableContext = { now: number } & ProcessContext;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export type { ActionFailure, Envelope, QItem, SimSnapshot, TraceListener } from "./kernelTypes";

export abstract class Kernel implements CheckerHost {
  readonly config: SimConfig;
  abstract readonly nodeIds: readonly ProcId[];
  abstract readonly holderIds: readonly ProcId[];

  protected _now: VirtualUs = 0;
  protected seq = 0;
  protected msgId = 0;
  protected eventCount = 0;
  /** Queue items that did something (a delivery, a timer that fired, an action): what Step counts. */
  protected handled = 0;
  protected queue = new EventHeap<QItem>();
  protected procs = new Map<ProcId, ProcRecord>();
  protected net: Network;
  protected refRng: Rng;
  protected nemesisState: NemesisState | null = null;
  protected hasher = new TraceHasher();
  protected checkers: Checkers | null = null;
  protected _violations: Violation[] = [];
  protected _boundsBroken: BoundBroken[] = [];
  protected _halted = false;
  /** Names given with `as` (each object is replaced, never changed in place). */
  protected names: Readonly<Record<string, ProcId>> = {};
  protected _actionFailures: ActionFailure[] = [];
  protected listeners: TraceListener[] = [];
  /** One context per process, reused for every call (its clock reading is refreshed each time). */
  protected contexts = new Map<ProcId, MutableContext>();
  /** A pause a process asked for during the current call (applied when the call returns). */
  protected selfPause: { proc: ProcId; durationUs: number } | null = null;
  /** Events of the current step, so callers can see what one step did. */
  protected stepEvents: TraceEvent[] | null = null;

  constructor(config: SimConfig, net: Network, refRng: Rng, onTrace?: TraceListener) {
    this.config = config;
    this.net = net;
    this.refRng = refRng;
    if (onTrace !== undefined) this.listeners.push(onTrace);
  }

  /** Does an action (actions.ts); throws ActionRefused when it cannot run. */
  protected abstract apply(action: Action): void;
  /** One step of the nemesis; false when there is none. */
  protected abstract nemesisTick(): boolean;
  /** The next input of a recorded run (only a replay queues one); false when it did nothing. */
  protected scriptTick(): boolean {
    throw new Error("a script item reached a simulation that replays no recording");
  }
  abstract diskOf(id: ProcId): Disk | undefined;
  abstract stateOf(id: ProcId): CoreStateMachine | null;
  abstract holderTiming(id: ProcId): HolderTiming | null;

  // ---- public read-only views -------------------------------------------------

  get now(): VirtualUs {
    return this._now;
  }
  get seed(): number {
    return this.config.seed;
  }
  get violations(): readonly Violation[] {
    return this._violations;
  }
  /** Assumptions the run broke (not violations: the protocol is entitled to them), e.g. a clock faster than the holders allow for. */
  get boundsBroken(): readonly BoundBroken[] {
    return this._boundsBroken;
  }
  /** Scheduled actions that could not run, and why. */
  get actionFailures(): readonly ActionFailure[] {
    return this._actionFailures;
  }
  get halted(): boolean {
    return this._halted;
  }
  get traceHash(): string {
    return this.hasher.hex;
  }
  get eventsProcessed(): number {
    return this.eventCount;
  }
  /** Simulator events handled so far (one Step handles exactly one). Trace events are finer: one handled event emits several. */
  get eventsHandled(): number {
    return this.handled;
  }
  get pendingEvents(): number {
    return this.queue.size;
  }
  status(id: ProcId): ProcStatus {
    return this.proc(id).status;
  }
  isUp(id: ProcId): boolean {
    const p = this.procs.get(id);
    return p !== undefined && p.status !== "down";
  }
  clockOf(id: ProcId): ClockState {
    return this.proc(id).clock;
  }
  localNow(id: ProcId): LocalUs {
    return localTime(this.proc(id).clock, this._now);
  }
  /** When a paused process wakes (virtual µs), or null if it is not paused. */
  pausedUntil(id: ProcId): VirtualUs | null {
    return this.proc(id).pausedUntil;
  }
  /**
   * Messages on the wire, and messages that reached a paused process and wait in its
   * inbox (`queued`), in no particular order. For the UI; O(queue size).
   */
  inFlight(): { readonly env: Envelope; readonly queued: boolean }[] {
    const out: { env: Envelope; queued: boolean }[] = [];
    for (const q of this.queue.all()) if (q.type === "deliver") out.push({ env: q.env, queued: false });
    for (const p of this.procs.values()) for (const m of p.inbox) out.push({ env: m.env, queued: true });
    return out;
  }
  isBlocked(from: ProcId, to: ProcId): "cut" | "partition" | null {
    return this.net.isBlocked(from, to);
  }
  onTrace(listener: TraceListener): () => void {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  // ---- driving -----------------------------------------------------------------

  /**
   * Processes every event up to and including `time`, then sets the clock to `time`.
   * With `stopWhen`, stops right after the first event for which it returns true (the
   * clock then stays at that event's time) and returns false; otherwise returns true.
   */
  advanceTo(time: VirtualUs, stopWhen?: () => boolean): boolean {
    if (!Number.isSafeInteger(time)) throw new Error(`advanceTo: time must be an integer number of µs, got ${time}`);
    if (time < this._now) throw new Error(`advanceTo: cannot go back from ${this._now} to ${time}`);
    for (;;) {
      if (this._halted) return false;
      const top = this.queue.peek();
      if (top === undefined || top.at > time) break;
      this.queue.pop();
      if (this.process(top)) this.handled++;
      if (stopWhen?.()) return false;
    }
    this._now = time;
    return true;
  }

  /**
   * Processes exactly one event (skipping cancelled timers). Returns the trace events it
   * produced. With `maxTime`, only events due at or before it are considered (none may be).
   */
  step(maxTime = Number.POSITIVE_INFINITY): TraceEvent[] {
    if (this._halted) return [];
    const events: TraceEvent[] = [];
    this.stepEvents = events;
    try {
      for (;;) {
        const next = this.queue.peek();
        if (next === undefined || next.at > maxTime) return events;
        const top = this.queue.pop() as QItem;
        if (this.process(top)) {
          this.handled++;
          return events;
        }
      }
    } finally {
      this.stepEvents = null;
    }
  }

  /** Time of the next event that will do something, or null if none is queued. */
  nextEventTime(): VirtualUs | null {
    return this.queue.peek()?.at ?? null;
  }


  /**
   * Runs an action now, as a handled event, exactly as a scheduled one would be: an action
   * that cannot run is skipped and reported (actionFailures and a note), never thrown.
   * Returns the failure, or null. This is how user actions and scenario actions are
   * applied, so a run replayed from its action list is the same run.
   */
  perform(action: Action): ActionFailure | null {
    if (this._halted) return null;
    this.handled++;
    return this.applyReported(action);
  }

  /** Queues an action for a later time. */
  schedule(at: VirtualUs, action: Action): void {
    if (at < this._now) throw new Error(`schedule: ${at} is in the past (now ${this._now})`);
    this.push({ type: "action", at, action });
  }

  // ---- snapshots -----------------------------------------------------------------

  snapshot(): SimSnapshot {
    return {
      now: this._now,
      seq: this.seq,
      msgId: this.msgId,
      eventCount: this.eventCount,
      handled: this.handled,
      queue: this.queue.snapshot(),
      procs: [...this.procs.values()].map(freezeProc),
      net: this.net.snapshot(),
      refRng: this.refRng.snapshot(),
      nemesis: this.nemesisState?.clone() ?? null,
      hash: this.hasher.state(),
      checkers: this.checkers?.clone(this) ?? null,
      violations: this._violations.slice(),
      boundsBroken: this._boundsBroken.slice(),
      actionFailures: this._actionFailures.slice(),
      halted: this._halted,
      names: this.names,
    };
  }

  /** Puts the simulation back to a snapshot (which stays reusable). Listeners are kept. */
  restore(s: SimSnapshot): void {
    this._now = s.now;
    this.seq = s.seq;
    this.msgId = s.msgId;
    this.eventCount = s.eventCount;
    this.handled = s.handled;
    this.queue = new EventHeap(s.queue.slice());
    this.procs = new Map(s.procs.map((p) => [p.id, cloneProc(p)]));
    this.net = Network.restore(s.net);
    this.refRng = Rng.restore(s.refRng);
    this.nemesisState = s.nemesis?.clone() ?? null;
    this.hasher = new TraceHasher(s.hash[0], s.hash[1]);
    this.checkers = s.checkers?.clone(this) ?? null;
    this._violations = s.violations.slice();
    this._boundsBroken = s.boundsBroken.slice();
    this._actionFailures = s.actionFailures.slice();
    this._halted = s.halted;
    this.names = s.names;
  }

  // ---- CheckerHost -----------------------------------------------------------------

  report(v: Omit<Violation, "time" | "seed">): void {
    const full: Violation = { ...v, time: this._now, seed: this.config.seed };
    this._violations.push(full);
    this.emit({ kind: "violation", invariant: v.invariant, nodes: v.nodes, detail: v.detail });
    if (this.config.stopOnViolation) this._halted = true;
  }

  boundBroken(b: Omit<BoundBroken, "time">): void {
    this._boundsBroken.push({ ...b, time: this._now });
    this.emit({ kind: "note", text: `bound broken (${b.bound}): ${b.detail}` });
  }

  protected applyReported(action: Action): ActionFailure | null {
    try {
      this.apply(action);
      return null;
    } catch (e) {
      // An action that cannot run (e.g. "crash the leader" with no leader) is skipped and
      // reported, never fatal: the run, and the user's work, go on. Anything else is a bug.
      if (!(e instanceof ActionRefused)) {
        this.actionBroke(action, e);
        return null;
      }
      const failure: ActionFailure = { time: this._now, action, error: e.message };
      this._actionFailures.push(failure);
      this.emit({ kind: "note", text: `${action.type} skipped: ${failure.error}` });
      return failure;
    }
  }

  protected proc(id: ProcId): ProcRecord {
    const p = this.procs.get(id);
    if (p === undefined) throw new Error(`no process named "${id}"`);
    return p;
  }

  /**
   * Queues an item; its sequence number is assigned here (the literal's own field is overwritten).
   * The frequent ones (deliveries, timers) are made with a `seq` of 0, so setting it writes a
   * field rather than adding one (which changes the object's shape on every push).
   */
  protected push(item: DistributiveOmit<QItem, "seq"> & { seq?: number }): void {
    (item as unknown as { seq: number }).seq = this.seq++;
    this.queue.push(item as QItem);
  }

  /** Returns false when the item turned out to be a cancelled timer (nothing happened). */
  protected process(q: QItem): boolean {
    this._now = q.at;
    switch (q.type) {
      case "deliver":
        this.deliver(q.env);
        return true;
      case "timer": {
        const p = this.proc(q.proc);
        if (q.gen !== p.timerGen) return false;
        p.timerAt = null;
        if (p.status !== "up") return false;
        const before = this.eventCount;
        this.runTimer(p);
        return this.eventCount !== before; // an early timer that found nothing due is no event
      }
      case "wake": {
        const p = this.proc(q.proc);
        if (q.gen !== p.pauseGen || p.status !== "paused") return false;
        this.wake(p);
        return true;
      }
      case "action":
        this.applyReported(q.action);
        return true;
      case "nemesis":
        return this.nemesisTick();
      case "script":
        return this.scriptTick();
      default: {
        const unhandled: never = q;
        throw new Error(`process: unhandled queue item ${(unhandled as QItem).type}`);
      }
    }
  }

  /** Stamps a freshly made event body with time and position (no copy: bodies are never shared). */
  protected emit(body: SimEvent | ({ proc: ProcId } & ProcEvent)): void {
    const e = body as unknown as { t: number; n: number };
    e.t = this._now;
    e.n = this.eventCount++;
    this.publish(e as unknown as TraceEvent);
  }

  protected publish(e: TraceEvent): void {
    if (this.config.hashTrace) this.hasher.add(e);
    this.fanOut(e);
  }

  /*
   * The kernel's own frequent events (sends, deliveries (here), drops) are made with their time and
   * position as their last fields (where emit() would add them), so each kind keeps one shape,
   * and are hashed through the hasher's entry point for their kind (see TraceHasher.addSend).
   */
  protected emitDeliver(env: Envelope): void {
    const e = { kind: "deliver" as const, id: env.id, from: env.from, to: env.to, t: this._now, n: this.eventCount++ };
    if (this.config.hashTrace) this.hasher.addDeliver(e);
    this.fanOut(e);
  }

  /** What publish() does after hashing: the step's list, the listeners, the checkers. */
  protected fanOut(e: TraceEvent): void {
    if (this.stepEvents !== null) this.stepEvents.push(e);
    for (const l of this.listeners) l(e);
    // Last: a violation the checkers find in `e` is published from inside this call, and must
    // reach the listeners (a --trace file, the page's journal) after the event that caused it.
    this.checkers?.observe(e);
  }

  /** One context per process, reused for every call (its clock reading is refreshed each time). */
  protected makeContext(id: ProcId): MutableContext {
    return {
      now: 0,
      send: (to, payload) => this.send(id, to, payload),
      emit: (ev) => {
        (ev as unknown as { proc: ProcId }).proc = id;
        this.emit(ev as { proc: ProcId } & ProcEvent);
      },
      pauseSelf: (durationUs) => {
        this.selfPause = { proc: id, durationUs };
      },
    };
  }

  protected contextFor(p: ProcRecord): MutableContext {
    let ctx = this.contexts.get(p.id);
    if (ctx === undefined) {
      ctx = this.makeContext(p.id);
      this.contexts.set(p.id, ctx);
    }
    ctx.now = localTime(p.clock, this._now);
    return ctx;
  }

  /** Runs one call into a process, then applies a pause it asked for, or re-arms its timer. */
  protected run(p: ProcRecord, fn: (ctx: ProcessContext) => void): void {
    const ctx = this.contextFor(p);
    try {
      fn(ctx);
      this.settle(p);
    } catch (e) {
      this.broken(p, e);
    }
  }

  /** The two hot paths of run(), without a closure per event. */
  protected runTimer(p: ProcRecord): void {
    const ctx = this.contextFor(p);
    try {
      p.logic.onTimer(ctx);
      this.settle(p);
    } catch (e) {
      this.broken(p, e);
    }
  }

  protected runMessage(p: ProcRecord, env: Envelope): void {
    const ctx = this.contextFor(p);
    try {
      p.logic.onMessage(ctx, env.from, env.payload);
      this.settle(p);
    } catch (e) {
      this.broken(p, e);
    }
  }

  protected settle(p: ProcRecord): void {
    const sp = this.selfPause;
    if (sp !== null) {
      this.selfPause = null;
      if (sp.proc === p.id) {
        this.apply({ type: "pause", proc: p.id, durationUs: sp.durationUs });
        return;
      }
    }
    this.rearm(p);
  }

  /**
   * A process broke one of its own assertions: report it like any violation and stop,
   * since its state can no longer be trusted.
   */
  protected broken(p: ProcRecord, e: unknown): void {
    this.report({ invariant: "assertion", nodes: [p.id], detail: errorMessage(e) });
    this._halted = true;
  }

  /**
   * An action threw something other than ActionRefused: a bug in the simulator or a
   * process, not an action that cannot run. Reported like a broken process, and the run stops.
   */
  protected actionBroke(a: Action, e: unknown): void {
    if (this._halted) return; // a process already broke inside the action (run() reported it)
    // Name the process the action was aimed at, when it names one that exists (else none).
    const aimed = "proc" in a ? a.proc : "holder" in a ? a.holder : "to" in a && a.type === "transfer" ? a.to : null;
    const nodes = aimed !== null && this.procs.has(aimed) ? [aimed] : [];
    this.report({ invariant: "assertion", nodes, detail: `while applying ${a.type}: ${errorMessage(e)}` });
    this._halted = true;
  }

  /** Keeps one live timer event per process, no later than its next deadline. */
  protected rearm(p: ProcRecord): void {
    if (p.status !== "up") return;
    const d = p.logic.nextDeadline();
    if (d === null) {
      if (p.timerAt !== null) {
        p.timerGen++;
        p.timerAt = null;
      }
      return;
    }
    const at = virtualAt(p.clock, d, this._now);
    // A timer already queued at or before the new deadline is kept: it fires, finds nothing
    // due, and re-arms. Followers push back their election deadline on every heartbeat, so
    // this saves most queue operations without changing what happens.
    if (p.timerAt !== null && p.timerAt <= at) return;
    p.timerGen++;
    p.timerAt = at;
    this.push({ type: "timer", at, proc: p.id, gen: p.timerGen, seq: 0 });
  }

  protected send(from: ProcId, to: ProcId, payload: Payload): void {
    if (!this.procs.has(to)) throw new Error(`${from} sent to unknown process ${to}`);
    const copies = this.net.copies();
    for (let i = 0; i < copies; i++) {
      const latency = this.net.latency(from, to, payload.type);
      const blocked = this.net.isBlocked(from, to);
      const lost = this.net.lost();
      const env: Envelope = {
        id: ++this.msgId,
        from,
        to,
        sentAt: this._now,
        deliverAt: this._now + latency,
        payload,
        fate: blocked ?? (lost ? "loss" : "ok"),
        dup: i > 0,
      };
      this.emitSend(env);
      this.push({ type: "deliver", at: env.deliverAt, env, seq: 0 });
    }
  }

  protected emitSend(env: Envelope): void {
    const e = { kind: "send" as const, id: env.id, from: env.from, to: env.to, deliverAt: env.deliverAt, msg: env.payload, dup: env.dup, t: this._now, n: this.eventCount++ };
    if (this.config.hashTrace) this.hasher.addSend(e);
    this.fanOut(e);
  }

  protected drop(env: Envelope, reason: DropReason): void {
    const e = { kind: "drop" as const, id: env.id, from: env.from, to: env.to, reason, t: this._now, n: this.eventCount++ };
    if (this.config.hashTrace) this.hasher.addDrop(e);
    this.fanOut(e);
  }

  protected deliver(env: Envelope): void {
    const p = this.proc(env.to);
    const refused: DropReason | null =
      env.fate !== "ok"
        ? env.fate
        : (this.net.isBlocked(env.from, env.to) ??
          (p.status === "down" ? "down" : p.status === "paused" && p.inbox.length >= this.config.inboxLimit ? "inbox-full" : null));
    if (refused !== null) {
      this.drop(env, refused);
      return;
    }
    if (p.status === "paused") {
      p.inbox.push({ env, at: this._now });
      return;
    }
    this.emitDeliver(env);
    this.runMessage(p, env);
  }

  /**
   * End of a pause: everything that came due while the process was frozen now
   * happens at once, in the order it came due (messages by arrival, the timer by its deadline).
   */
  protected wake(p: ProcRecord): void {
    p.status = "up";
    p.pausedUntil = null;
    this.emit({ kind: "resume", proc: p.id });
    const inbox = p.inbox;
    p.inbox = [];
    let guard = inbox.length + 1000;
    for (;;) {
      if (guard-- <= 0) throw new Error(`${p.id}: runaway timer after resume`);
      const status = p.status as ProcStatus; // run() may have paused or crashed it
      if (status === "paused") {
        // Paused again while catching up (a GC pause at the same spot): keep what is left.
        p.inbox = inbox.concat(p.inbox);
        return;
      }
      if (status !== "up") {
        for (const m of inbox) this.drop(m.env, "down");
        return;
      }
      const d = p.logic.nextDeadline();
      const dueAt = d === null ? Number.POSITIVE_INFINITY : virtualAt(p.clock, d, 0);
      const next = inbox[0];
      if (dueAt <= this._now && (next === undefined || dueAt <= next.at)) {
        this.runTimer(p);
        continue;
      }
      if (next === undefined) break;
      inbox.shift();
      this.emitDeliver(next.env);
      this.runMessage(p, next.env);
    }
    this.rearm(p);
  }
}
