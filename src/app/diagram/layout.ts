/**
 * Pure layout for the space-time (Lamport) diagram: which processes get a line and
 * where, which part of virtual time is visible (zoom, scroll, follow), how time maps to
 * height, the axis ticks, and the summary in words. The arrows (arrows.ts), the marks
 * and segments on the lines (marks.ts) and the label placement (labels.ts) live beside
 * it. No DOM and no d3 selections: the drawing (spacetimeDrawing.ts) is a function of
 * these, and these are unit-tested.
 *
 * Time flows downwards. Times are virtual microseconds; lengths are SVG user units,
 * which the drawing keeps equal to CSS pixels (the viewBox is the measured width).
 */
import { formatDuration, formatInstant } from "../../core/sim/time";
import { tickStep, ticks as d3Ticks } from "d3-array";
import { precisionFixed } from "d3-format";
import type { HolderView, NodeView, StorageView } from "../../worker/protocol";
import { firstWord, HOLDING_WORDS } from "./marks";

// ---------------------------------------------------------------- processes and lanes

export type ProcKind = "node" | "holder" | "storage";
export type ProcState = "up" | "down" | "paused";

export interface Proc {
  readonly id: string;
  readonly kind: ProcKind;
  /** Status at the cursor (opens a down or paused segment whose start is older than the retained marks). */
  readonly status: ProcState;
  /** Node: leads now. Holder: believes it holds the lease now. */
  readonly active: boolean;
}

/** The processes, one line each, in this order: nodes, holders, then the storage. */
export function processOrder(
  nodes: readonly Pick<NodeView, "id" | "status" | "role">[],
  holders: readonly Pick<HolderView, "id" | "status" | "state">[],
  storage: Pick<StorageView, "id" | "status"> | null,
): Proc[] {
  const out: Proc[] = [];
  for (const n of nodes) out.push({ id: n.id, kind: "node", status: n.status, active: n.status !== "down" && n.role === "leader" });
  for (const h of holders)
    out.push({ id: h.id, kind: "holder", status: h.status, active: h.status !== "down" && HOLDING_WORDS.has(firstWord(h.state)) });
  if (storage !== null) out.push({ id: storage.id, kind: "storage", status: storage.status, active: false });
  return out;
}

/** The drawing's frame: where the plot sits inside the SVG. */
export interface Frame {
  readonly width: number;
  readonly height: number;
  readonly plotLeft: number;
  readonly plotRight: number;
  readonly plotTop: number;
  readonly plotBottom: number;
}

export const DEFAULT_WIDTH = 720;
export const MIN_WIDTH = 360;
export const DIAGRAM_HEIGHT = 470;
/** Room on the left for the time axis ("12.345 s"). */
export const AXIS_WIDTH = 72;
/** Room at the top for the process names (two rows when they are crowded). */
export const HEADER_HEIGHT = 50;
export const BOTTOM_MARGIN = 14;
export const RIGHT_MARGIN = 10;

export function frameOf(width: number, height = DIAGRAM_HEIGHT): Frame {
  const w = Math.max(MIN_WIDTH, Math.round(Number.isFinite(width) ? width : DEFAULT_WIDTH));
  return {
    width: w,
    height,
    plotLeft: AXIS_WIDTH,
    plotRight: w - RIGHT_MARGIN,
    plotTop: HEADER_HEIGHT,
    plotBottom: height - BOTTOM_MARGIN,
  };
}

export interface Lane extends Proc {
  readonly index: number;
  readonly x: number;
  /** y of the name at the top (two staggered rows when lanes are narrow). */
  readonly nameY: number;
}

export interface Lanes {
  readonly lanes: readonly Lane[];
  readonly byId: ReadonlyMap<string, Lane>;
  /** Distance between neighbouring lines. */
  readonly pitch: number;
  /** Names alternate between two rows. */
  readonly staggered: boolean;
}

/** Narrower than this and the names take two rows. */
export const STAGGER_BELOW = 40;

/** One evenly spaced vertical line per process across the plot. */
export function laneLayout(procs: readonly Proc[], f: Frame): Lanes {
  const n = Math.max(1, procs.length);
  const pitch = (f.plotRight - f.plotLeft) / n;
  const staggered = pitch < STAGGER_BELOW;
  const lanes = procs.map((p, i) => ({
    ...p,
    index: i,
    x: f.plotLeft + (i + 0.5) * pitch,
    nameY: staggered && i % 2 === 1 ? 36 : 18,
  }));
  return { lanes, byId: new Map(lanes.map((l) => [l.id, l])), pitch, staggered };
}

// ---------------------------------------------------------------- the visible window (zoom, scroll, follow)

export const MIN_SPAN_US = 50_000;
export const MAX_SPAN_US = 60_000_000;
export const DEFAULT_SPAN_US = 1_000_000;
/** The spans the "−" / "+" buttons step through. */
export const ZOOM_STEPS_US: readonly number[] = [
  50_000, 100_000, 200_000, 500_000, 1_000_000, 2_000_000, 5_000_000, 10_000_000, 20_000_000, 30_000_000, 60_000_000,
];

export interface Viewport {
  /** How much virtual time the plot shows, top to bottom. */
  readonly spanUs: number;
  /** The time at the bottom edge; null: following the cursor. */
  readonly endUs: number | null;
}

export interface ViewWindow {
  readonly t0: number;
  readonly t1: number;
}

export function clampZoomSpan(spanUs: number): number {
  if (!Number.isFinite(spanUs)) return DEFAULT_SPAN_US;
  return Math.min(MAX_SPAN_US, Math.max(MIN_SPAN_US, spanUs));
}

/** The latest the bottom edge may be: the cursor, or the span itself early in a run (time starts at the top). */
export function latestEnd(spanUs: number, now: number): number {
  return Math.max(now, spanUs);
}

/**
 * The visible window. Following: the cursor is the bottom edge (early in a run the
 * window is [0, span] and fills downwards). Scrolled back: the chosen end, clamped to
 * [span, cursor] so the window never starts before 0 nor shows what is not known yet
 * (the cursor can jump backwards: the window then comes back with it).
 */
export function windowOf(vp: Viewport, now: number): ViewWindow {
  const span = clampZoomSpan(vp.spanUs);
  const latest = latestEnd(span, now);
  const t1 = vp.endUs === null ? latest : Math.min(latest, Math.max(span, vp.endUs));
  return { t0: t1 - span, t1 };
}

/** Scrolls by dt (µs, positive = later). Reaching the cursor turns following back on. `moved` is false at either end. */
export function panBy(vp: Viewport, dtUs: number, now: number): { vp: Viewport; moved: boolean } {
  const span = clampZoomSpan(vp.spanUs);
  const w = windowOf(vp, now);
  const latest = latestEnd(span, now);
  const end = Math.min(latest, Math.max(span, w.t1 + dtUs));
  const moved = Math.abs(end - w.t1) > 1e-6;
  if (end >= latest) return { vp: { spanUs: span, endUs: null }, moved: moved };
  return { vp: { spanUs: span, endUs: end }, moved };
}

/**
 * Zooms to `spanUs` keeping time `anchor` at the same height. Following, the anchor is
 * the cursor (the bottom edge stays "now").
 */
export function zoomTo(vp: Viewport, spanUs: number, now: number, anchor?: { readonly t: number; readonly frac: number }): Viewport {
  const span = clampZoomSpan(spanUs);
  if (vp.endUs === null) return { spanUs: span, endUs: null };
  const w = windowOf(vp, now);
  const a = anchor ?? { t: (w.t0 + w.t1) / 2, frac: 0.5 };
  const frac = Math.min(1, Math.max(0, a.frac));
  const end = a.t + (1 - frac) * span;
  const latest = latestEnd(span, now);
  return { spanUs: span, endUs: Math.min(latest, Math.max(span, end)) };
}

/** The next zoom step: dir -1 = in (a shorter span), +1 = out. Stays put at the ends. */
export function stepSpan(spanUs: number, dir: -1 | 1): number {
  const s = clampZoomSpan(spanUs);
  if (dir < 0) {
    for (let i = ZOOM_STEPS_US.length - 1; i >= 0; i--) {
      const z = ZOOM_STEPS_US[i] as number;
      if (z < s * 0.999) return z;
    }
    return MIN_SPAN_US;
  }
  for (const z of ZOOM_STEPS_US) if (z > s * 1.001) return z;
  return MAX_SPAN_US;
}

// ---------------------------------------------------------------- time <-> y

/** y of time t in the window (time flows downwards: t0 at the plot's top, t1 at its bottom). */
export function timeToY(t: number, w: ViewWindow, f: Frame): number {
  return f.plotTop + ((t - w.t0) / (w.t1 - w.t0)) * (f.plotBottom - f.plotTop);
}

export function yToTime(y: number, w: ViewWindow, f: Frame): number {
  return w.t0 + ((y - f.plotTop) / (f.plotBottom - f.plotTop)) * (w.t1 - w.t0);
}

/** User units per µs. */
export function pxPerUs(w: ViewWindow, f: Frame): number {
  return (f.plotBottom - f.plotTop) / (w.t1 - w.t0);
}

/**
 * The drawing places timed things in a group it only translates while the window
 * slides: local y = (t − origin) × k, screen y = local y + offset. The origin is kept
 * while the scale stays and the numbers stay small (SVG coordinates lose precision in
 * the millions), else moved to the window's start.
 */
export interface TimeScale {
  readonly origin: number;
  readonly k: number;
  readonly offset: number;
}

export const REBASE_BEYOND = 200_000;

export function timeScale(w: ViewWindow, f: Frame, prev: Pick<TimeScale, "origin" | "k"> | null): TimeScale {
  const fresh = pxPerUs(w, f);
  // The same zoom within rounding (t1 − t0 of a sliding window is not exact): keep the scale, so nothing is rewritten.
  const keep = prev !== null && Math.abs(prev.k - fresh) <= fresh * 1e-9 && Math.abs((w.t0 - prev.origin) * fresh) < REBASE_BEYOND;
  const origin = keep ? prev.origin : w.t0;
  const k = keep ? prev.k : fresh;
  return { origin, k, offset: f.plotTop - (w.t0 - origin) * k };
}

export function localY(t: number, s: Pick<TimeScale, "origin" | "k">): number {
  return (t - s.origin) * s.k;
}

// ---------------------------------------------------------------- ticks

/**
 * Axis ticks at least `minGapPx` apart: the times and the step. d3's ticks (steps of 1,
 * 2 or 5 × 10ⁿ µs), asking for fewer until neighbours are far enough apart; none before 0.
 */
export function axisTicks(w: ViewWindow, f: Frame, minGapPx = 46): { readonly step: number; readonly times: readonly number[] } {
  const k = pxPerUs(w, f);
  let count = Math.max(1, Math.floor((f.plotBottom - f.plotTop) / minGapPx));
  while (count > 1 && tickStep(w.t0, w.t1, count) * k < minGapPx) count--;
  const step = tickStep(w.t0, w.t1, count);
  return { step, times: d3Ticks(w.t0, w.t1, count).filter((t) => t >= 0) };
}

/** "3.25 s" with as many decimals as the step needs. */
export function tickLabel(t: number, step: number): string {
  return formatInstant(t, precisionFixed(step / 1_000_000));
}

/** Seconds with the precision the window needs: "3.2 s", "3.215 s". */
export function windowTime(t: number, spanUs: number): string {
  const decimals = spanUs >= 20_000_000 ? 0 : spanUs >= 2_000_000 ? 1 : spanUs >= 200_000 ? 2 : 3;
  return formatInstant(t, decimals);
}

/** "50 ms", "1 s", "1.5 s", "60 s". */
export function spanText(spanUs: number): string {
  return formatDuration(spanUs, 1);
}

// ---------------------------------------------------------------- words

/** The accessible summary: "12 messages between 3.2 s and 5.2 s, 3 state changes, 9 processes". */
export function summaryText(messages: number, marks: number, processes: number, w: ViewWindow): string {
  const span = w.t1 - w.t0;
  const msgs = `${messages} message${messages === 1 ? "" : "s"}`;
  const ch = `${marks} state change${marks === 1 ? "" : "s"}`;
  return `${msgs} between ${windowTime(Math.max(0, w.t0), span)} and ${windowTime(w.t1, span)}, ${ch}, ${processes} process${processes === 1 ? "" : "es"}`;
}

