/**
 * One process's thread in a live run: the core's LiveProcess with a real clock, real timers, a
 * real disk and a real pause. Kept apart from the worker's entry (process.worker.ts) so its
 * order of obligations reads in one place: handle an input at the time read on the clock,
 * write the disk, then report the call and its messages to the router, then pause or re-arm.
 */
import { encodeDurable } from "../core/live/durable";
import type { LiveMessage, LiveProcess, LiveStep } from "../core/live/process";
import type { ProcAction } from "../core/live/recording";
import type { VirtualUs } from "../core/sim/time";
import type { ProcessDisk } from "./disk";
import { epochMs, type FromProcess, type ProcessToRouter, type RunClock, realDelayMs, runTimeAt, type ThreadStats, timerDelayMs } from "./protocol";

export interface ShellEnv {
  toPage(msg: FromProcess): void;
  toRouter(msg: ProcessToRouter): void;
  /** The shared cell the pause waits on (a real Atomics.wait), or null to gate the inputs instead. */
  readonly cells: Int32Array | null;
  readonly slot: number;
}

export class ProcessShell {
  private last: VirtualUs = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private timerAt: VirtualUs | null = null;
  /** Paused without shared memory: inputs wait here until it wakes. */
  private gated = false;
  private backlog: (() => void)[] = [];
  private wakeTimer: ReturnType<typeof setTimeout> | null = null;
  private finished = false;
  private calls = 0;
  private lateMs: number | null = null;
  private lateVirtualMs: number | null = null;
  /** Check every call: each report carries the state's digest after it (a walk of the whole state: slower). */
  verify = false;

  constructor(
    private readonly proc: LiveProcess,
    private run: RunClock,
    private readonly disk: ProcessDisk,
    private readonly env: ShellEnv,
  ) {}

  /** The run's time now, never earlier than a time already read. */
  now(): VirtualUs {
    this.last = Math.max(this.last, runTimeAt(this.run, epochMs()));
    return this.last;
  }

  boot(): void {
    this.after(this.proc.boot(this.proc.incarnation === 0 ? 0 : this.now()));
  }

  deliver(msg: LiveMessage): void {
    if (this.finished) return;
    if (this.gated) {
      this.backlog.push(() => this.deliver(msg));
      return;
    }
    this.after(this.proc.message(this.now(), msg));
  }

  act(action: ProcAction): string | null {
    if (this.finished) return "the run has ended";
    if (this.gated) return `${this.proc.id} is paused`;
    const step = this.proc.act(this.now(), action);
    this.after(step);
    return step.refused;
  }

  pause(durationUs: number): void {
    if (!this.finished && !this.gated) this.freeze(durationUs);
  }

  /** Ends a gated pause early (with shared memory the page wakes the thread itself). */
  resume(): void {
    if (this.gated) this.woke();
  }

  setRun(run: RunClock): void {
    this.run = run;
    if (!this.gated) this.arm();
  }

  finish(): void {
    this.finished = true;
    this.clearTimer();
    if (this.wakeTimer !== null) clearTimeout(this.wakeTimer);
    this.env.toRouter({ type: "final", id: this.proc.id, incarnation: this.proc.incarnation, digest: this.proc.digest(), at: this.proc.at });
    this.disk.close();
  }

  /** What it did since the last call (then starts counting again: the page adds them up). */
  stats(): ThreadStats {
    const s: ThreadStats = {
      calls: this.calls,
      paused: this.gated,
      timerLateMs: this.lateMs,
      timerLateVirtualMs: this.lateVirtualMs,
    };
    this.calls = 0;
    this.lateMs = null;
    this.lateVirtualMs = null;
    return s;
  }

  private onTimer(): void {
    this.timer = null;
    if (this.finished || this.gated) return;
    const t = this.now();
    const due = this.timerAt;
    const step = this.proc.timer(t);
    if (step === null) {
      this.arm();
      return;
    }
    if (due !== null) {
      const lateVirtualMs = Math.max(0, t - due) / 1000;
      this.lateVirtualMs = Math.max(this.lateVirtualMs ?? 0, lateVirtualMs);
      this.lateMs = Math.max(this.lateMs ?? 0, lateVirtualMs / this.run.speed);
    }
    this.after(step);
  }

  /** After a call: its disk first, then its report, then its pause or its timer. */
  private after(step: LiveStep): void {
    this.calls++;
    if (step.persist !== null) this.disk.write(encodeDurable(step.persist));
    this.report(step);
    if (this.proc.broken !== null) {
      this.env.toPage({ type: "broken", detail: this.proc.broken });
      this.finished = true;
      this.clearTimer();
      return;
    }
    if (step.pauseUs !== null) this.freeze(step.pauseUs);
    else this.arm();
  }

  private report(step: LiveStep | null): void {
    const inputs = this.proc.takeInputs();
    const sends = step?.sends ?? [];
    if (inputs.length === 0 && sends.length === 0) return;
    const after = this.verify && inputs.length > 0 ? this.proc.digest() : undefined;
    this.env.toRouter({ type: "report", id: this.proc.id, incarnation: this.proc.incarnation, inputs, sends, ...(after === undefined ? {} : { after }) });
  }

  /**
   * The thread stops. With shared memory it really does (Atomics.wait: its messages queue in
   * its port and its timers come due meanwhile, and all run when it wakes, as after a GC
   * pause); without, its inputs wait in a backlog.
   */
  private freeze(durationUs: number): void {
    const t = this.now();
    this.proc.pause(t, t + durationUs);
    this.report(null);
    this.clearTimer();
    const realMs = realDelayMs(this.run, 0, durationUs);
    const cells = this.env.cells;
    if (cells !== null) {
      this.env.toPage({ type: "stats", stats: { ...this.stats(), paused: true } });
      Atomics.store(cells, this.env.slot, 0);
      Atomics.wait(cells, this.env.slot, 0, realMs);
      this.woke();
      return;
    }
    this.gated = true;
    this.env.toPage({ type: "stats", stats: this.stats() });
    this.wakeTimer = setTimeout(() => this.woke(), realMs);
  }

  private woke(): void {
    if (this.wakeTimer !== null) clearTimeout(this.wakeTimer);
    this.wakeTimer = null;
    this.gated = false;
    this.proc.wake(this.now());
    this.report(null);
    this.env.toPage({ type: "stats", stats: this.stats() });
    const backlog = this.backlog;
    this.backlog = [];
    for (const run of backlog) run();
    if (!this.gated) this.arm();
  }

  private arm(): void {
    this.clearTimer();
    if (this.finished) return;
    const now = this.now();
    const at = this.proc.nextTimerAt(now);
    if (at === null) return;
    this.timerAt = at;
    this.timer = setTimeout(() => this.onTimer(), timerDelayMs(this.run, now, at));
  }

  private clearTimer(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = null;
  }
}
