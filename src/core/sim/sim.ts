/**
 * The discrete-event simulator. Virtual time is integer microseconds; the queue is
 * ordered by (time, sequence); the only randomness is the seeded PRNG, forked per
 * node and per purpose. The same seed and the same actions give the same trace,
 * however time is advanced.
 */
import type { NodeId } from "../raft/types";
import type { RaftServer, Disk } from "../raft/server";
import type { KvClient } from "../kv/client";
import type { CoreStateMachine } from "../kv/statemachine";
import type { LeaseHolder } from "../holder/holder";
import type { FencedStorage } from "../storage/storage";
import { type Action, type ActionHost, applyAction, type ProcRef, resolve } from "./actions";
import { type BoundBroken, type CheckerHost, Checkers, type HolderTiming, type Violation } from "./checkers";
import { buildCluster, cloneProc, freezeProc, type LogicOf, logicOf, type Proc, type ProcKind, type ProcStatus } from "./cluster";
import { type ClockState, localTime, virtualAt } from "./clock";
import { configProblems, type SimConfig } from "./config";
import { EventHeap } from "./heap";
import { describeMix, type NemesisConfig, NemesisState, nemesisStep } from "./nemesis";
import { type NetState, Network, type NetworkView } from "./network";
import type { ProcessContext } from "./process";
import { ActionRefused } from "./refusal";
import { Rng, type RngState } from "./rng";
import { type DropReason, type Payload, type ProcEvent, type ProcId, type SimEvent, TraceHasher, type TraceEvent } from "./trace";

export type { Action, ProcRef } from "./actions";
export type { ProcStatus } from "./cluster";

/** A message on the wire. Immutable once sent. */
export interface Envelope {
  readonly id: number;
  readonly from: ProcId;
  readonly to: ProcId;
  readonly sentAt: number;
  readonly deliverAt: number;
  readonly payload: Payload;
  /** Decided when sent: lost on the way, or blocked by a partition or cut link. */
  readonly fate: "ok" | "loss" | "partition" | "cut";
  readonly dup: boolean;
}

type MutableContext = { now: number } & ProcessContext;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

type QItem =
  | { readonly at: number; readonly seq: number; readonly type: "deliver"; readonly env: Envelope }
  | { readonly at: number; readonly seq: number; readonly type: "timer"; readonly proc: ProcId; readonly gen: number }
  | { readonly at: number; readonly seq: number; readonly type: "wake"; readonly proc: ProcId; readonly gen: number }
  | { readonly at: number; readonly seq: number; readonly type: "action"; readonly action: Action }
  | { readonly at: number; readonly seq: number; readonly type: "nemesis" };

export interface SimSnapshot {
  readonly now: number;
  readonly seq: number;
  readonly msgId: number;
  readonly eventCount: number;
  readonly handled: number;
  readonly queue: readonly QItem[];
  readonly procs: readonly Proc[];
  readonly net: { readonly state: NetState; readonly rng: RngState };
  readonly refRng: RngState;
  readonly nemesis: NemesisState | null;
  readonly hash: [number, number];
  readonly checkers: Checkers | null;
  readonly violations: readonly Violation[];
  readonly boundsBroken: readonly BoundBroken[];
  readonly actionFailures: readonly ActionFailure[];
  readonly halted: boolean;
  readonly names: Readonly<Record<string, ProcId>>;
}

export interface ActionFailure {
  readonly time: number;
  readonly action: Action;
  readonly error: string;
}

export type TraceListener = (e: TraceEvent) => void;

/**
 * The kernel: the event queue, the processes' lifecycle (timers, pauses, crashes, message
 * delivery), the trace, and snapshots. The network (network.ts), the cluster it builds
 * (cluster.ts) and the actions (actions.ts) are their own modules.
 */
export class Simulation implements CheckerHost {
  readonly config: SimConfig;
  readonly nodeIds: readonly NodeId[];
  readonly clientIds: readonly ProcId[];
  readonly holderIds: readonly ProcId[];
  /** The fenced storage process, present when there are holders. */
  readonly storageId: ProcId | null;

  private _now = 0;
  private seq = 0;
  private msgId = 0;
  private eventCount = 0;
  /** Queue items that did something (a delivery, a timer that fired, an action): what Step counts. */
  private handled = 0;
  private queue = new EventHeap<QItem>();
  private procs: Map<ProcId, Proc>;
  private net: Network;
  private refRng: Rng;
  private nemesisState: NemesisState | null = null;
  private hasher = new TraceHasher();
  private checkers: Checkers | null;
  private _violations: Violation[] = [];
  private _boundsBroken: BoundBroken[] = [];
  private _halted = false;
  /** Names given with `as` (each object is replaced, never changed in place). */
  private names: Readonly<Record<string, ProcId>> = {};
  private _actionFailures: ActionFailure[] = [];
  private listeners: TraceListener[] = [];
  /** One context per process, reused for every call (its clock reading is refreshed each time). */
  private contexts = new Map<ProcId, MutableContext>();
  /** A pause a process asked for during the current call (applied when the call returns). */
  private selfPause: { proc: ProcId; durationUs: number } | null = null;
  /** Events of the current step, so callers can see what one step did. */
  private stepEvents: TraceEvent[] | null = null;
  /** What the actions may touch (actions.ts). */
  private readonly host: ActionHost;

  /** `onTrace` listens from the very first event (the constructor already emits some). */
  constructor(config: SimConfig, nemesis?: NemesisConfig, onTrace?: TraceListener) {
    const problems = configProblems(config);
    if (problems.length > 0) throw new Error(`invalid simulation settings: ${problems.join("; ")}`);
    if (onTrace !== undefined) this.listeners.push(onTrace);
    this.config = config;
    const root = Rng.fromSeed(config.seed);
    this.net = Network.fromSettings(config.network, root.fork("net"));
    this.refRng = root.fork("refs");
    // A run with loss or a nemesis is not fault-free from the start (see renewed-lease-kept).
    const faultFree = config.network.dropRate === 0 && nemesis === undefined;
    this.checkers = config.checkers ? new Checkers(this, undefined, faultFree) : null;
    const cluster = buildCluster(config, root);
    this.nodeIds = cluster.nodeIds;
    this.clientIds = cluster.clientIds;
    this.holderIds = cluster.holderIds;
    this.storageId = cluster.storageId;
    this.procs = cluster.procs;
    this.host = this.actionHost();
    for (const p of this.procs.values()) this.run(p, (ctx) => p.logic.start(ctx));
    if (nemesis !== undefined) {
      this.nemesisState = new NemesisState(nemesis, root.fork("nemesis"));
      this.push({ type: "nemesis", at: this._now + this.nemesisState.nextDelayUs() });
    }
  }

  // ---- public read-only views -------------------------------------------------

  get now(): number {
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
  /** The random nemesis's fault mix in words (drawn at time 0), or null without a nemesis or before time 0 has run. */
  get nemesisMix(): string | null {
    const m = this.nemesisState?.mix ?? null;
    return m === null ? null : describeMix(m);
  }

  status(id: ProcId): ProcStatus {
    return this.proc(id).status;
  }
  /** A process's logic, which must be of `kind` (else an error naming both). */
  logic<K extends ProcKind>(id: ProcId, kind: K): LogicOf[K] {
    const l = logicOf(this.proc(id), kind);
    if (l === null) throw new Error(`${id} is not a ${KIND_WORDS[kind]}`);
    return l;
  }
  server(id: NodeId): RaftServer {
    return this.logic(id, "node");
  }
  client(id: ProcId): KvClient {
    return this.logic(id, "client");
  }
  holder(id: ProcId): LeaseHolder {
    return this.logic(id, "holder");
  }
  storage(): FencedStorage | null {
    return this.storageId === null ? null : this.logic(this.storageId, "storage");
  }
  diskOf(id: ProcId): Disk | undefined {
    return logicOf(this.procs.get(id), "node")?.disk;
  }
  stateOf(id: ProcId): CoreStateMachine | null {
    return logicOf(this.procs.get(id), "node")?.stateMachine ?? null;
  }
  isUp(id: ProcId): boolean {
    const p = this.procs.get(id);
    return p !== undefined && p.status !== "down";
  }
  clockOf(id: ProcId): ClockState {
    return this.proc(id).clock;
  }
  localNow(id: ProcId): number {
    return localTime(this.proc(id).clock, this._now);
  }
  holderTiming(id: ProcId): HolderTiming | null {
    return logicOf(this.procs.get(id), "holder")?.timing ?? null;
  }
  /** The up node that leads the highest term, if any. */
  leader(): NodeId | null {
    let best: NodeId | null = null;
    let bestTerm = -1;
    for (const id of this.nodeIds) {
      const p = this.proc(id);
      const node = (p.logic as RaftServer).node;
      if (p.status !== "down" && node !== null && node.role === "leader" && node.term > bestTerm) {
        best = id;
        bestTerm = node.term;
      }
    }
    return best;
  }
  /** When a paused process wakes (virtual µs), or null if it is not paused. */
  pausedUntil(id: ProcId): number | null {
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
  /** The network's current shape: partition groups, one-way cuts, slow links, rates and latency. */
  network(): NetworkView {
    return this.net.view();
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
  advanceTo(time: number, stopWhen?: () => boolean): boolean {
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
  nextEventTime(): number | null {
    return this.queue.peek()?.at ?? null;
  }

  /** Runs an action now. Throws on a reference that names nothing. */
  act(action: Action): void {
    applyAction(this.host, action);
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
  schedule(at: number, action: Action): void {
    if (at < this._now) throw new Error(`schedule: ${at} is in the past (now ${this._now})`);
    this.push({ type: "action", at, action });
  }

  /** Resolves "leader", "follower", "any-node", "any-client", "any-holder", a name given with `as`, or an id. */
  resolve(ref: ProcRef): ProcId {
    return resolve(this.host, ref);
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

  // ---- internals -----------------------------------------------------------------

  /** The kernel's parts the actions use; everything else stays private. Reads the current fields (restore() replaces them). */
  private actionHost(): ActionHost {
    const sim = this;
    return {
      get now() {
        return sim._now;
      },
      nodeIds: this.nodeIds,
      clientIds: this.clientIds,
      holderIds: this.holderIds,
      get net() {
        return sim.net;
      },
      get refRng() {
        return sim.refRng;
      },
      get names() {
        return sim.names;
      },
      set names(n) {
        sim.names = n;
      },
      has: (id) => this.procs.has(id),
      proc: (id) => this.proc(id),
      procs: () => this.procs.values(),
      leader: () => this.leader(),
      storage: () => this.storage(),
      emit: (body) => this.emit(body),
      run: (p, fn) => this.run(p, fn),
      wake: (p) => this.wake(p),
      rearm: (p) => this.rearm(p),
      wakeAt: (p, at) => this.push({ type: "wake", at, proc: p.id, gen: p.pauseGen }),
      drop: (env, reason) => this.drop(env, reason),
      unsend: (id) => {
        const removed = this.queue.removeWhere((q) => q.type === "deliver" && q.env.id === id);
        return removed.flatMap((q) => (q.type === "deliver" ? [q.env] : []));
      },
    };
  }

  private applyReported(action: Action): ActionFailure | null {
    try {
      applyAction(this.host, action);
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

  private proc(id: ProcId): Proc {
    const p = this.procs.get(id);
    if (p === undefined) throw new Error(`no process named "${id}"`);
    return p;
  }

  /** Queues an item; its sequence number is assigned here (the literal's own field is overwritten). */
  private push(item: DistributiveOmit<QItem, "seq">): void {
    (item as unknown as { seq: number }).seq = this.seq++;
    this.queue.push(item as QItem);
  }

  /** Returns false when the item turned out to be a cancelled timer (nothing happened). */
  private process(q: QItem): boolean {
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
      default: {
        const unhandled: never = q;
        throw new Error(`process: unhandled queue item ${(unhandled as QItem).type}`);
      }
    }
  }

  private nemesisTick(): boolean {
    const n = this.nemesisState;
    if (n === null) return false;
    const actions = nemesisStep(n, this);
    for (const a of actions) {
      try {
        applyAction(this.host, a);
      } catch (err) {
        // Decided before the tick's earlier actions ran (e.g. a hand-over after a planned
        // crash of the leader): skipped, and said so, like a user's action that cannot run.
        // Anything but a refusal is a bug: the run stops there.
        if (!(err instanceof ActionRefused)) {
          this.actionBroke(a, err);
          return true;
        }
        this.emit({ kind: "note", text: `nemesis: ${a.type} skipped: ${err.message}` });
      }
    }
    this.push({ type: "nemesis", at: this._now + n.nextDelayUs() });
    return true;
  }

  /** Stamps a freshly made event body with time and position (no copy: bodies are never shared). */
  private emit(body: SimEvent | ({ proc: ProcId } & ProcEvent)): void {
    const e = body as unknown as { t: number; n: number };
    e.t = this._now;
    e.n = this.eventCount++;
    this.publish(e as unknown as TraceEvent);
  }

  private publish(e: TraceEvent): void {
    if (this.config.hashTrace) this.hasher.add(e);
    this.checkers?.observe(e);
    if (this.stepEvents !== null) this.stepEvents.push(e);
    for (const l of this.listeners) l(e);
  }

  /** One context per process, reused for every call (its clock reading is refreshed each time). */
  private makeContext(id: ProcId): MutableContext {
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

  private contextFor(p: Proc): MutableContext {
    let ctx = this.contexts.get(p.id);
    if (ctx === undefined) {
      ctx = this.makeContext(p.id);
      this.contexts.set(p.id, ctx);
    }
    ctx.now = localTime(p.clock, this._now);
    return ctx;
  }

  /** Runs one call into a process, then applies a pause it asked for, or re-arms its timer. */
  private run(p: Proc, fn: (ctx: ProcessContext) => void): void {
    const ctx = this.contextFor(p);
    try {
      fn(ctx);
      this.settle(p);
    } catch (e) {
      this.broken(p, e);
    }
  }

  /** The two hot paths of run(), without a closure per event. */
  private runTimer(p: Proc): void {
    const ctx = this.contextFor(p);
    try {
      p.logic.onTimer(ctx);
      this.settle(p);
    } catch (e) {
      this.broken(p, e);
    }
  }

  private runMessage(p: Proc, env: Envelope): void {
    const ctx = this.contextFor(p);
    try {
      p.logic.onMessage(ctx, env.from, env.payload);
      this.settle(p);
    } catch (e) {
      this.broken(p, e);
    }
  }

  private settle(p: Proc): void {
    const sp = this.selfPause;
    if (sp !== null) {
      this.selfPause = null;
      if (sp.proc === p.id) {
        applyAction(this.host, { type: "pause", proc: p.id, durationUs: sp.durationUs });
        return;
      }
    }
    this.rearm(p);
  }

  /**
   * A process broke one of its own assertions: report it like any violation and stop,
   * since its state can no longer be trusted.
   */
  private broken(p: Proc, e: unknown): void {
    this.report({ invariant: "assertion", nodes: [p.id], detail: errorMessage(e) });
    this._halted = true;
  }

  /**
   * An action threw something other than ActionRefused: a bug in the simulator or a
   * process, not an action that cannot run. Reported like a broken process, and the run stops.
   */
  private actionBroke(a: Action, e: unknown): void {
    if (this._halted) return; // a process already broke inside the action (run() reported it)
    // Name the process the action was aimed at, when it names one that exists (else none).
    const aimed = "proc" in a ? a.proc : "holder" in a ? a.holder : "to" in a && a.type === "transfer" ? a.to : null;
    const nodes = aimed !== null && this.procs.has(aimed) ? [aimed] : [];
    this.report({ invariant: "assertion", nodes, detail: `while applying ${a.type}: ${errorMessage(e)}` });
    this._halted = true;
  }

  /** Keeps one live timer event per process, no later than its next deadline. */
  private rearm(p: Proc): void {
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
    this.push({ type: "timer", at, proc: p.id, gen: p.timerGen });
  }

  private send(from: ProcId, to: ProcId, payload: Payload): void {
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
      this.emit({ kind: "send", id: env.id, from, to, deliverAt: env.deliverAt, msg: payload, dup: env.dup });
      this.push({ type: "deliver", at: env.deliverAt, env });
    }
  }

  private drop(env: Envelope, reason: DropReason): void {
    this.emit({ kind: "drop", id: env.id, from: env.from, to: env.to, reason });
  }

  private deliver(env: Envelope): void {
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
    this.emit({ kind: "deliver", id: env.id, from: env.from, to: env.to });
    this.runMessage(p, env);
  }

  /**
   * End of a pause: everything that came due while the process was frozen now
   * happens at once, in the order it came due (messages by arrival, the timer by its deadline).
   */
  private wake(p: Proc): void {
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
      this.emit({ kind: "deliver", id: next.env.id, from: next.env.from, to: next.env.to });
      this.runMessage(p, next.env);
    }
    this.rearm(p);
  }
}

const KIND_WORDS: { readonly [K in ProcKind]: string } = { node: "Raft node", client: "client", holder: "lease holder", storage: "storage" };

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export type { NemesisConfig } from "./nemesis";
export { ActionRefused } from "./refusal";
