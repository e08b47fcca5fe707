/**
 * Pure layout for the space-time (Lamport) diagram: which processes get a line and
 * where, which part of virtual time is visible (zoom, scroll, follow), where each
 * message arrow starts and ends, what is culled, which labels fit, and what the
 * diagram says in words. No DOM and no d3 selections: the drawing (spacetimeDrawing.ts)
 * is a function of these, and these are unit-tested.
 *
 * Time flows downwards. Times are virtual microseconds; lengths are SVG user units,
 * which the drawing keeps equal to CSS pixels (the viewBox is the measured width).
 */
import type { DiagramMark, DiagramMessage, HolderView, MessageView, NodeView, StorageView } from "../../worker/protocol";

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

export interface TimeWindow {
  readonly t0: number;
  readonly t1: number;
}

export function clampSpan(spanUs: number): number {
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
export function windowOf(vp: Viewport, now: number): TimeWindow {
  const span = clampSpan(vp.spanUs);
  const latest = latestEnd(span, now);
  const t1 = vp.endUs === null ? latest : Math.min(latest, Math.max(span, vp.endUs));
  return { t0: t1 - span, t1 };
}

/** Scrolls by dt (µs, positive = later). Reaching the cursor turns following back on. `moved` is false at either end. */
export function panBy(vp: Viewport, dtUs: number, now: number): { vp: Viewport; moved: boolean } {
  const span = clampSpan(vp.spanUs);
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
  const span = clampSpan(spanUs);
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
  const s = clampSpan(spanUs);
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
export function timeToY(t: number, w: TimeWindow, f: Frame): number {
  return f.plotTop + ((t - w.t0) / (w.t1 - w.t0)) * (f.plotBottom - f.plotTop);
}

export function yToTime(y: number, w: TimeWindow, f: Frame): number {
  return w.t0 + ((y - f.plotTop) / (f.plotBottom - f.plotTop)) * (w.t1 - w.t0);
}

/** User units per µs. */
export function pxPerUs(w: TimeWindow, f: Frame): number {
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

export function timeScale(w: TimeWindow, f: Frame, prev: Pick<TimeScale, "origin" | "k"> | null): TimeScale {
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

const TICK_STEPS_US: readonly number[] = [
  1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000, 2_000_000, 5_000_000, 10_000_000, 20_000_000,
  30_000_000, 60_000_000,
];

/** Axis ticks at least `minGapPx` apart: the times and the step. */
export function ticks(w: TimeWindow, f: Frame, minGapPx = 46): { readonly step: number; readonly times: readonly number[] } {
  const k = pxPerUs(w, f);
  const step = TICK_STEPS_US.find((s) => s * k >= minGapPx) ?? (TICK_STEPS_US.at(-1) as number);
  const times: number[] = [];
  for (let t = Math.ceil(w.t0 / step) * step; t <= w.t1 + 1e-6; t += step) if (t >= 0) times.push(t);
  return { step, times };
}

/** "3.25 s" with as many decimals as the step needs. */
export function tickLabel(t: number, step: number): string {
  const decimals = step < 10_000 ? 3 : step < 100_000 ? 2 : step < 1_000_000 ? 1 : 0;
  return `${(t / 1_000_000).toFixed(decimals)} s`;
}

/** Seconds with the precision the window needs: "3.2 s", "3.215 s". */
export function windowTime(t: number, spanUs: number): string {
  const decimals = spanUs >= 20_000_000 ? 0 : spanUs >= 2_000_000 ? 1 : spanUs >= 200_000 ? 2 : 3;
  return `${(t / 1_000_000).toFixed(decimals)} s`;
}

/** "50 ms", "1 s", "1.5 s", "60 s". */
export function spanText(spanUs: number): string {
  if (spanUs < 1_000_000) return `${Math.round(spanUs / 1000)} ms`;
  const s = spanUs / 1_000_000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}

// ---------------------------------------------------------------- messages

export type ArrowState = "delivered" | "dropped" | "flight" | "queued";

/** One arrow, in time: it leaves (xFrom, tFrom) and ends at (xEnd, tEnd). */
export interface Arrow {
  readonly id: number;
  readonly from: string;
  readonly to: string;
  readonly label: string;
  readonly state: ArrowState;
  readonly xFrom: number;
  readonly tFrom: number;
  readonly xEnd: number;
  readonly tEnd: number;
  /** The receiver's line (for in-flight arrows, where it is heading). */
  readonly xTo: number;
  /** Delivery time (in flight: when it is due; finished: when it ended). */
  readonly dueAt: number;
  /** Dropped: why; in flight: its fate if it will not arrive ("loss", "partition", "cut"); else null. */
  readonly reason: string | null;
  readonly dup: boolean;
}

/**
 * Where along its line a dropped message ends: refused at the receiver (down, inbox
 * full) just short of it, blocked on the way (partition, cut, dropped by hand) halfway,
 * lost on the wire a bit further. The reason is in words; the keywords decide.
 */
export function dropFraction(reason: string | null): number {
  const r = (reason ?? "").toLowerCase();
  if (r.includes("down") || r.includes("inbox") || r.includes("crash")) return 0.85;
  if (r.includes("partition") || r.includes("cut") || r.includes("user") || r.includes("by you") || r.includes("hand")) return 0.5;
  return 0.65;
}

/** Share of the way from send to delivery at `now`, in [0, 1]. */
export function progressAt(sentAt: number, deliverAt: number, now: number): number {
  if (deliverAt <= sentAt) return now >= deliverAt ? 1 : 0;
  const p = (now - sentAt) / (deliverAt - sentAt);
  return Math.min(1, Math.max(0, p));
}

/** A finished message: to the receiver's line at its arrival, or partway to it (at the drop time) when dropped. Null when a process has no line. */
export function finishedArrow(m: DiagramMessage, lanes: ReadonlyMap<string, Pick<Lane, "x">>): Arrow | null {
  const a = lanes.get(m.from);
  const b = lanes.get(m.to);
  if (a === undefined || b === undefined) return null;
  const dropped = m.outcome === "dropped";
  const xEnd = dropped ? a.x + (b.x - a.x) * dropFraction(m.reason) : b.x;
  return {
    id: m.id,
    from: m.from,
    to: m.to,
    label: m.label,
    state: dropped ? "dropped" : "delivered",
    xFrom: a.x,
    tFrom: m.sentAt,
    xEnd,
    tEnd: Math.max(m.sentAt, m.endAt),
    xTo: b.x,
    dueAt: m.endAt,
    reason: dropped ? (m.reason ?? "dropped") : null,
    dup: false,
  };
}

/**
 * A message still on the wire at `now`: it heads for (receiver, deliverAt) and stops
 * at the cursor, where it is now (as RaftScope places messages: a function of send
 * time, arrival time and now). One that already arrived at a paused process waits at
 * the receiver's line.
 */
export function flightArrow(m: MessageView, lanes: ReadonlyMap<string, Pick<Lane, "x">>, now: number): Arrow | null {
  const a = lanes.get(m.from);
  const b = lanes.get(m.to);
  if (a === undefined || b === undefined) return null;
  // Arrived (waiting at a paused process, or between two views): at the receiver's line, at its arrival.
  const arrived = m.queued || m.deliverAt <= now;
  const tEnd = arrived ? Math.max(m.sentAt, Math.min(m.deliverAt, now)) : Math.max(m.sentAt, now);
  const p = arrived ? 1 : progressAt(m.sentAt, m.deliverAt, now);
  return {
    id: m.id,
    from: m.from,
    to: m.to,
    label: m.label,
    state: m.queued ? "queued" : arrived ? "delivered" : "flight",
    xFrom: a.x,
    tFrom: m.sentAt,
    xEnd: a.x + (b.x - a.x) * p,
    tEnd,
    xTo: b.x,
    dueAt: m.deliverAt,
    reason: m.fate === "ok" ? null : m.fate,
    dup: m.dup,
  };
}

/** Does the arrow's time span [tFrom, tEnd] overlap the window? */
export function overlaps(tFrom: number, tEnd: number, w: TimeWindow): boolean {
  return tFrom <= w.t1 && tEnd >= w.t0;
}

/**
 * The arrows to draw: the finished messages and those in flight that overlap the
 * window, between processes that have a line. A message in both lists (it ended
 * between two views) is drawn once, as finished.
 */
export function visibleArrows(
  finished: readonly DiagramMessage[],
  inFlight: readonly MessageView[],
  lanes: ReadonlyMap<string, Pick<Lane, "x">>,
  w: TimeWindow,
  now: number,
): Arrow[] {
  const out: Arrow[] = [];
  const seen = new Set<number>();
  for (const m of finished) {
    if (m.sentAt > w.t1 || m.endAt < w.t0) continue;
    const a = finishedArrow(m, lanes);
    if (a === null) continue;
    out.push(a);
    seen.add(m.id);
  }
  for (const m of inFlight) {
    if (seen.has(m.id)) continue;
    const a = flightArrow(m, lanes, now);
    if (a === null || !overlaps(a.tFrom, a.tEnd, w)) continue;
    out.push(a);
    seen.add(m.id);
  }
  return out;
}

// ---------------------------------------------------------------- marks and segments

const HOLDING_WORDS: ReadonlySet<string> = new Set(["holding", "jeopardy", "grace"]);

function firstWord(s: string): string {
  const m = /^[a-z-]+/i.exec(s.trim());
  return (m?.[0] ?? "").toLowerCase();
}

/** A role mark's role, from its words ("leader T4" -> leader). */
export function roleOf(label: string): "leader" | "candidate" | "precandidate" | "follower" | null {
  const w = firstWord(label);
  if (w === "leader" || w === "leads") return "leader";
  if (w === "candidate") return "candidate";
  if (w === "pre-candidate" || w === "precandidate") return "precandidate";
  if (w === "follower") return "follower";
  return null;
}

/** The short glyph drawn on the line for a mark (the words beside it when there is room). */
export function markGlyph(m: Pick<DiagramMark, "kind" | "label" | "bad">): string {
  switch (m.kind) {
    case "role": {
      const r = roleOf(m.label);
      return r === "leader" ? "★" : r === "candidate" ? "?" : r === "precandidate" ? "…" : "●";
    }
    case "crash":
      return "✕";
    case "restart":
      return "↻";
    case "pause":
      return "‖";
    case "resume":
      return "▷";
    case "holder":
      return m.bad ? "!" : "◆";
    case "storage":
      return m.bad ? "✗" : "✓";
    case "clock":
      return "◑";
    case "timeout":
      return "⊙";
    case "transfer":
      return "⇢";
    case "violation":
      return "✗";
  }
}

/** Which mark labels win when they compete for room (lower first). */
export function markPriority(m: Pick<DiagramMark, "kind" | "label" | "bad">): number {
  if (m.kind === "violation") return 0;
  if (m.kind === "crash" || m.kind === "restart") return 1;
  if (m.kind === "role" && roleOf(m.label) === "leader") return 2;
  if (m.bad) return 3;
  if (m.kind === "pause" || m.kind === "resume") return 4;
  if (m.kind === "holder" || m.kind === "storage") return 5;
  return 6;
}

export type SegmentKind = "down" | "paused" | "leader" | "holding";

/** A stretch of a process's line: down (greyed), paused (hatched), leading, or believing it holds the lease. */
export interface Segment {
  readonly proc: string;
  readonly kind: SegmentKind;
  /** −Infinity: began before the oldest retained mark. */
  readonly from: number;
  readonly to: number;
  /** Still going at the cursor. */
  readonly open: boolean;
  /** Holder segments: the state word ("holding", "jeopardy", "grace"). */
  readonly word: string;
}

/**
 * The segments of every line, from the marks (oldest first) and each process's state at
 * the cursor. A segment whose start is older than the retained marks begins at −∞; one
 * still going ends at `now`.
 */
export function laneSegments(marks: readonly DiagramMark[], procs: readonly Proc[], now: number): Segment[] {
  const out: Segment[] = [];
  const byProc = new Map<string, DiagramMark[]>();
  for (const m of marks) {
    const list = byProc.get(m.proc);
    if (list === undefined) byProc.set(m.proc, [m]);
    else list.push(m);
  }
  for (const p of procs) {
    const list = byProc.get(p.id) ?? [];
    const push = (kind: SegmentKind, from: number, to: number, open: boolean, word = ""): void => {
      if (to >= from) out.push({ proc: p.id, kind, from, to, open, word });
    };
    // Down: crash .. restart.
    let downSince: number | null = null;
    let sawDown = false;
    // Paused: pause .. resume (or a crash).
    let pausedSince: number | null = null;
    let sawPause = false;
    // Leading: a leader role mark .. the next role mark or a crash.
    let leadSince: number | null = null;
    let sawRole = false;
    // Holding: a holder mark in a holding state .. the next holder mark or a crash.
    let holdSince: number | null = null;
    let holdWord = "";
    let sawHolder = false;
    const endPause = (t: number): void => {
      if (pausedSince !== null) push("paused", pausedSince, t, false);
      else if (!sawPause) push("paused", Number.NEGATIVE_INFINITY, t, false);
      pausedSince = null;
      sawPause = true;
    };
    for (const m of list) {
      switch (m.kind) {
        case "crash":
          if (downSince === null) downSince = m.t;
          sawDown = true;
          if (pausedSince !== null) endPause(m.t);
          if (leadSince !== null) push("leader", leadSince, m.t, false);
          leadSince = null;
          sawRole = true;
          if (holdSince !== null) push("holding", holdSince, m.t, false, holdWord);
          holdSince = null;
          sawHolder = true;
          break;
        case "restart":
          if (downSince !== null) push("down", downSince, m.t, false);
          else if (!sawDown) push("down", Number.NEGATIVE_INFINITY, m.t, false);
          downSince = null;
          sawDown = true;
          break;
        case "pause":
          if (pausedSince === null) pausedSince = m.t;
          sawPause = true;
          break;
        case "resume":
          endPause(m.t);
          break;
        case "role": {
          const leads = roleOf(m.label) === "leader";
          if (leadSince !== null && !leads) {
            push("leader", leadSince, m.t, false);
            leadSince = null;
          }
          // (A first retained mark that is not "leader" says nothing about before it: nothing is drawn there.)
          if (leads && leadSince === null) leadSince = m.t;
          sawRole = true;
          break;
        }
        case "holder": {
          const w = firstWord(m.label);
          const holding = HOLDING_WORDS.has(w);
          if (holdSince !== null && (!holding || w !== holdWord)) {
            push("holding", holdSince, m.t, false, holdWord);
            holdSince = null;
          }
          if (holding && holdSince === null) {
            holdSince = m.t;
            holdWord = w;
          }
          sawHolder = true;
          break;
        }
        default:
          break;
      }
    }
    const start = Number.NEGATIVE_INFINITY;
    if (downSince !== null) push("down", downSince, now, true);
    else if (!sawDown && p.status === "down") push("down", start, now, true);
    if (pausedSince !== null) push("paused", pausedSince, now, true);
    else if (!sawPause && p.status === "paused") push("paused", start, now, true);
    if (leadSince !== null) push("leader", leadSince, now, true);
    else if (!sawRole && p.kind === "node" && p.active) push("leader", start, now, true);
    if (holdSince !== null) push("holding", holdSince, now, true, holdWord);
    else if (!sawHolder && p.kind === "holder" && p.active) push("holding", start, now, true, "holding");
  }
  return out;
}

/** Marks inside the window (by time), on processes that have a line. */
export function visibleMarks(marks: readonly DiagramMark[], lanes: ReadonlyMap<string, unknown>, w: TimeWindow): DiagramMark[] {
  return marks.filter((m) => m.t >= w.t0 && m.t <= w.t1 && lanes.has(m.proc));
}

/** The part of a segment inside the window, or null. */
export function clipSegment(s: Segment, w: TimeWindow): Segment | null {
  if (s.to < w.t0 || s.from > w.t1) return null;
  return { ...s, from: Math.max(s.from, w.t0), to: Math.min(s.to, w.t1) };
}

// ---------------------------------------------------------------- labels

/** Rough text width in user units (the drawing uses a sans-serif face; digits and lower case average ~0.58 em). */
export function textWidth(s: string, fontPx: number): number {
  return s.length * fontPx * 0.58;
}

/** Cuts `s` to fit `maxPx` with an ellipsis ("" when not even one letter fits). */
export function fitText(s: string, fontPx: number, maxPx: number): string {
  if (textWidth(s, fontPx) <= maxPx) return s;
  const n = Math.floor(maxPx / (fontPx * 0.58)) - 1;
  return n < 2 ? "" : `${s.slice(0, n)}…`;
}

export interface Box {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

function hit(a: Box, b: Box): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

/**
 * Greedy label placement: takes candidates in order and keeps each that overlaps none
 * kept so far (at most `limit`). Returns the kept keys.
 */
export function placeLabels<K>(candidates: readonly { readonly key: K; readonly box: Box }[], limit: number): Set<K> {
  const kept: Box[] = [];
  const out = new Set<K>();
  for (const c of candidates) {
    if (out.size >= limit) break;
    if (kept.some((k) => hit(k, c.box))) continue;
    kept.push(c.box);
    out.add(c.key);
  }
  return out;
}

/** An arrow's label fits along it when the arrow is at least this much longer than the text. */
export const LABEL_PAD = 14;
export const ARROW_FONT = 12;
export const MARK_FONT = 12;

/** Does `label` fit on an arrow from (x1, y1) to (x2, y2)? */
export function arrowLabelFits(label: string, x1: number, y1: number, x2: number, y2: number, fontPx = ARROW_FONT): boolean {
  return Math.hypot(x2 - x1, y2 - y1) >= textWidth(label, fontPx) + 2 * LABEL_PAD;
}

// ---------------------------------------------------------------- dense: many arrows as a few paths

/** Above this many arrows in the DOM, finished ones are drawn as one path per colour and kind (an element each costs too much to paint). */
export const DENSE_ABOVE = 1500;

export interface BatchItem {
  readonly x1: number;
  readonly y1: number;
  readonly x2: number;
  readonly y2: number;
  readonly color: string;
  readonly dropped: boolean;
}

export interface Batch {
  /** "line|#0072B2", "dropped|#E69F00", "head|#0072B2", "x". */
  readonly key: string;
  readonly kind: "line" | "dropped" | "head" | "x";
  readonly color: string;
  readonly d: string;
}

const f1 = (v: number): string => (Math.round(v * 10) / 10).toString();

/**
 * Arrows batched into a few paths: the lines of each colour (delivered solid, dropped
 * dashed), an arrowhead triangle at each delivered one's end, and a ✕ at each drop.
 */
export function batchArrows(items: readonly BatchItem[]): Batch[] {
  const parts = new Map<string, { kind: Batch["kind"]; color: string; d: string[] }>();
  const add = (kind: Batch["kind"], color: string, seg: string): void => {
    const key = kind === "x" ? "x" : `${kind}|${color}`;
    let p = parts.get(key);
    if (p === undefined) {
      p = { kind, color, d: [] };
      parts.set(key, p);
    }
    p.d.push(seg);
  };
  for (const it of items) {
    add(it.dropped ? "dropped" : "line", it.color, `M${f1(it.x1)},${f1(it.y1)}L${f1(it.x2)},${f1(it.y2)}`);
    if (it.dropped) {
      add("x", it.color, `M${f1(it.x2 - 4.5)},${f1(it.y2 - 4.5)}l9,9m0,-9l-9,9`);
      continue;
    }
    const l = Math.hypot(it.x2 - it.x1, it.y2 - it.y1);
    if (l < 1) continue;
    const ux = (it.x2 - it.x1) / l;
    const uy = (it.y2 - it.y1) / l;
    const bx = it.x2 - 8 * ux;
    const by = it.y2 - 8 * uy;
    add(
      "head",
      it.color,
      `M${f1(it.x2)},${f1(it.y2)}L${f1(bx - 3.5 * uy)},${f1(by + 3.5 * ux)}L${f1(bx + 3.5 * uy)},${f1(by - 3.5 * ux)}Z`,
    );
  }
  return [...parts.entries()].map(([key, p]) => ({ key, kind: p.kind, color: p.color, d: p.d.join("") }));
}

// ---------------------------------------------------------------- pointing

/** Distance from (px, py) to the segment (x1, y1)-(x2, y2). */
export function distanceToSegment(px: number, py: number, x1: number, y1: number, x2: number, y2: number): number {
  const dx = x2 - x1;
  const dy = y2 - y1;
  const l2 = dx * dx + dy * dy;
  const t = l2 === 0 ? 0 : Math.max(0, Math.min(1, ((px - x1) * dx + (py - y1) * dy) / l2));
  return Math.hypot(px - (x1 + t * dx), py - (y1 + t * dy));
}

/** The arrow nearest to a point, within `maxDist` (ties: the later one, drawn on top). */
export function nearestArrow<T extends { readonly x1: number; readonly y1: number; readonly x2: number; readonly y2: number }>(
  arrows: readonly T[],
  px: number,
  py: number,
  maxDist: number,
): T | null {
  let best: T | null = null;
  let bestD = maxDist;
  for (const a of arrows) {
    const d = distanceToSegment(px, py, a.x1, a.y1, a.x2, a.y2);
    if (d <= bestD) {
      best = a;
      bestD = d;
    }
  }
  return best;
}

// ---------------------------------------------------------------- words

/** The accessible summary: "12 messages between 3.2 s and 5.2 s, 3 state changes, 9 processes". */
export function summaryText(messages: number, marks: number, processes: number, w: TimeWindow): string {
  const span = w.t1 - w.t0;
  const msgs = `${messages} message${messages === 1 ? "" : "s"}`;
  const ch = `${marks} state change${marks === 1 ? "" : "s"}`;
  return `${msgs} between ${windowTime(Math.max(0, w.t0), span)} and ${windowTime(w.t1, span)}, ${ch}, ${processes} process${processes === 1 ? "" : "es"}`;
}

/** One line about a message, for its tooltip. */
export function arrowText(a: Arrow): string {
  const head = `${a.label} ${a.from} → ${a.to}`;
  const sent = `sent ${(a.tFrom / 1_000_000).toFixed(3)} s`;
  switch (a.state) {
    case "delivered":
      return `${head}: ${sent}, arrived ${(a.tEnd / 1_000_000).toFixed(3)} s`;
    case "dropped":
      return `${head}: ${sent}, dropped ${(a.tEnd / 1_000_000).toFixed(3)} s (${a.reason ?? "dropped"})`;
    case "queued":
      return `${head}: ${sent}, waiting at paused ${a.to}`;
    case "flight": {
      const fate = a.reason === null ? "" : a.reason === "loss" ? ", will be lost" : `, blocked (${a.reason})`;
      return `${head}: ${sent}, in flight, due ${(a.dueAt / 1_000_000).toFixed(3)} s${fate}${a.dup ? ", duplicate" : ""}`;
    }
  }
}
