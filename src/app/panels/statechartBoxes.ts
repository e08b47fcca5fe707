/**
 * The boxes of a statechart's states: a leaf is a fixed box, a compound state a box
 * holding its children (stacked for left to right, side by side for top to bottom), and
 * the small arrows between sibling children (inner edges).
 */
import { bfsRanks, permutations } from "./statechartGeometry";
import { type EdgeSpec, type MachineNodeLike, pathId } from "./statechartMachine";
import type { ChartEdge, Direction, Point, Rect, Size, StateBox } from "./statechartTypes";

export const LEAF_W = 84;
export const LEAF_H = 34;
const PAD_X = 10;
const HEADER = 17;
const CHILD_GAP = 12;
const PAD_BOTTOM = 9;

/**
 * The order of a compound state's children: as many edges as possible between
 * neighbours (an arrow across the gap instead of one around the side), then as close
 * as possible to BFS order from the initial child.
 */
export function childOrder(n: MachineNodeLike, inner: readonly EdgeSpec[]): MachineNodeLike[] {
  const kids = Object.values(n.states);
  if (kids.length <= 1) return kids;
  const ids = kids.map((k) => pathId(k.path));
  const init = n.initial?.target[0];
  const start = init === undefined ? (ids[0] as string) : pathId(init.path);
  const ranks = bfsRanks(ids, start, inner);
  const bfs = kids.map((k, i) => ({ k, i, r: ranks.get(pathId(k.path)) ?? 0 })).sort((a, b) => a.r - b.r || a.i - b.i);
  if (kids.length > 5) return bfs.map((x) => x.k);
  const bfsPos = new Map(bfs.map((x, i) => [x.k, i]));
  const mine = inner.filter((e) => ids.includes(e.from) && ids.includes(e.to));
  let best = bfs.map((x) => x.k);
  let bestCost = Number.POSITIVE_INFINITY;
  for (const perm of permutations(bfs.map((x) => x.k))) {
    const pos = new Map(perm.map((k, i) => [pathId(k.path), i]));
    let cost = 0;
    for (const e of mine) if (Math.abs((pos.get(e.from) as number) - (pos.get(e.to) as number)) > 1) cost += 100;
    perm.forEach((k, i) => {
      cost += Math.abs(i - (bfsPos.get(k) as number));
    });
    if (cost < bestCost) {
      bestCost = cost;
      best = perm;
    }
  }
  return best;
}

/** The size of `n`'s box (and of every box inside it, into `memo`). */
export function sizeOf(n: MachineNodeLike, inner: readonly EdgeSpec[], dir: Direction, memo: Map<string, Size>): Size {
  const kids = childOrder(n, inner);
  let s: Size;
  if (kids.length === 0) s = { w: LEAF_W, h: LEAF_H };
  else {
    const sizes = kids.map((k) => sizeOf(k, inner, dir, memo));
    const gaps = CHILD_GAP * (sizes.length - 1);
    s =
      dir === "LR"
        ? { w: Math.max(...sizes.map((z) => z.w)) + 2 * PAD_X, h: HEADER + sizes.reduce((a, z) => a + z.h, 0) + gaps + PAD_BOTTOM }
        : { w: sizes.reduce((a, z) => a + z.w, 0) + gaps + 2 * PAD_X, h: HEADER + Math.max(...sizes.map((z) => z.h)) + PAD_BOTTOM };
  }
  memo.set(pathId(n.path), s);
  return s;
}

/** Places `n`'s box at (x, y) and its children inside it, parents before children, into `out`. */
export function placeChildren(
  n: MachineNodeLike,
  x: number,
  y: number,
  depth: number,
  parent: string | null,
  inner: readonly EdgeSpec[],
  dir: Direction,
  memo: Map<string, Size>,
  out: StateBox[],
): void {
  const id = pathId(n.path);
  const s = memo.get(id) as Size;
  const kids = childOrder(n, inner);
  out.push({ id, key: n.key, parent, depth, compound: kids.length > 0, x, y, w: s.w, h: s.h, badgeY: y + s.h - 10 });
  let cx = x + PAD_X;
  let cy = y + HEADER;
  for (const k of kids) {
    const ks = memo.get(pathId(k.path)) as Size;
    if (dir === "LR") {
      placeChildren(k, x + (s.w - ks.w) / 2, cy, depth + 1, id, inner, dir, memo, out);
      cy += ks.h + CHILD_GAP;
    } else {
      placeChildren(k, cx, cy, depth + 1, id, inner, dir, memo, out);
      cx += ks.w + CHILD_GAP;
    }
  }
}

/** An edge between two children of one compound state: across the gap, or around the side. */
export function innerEdge(
  spec: EdgeSpec,
  byId: ReadonlyMap<string, StateBox>,
  orderIn: ReadonlyMap<string, number>,
  reverse: boolean,
  dir: Direction,
): ChartEdge {
  const A = byId.get(spec.from) as StateBox;
  const B = byId.get(spec.to) as StateBox;
  const oa = orderIn.get(spec.from) as number;
  const ob = orderIn.get(spec.to) as number;
  const fwd = ob > oa;
  let points: Point[];
  // Worked out for children stacked top to bottom (LR); for TB the same in transposed coordinates.
  const flip = (r: Rect): Rect => (dir === "LR" ? r : { x: r.y, y: r.x, w: r.h, h: r.w });
  const pt = (x: number, y: number): Point => (dir === "LR" ? { x, y } : { x: y, y: x });
  const a = flip(A);
  const b = flip(B);
  if (Math.abs(oa - ob) === 1) {
    // Adjacent: a short arrow across the gap; forward on one side, back on the other.
    const x = fwd ? a.x + a.w * (reverse ? 0.35 : 0.5) : a.x + a.w * (reverse ? 0.65 : 0.5);
    points = [pt(x, fwd ? a.y + a.h : a.y), pt(x, fwd ? b.y : b.y + b.h)];
  } else {
    // Further apart: around the side, in the compound's padding (forward after, back before).
    const pad = dir === "LR" ? PAD_X / 2 : PAD_BOTTOM / 2;
    const sx = fwd ? a.x + a.w + pad : a.x - pad;
    const ex = fwd ? a.x + a.w : a.x;
    const bx = fwd ? b.x + b.w : b.x;
    points = [pt(ex, a.y + a.h / 2), pt(sx, a.y + a.h / 2), pt(sx, b.y + b.h / 2), pt(bx, b.y + b.h / 2)];
  }
  return { id: `${spec.from}->${spec.to}`, from: spec.from, to: spec.to, events: spec.events, inner: true, points, label: null };
}
