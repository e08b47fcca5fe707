/**
 * A live run, from the page: one Web Worker per process and one for the router, wired with
 * MessageChannels. The page owns the workers' lives: a kill terminates the process's worker
 * (what it had not written to disk is gone), a restart starts a new worker that reads its disk.
 * It routes the user's actions (to the router, to a process's worker, or to the page itself
 * for kill, restart and pause), forwards the router's feed of the recording, and gathers the
 * threads' figures for the Live panel.
 */
import { decodeDurable, kindOf, stateDigest } from "../core/live/durable";
import { isNetAction, isProcAction, type LiveRecording, MAX_RECORDED_INPUTS, type ProcAction } from "../core/live/recording";
import type { Action } from "../core/sim/actions";
import { clusterIds } from "../core/sim/cluster";
import type { SimConfig } from "../core/sim/config";
import type { VirtualUs } from "../core/sim/time";
import type { ProcId } from "../core/sim/trace";
import { clearOldRuns, readDiskFile } from "./disk";
import {
  type DiskKind,
  epochMs,
  type FromProcess,
  type FromRouter,
  type RunClock,
  type ThreadStats,
  type ToProcess,
  type ToRouter,
  runTimeAt,
} from "./protocol";
import { resolveRefs, targetOf } from "./route";

/**
 * The run's time stands at zero until every worker has loaded and opened its disk (or this many
 * real ms have passed: a worker that never answers must not hold the others), so every process
 * starts at time zero, as in the simulator, and none is late to its first timer.
 */
const START_WAIT_MS = 5000;
/** The most real ms "Open in the simulator" waits for the router's recording. */
const FINISH_WAIT_MS = 10_000;

export type ThreadStatus = "starting" | "running" | "paused" | "terminated" | "broken";

export interface ThreadView {
  readonly id: ProcId;
  readonly kind: "node" | "client" | "holder" | "storage";
  readonly incarnation: number;
  readonly status: ThreadStatus;
  readonly calls: number;
  /** Messages the router holds for it. */
  readonly waiting: number;
  /** How late its timers went off lately (real ms, the worst in the last half second). */
  readonly timerLateMs: number | null;
  readonly detail: string | null;
}

export interface LiveState {
  readonly threads: readonly ThreadView[];
  /** Workers alive now, the router's included. */
  readonly workers: number;
  readonly isolated: boolean;
  readonly disk: DiskKind | null;
  /** Why the disks are not on the private file system, when they are not. */
  readonly diskNote: string | null;
  readonly now: VirtualUs;
  /** Messages the router holds, in all. */
  readonly waiting: number;
  /** The worst timer lateness over the last few seconds, real ms. */
  readonly lateMs: number;
  /** Inputs in the recording so far, and the most it holds (the run ends when it is full). */
  readonly inputs: number;
  readonly maxInputs: number;
  /** Every call is checked against the replay (each worker reports its state's digest after each call). */
  readonly verify: boolean;
}

export interface LiveListener {
  feed(f: Extract<FromRouter, { type: "feed" }>): void;
  /** The recording is full: the run must end. */
  full(inputs: number, now: VirtualUs): void;
  changed(): void;
  error(message: string): void;
}

interface Thread {
  readonly id: ProcId;
  readonly kind: ThreadView["kind"];
  readonly slot: number;
  worker: Worker | null;
  incarnation: number;
  status: ThreadStatus;
  calls: number;
  stats: ThreadStats | null;
  detail: string | null;
  /** The disk the page keeps for it when there is no file system. */
  memoryDisk: string | null;
}

/** A request awaiting its answer (ask()). */
interface Pending {
  /** The worker that owes the answer (null: the router). */
  readonly from: Worker | null;
  readonly answer: (m: FromRouter | FromProcess) => void;
  /** Its worker was terminated first: `ended` when the whole run ended, else the process was killed. */
  readonly gone: (ended: boolean) => void;
}

let requestIds = 0;

export class LiveCluster {
  readonly runDir = `run-${Math.floor(epochMs())}`;
  private readonly threads = new Map<ProcId, Thread>();
  private readonly router: Worker;
  private run: RunClock;
  private readonly cells: SharedArrayBuffer | null;
  private disk: DiskKind | null = null;
  private diskNote: string | null = null;
  private now: VirtualUs = 0;
  private waiting: Readonly<Record<ProcId, number>> = {};
  private inputs = 0;
  private late: { at: number; ms: number; virtualMs: number }[] = [];
  /** Requests awaiting an answer, by request id. */
  private readonly pending = new Map<number, Pending>();
  private recordingWanted: { resolve: (r: LiveRecording) => void; reject: (e: Error) => void } | null = null;
  private disposed = false;
  /** Processes whose restart waits for the router's answer. */
  private readonly restarting = new Set<ProcId>();
  private goTimer: ReturnType<typeof setTimeout> | null = null;
  private verify = false;

  constructor(
    readonly config: SimConfig,
    speed: number,
    private readonly listener: LiveListener,
  ) {
    // Time zero, held until go().
    this.run = { r0: Number.MAX_SAFE_INTEGER, v0: 0, speed };
    const ids = clusterIds(config);
    const all = [...ids.nodeIds, ...ids.clientIds, ...ids.holderIds, ...(ids.storageId === null ? [] : [ids.storageId])];
    this.cells = globalThis.crossOriginIsolated === true ? new SharedArrayBuffer(4 * all.length) : null;
    all.forEach((id, slot) => {
      this.threads.set(id, {
        id,
        kind: kindOf(config, id),
        slot,
        worker: null,
        incarnation: 0,
        status: "starting",
        calls: 0,
        stats: null,
        detail: null,
        memoryDisk: null,
      });
    });
    this.router = new Worker(new URL("./router.worker.ts", import.meta.url), { type: "module", name: "lease-lab-router" });
    this.router.onmessage = (e: MessageEvent<FromRouter>) => this.fromRouter(e.data);
    this.router.onerror = (e) => listener.error(`the router's worker failed: ${e.message || "it could not be loaded"}`);
    void clearOldRuns(this.runDir);
    const ports: { id: ProcId; port: MessagePort }[] = [];
    for (const t of this.threads.values()) ports.push({ id: t.id, port: this.spawn(t) });
    this.toRouter(
      { type: "init", config, run: this.run, ports },
      ports.map((p) => p.port),
    );
    this.goTimer = setTimeout(() => this.go(), START_WAIT_MS);
  }

  /** Time starts (every worker is ready). */
  private go(): void {
    if (this.goTimer === null) return;
    clearTimeout(this.goTimer);
    this.goTimer = null;
    this.setRun({ r0: epochMs(), v0: 0, speed: this.run.speed });
  }

  get isolated(): boolean {
    return this.cells !== null;
  }

  state(): LiveState {
    const cutoff = epochMs() - 3000;
    this.late = this.late.filter((l) => l.at >= cutoff);
    const threads = [...this.threads.values()].map(
      (t): ThreadView => ({
        id: t.id,
        kind: t.kind,
        incarnation: t.incarnation,
        status: t.status,
        calls: t.calls,
        waiting: this.waiting[t.id] ?? 0,
        timerLateMs: t.stats?.timerLateMs ?? null,
        detail: t.detail,
      }),
    );
    return {
      threads,
      workers: threads.filter((t) => this.threads.get(t.id)?.worker !== null).length + (this.disposed ? 0 : 1),
      isolated: this.isolated,
      disk: this.disk,
      diskNote: this.diskNote,
      now: this.now,
      waiting: Object.values(this.waiting).reduce((a, b) => a + b, 0),
      lateMs: Math.max(0, ...this.late.map((l) => l.ms)),
      inputs: this.inputs,
      maxInputs: MAX_RECORDED_INPUTS,
      verify: this.verify,
    };
  }

  /** Does a user's action to the live run: returns why it could not, or null. */
  async act(action: Action, resolve: (ref: string) => ProcId | null): Promise<string | null> {
    const a = resolveRefs(action, resolve);
    if (typeof a === "string") return a;
    switch (a.type) {
      case "crash":
        return this.kill(a.proc);
      case "restart":
        return this.restart(a.proc);
      case "pause":
        return this.pause(a.proc, a.durationUs);
      case "resume":
        return this.resume(a.proc);
      case "drop-message":
        return "in a live run a message cannot be taken off the wire by hand: cut the link, or make the network lose messages";
    }
    if (isNetAction(a))
      return this.ask<string | null>(
        null,
        (requestId) => this.toRouter({ type: "act", action: a, requestId }),
        (m) => (m.type === "acted" ? m.refused : undefined),
        () => "the live run ended first",
      );
    if (isProcAction(a)) return this.procAct(a, resolve);
    return `${(a as Action).type} cannot be done in a live run`;
  }

  /** Changes the run's speed from now on (every thread's clock re-bases at once). */
  setSpeed(speed: number): void {
    if (this.goTimer !== null) {
      this.run = { ...this.run, speed };
      return;
    }
    const r = epochMs();
    this.setRun({ r0: r, v0: runTimeAt(this.run, r), speed });
  }

  /** Checks every call from now on (or stops): each worker then reports its state's digest after each call, which the replay compares. */
  setVerify(on: boolean): void {
    this.verify = on;
    for (const t of this.threads.values()) t.worker?.postMessage({ type: "verify", on } satisfies ToProcess);
    this.listener.changed();
  }

  private setRun(run: RunClock): void {
    this.run = run;
    this.toRouter({ type: "speed", run });
    for (const t of this.threads.values()) t.worker?.postMessage({ type: "speed", run } satisfies ToProcess);
  }

  /**
   * Ends the run: every paused thread is woken, every live one reports its digest, and the
   * router hands over the recording; a terminated process's digest is its disk's.
   */
  async finish(): Promise<LiveRecording> {
    for (const t of this.threads.values()) if (t.status === "paused") this.resume(t.id);
    const alive = [...this.threads.values()].filter((t) => t.worker !== null && t.status !== "broken").map((t) => t.id);
    const got = new Promise<LiveRecording>((resolve, reject) => {
      this.recordingWanted = { resolve, reject };
    });
    // The router gives up on a silent process after 3 s; a router that itself never answers must not hold the page.
    const giveUp = setTimeout(() => this.recordingWanted?.reject(new Error(`the router did not hand over the recording in ${FINISH_WAIT_MS / 1000} s`)), FINISH_WAIT_MS);
    void got.finally(() => clearTimeout(giveUp)).catch(() => {});
    this.toRouter({ type: "finish", alive });
    for (const id of alive) this.threads.get(id)?.worker?.postMessage({ type: "finish" } satisfies ToProcess);
    const rec = await got;
    const digests: Record<ProcId, string> = { ...rec.digests };
    for (const t of this.threads.values()) {
      if (digests[t.id] !== undefined) continue;
      const text = this.disk === "memory" ? t.memoryDisk : await readDiskFile(this.runDir, t.id);
      digests[t.id] = text === null ? "no disk" : stateDigest(decodeDurable(text));
    }
    return { ...rec, digests };
  }

  /** Terminates every worker. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.goTimer !== null) clearTimeout(this.goTimer);
    for (const t of this.threads.values()) {
      t.worker?.terminate();
      t.worker = null;
    }
    this.router.terminate();
    this.abandon();
    this.recordingWanted?.reject(new Error("the live run ended first"));
    this.recordingWanted = null;
  }

  // ---- the processes' lives ----

  /** Starts a worker for the thread's current incarnation; returns the router's end of its port. */
  private spawn(t: Thread, clock = { baseT: 0, baseLocal: 0, driftPpm: 0 }): MessagePort {
    const channel = new MessageChannel();
    const w = new Worker(new URL("./process.worker.ts", import.meta.url), { type: "module", name: `lease-lab-${t.id}` });
    t.worker = w;
    t.status = "starting";
    const incarnation = t.incarnation;
    w.onmessage = (e: MessageEvent<FromProcess>) => {
      if (t.worker === w) this.fromProcess(t, e.data);
    };
    w.onerror = (e) => {
      if (t.worker !== w) return;
      t.status = "broken";
      t.detail = `its worker failed: ${e.message || "it could not be loaded"}`;
      this.listener.changed();
    };
    const init: ToProcess = {
      type: "init",
      config: this.config,
      id: t.id,
      incarnation,
      clock,
      run: this.run,
      router: channel.port2,
      runDir: this.runDir,
      memoryDisk: t.memoryDisk,
      pauseCells: this.cells,
      slot: t.slot,
      verify: this.verify,
    };
    w.postMessage(init, [channel.port2]);
    return channel.port1;
  }

  private kill(id: ProcId): string | null {
    const t = this.threads.get(id);
    if (t === undefined || t.worker === null) return null;
    t.worker.terminate();
    this.abandon(t.worker);
    t.worker = null;
    t.status = "terminated";
    this.toRouter({ type: "crashed", id });
    this.listener.changed();
    return null;
  }

  private async restart(id: ProcId): Promise<string | null> {
    const t = this.threads.get(id);
    // A second restart while the router answers the first would start a second worker.
    if (t === undefined || t.worker !== null || this.restarting.has(id)) return null;
    this.restarting.add(id);
    let m: Extract<FromRouter, { type: "restarted" }> | null;
    try {
      m = await this.ask<Extract<FromRouter, { type: "restarted" }> | null>(
        null,
        (requestId) => this.toRouter({ type: "restart", id, requestId }),
        (x) => (x.type === "restarted" ? x : undefined),
        () => null,
      );
    } finally {
      this.restarting.delete(id);
    }
    if (m === null || this.disposed) return "the live run ended first";
    t.incarnation = m.incarnation;
    const port = this.spawn(t, m.clock);
    this.toRouter({ type: "port", id, port }, [port]);
    this.listener.changed();
    return null;
  }

  private pause(id: ProcId, durationUs: number): string | null {
    const t = this.threads.get(id);
    if (t?.worker == null) return `${id} is not running`;
    if (!Number.isSafeInteger(durationUs) || durationUs <= 0) return `pause: duration must be positive, got ${durationUs}µs`;
    t.worker.postMessage({ type: "pause", durationUs } satisfies ToProcess);
    return null;
  }

  private resume(id: ProcId): string | null {
    const t = this.threads.get(id);
    if (t?.worker == null) return `${id} is not running`;
    if (this.cells !== null) {
      const cells = new Int32Array(this.cells);
      Atomics.store(cells, t.slot, 1);
      Atomics.notify(cells, t.slot);
    } else t.worker.postMessage({ type: "resume" } satisfies ToProcess);
    return null;
  }

  private async procAct(a: ProcAction, resolve: (ref: string) => ProcId | null): Promise<string | null> {
    const target = targetOf(a, this.config, resolve);
    if (target.why !== null) return target.why;
    const t = this.threads.get(target.id);
    const w = t?.worker;
    if (w == null) return `${target.id} is not running`;
    return this.ask<string | null>(
      w,
      (requestId) => w.postMessage({ type: "act", action: a, requestId } satisfies ToProcess),
      (m) => (m.type === "acted" ? m.refused : undefined),
      (ended) => (ended ? "the live run ended first" : `${target.id} was killed before it handled it`),
    );
  }

  // ---- messages ----

  private fromProcess(t: Thread, m: FromProcess): void {
    switch (m.type) {
      case "ready":
        t.status = "running";
        this.disk = m.disk;
        this.diskNote = m.diskNote;
        if ([...this.threads.values()].every((x) => x.status !== "starting")) this.go();
        break;
      case "persist":
        t.memoryDisk = m.text;
        return;
      case "acted":
        this.settle(m.requestId, m);
        return;
      case "stats": {
        t.stats = m.stats;
        t.calls += m.stats.calls;
        if (t.status === "running" || t.status === "paused") t.status = m.stats.paused ? "paused" : "running";
        if (m.stats.timerLateMs !== null)
          this.late.push({ at: epochMs(), ms: m.stats.timerLateMs, virtualMs: m.stats.timerLateVirtualMs ?? 0 });
        break;
      }
      case "broken":
        t.status = "broken";
        t.detail = m.detail;
        this.listener.error(`${t.id} broke one of its own rules and stopped: ${m.detail}`);
        break;
    }
    this.listener.changed();
  }

  private fromRouter(m: FromRouter): void {
    switch (m.type) {
      case "feed":
        this.now = m.now;
        this.waiting = m.waiting;
        this.inputs = m.inputs;
        this.listener.feed(m);
        this.listener.changed();
        return;
      case "full":
        this.listener.full(m.inputs, m.now);
        return;
      case "recording":
        this.recordingWanted?.resolve(m.recording);
        this.recordingWanted = null;
        return;
      case "error":
        this.listener.error(m.message);
        return;
      default:
        this.settle(m.requestId, m);
    }
  }

  /**
   * Sends a request and waits for its answer from `from` (a process's worker, or null for the
   * router). If that worker is terminated first, the answer is `ifGone(ended)`: `ended` when the
   * whole run ended, else the process was killed.
   */
  private ask<T>(
    from: Worker | null,
    send: (requestId: number) => void,
    pick: (m: FromRouter | FromProcess) => T | undefined,
    ifGone: (ended: boolean) => T,
  ): Promise<T> {
    const requestId = ++requestIds;
    return new Promise<T>((resolve) => {
      this.pending.set(requestId, {
        from,
        answer: (m) => {
          const v = pick(m);
          if (v !== undefined) resolve(v);
        },
        gone: (ended) => resolve(ifGone(ended)),
      });
      send(requestId);
    });
  }

  private settle(requestId: number, m: FromRouter | FromProcess): void {
    const f = this.pending.get(requestId);
    this.pending.delete(requestId);
    f?.answer(m);
  }

  /** The requests a killed worker owed (every one when the run ended: `w` undefined) get their `ifGone` answer. */
  private abandon(w?: Worker): void {
    for (const [id, p] of this.pending) {
      if (w !== undefined && p.from !== w) continue;
      this.pending.delete(id);
      p.gone(w === undefined);
    }
  }

  private toRouter(m: ToRouter, transfer: Transferable[] = []): void {
    this.router.postMessage(m, transfer);
  }
}
