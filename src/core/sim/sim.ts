/**
 * The discrete-event simulator. Virtual time is integer microseconds; the queue is
 * ordered by (time, sequence); the only randomness is the seeded PRNG, forked per
 * node and per purpose. The same seed and the same actions give the same trace,
 * however time is advanced.
 */
import { LeaseHolder } from "../holder/holder";
import { type ClientOp, KvClient } from "../kv/client";
import { FencedStorage } from "../storage/storage";
import type { CoreStateMachine } from "../kv/statemachine";
import { type Disk, RaftServer } from "../raft/server";
import type { NodeId, RaftConfig } from "../raft/types";
import { type BoundBroken, type CheckerHost, Checkers, type HolderTiming, type Violation } from "./checkers";
import { type ClockState, localTime, newClock, virtualAt, withDrift, withJump } from "./clock";
import { clientIds, configProblems, MAX_SLOW_LINK_US, holderIds, holderSettings, leaseServerSettings, nodeIds, STORAGE_ID, type SimConfig } from "./config";
import { EventHeap } from "./heap";
import { describeMix, type NemesisConfig, NemesisState, nemesisStep } from "./nemesis";
import type { ProcessContext, ProcessLogic } from "./process";
import { ActionRefused } from "./refusal";
import { Rng, type RngState } from "./rng";
import { formatMicros, ms } from "./time";
import { type DropReason, type Payload, type ProcEvent, type ProcId, type SimEvent, TraceHasher, type TraceEvent } from "./trace";

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

/**
 * A process reference: an id ("n3", "c1"), or a role resolved when the action
 * runs: "leader" (the up node leading the highest term), "follower" (the first
 * up node that is not leader), "any-node" / "any-client" (random, seeded). In a
 * partition, "others" stands for every node not named in another group.
 */
export type ProcRef = string;

/**
 * `as` on an action aimed at one process names the process the reference resolved to (e.g.
 * crash "leader" as "old"): later actions and references reach it by that name ("restart old").
 */
/** The role words a reference may use; a name given with `as` may not be one. */
const ROLE_REFS: readonly string[] = ["leader", "follower", "any-node", "any-client", "any-holder", "others"];

export type Action =
  | { readonly type: "crash"; readonly proc: ProcRef; readonly as?: string }
  | { readonly type: "restart"; readonly proc: ProcRef; readonly as?: string }
  | { readonly type: "pause"; readonly proc: ProcRef; readonly durationUs: number }
  | { readonly type: "resume"; readonly proc: ProcRef; readonly as?: string }
  | { readonly type: "partition"; readonly groups: readonly (readonly ProcRef[])[] }
  | { readonly type: "heal" }
  | { readonly type: "cut"; readonly from: ProcRef; readonly to: ProcRef }
  /** Cuts one process off from every other (both ways), or joins it back; heal joins every one back. */
  | { readonly type: "disconnect"; readonly proc: ProcRef; readonly as?: string }
  | { readonly type: "connect"; readonly proc: ProcRef; readonly as?: string }
  /** Messages from `from` to `to` take `delayUs` longer, one way (0: back to normal); heal clears it. */
  | { readonly type: "slow-link"; readonly from: ProcRef; readonly to: ProcRef; readonly delayUs: number }
  | { readonly type: "clock"; readonly proc: ProcRef; readonly driftPpm?: number; readonly jumpUs?: number }
  | {
      readonly type: "network";
      readonly dropRate?: number;
      readonly duplicateRate?: number;
      readonly latencyMinUs?: number;
      readonly latencyMaxUs?: number;
    }
  | { readonly type: "submit"; readonly client: ProcRef; readonly op: ClientOp }
  | { readonly type: "timeout"; readonly proc: ProcRef; readonly as?: string }
  /** The leader hands leadership to `to` (dissertation 3.10: catch it up, then TimeoutNow). */
  | { readonly type: "transfer"; readonly to: ProcRef }
  /** The leader adds a server to the configuration, or removes one (dissertation 4, one at a time). */
  | { readonly type: "add-node"; readonly proc: ProcRef; readonly as?: string }
  | { readonly type: "remove-node"; readonly proc: ProcRef; readonly as?: string }
  | { readonly type: "drop-message"; readonly id: number }
  | { readonly type: "note"; readonly text: string }
  /** The holder gives its lease back (revoke through the log). */
  | { readonly type: "release"; readonly holder: ProcRef }
  /** A GC pause at the worst moment: right after the holder's next validity check, before its write. */
  | { readonly type: "gc-pause"; readonly holder: ProcRef; readonly durationUs: number }
  /** Switches the storage's fencing-token check on or off. */
  | { readonly type: "fencing"; readonly on: boolean };

type MutableContext = { now: number } & ProcessContext;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

type QItem =
  | { readonly at: number; readonly seq: number; readonly type: "deliver"; readonly env: Envelope }
  | { readonly at: number; readonly seq: number; readonly type: "timer"; readonly proc: ProcId; readonly gen: number }
  | { readonly at: number; readonly seq: number; readonly type: "wake"; readonly proc: ProcId; readonly gen: number }
  | { readonly at: number; readonly seq: number; readonly type: "action"; readonly action: Action }
  | { readonly at: number; readonly seq: number; readonly type: "nemesis" };

export type ProcStatus = "up" | "down" | "paused";

interface Proc {
  readonly id: ProcId;
  logic: ProcessLogic;
  status: ProcStatus;
  clock: ClockState;
  timerGen: number;
  timerAt: number | null;
  pauseGen: number;
  pausedUntil: number | null;
  /** Messages that arrived while paused, with their arrival time. */
  inbox: { env: Envelope; at: number }[];
}

interface NetState {
  latencyMinUs: number;
  latencyMaxUs: number;
  dropRate: number;
  duplicateRate: number;
  /** Partition group of each process named in a partition; unnamed ones reach everyone. */
  groupOf: Record<ProcId, number>;
  /** One-way cuts "from>to". */
  cuts: string[];
  /** One-way slow links: extra latency (µs) from one process to another (usually none: the send path checks the length first). */
  slow: { readonly from: ProcId; readonly to: ProcId; readonly delayUs: number }[];
  /** Processes cut off from every other, both ways (disconnect), whatever the partition says. */
  isolated: string[];
}

export interface SimSnapshot {
  readonly now: number;
  readonly seq: number;
  readonly msgId: number;
  readonly eventCount: number;
  readonly handled: number;
  readonly queue: readonly QItem[];
  readonly procs: readonly Proc[];
  readonly net: NetState;
  readonly netRng: RngState;
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
  private procs = new Map<ProcId, Proc>();
  private net: NetState;
  private netRng: Rng;
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

  /** `onTrace` listens from the very first event (the constructor already emits some). */
  constructor(config: SimConfig, nemesis?: NemesisConfig, onTrace?: TraceListener) {
    const problems = configProblems(config);
    if (problems.length > 0) throw new Error(`invalid simulation settings: ${problems.join("; ")}`);
    if (onTrace !== undefined) this.listeners.push(onTrace);
    this.config = config;
    const root = Rng.fromSeed(config.seed);
    this.netRng = root.fork("net");
    this.refRng = root.fork("refs");
    // Every server process: the first configuration's, then the spares.
    this.nodeIds = nodeIds(config.nodes + config.spares);
    this.clientIds = clientIds(config.clients.count);
    this.holderIds = holderIds(config.holders.count);
    this.storageId = config.holders.count > 0 ? STORAGE_ID : null;
    const n = config.network;
    this.net = {
      latencyMinUs: ms(n.latencyMinMs),
      latencyMaxUs: ms(n.latencyMaxMs),
      dropRate: n.dropRate,
      duplicateRate: n.duplicateRate,
      groupOf: {},
      cuts: [],
      slow: [],
      isolated: [],
    };
    // A run with loss or a nemesis is not fault-free from the start (see renewed-lease-kept).
    const faultFree = config.network.dropRate === 0 && nemesis === undefined;
    this.checkers = config.checkers ? new Checkers(this, undefined, faultFree) : null;
    const r = config.raft;
    const lease = leaseServerSettings(config);
    const firstConfig = nodeIds(config.nodes);
    for (const id of this.nodeIds) {
      const cfg: RaftConfig = {
        id,
        voters: firstConfig,
        electionTimeoutMinUs: ms(r.electionTimeoutMinMs),
        electionTimeoutMaxUs: ms(r.electionTimeoutMaxMs),
        heartbeatIntervalUs: ms(r.heartbeatIntervalMs),
        preVote: r.preVote,
        checkQuorum: r.checkQuorum,
        maxEntriesPerAppend: r.maxEntriesPerAppend,
      };
      const compaction = { everyEntries: r.snapshotEveryEntries, keepEntries: r.snapshotKeepEntries };
      this.addProc(id, new RaftServer({ raft: cfg, lease, compaction }, root.fork(`node:${id}`)));
    }
    const c = config.clients;
    for (const id of this.clientIds) {
      const client = new KvClient(
        {
          id,
          servers: this.nodeIds,
          requestTimeoutUs: ms(c.requestTimeoutMs),
          retryBackoffUs: ms(c.retryBackoffMs),
          maxAttempts: c.maxAttempts,
          workload: c.workload,
          keys: c.keys,
          readFraction: c.readFraction,
          thinkTimeMinUs: ms(c.thinkTimeMinMs),
          thinkTimeMaxUs: ms(c.thinkTimeMaxMs),
        },
        root.fork(`client:${id}`),
      );
      this.addProc(id, client);
    }
    this.holderIds.forEach((id, i) => {
      this.addProc(id, new LeaseHolder(holderSettings(config, i), root.fork(`holder:${id}`)));
    });
    if (this.storageId !== null) this.addProc(this.storageId, new FencedStorage(this.storageId, { fencing: config.storage.fencing }));
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
  server(id: NodeId): RaftServer {
    const l = this.proc(id).logic;
    if (!(l instanceof RaftServer)) throw new Error(`${id} is not a Raft node`);
    return l;
  }
  client(id: ProcId): KvClient {
    const l = this.proc(id).logic;
    if (!(l instanceof KvClient)) throw new Error(`${id} is not a client`);
    return l;
  }
  holder(id: ProcId): LeaseHolder {
    const l = this.proc(id).logic;
    if (!(l instanceof LeaseHolder)) throw new Error(`${id} is not a lease holder`);
    return l;
  }
  storage(): FencedStorage | null {
    if (this.storageId === null) return null;
    return this.proc(this.storageId).logic as FencedStorage;
  }
  diskOf(id: ProcId): Disk | undefined {
    const l = this.procs.get(id)?.logic;
    return l instanceof RaftServer ? l.disk : undefined;
  }
  stateOf(id: ProcId): CoreStateMachine | null {
    const l = this.procs.get(id)?.logic;
    return l instanceof RaftServer ? l.stateMachine : null;
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
    const l = this.procs.get(id)?.logic;
    return l instanceof LeaseHolder ? l.timing : null;
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
  /** The network's current shape: partition groups, one-way cuts, rates and latency. */
  network(): {
    readonly groups: ProcId[][];
    readonly cuts: { from: ProcId; to: ProcId }[];
    readonly slow: { from: ProcId; to: ProcId; delayUs: number }[];
    readonly isolated: ProcId[];
    readonly dropRate: number;
    readonly duplicateRate: number;
    readonly latencyMinUs: number;
    readonly latencyMaxUs: number;
  } {
    const n = this.net;
    const groups: ProcId[][] = [];
    for (const id of Object.keys(n.groupOf)) {
      const g = n.groupOf[id] as number;
      while (groups.length <= g) groups.push([]);
      (groups[g] as ProcId[]).push(id);
    }
    return {
      groups: groups.filter((g) => g.length > 0),
      cuts: n.cuts.map((k) => {
        const i = k.indexOf(">");
        return { from: k.slice(0, i), to: k.slice(i + 1) };
      }),
      slow: n.slow.slice(),
      isolated: n.isolated.slice(),
      dropRate: n.dropRate,
      duplicateRate: n.duplicateRate,
      latencyMinUs: n.latencyMinUs,
      latencyMaxUs: n.latencyMaxUs,
    };
  }
  /** The extra latency of a slow link from `from` to `to` (µs; 0 when none). */
  private slowDelay(from: ProcId, to: ProcId): number {
    if (this.net.slow.length === 0) return 0;
    return this.net.slow.find((l) => l.from === from && l.to === to)?.delayUs ?? 0;
  }

  isBlocked(from: ProcId, to: ProcId): "cut" | "partition" | null {
    if (this.net.cuts.length > 0 && this.net.cuts.includes(`${from}>${to}`)) return "cut";
    if (this.net.isolated.length > 0 && from !== to && (this.net.isolated.includes(from) || this.net.isolated.includes(to))) return "partition";
    const a = this.net.groupOf[from];
    const b = this.net.groupOf[to];
    return a !== undefined && b !== undefined && a !== b ? "partition" : null;
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
    this.apply(action);
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

  private applyReported(action: Action): ActionFailure | null {
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

  /** Queues an action for a later time. */
  schedule(at: number, action: Action): void {
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
      net: cloneNet(this.net),
      netRng: this.netRng.snapshot(),
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
    this.net = cloneNet(s.net);
    this.netRng = Rng.restore(s.netRng);
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

  private addProc(id: ProcId, logic: ProcessLogic): void {
    this.procs.set(id, {
      id,
      logic,
      status: "up",
      clock: newClock(),
      timerGen: 0,
      timerAt: null,
      pauseGen: 0,
      pausedUntil: null,
      inbox: [],
    });
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
      case "nemesis": {
        const n = this.nemesisState;
        if (n === null) return false;
        const actions = nemesisStep(n, this);
        for (const a of actions) {
          try {
            this.apply(a);
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
    }
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
    const copies = this.netRng.chance(this.net.duplicateRate) ? 2 : 1;
    for (let i = 0; i < copies; i++) {
      const latency = this.netRng.int(this.net.latencyMinUs, this.net.latencyMaxUs) + this.slowDelay(from, to);
      const blocked = this.isBlocked(from, to);
      const lost = this.netRng.chance(this.net.dropRate);
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
        : (this.isBlocked(env.from, env.to) ??
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

  /** Resolves "leader", "follower", "any-node", "any-client" or an id. */
  /**
   * An action with `as`: resolve its process once, remember it under that name, and act on
   * the process itself (so a random reference is drawn once).
   */
  private bindName(a: Action): Action {
    if (!("as" in a) || a.as === undefined) return a;
    const name = a.as;
    if (this.procs.has(name) || ROLE_REFS.includes(name)) throw new ActionRefused(`as "${name}": that is already the name of a process or a role`);
    const id = this.resolve(a.proc);
    this.names = { ...this.names, [name]: id };
    return { ...a, proc: id };
  }

  resolve(ref: ProcRef): ProcId {
    if (this.procs.has(ref)) return ref;
    const named = this.names[ref];
    if (named !== undefined) return named;
    const upNodes = this.nodeIds.filter((id) => this.proc(id).status !== "down");
    switch (ref) {
      case "leader": {
        const l = this.leader();
        if (l === null) throw new ActionRefused(`"leader": no node is leader at ${this._now}µs`);
        return l;
      }
      case "follower": {
        const l = this.leader();
        const f = upNodes.find((id) => id !== l);
        if (f === undefined) throw new ActionRefused(`"follower": no node other than the leader is up at ${this._now}µs`);
        return f;
      }
      case "any-node":
        return this.refRng.pick(this.nodeIds);
      case "any-client":
        if (this.clientIds.length === 0) throw new ActionRefused(`"any-client": this run has no clients`);
        return this.refRng.pick(this.clientIds);
      case "any-holder":
        if (this.holderIds.length === 0) throw new ActionRefused(`"any-holder": this run has no lease holders`);
        return this.refRng.pick(this.holderIds);
      default:
        throw new ActionRefused(`no process named "${ref}" (nodes are ${this.nodeIds.join(", ")}; also "leader", "follower", "any-node")`);
    }
  }

  private apply(action: Action): void {
    const a = this.bindName(action);
    switch (a.type) {
      case "crash": {
        const p = this.proc(this.resolve(a.proc));
        if (p.status === "down") return;
        p.status = "down";
        p.logic.crash();
        for (const m of p.inbox) this.drop(m.env, "down");
        p.inbox = [];
        p.timerGen++;
        p.timerAt = null;
        p.pauseGen++;
        p.pausedUntil = null;
        this.emit({ kind: "crash", proc: p.id });
        return;
      }
      case "restart": {
        const p = this.proc(this.resolve(a.proc));
        if (p.status !== "down") return;
        p.status = "up";
        this.emit({ kind: "restart", proc: p.id });
        this.run(p, (ctx) => p.logic.start(ctx));
        return;
      }
      case "pause": {
        const p = this.proc(this.resolve(a.proc));
        if (p.status !== "up") return;
        if (!Number.isSafeInteger(a.durationUs) || a.durationUs <= 0)
          throw new ActionRefused(`pause: duration must be positive, got ${a.durationUs}µs`);
        p.status = "paused";
        p.pauseGen++;
        p.pausedUntil = this._now + a.durationUs;
        p.timerGen++;
        p.timerAt = null;
        this.emit({ kind: "pause", proc: p.id, untilUs: p.pausedUntil });
        this.push({ type: "wake", at: p.pausedUntil, proc: p.id, gen: p.pauseGen });
        return;
      }
      case "resume": {
        const p = this.proc(this.resolve(a.proc));
        if (p.status !== "paused") return;
        p.pauseGen++;
        this.wake(p);
        return;
      }
      case "partition": {
        const groupOf: Record<ProcId, number> = {};
        const named = a.groups.map((g) => g.filter((r) => r !== "others").map((r) => this.resolve(r)));
        const listed = new Set(named.flat());
        // "others": every node not named in another group.
        const groups = a.groups.map((g, i) =>
          g.includes("others") ? [...(named[i] ?? []), ...this.nodeIds.filter((id) => !listed.has(id))] : (named[i] ?? []),
        );
        groups.forEach((g, i) => {
          for (const id of g) {
            if (groupOf[id] !== undefined) throw new ActionRefused(`partition: ${id} is in two groups`);
            groupOf[id] = i;
          }
        });
        this.net.groupOf = groupOf;
        this.emit({ kind: "partition", groups });
        return;
      }
      case "heal":
        this.net.groupOf = {};
        this.net.cuts = [];
        this.net.slow = [];
        this.net.isolated = [];
        this.emit({ kind: "heal" });
        return;
      case "cut": {
        const from = this.resolve(a.from);
        const to = this.resolve(a.to);
        const key = `${from}>${to}`;
        if (!this.net.cuts.includes(key)) this.net.cuts.push(key);
        this.emit({ kind: "cut", from, to });
        return;
      }
      case "disconnect":
      case "connect": {
        const id = this.resolve(a.proc);
        const i = this.net.isolated.indexOf(id);
        if (a.type === "disconnect" && i < 0) this.net.isolated = [...this.net.isolated, id];
        if (a.type === "connect" && i >= 0) this.net.isolated = this.net.isolated.filter((x) => x !== id);
        this.emit({ kind: a.type, proc: id });
        return;
      }
      case "slow-link": {
        const from = this.resolve(a.from);
        const to = this.resolve(a.to);
        if (!Number.isSafeInteger(a.delayUs) || a.delayUs < 0 || a.delayUs > MAX_SLOW_LINK_US) {
          throw new ActionRefused(`slow-link: the extra delay must be from 0 to ${MAX_SLOW_LINK_US / 1_000_000} s`);
        }
        const others = this.net.slow.filter((l) => l.from !== from || l.to !== to);
        this.net.slow = a.delayUs === 0 ? others : [...others, { from, to, delayUs: a.delayUs }];
        this.emit({ kind: "slow-link", from, to, delayUs: a.delayUs });
        return;
      }
      case "clock": {
        const p = this.proc(this.resolve(a.proc));
        let c = p.clock;
        try {
          if (a.driftPpm !== undefined) c = withDrift(c, this._now, a.driftPpm);
          if (a.jumpUs !== undefined) c = withJump(c, this._now, a.jumpUs);
        } catch (e) {
          // withDrift / withJump only check their inputs (pure functions): a bad setting.
          throw new ActionRefused(`clock: ${errorMessage(e)}`);
        }
        p.clock = c;
        this.emit({ kind: "clock", proc: p.id, driftPpm: c.driftPpm, jumpUs: a.jumpUs ?? 0 });
        if (p.status === "up") {
          p.timerAt = null;
          this.rearm(p);
        }
        return;
      }
      case "network": {
        const n = { ...this.net };
        if (a.dropRate !== undefined) n.dropRate = a.dropRate;
        if (a.duplicateRate !== undefined) n.duplicateRate = a.duplicateRate;
        if (a.latencyMinUs !== undefined) n.latencyMinUs = a.latencyMinUs;
        if (a.latencyMaxUs !== undefined) n.latencyMaxUs = a.latencyMaxUs;
        if (!(n.dropRate >= 0 && n.dropRate <= 1 && n.duplicateRate >= 0 && n.duplicateRate <= 1)) {
          throw new ActionRefused("network: rates must be between 0 and 1");
        }
        if (!(Number.isSafeInteger(n.latencyMinUs) && n.latencyMinUs >= 0 && n.latencyMaxUs >= n.latencyMinUs)) {
          throw new ActionRefused("network: latency must be a non-negative range");
        }
        this.net = n;
        this.emit({
          kind: "network",
          dropRate: n.dropRate,
          duplicateRate: n.duplicateRate,
          latencyMinUs: n.latencyMinUs,
          latencyMaxUs: n.latencyMaxUs,
        });
        return;
      }
      case "submit": {
        const p = this.proc(this.resolve(a.client));
        const logic = p.logic;
        if (!(logic instanceof KvClient)) throw new ActionRefused(`submit: ${p.id} is not a client`);
        if (p.status !== "up") return;
        this.run(p, (ctx) => logic.submit(ctx, a.op));
        return;
      }
      case "timeout": {
        const p = this.proc(this.resolve(a.proc));
        const logic = p.logic;
        if (!(logic instanceof RaftServer)) throw new ActionRefused(`timeout: ${p.id} is not a Raft node`);
        if (p.status !== "up") return;
        this.emit({ kind: "timeout", proc: p.id });
        this.run(p, (ctx) => logic.forceTimeout(ctx));
        return;
      }
      case "add-node":
      case "remove-node": {
        const leader = this.leader();
        if (leader === null) throw new ActionRefused("there is no leader to change the configuration");
        const id = this.resolve(a.proc);
        if (!this.nodeIds.includes(id)) throw new ActionRefused(`${id} is not a server`);
        const p = this.proc(leader);
        const logic = p.logic as RaftServer;
        if (p.status !== "up") throw new ActionRefused(`the leader ${leader} is paused`);
        let why: string | null = null;
        this.run(p, (ctx) => {
          why = logic.changeConfig(ctx, a.type === "add-node" ? { add: id } : { remove: id });
        });
        if (why !== null) throw new ActionRefused(why);
        return;
      }
      case "transfer": {
        const leader = this.leader();
        if (leader === null) throw new ActionRefused("there is no leader to hand leadership over");
        const to = this.resolve(a.to);
        const p = this.proc(leader);
        const logic = p.logic as RaftServer;
        if (p.status !== "up") throw new ActionRefused(`the leader ${leader} is paused`);
        let why: string | null = null;
        this.run(p, (ctx) => {
          why = logic.transferLeadership(ctx, to);
        });
        if (why !== null) throw new ActionRefused(why);
        return;
      }
      case "drop-message": {
        const removed = this.queue.removeWhere((q) => q.type === "deliver" && q.env.id === a.id);
        for (const q of removed) if (q.type === "deliver") this.drop(q.env, "user");
        for (const p of this.procs.values()) {
          const i = p.inbox.findIndex((m) => m.env.id === a.id);
          if (i >= 0) {
            const [m] = p.inbox.splice(i, 1);
            if (m) this.drop(m.env, "user");
          }
        }
        return;
      }
      case "note":
        this.emit({ kind: "note", text: a.text });
        return;
      case "release": {
        const p = this.proc(this.resolve(a.holder));
        const logic = p.logic;
        if (!(logic instanceof LeaseHolder)) throw new ActionRefused(`release: ${p.id} is not a lease holder`);
        if (p.status !== "up") return;
        this.run(p, (ctx) => logic.release(ctx));
        return;
      }
      case "gc-pause": {
        const p = this.proc(this.resolve(a.holder));
        const logic = p.logic;
        if (!(logic instanceof LeaseHolder)) throw new ActionRefused(`gc-pause: ${p.id} is not a lease holder`);
        if (!Number.isSafeInteger(a.durationUs) || a.durationUs <= 0)
          throw new ActionRefused(`gc-pause: duration must be a positive integer µs, got ${a.durationUs}µs`);
        logic.armGcPause(a.durationUs);
        this.emit({ kind: "note", text: `${p.id} will pause for ${formatMicros(a.durationUs)} right after its next lease check` });
        return;
      }
      case "fencing": {
        const s = this.storage();
        if (s === null) throw new ActionRefused("fencing: there is no storage (no holders in this run)");
        s.setFencing(a.on);
        this.emit({ kind: "note", text: `storage fencing ${a.on ? "on" : "off"}` });
        return;
      }
      default: {
        // A new kind of action must be applied here: the compiler names this line.
        const unhandled: never = a;
        throw new Error(`apply: unhandled action ${(unhandled as Action).type}`);
      }
    }
  }
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function cloneProc(p: Proc): Proc {
  return { ...p, logic: p.logic.clone(), inbox: p.inbox.slice() };
}

/** The copy a snapshot keeps (restore() clones it again). */
function freezeProc(p: Proc): Proc {
  return { ...p, logic: p.logic.freeze?.() ?? p.logic.clone(), inbox: p.inbox.slice() };
}

function cloneNet(n: NetState): NetState {
  return { ...n, groupOf: { ...n.groupOf }, cuts: n.cuts.slice(), slow: n.slow.slice(), isolated: n.isolated.slice() };
}

export type { NemesisConfig } from "./nemesis";
export { ActionRefused } from "./refusal";
