/** Edge labels: the words of an event, the room they take, and where they go beside a route. */
import { eventWordsOf, guardWordsOf } from "../../worker/holderWords";
import { overlapArea, segIntersectsRect, segments } from "./statechartGeometry";
import type { EdgeLabel, LabelSide, Point, Rect } from "./statechartTypes";

export const LABEL_LINE = 11;

/** Rough width of a label line at the edge-label font (10 units). */
export function labelWidth(text: string): number {
  let w = 0;
  for (const ch of text) w += ch >= "A" && ch <= "Z" ? 6.8 : 5.4;
  return w;
}

/** The box a label's text takes (approximate, from labelWidth). */
export function labelBox(l: EdgeLabel): Rect {
  const wide = Math.max(...l.lines.map(labelWidth));
  const x = l.anchor === "middle" ? l.x - wide / 2 : l.anchor === "end" ? l.x - wide : l.x;
  return { x, y: l.y - LABEL_LINE + 2, w: wide, h: (l.lines.length - 1) * LABEL_LINE + LABEL_LINE + 1 };
}

/** A label beside a segment, at fraction t along it. */
function labelAt(a: Point, b: Point, t: number, lines: readonly string[], side: LabelSide): EdgeLabel {
  const mx = a.x + (b.x - a.x) * t;
  const my = a.y + (b.y - a.y) * t;
  const n = lines.length;
  const centredY = my - ((n - 1) * LABEL_LINE) / 2 + 3;
  if (Math.abs(a.y - b.y) < 0.5) {
    // Horizontal: the block sits above or below the line.
    const y = side === "after" ? my + LABEL_LINE + 1 : my - 4 - (n - 1) * LABEL_LINE;
    return { x: mx, y, anchor: "middle", lines };
  }
  if (Math.abs(a.x - b.x) < 0.5) {
    return side === "after" ? { x: mx + 5, y: centredY, anchor: "start", lines } : { x: mx - 5, y: centredY, anchor: "end", lines };
  }
  return { x: mx, y: centredY, anchor: "middle", lines };
}

/**
 * Label placement: beside the longest segment (on a route around the side, beside the
 * segment into the target or out of the source when the text fits along it, so the
 * label stays inside the drawing), at the middle or, if that covers a box, another
 * label or a line, somewhat further along; on either side of a straight segment.
 */
export function labelFor(
  points: readonly Point[],
  lines: readonly string[],
  side: LabelSide,
  obstacles: readonly Rect[],
  lineSegs: readonly [Point, Point][],
): EdgeLabel {
  const segs = segments(points);
  let best = segs[0] as [Point, Point];
  let len = -1;
  for (const s of segs) {
    const l = Math.hypot(s[1].x - s[0].x, s[1].y - s[0].y);
    if (l > len + 0.5) {
      len = l;
      best = s;
    }
  }
  if (segs.length === 3) {
    const wide = Math.max(...lines.map(labelWidth)) + 8;
    for (const s of [segs[2], segs[0]] as [Point, Point][]) {
      const horizontal = Math.abs(s[0].y - s[1].y) < 0.5;
      if (horizontal && Math.abs(s[1].x - s[0].x) >= wide) {
        best = s;
        side = "before";
        break;
      }
    }
  }
  const [a, b] = best;
  const sides: LabelSide[] = [side, side === "before" ? "after" : "before"];
  let pick = labelAt(a, b, 0.5, lines, side);
  let pickCost = Number.POSITIVE_INFINITY;
  for (const sd of sides) {
    for (const t of [0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8]) {
      const l = labelAt(a, b, t, lines, sd);
      const r = labelBox(l);
      const padded = { x: r.x - 2, y: r.y - 2, w: r.w + 4, h: r.h + 4 };
      let cost = 0;
      for (const o of obstacles) cost += 10 * overlapArea(padded, o);
      for (const [p, q] of lineSegs) if (segIntersectsRect(p, q, { x: r.x - 1, y: r.y - 1, w: r.w + 2, h: r.h + 2 })) cost += 40;
      // A small preference for the middle and the given side.
      cost += Math.abs(t - 0.5) * 4 + (sd === side ? 0 : 3);
      if (cost < pickCost) {
        pickCost = cost;
        pick = l;
      }
    }
  }
  return pick;
}

/**
 * An event as drawn on an edge, in words, one or two lines: "GRANTED" as "got the lease";
 * "after:untilDeadline" (a timer) as "its own deadline passed"; a guard on a line of its
 * own ("if there is a grace period", "otherwise"). The words are holderWords.ts's.
 */
export function shortEvent(event: string): string[] {
  const m = /^(.*?)(?: \[(.+)\])?$/.exec(event);
  const base = m?.[1] ?? event;
  const guard = m?.[2];
  const name = eventWordsOf(base);
  if (guard === undefined) return [name];
  return [name, guardWordsOf(guard)];
}
