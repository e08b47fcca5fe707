/**
 * One clock for two runs. How the compare page keeps them exactly in step: the page owns
 * the virtual time (this clock), and each animation frame it sends the SAME explicit
 * `seek` to both workers; neither worker ever plays on its own. A seek is exact (the
 * timeline rebuilds precisely that virtual time), so both sides show the same instant,
 * whatever each worker's speed of computing. The clock never runs past what both runs
 * have explored (an opened scenario is explored to its end when it opens), so neither
 * seek is clamped short of the other.
 */
import type { ToWorker } from "../../worker/protocol";

export interface ClockSide {
  /** How far this run has been explored (µs): a seek past it would be clamped. */
  end(): number;
  send(msg: ToWorker): void;
}

export class CompareClock {
  private t = 0;
  private lastSent = -1;
  private playing = false;
  private speed: number;
  private lastReal: number | null = null;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly sides: readonly ClockSide[],
    /** The runs' shared length (µs). */
    private readonly durationUs: number,
    speed: number,
  ) {
    this.speed = speed;
  }

  get now(): number {
    return this.t;
  }

  get isPlaying(): boolean {
    return this.playing;
  }

  get currentSpeed(): number {
    return this.speed;
  }

  /** The furthest time both can be shown at. */
  limit(): number {
    return Math.min(this.durationUs, ...this.sides.map((s) => s.end()));
  }

  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => {
      this.listeners.delete(fn);
    };
  }

  play(): void {
    if (this.t >= this.limit()) this.t = 0;
    this.playing = true;
    this.lastReal = null;
    this.changed();
  }

  pause(): void {
    this.playing = false;
    this.changed();
  }

  setSpeed(speed: number): void {
    this.speed = speed;
    this.changed();
  }

  /** Moves both runs to virtual time `t` (µs), now. */
  seek(t: number): void {
    this.t = Math.max(0, Math.min(Math.round(t), this.limit()));
    this.sync();
    this.changed();
  }

  /** One animation frame at real time `realMs`: advances the shared time while playing, and sends it to both. */
  frame(realMs: number): void {
    if (this.playing) {
      const dt = this.lastReal === null ? 0 : Math.min(250, Math.max(0, realMs - this.lastReal));
      this.lastReal = realMs;
      const limit = this.limit();
      this.t = Math.min(limit, this.t + Math.round(dt * 1000 * this.speed));
      if (this.t >= limit) this.playing = false;
      this.changed();
    }
    this.sync();
  }

  private sync(): void {
    if (this.t === this.lastSent) return;
    this.lastSent = this.t;
    for (const s of this.sides) s.send({ type: "seek", t: this.t });
  }

  private changed(): void {
    for (const fn of this.listeners) fn();
  }
}
