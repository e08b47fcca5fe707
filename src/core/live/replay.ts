/**
 * The deterministic replay of a live run: a Simulation of the same settings (so the same
 * processes, from the same seed), whose inputs come from the recording instead of its own
 * network and timers. Each process gets the inputs it handled live, in the same order, at the
 * same virtual times (so the same local times: its clock is the simulator's), and so ends in
 * the state it ended in live (`digests()`).
 *
 * A message a process sends is matched with the live one by its key (sender, incarnation,
 * count); when the recording delivers it, the replay's own copy is delivered. A message the
 * live process never sent, or one the recording delivers that the replay never sent, means
 * the replay diverged: it is reported as a violation and the run stops.
 *
 * The script can grow while it plays (a live run's shadow, which the dashboard draws): items
 * are only ever added after the time played so far. An action of the user's (Timeline.act)
 * ends the script: from there on the simulator's own network and timers run, a what-if from
 * the live run.
 */
import type { Envelope, TraceListener } from "../sim/kernel";
import type { SimConfig } from "../sim/config";
import type { ProcRecord } from "../sim/cluster";
import type { Action } from "../sim/actions";
import type { ActionFailure, SimSnapshot } from "../sim/kernelTypes";
import { Simulation } from "../sim/sim";
import { formatInstant, type VirtualUs } from "../sim/time";
import type { Payload, ProcId } from "../sim/trace";
import { DIVERGED } from "./diverged";
import { durableOf, incarnate, stateDigest, throughDisk } from "./durable";
import { processDigest } from "./process";
import { applyProcAction, type OneProcess } from "./procActions";
import { type LiveRecording, type ScriptItem, type SendKey, sendKey } from "./recording";

/** What the replay keeps besides the simulation's own state (in every snapshot). */
interface ReplayState {
  /** The next script item to queue. */
  cursor: number;
  /** Whether that item is in the queue now. */
  queued: boolean;
  /** Still following the recording (false once the user acted). */
  scripted: boolean;
  /** Each process's count of sends in its incarnation, and its incarnation. */
  sends: Record<ProcId, number>;
  incarnation: Record<ProcId, number>;
  /** Copies sent and not yet delivered or dropped, by key and copy. */
  pending: Map<string, Envelope>;
}

function cloneState(r: ReplayState): ReplayState {
  return { ...r, sends: { ...r.sends }, incarnation: { ...r.incarnation }, pending: new Map(r.pending) };
}

interface ReplaySnapshot extends SimSnapshot {
  readonly replay: ReplayState;
}

/** The script and the plans a replay is built with (set only while the Simulation constructor runs). */
let building: { script: ScriptItem[]; plans: Map<SendKey, readonly VirtualUs[]> } | null = null;

export class ReplaySimulation extends Simulation {
  declare private rs: ReplayState | undefined;
  declare private script: ScriptItem[];
  declare private plans: Map<SendKey, readonly VirtualUs[]>;

  /** A replay of `recording`; without one, an empty script to grow with append() (a live run's shadow). */
  constructor(config: SimConfig, recording?: Pick<LiveRecording, "script" | "plans">, onTrace?: TraceListener) {
    const script = recording?.script.slice() ?? [];
    for (let i = 1; i < script.length; i++) {
      if ((script[i] as ScriptItem).input.at < (script[i - 1] as ScriptItem).input.at)
        throw new Error("the recording's script is not in time order");
    }
    building = { script, plans: new Map(Object.entries(recording?.plans ?? {})) };
    try {
      super(config, undefined, onTrace);
    } finally {
      building = null;
    }
    this.queueNext();
  }

  /** Whether it still follows the recording. */
  get scripted(): boolean {
    return this.st().scripted;
  }

  /** Time of the last script item (0 for none). */
  get scriptEnd(): VirtualUs {
    return this.script[this.script.length - 1]?.input.at ?? 0;
  }

  /**
   * Adds items played live since (in time order, none before the last one) and the plans of
   * the messages they sent.
   */
  append(items: readonly ScriptItem[], plans: Iterable<readonly [SendKey, readonly VirtualUs[]]>): void {
    let last = this.scriptEnd;
    for (const item of items) {
      if (item.input.at < last) throw new Error("append: items must come in time order, after the script's end");
      last = item.input.at;
    }
    for (const [k, p] of plans) this.plans.set(k, p);
    // One at a time: a shadow started again appends the whole recording, too many for push(...items)'s arguments.
    for (const item of items) this.script.push(item);
    this.queueNext();
  }

  /**
   * Adds items recorded late (a thread's report that came after the shadow played past their
   * time): each where its time puts it, after the items already there at that time, none
   * before the time played so far (a timeline goes back to before them first).
   */
  insert(items: readonly ScriptItem[], plans: Iterable<readonly [SendKey, readonly VirtualUs[]]>): void {
    for (const [k, p] of plans) this.plans.set(k, p);
    const r = this.st();
    for (const item of items) {
      if (item.input.at < this._now) throw new Error("insert: an item before the time played so far");
      let i = this.script.length;
      while (i > r.cursor && (this.script[i - 1] as ScriptItem).input.at > item.input.at) i--;
      this.script.splice(i, 0, item);
    }
    // The next item may be another now: queue it again.
    this.queue.removeWhere((q) => q.type === "script");
    r.queued = false;
    this.queueNext();
  }

  /** Each process's state digest (a process that is down: its disk's, as a restarted worker would read it). */
  digests(): Record<ProcId, string> {
    const out: Record<ProcId, string> = {};
    for (const id of [...this.nodeIds, ...this.clientIds, ...this.holderIds, ...(this.storageId === null ? [] : [this.storageId])]) {
      const p = this.proc(id);
      out[id] = p.status === "down" ? stateDigest(throughDisk(durableOf(p.logic))) : processDigest(p.logic, p.clock);
    }
    return out;
  }

  override inFlight(): { readonly env: Envelope; readonly queued: boolean }[] {
    const own = super.inFlight();
    const r = this.st();
    if (r.pending.size === 0) return own;
    return [...own, ...[...r.pending.values()].map((env) => ({ env, queued: false }))];
  }

  override perform(action: Action): ActionFailure | null {
    if (this.st().scripted) this.leaveScript();
    return super.perform(action);
  }

  override snapshot(): ReplaySnapshot {
    return { ...super.snapshot(), replay: cloneState(this.st()) };
  }

  override restore(s: SimSnapshot): void {
    super.restore(s);
    this.rs = cloneState((s as ReplaySnapshot).replay);
    this.queueNext();
  }

  // ---- the kernel's hooks ----

  protected override scriptTick(): boolean {
    const r = this.st();
    const item = this.script[r.cursor];
    r.cursor++;
    r.queued = false;
    if (item !== undefined) this.play(item);
    this.queueNext();
    return item !== undefined;
  }

  protected override send(from: ProcId, to: ProcId, payload: Payload): void {
    const r = this.st();
    if (!r.scripted) {
      super.send(from, to, payload);
      return;
    }
    const k = r.sends[from] ?? 0;
    r.sends[from] = k + 1;
    const key = sendKey(from, r.incarnation[from] ?? 0, k);
    const plan = this.plans.get(key);
    if (plan === undefined) {
      this.diverged(from, `${from} sent a ${payload.type} to ${to} (${key}) that it did not send in the live run`);
      return;
    }
    plan.forEach((deliverAt, i) => {
      const env: Envelope = { id: ++this.msgId, from, to, sentAt: this._now, deliverAt, payload, fate: "ok", dup: i > 0 };
      this.emitSend(env);
      r.pending.set(`${key}#${i}`, env);
    });
  }

  protected override settle(p: ProcRecord): void {
    // A pause the process asks for is in the recording (its thread stopped): it comes as an item.
    if (this.st().scripted) this.selfPause = null;
    else super.settle(p);
  }

  protected override rearm(p: ProcRecord): void {
    // Timers come from the recording, each when it went off live.
    if (!this.st().scripted) super.rearm(p);
  }

  // ---- inside ----

  private st(): ReplayState {
    if (this.rs === undefined) {
      // First called from inside the Simulation constructor (its processes start and send).
      const b = building as NonNullable<typeof building>;
      this.script = b.script;
      this.plans = b.plans;
      this.rs = { cursor: 0, queued: false, scripted: true, sends: {}, incarnation: {}, pending: new Map() };
    }
    return this.rs;
  }

  private queueNext(): void {
    const r = this.st();
    const next = this.script[r.cursor];
    if (!r.scripted || r.queued || next === undefined || this._halted) return;
    r.queued = true;
    this.push({ type: "script", at: Math.max(next.input.at, this._now) });
  }

  private play(item: ScriptItem): void {
    this.playInput(item);
    if (item.proc === null || item.after === undefined || this._halted) return;
    // The run checked every call: the process must be in the state its worker was in after it.
    const p = this.proc(item.proc);
    const here = processDigest(p.logic, p.clock);
    if (here !== item.after)
      this.diverged(
        p.id,
        `${p.id}'s state after its ${item.input.kind} at ${formatInstant(item.input.at)} is not the one its worker had (digest ${here} here, ${item.after} live)`,
      );
  }

  private playInput(item: ScriptItem): void {
    const r = this.st();
    if (item.proc === null) {
      const input = item.input;
      if (input.kind === "net") {
        this.applyReported(input.action);
        return;
      }
      const env = r.pending.get(`${input.key}#${input.copy}`);
      if (env === undefined) return; // already dropped when its receiver crashed
      r.pending.delete(`${input.key}#${input.copy}`);
      this.drop(env, input.reason);
      return;
    }
    const p = this.proc(item.proc);
    const input = item.input;
    switch (input.kind) {
      case "message": {
        const id = `${input.key}#${input.copy}`;
        const env = r.pending.get(id);
        if (env === undefined || p.status !== "up") {
          this.diverged(
            p.id,
            `${p.id} handled ${input.key} (copy ${input.copy}) live, which the replay ${env === undefined ? "never sent" : `finds it ${p.status}`}`,
          );
          return;
        }
        r.pending.delete(id);
        this.emitDeliver(env);
        this.runMessage(p, env);
        return;
      }
      case "timer":
        if (p.status !== "up") this.diverged(p.id, `${p.id}'s timer went off live while the replay finds it ${p.status}`);
        else this.runTimer(p);
        return;
      case "act": {
        const why = applyProcAction(this.oneProcess(p), input.action);
        if (why !== null) this.emit({ kind: "note", text: `${input.action.type} skipped: ${why}` });
        return;
      }
      case "pause":
        p.status = "paused";
        p.pauseGen++;
        p.pausedUntil = input.untilAt;
        this.emit({ kind: "pause", proc: p.id, untilUs: input.untilAt });
        return;
      case "wake":
        p.status = "up";
        p.pausedUntil = null;
        this.emit({ kind: "resume", proc: p.id });
        return;
      case "crash":
        this.crashed(p);
        return;
      case "restart": {
        const n = (r.incarnation[p.id] ?? 0) + 1;
        r.incarnation[p.id] = n;
        r.sends[p.id] = 0;
        p.logic = incarnate(this.config, p.id, n, throughDisk(durableOf(p.logic)));
        p.status = "up";
        this.emit({ kind: "restart", proc: p.id });
        this.run(p, (ctx) => p.logic.start(ctx));
        return;
      }
    }
  }

  /** Its worker was terminated: what it had not handled is lost with it. */
  private crashed(p: ProcRecord): void {
    this.applyReported({ type: "crash", proc: p.id });
    const r = this.st();
    for (const [id, env] of r.pending) {
      if (env.to === p.id && env.deliverAt <= this._now) {
        r.pending.delete(id);
        this.drop(env, "down");
      }
    }
  }

  private oneProcess(p: ProcRecord): OneProcess {
    return {
      id: p.id,
      logic: p.logic,
      up: p.status === "up",
      now: this._now,
      get clock() {
        return p.clock;
      },
      set clock(c) {
        p.clock = c;
      },
      run: (fn) => this.run(p, fn),
      emit: (body) => this.emit(body),
    };
  }

  private diverged(proc: ProcId, detail: string): void {
    this.report({ invariant: "assertion", nodes: [proc], detail: `${DIVERGED}: ${detail}` });
    this._halted = true;
  }

  /** The user acted: from here on the simulator's network and timers decide (messages on their way still arrive). */
  private leaveScript(): void {
    const r = this.st();
    r.scripted = false;
    this.queue.removeWhere((q) => q.type === "script");
    r.queued = false;
    for (const env of r.pending.values()) this.push({ type: "deliver", at: Math.max(env.deliverAt, this._now), env });
    r.pending = new Map();
    this.emit({ kind: "note", text: "the recording ends here: from now on the simulator decides (a what-if from the live run)" });
    for (const p of this.procs.values()) if (p.status === "up") this.rearm(p);
    // A paused process stays paused until the simulator wakes it.
    for (const p of this.procs.values()) {
      if (p.status === "paused" && p.pausedUntil !== null)
        this.push({ type: "wake", at: Math.max(p.pausedUntil, this._now), proc: p.id, gen: p.pauseGen });
    }
  }
}
