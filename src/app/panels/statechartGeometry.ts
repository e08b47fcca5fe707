/** Plane geometry for scoring routes and labels, and the small search helpers the layout uses. */
import type { Point, Rect } from "./statechartTypes";

export function segIntersectsRect(a: Point, b: Point, r: Rect): boolean {
  // Liang-Barsky clip against a rectangle shrunk by 1 (touching a border is fine).
  const x0 = r.x + 1;
  const y0 = r.y + 1;
  const x1 = r.x + r.w - 1;
  const y1 = r.y + r.h - 1;
  let t0 = 0;
  let t1 = 1;
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const clip = (p: number, q: number): boolean => {
    if (p === 0) return q >= 0;
    const t = q / p;
    if (p < 0) {
      if (t > t1) return false;
      if (t > t0) t0 = t;
    } else {
      if (t < t0) return false;
      if (t < t1) t1 = t;
    }
    return true;
  };
  return clip(-dx, a.x - x0) && clip(dx, x1 - a.x) && clip(-dy, a.y - y0) && clip(dy, y1 - a.y) && t0 < t1;
}

export function segsCross(a: Point, b: Point, c: Point, d: Point): boolean {
  const o = (p: Point, q: Point, r: Point): number => Math.sign((q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x));
  return o(a, b, c) * o(a, b, d) < 0 && o(c, d, a) * o(c, d, b) < 0;
}

export function rectsOverlap(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

export const segments = (pts: readonly Point[]): [Point, Point][] => pts.slice(1).map((p, i) => [pts[i] as Point, p]);

export function polyLength(pts: readonly Point[]): number {
  let s = 0;
  for (const [a, b] of segments(pts)) s += Math.hypot(b.x - a.x, b.y - a.y);
  return s;
}

export function overlapArea(a: Rect, b: Rect): number {
  const w = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

/** Every order of `xs` (the layout tries them all: the lists are short). */
export function permutations<T>(xs: readonly T[]): T[][] {
  if (xs.length <= 1) return [xs.slice()];
  const out: T[][] = [];
  xs.forEach((x, i) => {
    for (const rest of permutations([...xs.slice(0, i), ...xs.slice(i + 1)])) out.push([x, ...rest]);
  });
  return out;
}

/** BFS distance from `start` over `edges`; unreached nodes come after the farthest. */
export function bfsRanks(ids: readonly string[], start: string, edges: readonly { from: string; to: string }[]): Map<string, number> {
  const rank = new Map<string, number>([[start, 0]]);
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const cur = queue[i] as string;
    for (const e of edges) {
      if (e.from !== cur || rank.has(e.to)) continue;
      rank.set(e.to, (rank.get(cur) as number) + 1);
      queue.push(e.to);
    }
  }
  let max = 0;
  for (const r of rank.values()) max = Math.max(max, r);
  for (const id of ids) if (!rank.has(id)) rank.set(id, max + 1);
  return rank;
}
