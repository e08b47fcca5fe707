/**
 * Where the read check's drawing puts things (pure, for readsDrawing.ts and its tests): one
 * row per client, each operation a bar from its call to its answer (one with no answer runs
 * open to the right edge), its words above or below it so that no two overlap, the read that
 * cannot be placed and the write it should have seen marked, on a time axis. Units are the
 * SVG's own (a viewBox WIDTH wide, scaled to the dialog), so text grows with the screen.
 */
import { scaleLinear } from "d3-scale";
import { formatInstant } from "../../core/sim/time";
import type { ReadCheckOp, ReadViolationView } from "../../worker/readCheckTypes";

export const WIDTH = 1000;
export const FONT = 17;
const LEFT = 64;
const RIGHT = 16;
const TOP = 52;
const ROW = 84;
/** Within a row: the upper label's baseline, the bar, the lower label's baseline. */
const ABOVE = 22;
const BAR_Y = 32;
export const BAR_H = 18;
const BELOW = 72;
const AXIS = 40;
/** A character's width, roughly, as a share of the font size (labels are placed with it). */
const CHAR = 0.56;
const GAP = 12;

export type BarRole = "stuck" | "missed" | "read" | "write";

export interface PlacedBar {
  readonly index: number;
  readonly role: BarRole;
  readonly open: boolean;
  readonly x0: number;
  readonly x1: number;
  readonly y: number;
  readonly label: string;
  readonly labelX: number;
  readonly labelY: number;
  readonly anchor: "start" | "end";
  /** The whole operation in words (the bar's tooltip). */
  readonly title: string;
}

export interface ReadsLayout {
  readonly height: number;
  readonly rows: readonly { readonly client: string; readonly y: number }[];
  readonly bars: readonly PlacedBar[];
  readonly ticks: readonly { readonly x: number; readonly text: string; readonly anchor: "start" | "middle" | "end" }[];
  readonly axisY: number;
  /** Dashed lines: when the missed write finished (its words to the left) and when the read was called (to the right). */
  readonly guides: readonly Guide[];
}

/** A dashed line down the rows at `x`, its words at (textX, textY), on a line of their own. */
export interface Guide {
  readonly x: number;
  readonly text: string;
  readonly textX: number;
  readonly textY: number;
  readonly anchor: "start" | "end";
  readonly role: "missed" | "stuck";
}

function roleOf(v: ReadViolationView, i: number, op: ReadCheckOp): BarRole {
  if (i === v.stuck) return "stuck";
  if (i === v.missed) return "missed";
  return op.operation === "get" ? "read" : "write";
}

/** The words on a bar: the stuck one says it cannot be placed, the missed write that it should have been seen. */
export function barLabel(role: BarRole, op: ReadCheckOp): string {
  if (role === "stuck") return `✗ ${op.label}`;
  if (role === "missed") return `${op.label}: should have been seen`;
  return op.outcome === "info" ? `${op.label} (no answer)` : op.label;
}

/** The operation in full words, for its tooltip and the list read aloud. */
export function opWords(op: ReadCheckOp): string {
  const when =
    op.returnUs === null
      ? `called at ${formatInstant(op.callUs)}, no answer came`
      : `called at ${formatInstant(op.callUs)}, answered at ${formatInstant(op.returnUs)}`;
  return `${op.client}: ${op.label} (${when})`;
}

const textWidth = (s: string): number => s.length * FONT * CHAR;

export function readsLayout(v: ReadViolationView): ReadsLayout {
  const clients = [...new Set(v.ops.map((o) => o.client))].sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
  const rowY = new Map(clients.map((c, i) => [c, TOP + i * ROW]));
  const times = v.ops.flatMap((o) => (o.returnUs === null ? [o.callUs] : [o.callUs, o.returnUs]));
  const lo = Math.min(...times);
  const hi = Math.max(...times, lo + 1);
  const pad = (hi - lo) * 0.06;
  const x = scaleLinear()
    .domain([lo - pad, hi + pad])
    .range([LEFT, WIDTH - RIGHT]);
  const right = WIDTH - RIGHT;
  // Labels go above the bar (lane 0) or below it (lane 1), never over another label: the
  // stuck read's and the missed write's words first, then the rest in call order; a label
  // with no room in either lane is left out (the bar's tooltip and the list read aloud keep it).
  const taken = new Map<string, [number, number][][]>();
  const fits = (spans: readonly [number, number][], from: number, to: number): boolean => spans.every(([a, b]) => to + GAP <= a || b + GAP <= from);
  const order = v.ops
    .map((op, index) => ({ op, index, role: roleOf(v, index, op) }))
    .sort((a, b) => Number(b.role === "stuck" || b.role === "missed") - Number(a.role === "stuck" || a.role === "missed") || a.op.callUs - b.op.callUs);
  const bars: PlacedBar[] = [];
  for (const { op, index, role } of order) {
    const y = (rowY.get(op.client) as number) + BAR_Y;
    const x0 = x(op.callUs);
    const x1 = op.returnUs === null ? right : Math.max(x0 + 4, x(op.returnUs));
    const words = barLabel(role, op);
    const w = textWidth(words);
    // Past the right edge the label ends at the bar's end instead of starting at its start.
    const anchor = x0 + w > right ? "end" : "start";
    const from = anchor === "start" ? x0 : Math.min(right, x1) - w;
    const lanes = taken.get(op.client) ?? [[], []];
    taken.set(op.client, lanes);
    const free = fits(lanes[0] as [number, number][], from, from + w) ? 0 : fits(lanes[1] as [number, number][], from, from + w) ? 1 : null;
    const lane = free ?? (role === "stuck" || role === "missed" ? 0 : null);
    if (lane !== null) lanes[lane]?.push([from, from + w]);
    const base = rowY.get(op.client) as number;
    bars.push({
      index,
      role,
      open: op.returnUs === null,
      x0,
      x1,
      y,
      label: lane === null ? "" : words,
      labelX: anchor === "start" ? x0 : Math.min(right, x1),
      labelY: base + (lane === 1 ? BELOW : ABOVE),
      anchor,
      title: opWords(op),
    });
  }
  bars.sort((a, b) => a.index - b.index);
  const axisY = TOP + clients.length * ROW + 4;
  // A tick's words stay on the drawing: near an edge they end (or start) at the tick.
  const ticks = x.ticks(5).map((t) => {
    const text = formatInstant(t);
    const half = textWidth(text) / 2;
    const anchor = x(t) + half > WIDTH ? ("end" as const) : x(t) - half < 0 ? ("start" as const) : ("middle" as const);
    return { x: x(t), text, anchor };
  });
  const guides: Guide[] = [];
  const stuck = v.ops[v.stuck];
  const missed = v.missed === null ? undefined : v.ops[v.missed];
  if (missed !== undefined && missed.returnUs !== null) {
    // Its words end at the line (what came before), kept on the screen.
    const what = missed.operation === "append" || missed.operation === "delete" ? missed.operation : "write";
    const text = `${missed.client}'s ${what} finished ${formatInstant(missed.returnUs)}`;
    const gx = x(missed.returnUs);
    guides.push({ x: gx, text, textX: Math.max(gx, textWidth(text) + 4), textY: 18, anchor: "end", role: "missed" });
  }
  if (stuck !== undefined) {
    // Its words start at the line (what came after), on the line below the missed write's.
    const text = `${stuck.client}'s ${stuck.operation === "get" ? "read" : "request"} called ${formatInstant(stuck.callUs)}`;
    const gx = x(stuck.callUs);
    guides.push({ x: gx, text, textX: Math.min(gx, right - textWidth(text)), textY: 40, anchor: "start", role: "stuck" });
  }
  return { height: axisY + AXIS, rows: clients.map((c) => ({ client: c, y: rowY.get(c) as number })), bars, ticks, axisY, guides };
}
