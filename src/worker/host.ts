/**
 * The simulation host: owns one Simulation and advances its virtual time with a
 * real-time loop at a speed factor. The outside world (posting, real time, timers)
 * comes in as HostEnv so the host runs the same in a worker and in a Node test.
 * The core never sees a timer: it only gets advanceTo(), step() and act().
 */
import { configProblems, defaultConfig, mergeConfig, type SimConfig } from "../core/sim/config";
import { Simulation } from "../core/sim/sim";
import { DEFAULT_SPEED, type FromWorker, MAX_SPEED, MIN_SPEED, type RunSettings, type ToWorker } from "./protocol";
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

export function configFor(s: RunSettings): SimConfig {
  return mergeConfig(defaultConfig(), {
    seed: s.seed,
    nodes: s.nodes,
    clients: { count: s.clients.count, workload: s.clients.workload },
    holders: { count: s.holders },
  });
}

export function clampSpeed(speed: number): number {
  if (!Number.isFinite(speed)) return DEFAULT_SPEED;
  return Math.min(MAX_SPEED, Math.max(MIN_SPEED, speed));
}

export class SimHost {
  private sim: Simulation | null = null;
  private playing = false;
  private speed = DEFAULT_SPEED;
  private timer: unknown = null;
  private lastRealMs = 0;
  /** Fraction of a microsecond carried between ticks, so slow speeds still move. */
  private carryUs = 0;
  private lastPosted = "";

  constructor(private readonly env: HostEnv) {}

  handle(msg: ToWorker): void {
    try {
      this.dispatch(msg);
    } catch (e) {
      this.env.post({ type: "error", message: e instanceof Error ? e.message : String(e) });
    }
    this.publish();
  }

  private dispatch(msg: ToWorker): void {
    switch (msg.type) {
      case "start": {
        const config = configFor(msg.settings);
        const problems = configProblems(config);
        if (problems.length > 0) throw new Error(`cannot start: ${problems.join("; ")}`);
        this.stop();
        this.sim = new Simulation(config);
        this.speed = clampSpeed(msg.settings.speed);
        this.lastPosted = "";
        if (msg.settings.autoplay) this.play();
        return;
      }
      case "play":
        this.play();
        return;
      case "pause":
        this.stop();
        return;
      case "step":
        this.stop();
        this.requireSim().step();
        return;
      case "setSpeed":
        this.speed = clampSpeed(msg.speed);
        return;
      case "act":
        this.requireSim().act(msg.action);
        return;
    }
  }

  private requireSim(): Simulation {
    if (this.sim === null) throw new Error("no simulation is running yet");
    return this.sim;
  }

  private play(): void {
    if (this.playing || this.sim === null) return;
    this.playing = true;
    this.lastRealMs = this.env.nowMs();
    this.carryUs = 0;
    this.schedule();
  }

  private stop(): void {
    this.playing = false;
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
    if (!this.playing || sim === null) return;
    const real = this.env.nowMs();
    const elapsedMs = Math.min(Math.max(real - this.lastRealMs, 0), MAX_TICK_REAL_MS);
    this.lastRealMs = real;
    const virtualUs = elapsedMs * 1000 * this.speed + this.carryUs;
    const wholeUs = Math.floor(virtualUs);
    this.carryUs = virtualUs - wholeUs;
    const violationsBefore = sim.violations.length;
    try {
      sim.advanceTo(sim.now + wholeUs);
    } catch (e) {
      this.stop();
      this.env.post({ type: "error", message: `the simulation stopped: ${e instanceof Error ? e.message : String(e)}` });
    }
    // The UI pauses on a violation so the user can look at it.
    if (sim.violations.length > violationsBefore || sim.halted) this.stop();
    this.publish();
    if (this.playing) this.schedule();
  }

  /** Posts a view only when something in it changed. */
  private publish(): void {
    if (this.sim === null) return;
    const view = viewOf(this.sim, this.playing, this.speed);
    const key = JSON.stringify(view);
    if (key === this.lastPosted) return;
    this.lastPosted = key;
    this.env.post({ type: "view", view });
  }
}
