/**
 * The simulation host: owns one Simulation and advances its virtual time with a
 * real-time loop at a speed factor. The outside world (posting, real time, timers)
 * comes in as HostEnv so the host runs the same in a worker and in a Node test.
 * The core never sees a timer: it only gets advanceTo(), step() and act().
 */
import { configProblems } from "../core/sim/config";
import { Simulation } from "../core/sim/sim";
import { stepLine } from "./describe";
import { inspect } from "./inspect";
import { Journal } from "./journal";
import { DEFAULT_SPEED, type FromWorker, type RunSettings, type ToWorker } from "./protocol";
import { clampSpeed, configFor } from "./settings";
import { viewOf } from "./view";

export interface HostEnv {
  post(msg: FromWorker): void;
  /** Real monotonic time in milliseconds (performance.now()). */
  nowMs(): number;
  setTimer(fn: () => void, delayMs: number): unknown;
  clearTimer(handle: unknown): void;
}

/** Real milliseconds between loop ticks (about 25 views per second while playing). */
export const TICK_MS = 40;
/** At most this much real time is credited to one tick (a throttled background tab does not jump ahead). */
export const MAX_TICK_REAL_MS = 250;

export class SimHost {
  private sim: Simulation | null = null;
  private journal = new Journal();
  private settings: RunSettings | null = null;
  private runId = 0;
  private playing = false;
  /** The page is hidden: keep "playing" as the user's wish, but run nothing. */
  private hidden = false;
  private speed = DEFAULT_SPEED;
  private timer: unknown = null;
  private lastRealMs = 0;
  /** Fraction of a microsecond carried between ticks, so slow speeds still move. */
  private carryUs = 0;
  private lastStep: readonly string[] = [];
  /** Something changed since the last view was posted. */
  private dirty = false;

  constructor(private readonly env: HostEnv) {}

  handle(msg: ToWorker): void {
    // Inspecting and hiding change nothing the view shows; everything else does (and ends "what the last Step did").
    const changes = msg.type !== "inspect" && msg.type !== "hidden";
    if (changes) this.lastStep = [];
    try {
      this.dispatch(msg);
    } catch (e) {
      this.env.post({ type: "error", message: e instanceof Error ? e.message : String(e) });
    }
    if (changes) this.dirty = true;
    this.publish();
  }

  private dispatch(msg: ToWorker): void {
    switch (msg.type) {
      case "start": {
        const config = configFor(msg.settings);
        const problems = configProblems(config);
        if (problems.length > 0) throw new Error(`cannot start: ${problems.join("; ")}`);
        const sim = new Simulation(config);
        this.stop();
        this.sim = sim;
        this.journal = new Journal();
        sim.onTrace(this.journal.listener);
        this.settings = msg.settings;
        this.runId++;
        this.speed = clampSpeed(msg.settings.speed);
        if (msg.settings.autoplay) this.play();
        return;
      }
      case "play":
        this.play();
        return;
      case "pause":
        this.stop();
        return;
      case "step": {
        this.stop();
        const events = this.requireSim().step();
        this.lastStep = events.map(stepLine);
        if (events.length === 0) this.lastStep = ["nothing left to do: the event queue is empty"];
        return;
      }
      case "setSpeed":
        this.speed = clampSpeed(msg.speed);
        return;
      case "act":
        this.requireSim().act(msg.action);
        return;
      case "hidden":
        this.hidden = msg.hidden;
        if (msg.hidden) this.cancelTimer();
        else if (this.playing) {
          this.lastRealMs = this.env.nowMs();
          if (this.timer === null) this.schedule();
        }
        return;
      case "inspect": {
        const r = inspect(this.requireSim(), msg.target);
        this.env.post({ type: "inspection", target: msg.target, title: r.title, text: r.text });
        return;
      }
    }
  }

  private requireSim(): Simulation {
    if (this.sim === null) throw new Error("no simulation is running yet");
    return this.sim;
  }

  private play(): void {
    if (this.playing || this.sim === null || this.sim.halted) return;
    this.playing = true;
    this.lastRealMs = this.env.nowMs();
    this.carryUs = 0;
    if (!this.hidden) this.schedule();
  }

  private stop(): void {
    this.playing = false;
    this.cancelTimer();
  }

  private cancelTimer(): void {
    if (this.timer !== null) {
      this.env.clearTimer(this.timer);
      this.timer = null;
    }
  }

  private schedule(): void {
    this.timer = this.env.setTimer(() => this.tick(), TICK_MS);
  }

  private tick(): void {
    this.timer = null;
    const sim = this.sim;
    if (!this.playing || this.hidden || sim === null) return;
    const real = this.env.nowMs();
    const elapsedMs = Math.min(Math.max(real - this.lastRealMs, 0), MAX_TICK_REAL_MS);
    this.lastRealMs = real;
    const virtualUs = elapsedMs * 1000 * this.speed + this.carryUs;
    const wholeUs = Math.floor(virtualUs);
    this.carryUs = virtualUs - wholeUs;
    const violationsBefore = sim.violations.length;
    try {
      // Stops at the very event that broke an invariant, so the screen shows that moment.
      sim.advanceTo(sim.now + wholeUs, () => sim.violations.length > violationsBefore);
    } catch (e) {
      this.stop();
      this.env.post({ type: "error", message: `the simulation stopped: ${e instanceof Error ? e.message : String(e)}` });
    }
    // The UI pauses on a violation so the user can look at it.
    if (sim.violations.length > violationsBefore || sim.halted) this.stop();
    this.dirty = true;
    this.publish();
    if (this.playing) this.schedule();
  }

  /** Posts a view when something changed since the last one (a paused run posts nothing). */
  private publish(): void {
    if (this.sim === null || this.settings === null || !this.dirty) return;
    this.dirty = false;
    const view = viewOf(this.sim, {
      runId: this.runId,
      settings: this.settings,
      playing: this.playing,
      speed: this.speed,
      journal: this.journal,
      lastStep: this.lastStep,
    });
    this.env.post({ type: "view", view });
  }
}
