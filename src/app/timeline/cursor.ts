/**
 * The page's side of moving the time cursor. A seek costs the worker up to ~100 ms, so
 * while the slider is dragged the page sends at most one seek per animation frame (the
 * newest position; the last one is always sent when the drag ends) and shows the
 * dragged position at once, until the worker's answer (a view with a new epoch) arrives.
 *
 * No React here: the time-travel panel and the keyboard shortcuts share one TimeCursor
 * (the store's `cursor`), and the tests drive one with a fake frame clock.
 */
import type { ToWorker } from "../../worker/protocol";

/** Animation frames (requestAnimationFrame in the page, a fake clock in the tests). */
export interface FrameScheduler {
  request(cb: () => void): number;
  cancel(handle: number): void;
}

/** Sends at most one seek per frame: the newest position asked for during the frame. */
export class SeekCoalescer {
  private pending: number | null = null;
  private frame: number | null = null;
  /** The last position sent during this gesture (a drag that stays put sends nothing new). */
  private lastSent: number | null = null;

  constructor(
    private readonly sendSeek: (t: number) => void,
    private readonly frames: FrameScheduler,
  ) {}

  /** A new gesture starts: forget what was sent before it (the run may have moved since). */
  begin(): void {
    this.lastSent = null;
  }

  /** Asks for position `t`; it goes out with the next frame (together with nothing else). */
  push(t: number): void {
    this.pending = t;
    if (this.frame === null) {
      this.frame = this.frames.request(() => {
        this.frame = null;
        this.flush();
      });
    }
  }

  /** The gesture ends: the newest position (`t`, else the one pending) goes out now. */
  finish(t?: number): void {
    if (t !== undefined) this.pending = t;
    if (this.frame !== null) {
      this.frames.cancel(this.frame);
      this.frame = null;
    }
    this.flush();
  }

  /** A position is waiting for its frame. */
  get hasPending(): boolean {
    return this.pending !== null;
  }

  /** Drops whatever is pending (a new run, a branch switch). */
  cancel(): void {
    if (this.frame !== null) this.frames.cancel(this.frame);
    this.frame = null;
    this.pending = null;
  }

  private flush(): void {
    const t = this.pending;
    this.pending = null;
    if (t === null || t === this.lastSent) return;
    this.lastSent = t;
    this.sendSeek(t);
  }
}

/** What the cursor needs to know about the newest view. */
export interface CursorView {
  readonly runId: number;
  readonly epoch: number;
  readonly now: number;
}

/**
 * The time the slider shows: the worker's `now`, or, while the user drags (and until the
 * worker has answered the last seek), the position asked for.
 */
export class TimeCursor {
  private override: number | null = null;
  private dragging = false;
  private seen: CursorView | null = null;
  /** The view as it was when the last seek went out: an answer is any view that differs from it. */
  private atSend: CursorView | null = null;
  private readonly listeners = new Set<() => void>();
  private readonly seeks: SeekCoalescer;

  constructor(
    private readonly send: (msg: ToWorker) => void,
    frames: FrameScheduler,
  ) {
    this.seeks = new SeekCoalescer((t) => {
      this.atSend = this.seen;
      this.send({ type: "seek", t });
    }, frames);
  }

  /** The position asked for and not yet answered, or null. */
  readonly getOverride = (): number | null => this.override;

  readonly subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => {
      this.listeners.delete(fn);
    };
  };

  /** Where the slider is: the dragged position, else the worker's cursor. */
  shown(now: number): number {
    return this.override ?? now;
  }

  get isDragging(): boolean {
    return this.dragging;
  }

  /** A pointer went down on the slider. */
  begin(): void {
    this.dragging = true;
    this.seeks.begin();
  }

  /** The slider moved (drag, key, assistive technology): shown at once, sent with the next frame. */
  update(t: number): void {
    // Outside a drag each change is a gesture of its own: End, Step back, End again must seek twice.
    if (!this.dragging) this.seeks.begin();
    this.setOverride(t);
    this.seeks.push(t);
  }

  /** The pointer was released: the last position is sent now. */
  release(): void {
    if (!this.dragging) return;
    this.dragging = false;
    this.seeks.finish();
    this.settle();
  }

  /** A jump (a marker, an action, a key): sent at once. */
  jump(t: number): void {
    this.dragging = false;
    this.seeks.begin();
    this.setOverride(t);
    this.seeks.finish(t);
  }

  /** Forgets any position not yet answered (the worker is asked for something else). */
  cancel(): void {
    this.dragging = false;
    this.seeks.cancel();
    this.setOverride(null);
  }

  /** A new view: once it answers the last seek, the slider follows the worker again. */
  observe(v: CursorView): void {
    if (this.seen !== null && this.seen.runId !== v.runId) {
      this.seen = v;
      this.cancel();
      return;
    }
    this.seen = v;
    this.settle();
  }

  private settle(): void {
    if (this.override === null || this.dragging || this.seeks.hasPending) return;
    const s = this.seen;
    const a = this.atSend;
    if (s === null || a === null || s.epoch !== a.epoch || s.now !== a.now || s.runId !== a.runId) this.setOverride(null);
  }

  private setOverride(t: number | null): void {
    if (t === this.override) return;
    this.override = t;
    for (const fn of this.listeners) fn();
  }
}

/** requestAnimationFrame, or a 16 ms timer where there is none. */
export const browserFrames: FrameScheduler = {
  request: (cb) =>
    typeof requestAnimationFrame === "function" ? requestAnimationFrame(() => cb()) : (setTimeout(cb, 16) as unknown as number),
  cancel: (h) => {
    if (typeof cancelAnimationFrame === "function") cancelAnimationFrame(h);
    else clearTimeout(h);
  },
};
