/**
 * Where the ring's moving labels go (message names, drop words) so that they never cover
 * each other nor the fixed text of the drawing (node ids, clocks, holder boxes, the
 * storage's captions, the clients). Pure: boxes in viewBox units, a greedy placement in a
 * fixed order, so the same input always gives the same picture.
 */
import type { Box } from "../diagram/labels";
import type { Pt, RingLayout } from "./geometry";
import { readsAnchor } from "./readsWords";

/** An axis-aligned box: top-left corner, width and height (the space-time diagram's). */
export type { Box };

export function boxesOverlap(a: Box, b: Box): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

/** Font size of the moving labels (viewBox units; see Ring.css .mlabel). */
export const LABEL_FONT = 12.5;
/** A generous width per character: labels are placed without measuring the DOM. */
const CHAR_W = 0.62;
const LINE_H = 1.3;

/** The width and height a one-line text of `font` size takes (over-estimated, never under). */
export function textSize(text: string, font = LABEL_FONT): { w: number; h: number } {
  return { w: Math.ceil(text.length * font * CHAR_W + 4), h: font * LINE_H };
}

/** A box around a text: anchored at its start (left) or middle, vertically centred on y. */
export function textBox(x: number, y: number, text: string, font: number, anchor: "start" | "middle" | "end" = "middle"): Box {
  const { w, h } = textSize(text, font);
  const left = anchor === "start" ? x : anchor === "end" ? x - w : x - w / 2;
  return { x: left, y: y - h / 2, w, h };
}

export interface LabelWish {
  readonly id: number;
  /** The dot the label belongs to. */
  readonly at: Pt;
  readonly text: string;
  /** Higher goes first (the selected or hovered message, then lease and storage messages). */
  readonly priority: number;
  readonly font?: number;
}

export interface PlacedLabel {
  /** Where the text starts (left edge, vertically centred), relative to the dot. */
  readonly dx: number;
  readonly dy: number;
  readonly box: Box;
}

/** Labels of at least this priority may sit farther from their dot (lease and storage messages, the focused one). */
export const FAR_FROM = 1;
/** Labels of at least this priority also try every spot near their dot before being left out (lease and storage messages, the focused one). */
export const NEARBY_FROM = 2;

/** The point of a placed label's box nearest its dot (relative to the dot), for a leader line; null when it is close. */
export function leaderEnd(p: Pick<PlacedLabel, "dx" | "dy" | "box">): Pt | null {
  const x = Math.max(p.dx, Math.min(0, p.dx + p.box.w));
  const y = Math.max(p.dy - p.box.h / 2, Math.min(0, p.dy + p.box.h / 2));
  return Math.hypot(x, y) > 16 ? { x, y } : null;
}

/** Offsets tried, in order, for a label of width w and height h beside a dot (start-anchored, centred on dy). */
function candidates(w: number, h: number, far: boolean): Pt[] {
  const gap = 8;
  const up = -(h / 2 + 4);
  const down = h / 2 + 4;
  return [
    { x: gap, y: up },
    { x: gap, y: down },
    { x: -gap - w, y: up },
    { x: -gap - w, y: down },
    { x: gap + 2, y: 0 },
    { x: -gap - 2 - w, y: 0 },
    { x: -w / 2, y: -(h + 6) },
    { x: -w / 2, y: h + 6 },
    { x: gap, y: up - h },
    { x: -gap - w, y: up - h },
    { x: gap, y: down + h },
    { x: -gap - w, y: down + h },
    // Farther out (with a leader line), for an important dot just leaving or reaching a process.
    ...(far ? [40, 72] : []).flatMap((far) => [
      { x: far, y: up },
      { x: far, y: down },
      { x: -far - w, y: up },
      { x: -far - w, y: down },
      { x: far, y: 0 },
      { x: -far - w, y: 0 },
    ]),
    ...(far
      ? [
          { x: -w / 2, y: -(2 * h + 10) },
          { x: -w / 2, y: 2 * h + 10 },
        ]
      : []),
  ];
}

/** How far (from the dot to the nearest point of its box) the last-resort spots reach. */
export const NEARBY_REACH = 130;
/** Grid spacing across (half of it along the text: a label's slot is often only a little wider than it). */
const NEARBY_STEP = 6;
const nearbyCache = new Map<string, Pt[]>();

/**
 * Last resort for an important label whose dot sits in a narrow gap (between a node's clock
 * and the storage, or a holder box and the clocks above it): every offset on a 6-unit grid
 * (3 across, 6 down) whose box comes within NEARBY_REACH of the dot, nearest first (ties in a fixed order).
 */
function nearby(w: number, h: number): Pt[] {
  const key = `${w}x${h}`;
  const hit = nearbyCache.get(key);
  if (hit !== undefined) return hit;
  const spots: { p: Pt; d: number; a: number }[] = [];
  const R = NEARBY_REACH;
  for (let x = -w - R; x <= R; x += NEARBY_STEP / 2) {
    for (let y = -R - h / 2; y <= R + h / 2; y += NEARBY_STEP) {
      const d = Math.hypot(Math.max(x, Math.min(0, x + w)), Math.max(y - h / 2, Math.min(0, y + h / 2)));
      if (d <= R) spots.push({ p: { x, y }, d, a: Math.atan2(y, x + w / 2) });
    }
  }
  spots.sort((s, t) => s.d - t.d || s.a - t.a);
  const out = spots.map((s) => s.p);
  nearbyCache.set(key, out);
  return out;
}

/**
 * Places labels greedily, highest priority first (then by id): each takes the first
 * offset whose box meets no obstacle and no label placed before it, and stays inside
 * `bounds`; a label with no free spot is left out (its dot is still drawn).
 */
export function placeRingLabels(wishes: readonly LabelWish[], obstacles: readonly Box[], bounds?: Box): Map<number, PlacedLabel> {
  const order = [...wishes].sort((a, b) => b.priority - a.priority || a.id - b.id);
  const taken: Box[] = [];
  const out = new Map<number, PlacedLabel>();
  for (const wish of order) {
    if (wish.text === "") continue;
    const { w, h } = textSize(wish.text, wish.font ?? LABEL_FONT);
    const fits = (c: Pt, against: readonly Box[], also: readonly Box[]): Box | null => {
      const box = { x: wish.at.x + c.x, y: wish.at.y + c.y - h / 2, w, h };
      if (bounds !== undefined && !inside(box, bounds)) return null;
      return against.some((o) => boxesOverlap(o, box)) || also.some((o) => boxesOverlap(o, box)) ? null : box;
    };
    let spot: { c: Pt; box: Box } | null = null;
    for (const c of candidates(w, h, wish.priority >= FAR_FROM)) {
      const box = fits(c, obstacles, taken);
      if (box !== null) {
        spot = { c, box };
        break;
      }
    }
    if (spot === null && wish.priority >= NEARBY_FROM) {
      // The last-resort spots are many: only what one of them could reach is checked against.
      const reach = { x: wish.at.x - w - NEARBY_REACH - h, y: wish.at.y - NEARBY_REACH - 2 * h, w: 2 * (w + NEARBY_REACH + h), h: 2 * (NEARBY_REACH + 2 * h) };
      const near = [...obstacles, ...taken].filter((o) => boxesOverlap(o, reach));
      for (const c of nearby(w, h)) {
        const box = fits(c, near, []);
        if (box !== null) {
          spot = { c, box };
          break;
        }
      }
    }
    if (spot === null) continue;
    taken.push(spot.box);
    out.set(wish.id, { dx: spot.c.x, dy: spot.c.y, box: spot.box });
  }
  return out;
}

function inside(b: Box, bounds: Box): boolean {
  return b.x >= bounds.x && b.y >= bounds.y && b.x + b.w <= bounds.x + bounds.w && b.y + b.h <= bounds.y + bounds.h;
}

/** Font sizes of the fixed text (viewBox units), as in Ring.css. */
export const FIXED_FONT = { clock: 12.5, status: 12.5, clientCaption: 12.5 } as const;

/**
 * Boxes the moving labels must keep off: each node with its crown, timer and the status,
 * clock and drift lines below it; each holder box with its countdown line; the storage with
 * its captions; the clients and their caption. Conservative (a bit larger than drawn).
 */
export function fixedObstacles(L: RingLayout, lines?: ReadonlyMap<string, number>, reads?: ReadonlyMap<string, readonly string[]>): Box[] {
  const out: Box[] = [];
  for (const [id, p] of L.places) {
    if (p.kind === "node") {
      const r = L.nodeRadius + 8;
      // The crown rises 21 above the body; up to three text lines below (status, clock, drift).
      out.push({ x: p.x - r, y: p.y - L.nodeRadius - 24, w: 2 * r, h: 2 * r + 16 });
      const w = textSize("clock 000.000 s", FIXED_FONT.clock).w;
      const n = lines?.get(id) ?? 3;
      out.push({ x: p.x - w / 2, y: p.y + L.nodeRadius + 12, w, h: n * 16 + 2 });
      // The lines about its leases for reads, below those, and the book icon at its left.
      const rl = reads?.get(id) ?? [];
      if (rl.length > 0) {
        const rw = Math.max(...rl.map((s) => textSize(s, FIXED_FONT.clock).w));
        const at = readsAnchor(p, L.center, L.nodeRadius);
        const left = at.anchor === "end" ? p.x + at.x - rw : at.anchor === "start" ? p.x + at.x : p.x - rw / 2;
        out.push({ x: left, y: p.y + L.nodeRadius + 12 + n * 16, w: rw, h: rl.length * 16 + 2 });
        out.push({ x: p.x - L.nodeRadius - 16, y: p.y - L.nodeRadius, w: 20, h: 20 });
      }
    } else if (p.kind === "holder") {
      const { w, h } = L.holderSize;
      out.push({ x: p.x - w / 2 - 4, y: p.y - h / 2 - 4, w: w + 8, h: h + 8 + 18 });
    } else if (p.kind === "storage") {
      // The cylinder, then "✓ fencing on", the counts and the status below it.
      out.push({ x: p.x - 72, y: p.y - 42, w: 144, h: 42 + 100 });
    } else {
      const r = L.clientRadius + 3;
      out.push({ x: p.x - r, y: p.y - r, w: 2 * r, h: 2 * r });
    }
  }
  const cap = clientCaption(L);
  if (cap !== null) out.push(textBox(cap.x, cap.y, cap.text, FIXED_FONT.clientCaption, "start"));
  return out;
}

/** How many text lines each node has below it (clock; status when not up or not a member; drift when it drifts). */
export function nodeLines(nodes: readonly { readonly id: string; readonly status: string; readonly member: boolean; readonly driftPpm: number }[]): Map<string, number> {
  return new Map(nodes.map((n) => [n.id, 1 + (n.status !== "up" || !n.member ? 1 : 0) + (n.driftPpm !== 0 ? 1 : 0)]));
}

/** The "clients" caption above the client column, or null without clients. */
export function clientCaption(L: RingLayout): { x: number; y: number; text: string } | null {
  const clients = [...L.places.values()].filter((p) => p.kind === "client");
  if (clients.length === 0) return null;
  const top = Math.min(...clients.map((p) => p.y - p.radius));
  const left = Math.min(...clients.map((p) => p.x - p.radius));
  return { x: Math.max(2, left - 2), y: top - 14, text: "clients" };
}
