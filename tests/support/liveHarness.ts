/**
 * A live run without a browser: the core's LiveProcess and LiveRouter driven the way the
 * workers drive them, with the threads' timing made up by a seeded stream: a message waits in
 * a worker's port for a while before it is handled, a timer goes off late, a paused thread
 * handles everything that came due when it wakes, a terminated worker loses what it had not
 * handled, and every message crosses to its receiver as a copy (structured clone), as it
 * does between workers. With `skewUs`, each thread reads a clock of its own, up to that far
 * ahead of or behind the router's, as workers' clocks differ. The recording it makes must
 * replay exactly (tests/core/live.test.ts).
 */
import { decodeDurable, encodeDurable, stateDigest } from "../../src/core/live/durable";
import { type LiveMessage, LiveProcess, type LiveSend, type LiveStep } from "../../src/core/live/process";
import type { LiveRecording, NetAction, ProcAction } from "../../src/core/live/recording";
import { LiveRouter } from "../../src/core/live/router";
import type { ClockState } from "../../src/core/sim/clock";
import type { SimConfig } from "../../src/core/sim/config";
import { Rng } from "../../src/core/sim/rng";
import type { ProcId } from "../../src/core/sim/trace";

type Task =
  | { at: number; seq: number; kind: "port"; to: ProcId; inc: number; msg: LiveMessage }
  | { at: number; seq: number; kind: "timer"; to: ProcId; inc: number; gen: number }
  | { at: number; seq: number; kind: "wake"; to: ProcId; inc: number }
  | { at: number; seq: number; kind: "router" };

interface Worker {
  proc: LiveProcess;
  pausedUntil: number | null;
  /** Tasks that came due while it was paused, in the order they came. */
  backlog: Task[];
  timerGen: number;
  /** Its thread's clock runs this far ahead of the router's (negative: behind), as threads' clocks differ. */
  readonly skewUs: number;
  /** The latest time it read (a thread's clock never goes back). */
  last: number;
}

export class LiveHarness {
  readonly router: LiveRouter;
  readonly workers = new Map<ProcId, Worker>();
  readonly disks = new Map<ProcId, string>();
  now = 0;
  /** Check every call: each report carries the process's state digest after it (as the Live panel's "Check every call"). */
  verify = false;
  private tasks: Task[] = [];
  private seq = 0;
  private routerAt: number | null = null;
  private readonly rng: Rng;
  /** Most a message waits in a worker's port, and a timer fires late (µs). */
  constructor(
    readonly config: SimConfig,
    jitterSeed: number,
    readonly jitterUs = 3_000,
    /** Most a thread's clock differs from the router's (µs), either way. */
    readonly skewUs = 0,
  ) {
    this.rng = Rng.fromSeed(jitterSeed);
    this.router = new LiveRouter(config);
    for (const id of this.router.ids) this.spawn(id, 0);
  }

  /** Runs every thread up to `t`. */
  runTo(t: number): void {
    for (;;) {
      this.tasks.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.tasks[0];
      if (next === undefined || next.at > t) break;
      this.tasks.shift();
      this.now = Math.max(this.now, next.at);
      this.handle(next);
    }
    this.now = t;
  }

  crash(id: ProcId): void {
    if (!this.workers.has(id)) return;
    this.workers.delete(id);
    this.tasks = this.tasks.filter((x) => x.kind === "router" || x.to !== id);
    this.router.crashed(this.now, id);
  }

  restart(id: ProcId): void {
    if (this.workers.has(id)) return;
    const { incarnation, clock } = this.router.restarted(id);
    const disk = this.disks.get(id);
    this.spawn(id, incarnation, disk === undefined ? null : decodeDurable(disk), clock);
  }

  /** A pause of the thread, as Atomics.wait does it. */
  pause(id: ProcId, durationUs: number): void {
    const w = this.workers.get(id);
    if (w === undefined || w.pausedUntil !== null) return;
    this.freeze(w, durationUs);
  }

  act(id: ProcId, action: ProcAction): string | null {
    const w = this.workers.get(id);
    if (w === undefined) return "down";
    if (w.pausedUntil !== null) return "paused";
    const step = w.proc.act(this.clock(w), action);
    this.after(w, step);
    return step.refused;
  }

  net(action: NetAction): string | null {
    const why = this.router.act(this.now, action);
    this.armRouter();
    return why;
  }

  /** The digests the workers would report at the end (a dead one: its disk's). */
  digests(): Record<ProcId, string> {
    const out: Record<ProcId, string> = {};
    for (const id of this.router.ids) {
      const w = this.workers.get(id);
      if (w !== undefined) out[id] = w.proc.digest();
      else out[id] = stateDigest(decodeDurable(this.disks.get(id) as string));
    }
    return out;
  }

  recording(): LiveRecording {
    const rec = this.router.recording(this.now, 1, this.digests());
    // As the router's shell does: a thread whose clock runs ahead may have handled an input after the router's now.
    return { ...rec, endAt: Math.max(rec.endAt, rec.script[rec.script.length - 1]?.input.at ?? 0) };
  }

  private spawn(id: ProcId, inc: number, durable: ReturnType<typeof decodeDurable> | null = null, clock?: ClockState): void {
    const proc = new LiveProcess(this.config, id, inc, durable, clock);
    const skewUs = this.skewUs === 0 ? 0 : this.rng.int(-this.skewUs, this.skewUs);
    const w: Worker = { proc, pausedUntil: null, backlog: [], timerGen: 0, skewUs, last: 0 };
    this.workers.set(id, w);
    this.after(w, proc.boot(inc === 0 ? 0 : this.clock(w)));
  }

  /** The time its thread reads on its clock now. */
  private clock(w: Worker): number {
    w.last = Math.max(w.last, this.now + w.skewUs, 0);
    return w.last;
  }

  private push(t: Task extends infer U ? (U extends unknown ? Omit<U, "seq"> : never) : never): void {
    this.tasks.push({ ...t, seq: this.seq++ } as Task);
  }

  private lag(): number {
    return this.rng.int(0, this.jitterUs);
  }

  private handle(task: Task): void {
    if (task.kind === "router") {
      this.routerAt = null;
      for (const m of this.router.due(this.now)) {
        const w = this.workers.get(m.to);
        // A worker gets its own copy of every message, as postMessage gives it (structured clone).
        if (w !== undefined) this.push({ at: this.now + this.lag(), kind: "port", to: m.to, inc: w.proc.incarnation, msg: structuredClone(m) });
      }
      this.armRouter();
      return;
    }
    const w = this.workers.get(task.to);
    if (w === undefined || w.proc.incarnation !== task.inc) return;
    if (task.kind === "wake") {
      w.pausedUntil = null;
      w.proc.wake(this.clock(w));
      this.report(w, []);
      const backlog = w.backlog;
      w.backlog = [];
      for (const b of backlog) {
        if (w.pausedUntil !== null) w.backlog.push(b);
        else this.run(w, b);
      }
      if (w.pausedUntil === null) this.armTimer(w);
      return;
    }
    if (w.pausedUntil !== null) {
      w.backlog.push(task);
      return;
    }
    this.run(w, task);
  }

  private run(w: Worker, task: Task): void {
    if (task.kind === "port") this.after(w, w.proc.message(this.clock(w), task.msg));
    else if (task.kind === "timer" && task.gen === w.timerGen) {
      const step = w.proc.timer(this.clock(w));
      if (step !== null) this.after(w, step);
      else this.armTimer(w);
    }
  }

  /** After a call: the disk first, then the report (inputs and sends) to the router, then a pause or the timer. */
  private after(w: Worker, step: LiveStep): void {
    if (step.persist !== null) this.disks.set(w.proc.id, encodeDurable(step.persist));
    this.report(w, structuredClone(step.sends));
    this.armRouter();
    if (step.pauseUs !== null) this.freeze(w, step.pauseUs);
    else this.armTimer(w);
  }

  /** Its inputs since the last report and the messages they made (and its state's digest after them, when every call is checked). */
  private report(w: Worker, sends: LiveSend[]): void {
    const inputs = w.proc.takeInputs();
    this.router.report(this.now, w.proc.id, w.proc.incarnation, inputs, sends, this.verify && inputs.length > 0 ? w.proc.digest() : undefined);
  }

  private freeze(w: Worker, durationUs: number): void {
    const t = this.clock(w);
    w.pausedUntil = t + durationUs;
    w.proc.pause(t, w.pausedUntil);
    this.report(w, []);
    w.timerGen++;
    this.push({ at: w.pausedUntil - w.skewUs, kind: "wake", to: w.proc.id, inc: w.proc.incarnation });
  }

  private armTimer(w: Worker): void {
    w.timerGen++;
    const at = w.proc.nextTimerAt(this.clock(w));
    if (at !== null) this.push({ at: at - w.skewUs + this.lag(), kind: "timer", to: w.proc.id, inc: w.proc.incarnation, gen: w.timerGen });
  }

  private armRouter(): void {
    const at = this.router.nextDueAt();
    if (at === null || (this.routerAt !== null && this.routerAt <= at)) return;
    this.routerAt = at;
    this.push({ at: Math.max(at, this.now), kind: "router" });
  }
}
