/**
 * The space-time diagram's message arrows, pure: where each starts and ends (finished,
 * dropped, in flight), which overlap the window, many batched into a few paths, which
 * one the pointer is on, and one in words.
 */
import { formatInstant } from "../../core/sim/time";
import type { DiagramMessage, MessageView } from "../../worker/protocol";
import type { Lane, ViewWindow } from "./layout";

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
export function overlaps(tFrom: number, tEnd: number, w: ViewWindow): boolean {
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
  w: ViewWindow,
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

// ---------------------------------------------------------------- dense: many arrows as a few paths

/**
 * Above this many finished arrows near the window, they are drawn as a few batched paths
 * (one per colour and kind, in each quarter of the window) with the look of single
 * arrows: an element each, made and dropped as the window slides, costs the page more
 * than the picture is worth.
 */
export const BATCH_ABOVE = 200;

/** Above this many, the batched arrows are also drawn thinner and lighter (a dense picture reads better so). */
export const DENSE_ABOVE = 1500;

/** An arrowhead's size: its length and its half-width. */
export interface HeadSize {
  readonly length: number;
  readonly half: number;
}

/** The heads of single arrows (the SVG marker: 9 long, 9 wide) and of dense batches. */
export const FINE_HEAD: HeadSize = { length: 9, half: 4.5 };
export const DENSE_HEAD: HeadSize = { length: 8, half: 3.5 };

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
export function batchArrows(items: readonly BatchItem[], head: HeadSize = DENSE_HEAD): Batch[] {
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
    const bx = it.x2 - head.length * ux;
    const by = it.y2 - head.length * uy;
    const h = head.half;
    add("head", it.color, `M${f1(it.x2)},${f1(it.y2)}L${f1(bx - h * uy)},${f1(by + h * ux)}L${f1(bx + h * uy)},${f1(by - h * ux)}Z`);
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

/** One line about a message, for its tooltip. */
export function arrowText(a: Arrow): string {
  const head = `${a.label} ${a.from} → ${a.to}`;
  const sent = `sent ${formatInstant(a.tFrom)}`;
  switch (a.state) {
    case "delivered":
      return `${head}: ${sent}, arrived ${formatInstant(a.tEnd)}`;
    case "dropped":
      return `${head}: ${sent}, dropped ${formatInstant(a.tEnd)} (${a.reason ?? "dropped"})`;
    case "queued":
      return `${head}: ${sent}, waiting at paused ${a.to}`;
    case "flight": {
      const fate = a.reason === null ? "" : a.reason === "loss" ? ", will be lost" : `, blocked (${a.reason})`;
      return `${head}: ${sent}, in flight, due ${formatInstant(a.dueAt)}${fate}${a.dup ? ", duplicate" : ""}`;
    }
  }
}
