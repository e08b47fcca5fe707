/**
 * The router of a live run: every message between processes passes through it. It applies the
 * simulator's network model (sim/network.ts, on the same seeded stream): each message's copies,
 * latency and loss are drawn when it is sent, in the simulator's order, so the same draws give
 * the same fates; a partition, a cut or a dead receiver stops it when it is due. It holds each
 * copy until its time, then hands it to the receiver's worker.
 *
 * It is also the recorder: each worker reports its inputs to it with the messages they made
 * (one report per call), and the page tells it of terminations. Pure: its shell (src/live/)
 * brings the clock, the timer and the ports.
 */
import { type ActionHost, applyAction } from "../sim/actions";
import { type ClockState, newClock } from "../sim/clock";
import { clusterIds } from "../sim/cluster";
import type { SimConfig } from "../sim/config";
import { EventHeap } from "../sim/heap";
import { Network } from "../sim/network";
import { ActionRefused, errorMessage } from "../sim/refusal";
import { Rng } from "../sim/rng";
import type { VirtualUs } from "../sim/time";
import type { DropReason, ProcId } from "../sim/trace";
import type { LiveMessage, LiveSend } from "./process";
import { clockAfter } from "./procActions";
import { type LiveInput, type LiveRecording, MAX_RECORDED_INPUTS, type NetAction, RECORDING_VERSION, type ScriptItem, type SendKey, sortScript } from "./recording";

interface Held {
  readonly at: VirtualUs;
  seq: number;
  readonly msg: LiveMessage;
  readonly fate: "ok" | "loss" | "partition" | "cut";
}

/** What the router knows of a process's thread. */
interface Thread {
  up: boolean;
  paused: boolean;
  incarnation: number;
  /** Messages handed to it while it was paused (its inbox, which has a limit). */
  inbox: number;
  /** Its machine's clock, as its clock actions left it: a restarted worker reads the same clock. */
  clock: ClockState;
  /** The time of the latest input it reported (read on its own thread's clock, which may run ahead of the router's). */
  lastAt: VirtualUs;
}

export class LiveRouter {
  readonly ids: readonly ProcId[];
  private readonly net: Network;
  private readonly held = new EventHeap<Held>();
  private seq = 0;
  private readonly threads = new Map<ProcId, Thread>();
  private readonly script: ScriptItem[] = [];
  /** Items recorded since the last takeScript(), in the order they came. */
  private fresh: ScriptItem[] = [];
  /** Set when an item already taken moved (the shadow must start over). */
  private rewritten = false;
  private readonly plans: Record<SendKey, VirtualUs[]> = {};
  private newPlans: [SendKey, VirtualUs[]][] = [];
  private readonly host: ActionHost;
  private last: VirtualUs = 0;

  constructor(
    readonly config: SimConfig,
    private readonly maxInputs = MAX_RECORDED_INPUTS,
  ) {
    const ids = clusterIds(config);
    this.ids = [...ids.nodeIds, ...ids.clientIds, ...ids.holderIds, ...(ids.storageId === null ? [] : [ids.storageId])];
    for (const id of this.ids) this.threads.set(id, { up: true, paused: false, incarnation: 0, inbox: 0, clock: newClock(), lastAt: 0 });
    const root = Rng.fromSeed(config.seed);
    this.net = Network.fromSettings(config.network, root.fork("net"));
    this.host = this.actionHost(ids.nodeIds, ids.clientIds, ids.holderIds, root.fork("refs"));
  }

  /** The recording is full (MAX_RECORDED_INPUTS): the run must end. */
  get full(): boolean {
    return this.inputs >= this.maxInputs;
  }

  /** Inputs recorded so far. */
  get inputs(): number {
    return this.script.length;
  }

  /** Messages waiting, by receiver. */
  waitingFor(): Map<ProcId, number> {
    const out = new Map<ProcId, number>();
    for (const h of this.held.all()) out.set(h.msg.to, (out.get(h.msg.to) ?? 0) + 1);
    return out;
  }

  /**
   * A worker's report of one call: the inputs it handled and the messages they made (and, when
   * the run checks every call, its state's digest after the last of them). Each copy of each
   * message gets its fate now, in the simulator's order of draws.
   */
  report(now: VirtualUs, from: ProcId, incarnation: number, inputs: readonly LiveInput[], sends: readonly LiveSend[], after?: string): void {
    const t = this.thread(from);
    // A report from a worker replaced since (only if a restart came between its last call and
    // its report reaching here): its inputs cannot be placed, and the replay will say it diverged.
    if (incarnation !== t.incarnation) return;
    inputs.forEach((input, i) => {
      // The worker refused a bad clock action and left its clock as it was: so does this.
      const a = input.kind === "act" ? input.action : null;
      if (a?.type === "clock") t.clock = keepOnError(() => clockAfter(t.clock, input.at, a), t.clock);
      if (input.kind === "pause" || input.kind === "wake") this.setPaused(from, input.kind === "pause");
      const item: ScriptItem = after !== undefined && i === inputs.length - 1 ? { proc: from, input, after } : { proc: from, input };
      if (t.up) this.record(item);
      else this.recordLate(item);
      t.lastAt = Math.max(t.lastAt, input.at);
    });
    for (const s of sends) this.route(now, s);
  }

  /** One message, as kernel.send would send it: copies, then each copy's latency, block and loss. */
  route(now: VirtualUs, s: LiveSend): void {
    if (!this.threads.has(s.to)) throw new Error(`${s.from} sent to unknown process ${s.to}`);
    const copies = this.net.copies();
    const plan: VirtualUs[] = [];
    for (let i = 0; i < copies; i++) {
      const latency = this.net.latency(s.from, s.to, s.payload.type);
      const blocked = this.net.isBlocked(s.from, s.to);
      const lost = this.net.lost();
      const at = Math.max(s.sentAt + latency, s.sentAt + 1);
      plan.push(at);
      this.held.push({ at, seq: this.seq++, msg: { ...s, copy: i }, fate: blocked ?? (lost ? "loss" : "ok") });
    }
    this.plans[s.key] = plan;
    this.newPlans.push([s.key, plan]);
    this.last = Math.max(this.last, now);
  }

  /** When the next held copy is due, or null. */
  nextDueAt(): VirtualUs | null {
    return this.held.peek()?.at ?? null;
  }

  /**
   * The copies due by `now`: those to hand to their receivers' workers. The others are dropped
   * (and recorded) as kernel.deliver would drop them: their fate, a block now, a dead receiver,
   * a full inbox.
   */
  due(now: VirtualUs): LiveMessage[] {
    this.last = Math.max(this.last, now);
    const out: LiveMessage[] = [];
    for (;;) {
      const top = this.held.peek();
      if (top === undefined || top.at > now) break;
      this.held.pop();
      const m = top.msg;
      const t = this.thread(m.to);
      const reason: DropReason | null =
        top.fate !== "ok"
          ? top.fate
          : (this.net.isBlocked(m.from, m.to) ?? (!t.up ? "down" : t.paused && t.inbox >= this.config.inboxLimit ? "inbox-full" : null));
      if (reason !== null) {
        this.record({ proc: null, input: { at: Math.max(now, top.at), kind: "drop", to: m.to, key: m.key, copy: m.copy, reason } });
        continue;
      }
      if (t.paused) t.inbox++;
      out.push(m);
    }
    return out;
  }

  /** A network action, now (ids resolved by the page; roles too). Returns why it could not run, or null. */
  act(now: VirtualUs, action: NetAction): string | null {
    this.last = Math.max(this.last, now);
    try {
      applyAction(this.host, action);
    } catch (e) {
      if (e instanceof ActionRefused) return e.message;
      return errorMessage(e);
    }
    this.record({ proc: null, input: { at: now, kind: "net", action } });
    return null;
  }

  /**
   * The page terminated a process's worker: recorded after every input that worker reported.
   * Each thread reads its own clock, and the threads' clocks differ a little (a worker's may run
   * a fraction of a millisecond ahead of the router's): a kill that comes just after a report
   * may find the router's now earlier than the input it reported, so the crash goes no earlier
   * than that input (else the replay would find the process down when it handled it).
   */
  crashed(now: VirtualUs, id: ProcId): void {
    const t = this.thread(id);
    if (!t.up) return;
    t.up = false;
    t.paused = false;
    t.inbox = 0;
    this.record({ proc: id, input: { at: Math.max(now, t.lastAt), kind: "crash" } });
  }

  /** A new worker for a process: its next incarnation, and its machine's clock (it records its own restart). */
  restarted(id: ProcId): { readonly incarnation: number; readonly clock: ClockState } {
    const t = this.thread(id);
    t.up = true;
    t.incarnation++;
    return { incarnation: t.incarnation, clock: t.clock };
  }

  /** A thread stopped or runs again (its pause and wake inputs say so). */
  private setPaused(id: ProcId, paused: boolean): void {
    const t = this.thread(id);
    t.paused = paused;
    if (!paused) t.inbox = 0;
  }

  /**
   * The script items recorded since the last call, in time order (some may be earlier than
   * items taken before: reports from different threads cross on the way), or, when an item
   * already taken moved, the whole script again (`rewritten`: start over).
   */
  takeScript(): { readonly items: ScriptItem[]; readonly rewritten: boolean } {
    const rewritten = this.rewritten;
    this.rewritten = false;
    const items = rewritten ? this.script.slice() : sortScript(this.fresh);
    this.fresh = [];
    return { items, rewritten };
  }

  /** The planned arrivals of a message's copies. */
  planOf(key: SendKey): readonly VirtualUs[] | undefined {
    return this.plans[key];
  }

  /** The plans made since the last call. */
  takePlans(): [SendKey, VirtualUs[]][] {
    const out = this.newPlans;
    this.newPlans = [];
    return out;
  }

  recording(endAt: VirtualUs, speed: number, digests: Readonly<Record<ProcId, string>>): LiveRecording {
    return {
      version: RECORDING_VERSION,
      config: this.config,
      speed,
      script: this.script.slice(),
      plans: { ...this.plans },
      endAt,
      digests,
    };
  }

  /** Adds an item where its time puts it (equal times keep the order they came in). */
  private record(item: ScriptItem): void {
    const s = this.script;
    let i = s.length;
    while (i > 0 && (s[i - 1] as ScriptItem).input.at > item.input.at) i--;
    s.splice(i, 0, item);
    this.fresh.push(item);
  }

  /**
   * An input of a worker the page already terminated, whose report was on its way: it did
   * happen, before the worker died, so the crash moves after it.
   */
  private recordLate(item: ScriptItem & { proc: ProcId }): void {
    const { proc, input } = item;
    let c = this.script.length - 1;
    while (c >= 0 && !((this.script[c] as ScriptItem).proc === proc && (this.script[c] as ScriptItem).input.kind === "crash")) c--;
    const crash = this.script[c];
    if (crash === undefined || crash.input.at > input.at) {
      this.record(item);
      return;
    }
    this.script.splice(c, 1);
    // The crash may have been handed over already: everything is handed over again.
    this.rewritten = true;
    this.record(item);
    this.record({ proc, input: { at: input.at, kind: "crash" } });
  }

  private thread(id: ProcId): Thread {
    const t = this.threads.get(id);
    if (t === undefined) throw new Error(`no process named "${id}"`);
    return t;
  }

  /** What the network actions may touch: the network, and the processes' names. */
  private actionHost(nodeIds: readonly ProcId[], clientIds: readonly ProcId[], holderIds: readonly ProcId[], refRng: Rng): ActionHost {
    const router = this;
    const refuse = (): never => {
      throw new ActionRefused("the router only changes the network");
    };
    return {
      get now() {
        return router.last;
      },
      nodeIds,
      clientIds,
      holderIds,
      net: this.net,
      refRng,
      names: {},
      has: (id) => this.threads.has(id),
      proc: refuse,
      procs: () => [],
      leader: () => null,
      storage: () => null,
      emit: () => {},
      run: refuse,
      wake: refuse,
      rearm: refuse,
      wakeAt: refuse,
      drop: refuse,
      unsend: () => [],
    };
  }
}

function keepOnError<T>(f: () => T, fallback: T): T {
  try {
    return f();
  } catch {
    return fallback;
  }
}
