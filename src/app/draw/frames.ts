/**
 * The one animation loop the drawings share. A drawing asks for frames through its own
 * `Frames`; every drawing that asked is drawn in the same requestAnimationFrame
 * callback, and a drawing is drawn at most once per frame however often it asked.
 *
 * Where there are no animation frames (tests, server rendering) a request draws at once.
 */

/** A drawing's handle on the shared loop. */
export interface Frames {
  /** Draws in the next animation frame. */
  next(): void;
  /** Draws in the first animation frame at least `ms` after the last draw this asked for (next() when none is due). */
  after(ms: number): void;
  /** Forgets what was asked for (the drawing stops or goes away). */
  cancel(): void;
}

/** Draws waiting for the next frame, in the order they asked. */
const waiting = new Set<(t: number) => void>();
let raf = 0;

function hasFrames(): boolean {
  return typeof requestAnimationFrame === "function";
}

function runFrame(t: number): void {
  raf = 0;
  const due = [...waiting];
  waiting.clear();
  for (const draw of due) draw(t);
}

function want(draw: (t: number) => void): void {
  waiting.add(draw);
  if (raf === 0) raf = requestAnimationFrame(runFrame);
}

function unwant(draw: (t: number) => void): void {
  waiting.delete(draw);
  if (waiting.size === 0 && raf !== 0) {
    cancelAnimationFrame(raf);
    raf = 0;
  }
}

/** Joins the shared loop: `draw(t)` runs in the frames asked for (t: the frame's timestamp, in performance.now() ms). */
export function createFrames(draw: (t: number) => void): Frames {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let asked = false;
  let lastDrawMs = Number.NEGATIVE_INFINITY;
  let drawingNow = false;
  const run = (t: number): void => {
    asked = false;
    lastDrawMs = performance.now();
    draw(t);
  };
  const now = (): void => {
    timer = null;
    if (hasFrames()) {
      want(run);
      return;
    }
    // No frames: draw at once (a request made while drawing is dropped, not drawn again).
    if (drawingNow) {
      asked = false;
      return;
    }
    drawingNow = true;
    try {
      run(performance.now());
    } finally {
      drawingNow = false;
    }
  };
  return {
    next(): void {
      if (asked) return;
      asked = true;
      now();
    },
    after(ms: number): void {
      if (asked) return;
      asked = true;
      const wait = ms - (performance.now() - lastDrawMs);
      if (wait > 0 && hasFrames()) timer = setTimeout(now, wait);
      else now();
    },
    cancel(): void {
      asked = false;
      if (timer !== null) clearTimeout(timer);
      timer = null;
      if (hasFrames()) unwant(run);
    },
  };
}
