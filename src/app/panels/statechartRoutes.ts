/**
 * The top level of a statechart: its states placed in columns (in a given order), and
 * every edge between them routed. Worked out left to right; the layout transposes the
 * result for top to bottom. Each route is chosen among a few candidates (straight across,
 * over the top, under the bottom, around the side) by what it crosses and its length;
 * the whole placement gets a score, so the layout can try every order of the columns.
 */
import { LEAF_H, LEAF_W } from "./statechartBoxes";
import { polyLength, segIntersectsRect, segments, segsCross } from "./statechartGeometry";
import type { EdgeSpec } from "./statechartMachine";
import type { Direction, LabelSide, Point, Rect, Size } from "./statechartTypes";

const COL_GAP = 104;
const ROW_GAP = 26;
const RANK_GAP_TB = 46;
const ORDER_GAP_TB = 24;
const LANE_GAP = 16;

export interface TopPlacement {
  readonly rects: Map<string, Rect>;
  readonly rank: Map<string, number>;
  readonly order: Map<string, number>;
  readonly columns: string[][];
  readonly down: Rect;
}

export function placeTop(columns: readonly (readonly string[])[], sizes: ReadonlyMap<string, Size>, dir: Direction): TopPlacement {
  const colGap = dir === "LR" ? COL_GAP : RANK_GAP_TB;
  const rowGap = dir === "LR" ? ROW_GAP : ORDER_GAP_TB;
  const colW = columns.map((c) => Math.max(LEAF_W, ...c.map((id) => (sizes.get(id) as Size).w)));
  const colH = columns.map((c) => c.reduce((a, id) => a + (sizes.get(id) as Size).h, 0) + rowGap * (c.length - 1));
  const height = Math.max(...colH);
  const rects = new Map<string, Rect>();
  const rank = new Map<string, number>();
  const order = new Map<string, number>();
  let x = 0;
  columns.forEach((col, ci) => {
    let y = (height - (colH[ci] as number)) / 2;
    col.forEach((id, oi) => {
      const s = sizes.get(id) as Size;
      rects.set(id, { x: x + ((colW[ci] as number) - s.w) / 2, y, w: s.w, h: s.h });
      rank.set(id, ci);
      order.set(id, oi);
      y += s.h + rowGap;
    });
    x += (colW[ci] as number) + colGap;
  });
  // The down box: in the first column, under its states.
  const c0 = columns[0] ?? [];
  const lastOf0 = rects.get(c0[c0.length - 1] as string) as Rect;
  const dh = dir === "LR" ? LEAF_H : LEAF_W;
  const down = { x: 0, y: Math.max(lastOf0.y + lastOf0.h + rowGap, height - dh), w: colW[0] as number, h: dh };
  return { rects, rank, order, columns: columns.map((c) => [...c]), down };
}

export interface Routed {
  readonly spec: EdgeSpec;
  readonly points: Point[];
  /** Which side of its longest segment the label goes: before = above / left, after = below / right. */
  readonly labelSide: LabelSide;
}

/** One way an edge could go. */
interface Candidate {
  readonly pts: Point[];
  readonly side: LabelSide;
  /** The lane it would take (lanes are spent only by the candidate chosen). */
  readonly lane: "top" | "bottom" | "side" | "none";
  readonly penalty?: number;
}

/** An edge's two ends in the placement. */
interface Ends {
  readonly spec: EdgeSpec;
  readonly A: Rect;
  readonly B: Rect;
  /** Columns of the source and the target, and their difference. */
  readonly ra: number;
  readonly dr: number;
  /** The opposite edge is drawn too (the two keep apart). */
  readonly reverse: boolean;
}

const pairKey = (a: string, b: string): string => `${a}->${b}`;

/** Routes the edges of one placement in turn: lanes and attachment slots are spent as it goes. */
class Router {
  private readonly present: ReadonlySet<string>;
  private readonly obstacles: readonly { readonly id: string; readonly r: Rect }[];
  private readonly minY: number;
  private readonly maxY: number;
  private topLanes = 0;
  private bottomLanes = 0;
  private readonly sideLanes = new Map<number, number>();
  /** Attachment offsets so several lane edges at one box do not share a line. */
  private readonly used = new Map<string, number>();

  constructor(
    private readonly p: TopPlacement,
    specs: readonly EdgeSpec[],
    private readonly labelRoom: (s: EdgeSpec) => number,
  ) {
    this.present = new Set(specs.map((s) => pairKey(s.from, s.to)));
    let minY = Number.POSITIVE_INFINITY;
    let maxY = Number.NEGATIVE_INFINITY;
    for (const r of [...p.rects.values(), p.down]) {
      minY = Math.min(minY, r.y);
      maxY = Math.max(maxY, r.y + r.h);
    }
    this.minY = minY;
    this.maxY = maxY;
    this.obstacles = [...p.rects.entries()].map(([id, r]) => ({ id, r })).concat([{ id: "\u0000down", r: p.down }]);
  }

  /** How many times a route goes through a box other than its own two ends. */
  hits(pts: readonly Point[], a: string, b: string): number {
    let n = 0;
    for (const [s, t] of segments(pts)) for (const o of this.obstacles) if (o.id !== a && o.id !== b && segIntersectsRect(s, t, o.r)) n++;
    return n;
  }

  private slot(id: string, side: string): number {
    const k = `${id}:${side}`;
    const n = this.used.get(k) ?? 0;
    this.used.set(k, n + 1);
    return n;
  }

  route(spec: EdgeSpec): Routed {
    const ra = this.p.rank.get(spec.from) as number;
    const rb = this.p.rank.get(spec.to) as number;
    const ends: Ends = {
      spec,
      A: this.p.rects.get(spec.from) as Rect,
      B: this.p.rects.get(spec.to) as Rect,
      ra,
      dr: rb - ra,
      reverse: this.present.has(pairKey(spec.to, spec.from)),
    };
    return Math.abs(ends.dr) === 1 ? this.neighbours(ends) : this.longer(ends);
  }

  /** Between neighbouring columns: straight across where the boxes face each other, else slanted. */
  private neighbours({ spec, A, B, dr, reverse }: Ends): Routed {
    const labelSide: LabelSide = dr >= 0 ? "before" : "after";
    const ax = dr > 0 ? A.x + A.w : A.x;
    const bx = dr > 0 ? B.x : B.x + B.w;
    const lo = Math.max(A.y, B.y) + 8;
    const hi = Math.min(A.y + A.h, B.y + B.h) - 8;
    if (hi >= lo) {
      const mid = (lo + hi) / 2;
      const y = Math.min(hi, Math.max(lo, mid + (reverse ? (dr > 0 ? -8 : 8) : 0)));
      return {
        spec,
        points: [
          { x: ax, y },
          { x: bx, y },
        ],
        labelSide,
      };
    }
    const off = reverse ? (dr > 0 ? -6 : 6) : 0;
    const ay = Math.min(A.y + A.h - 8, Math.max(A.y + 8, B.y + B.h / 2)) + off;
    const by = Math.min(B.y + B.h - 8, Math.max(B.y + 8, A.y + A.h / 2)) + off;
    return {
      spec,
      points: [
        { x: ax, y: ay },
        { x: bx, y: by },
      ],
      labelSide,
    };
  }

  /** Within one column, or across several: the cheapest candidate; its lane is spent. */
  private longer(ends: Ends): Routed {
    const { spec, ra } = ends;
    const candidates: Candidate[] = [];
    const oa = this.p.order.get(spec.from) as number;
    const ob = this.p.order.get(spec.to) as number;
    const adjacent = ends.dr === 0 && Math.abs(oa - ob) === 1;
    if (adjacent) candidates.push(this.acrossTheGap(ends));
    if (!adjacent || (candidates[0]?.penalty ?? 0) > 0) {
      if (ends.dr !== 0) {
        const straight = this.straightAcross(ends);
        if (straight !== null) candidates.push(straight);
        candidates.push(...this.overOrUnder(ends));
      }
      if (ends.dr === 0) candidates.push(this.aroundTheSide(ends));
    }
    let best = candidates[0] as Candidate;
    let bestCost = Number.POSITIVE_INFINITY;
    for (const c of candidates) {
      const cost = this.hits(c.pts, spec.from, spec.to) * 1000 + polyLength(c.pts) / 10 + (c.penalty ?? 0);
      if (cost < bestCost) {
        bestCost = cost;
        best = c;
      }
    }
    if (best.lane === "top") this.topLanes++;
    else if (best.lane === "bottom") this.bottomLanes++;
    else if (best.lane === "side") this.sideLanes.set(ra, (this.sideLanes.get(ra) ?? 0) + 1);
    return { spec, points: best.pts, labelSide: best.side };
  }

  /** Two neighbours in one column: a short arrow across the gap, unless its label does not fit there. */
  private acrossTheGap({ spec, A, B, reverse }: Ends): Candidate {
    const down = A.y < B.y;
    const x = (Math.max(A.x, B.x) + Math.min(A.x + A.w, B.x + B.w)) / 2 + (reverse ? (down ? -12 : 12) : 0);
    const gap = down ? B.y - (A.y + A.h) : A.y - (B.y + B.h);
    return {
      pts: [
        { x, y: down ? A.y + A.h : A.y },
        { x, y: down ? B.y : B.y + B.h },
      ],
      side: "after",
      lane: "none",
      penalty: gap < this.labelRoom(spec) ? 500 : 0,
    };
  }

  /** Straight across the columns in between, where a gap lets it through. */
  private straightAcross({ spec, A, B, dr }: Ends): Candidate | null {
    const ax = dr > 0 ? A.x + A.w : A.x;
    const bx = dr > 0 ? B.x : B.x + B.w;
    const lo = Math.max(A.y, B.y) + 6;
    const hi = Math.min(A.y + A.h, B.y + B.h) - 6;
    const mid = (lo + hi) / 2;
    for (let k = 0; lo <= hi && k <= (hi - lo) / 2; k += 2) {
      const found = [mid - k, mid + k].find((y) => {
        const pts = [
          { x: ax, y },
          { x: bx, y },
        ];
        return this.hits(pts, spec.from, spec.to) === 0;
      });
      if (found !== undefined) {
        return {
          pts: [
            { x: ax, y: found },
            { x: bx, y: found },
          ],
          side: dr > 0 ? "before" : "after",
          lane: "none",
        };
      }
    }
    return null;
  }

  /** Over the top or under the bottom of everything (each takes an attachment slot at both ends). */
  private overOrUnder({ spec, A, B, dr }: Ends): Candidate[] {
    const sa = this.slot(spec.from, "lane") * 10;
    const sb = this.slot(spec.to, "lane") * 10;
    const fx = A.x + A.w / 2 + Math.sign(-dr) * (12 + sa);
    const tx = B.x + B.w / 2 + Math.sign(dr) * (12 + sb);
    const ty = this.minY - LANE_GAP * (this.topLanes + 1);
    const by = this.maxY + LANE_GAP * (this.bottomLanes + 1);
    return [
      {
        pts: [
          { x: fx, y: A.y },
          { x: fx, y: ty },
          { x: tx, y: ty },
          { x: tx, y: B.y },
        ],
        side: "before",
        lane: "top",
      },
      {
        pts: [
          { x: fx, y: A.y + A.h },
          { x: fx, y: by },
          { x: tx, y: by },
          { x: tx, y: B.y + B.h },
        ],
        side: "after",
        lane: "bottom",
      },
    ];
  }

  /** Two states of one column that are not neighbours: out to the right and back. */
  private aroundTheSide({ A, B, ra }: Ends): Candidate {
    const k = this.sideLanes.get(ra) ?? 0;
    const sx = Math.max(A.x + A.w, B.x + B.w) + 14 + 10 * k;
    return {
      pts: [
        { x: A.x + A.w, y: A.y + A.h / 2 },
        { x: sx, y: A.y + A.h / 2 },
        { x: sx, y: B.y + B.h / 2 },
        { x: B.x + B.w, y: B.y + B.h / 2 },
      ],
      side: "after",
      lane: "side",
    };
  }
}

/**
 * Routes every top-level edge. `labelRoom` says how much room (along the column, in
 * these coordinates) an edge's label needs beside a short arrow between two states of
 * one column: when the gap is smaller, the edge goes around the side instead.
 */
export function routeAll(
  p: TopPlacement,
  specs: readonly EdgeSpec[],
  labelRoom: (s: EdgeSpec) => number,
): { routes: Routed[]; score: number } {
  const router = new Router(p, specs, labelRoom);
  const routes: Routed[] = [];
  let score = 0;
  // Short edges first, so lanes are spent on the long ones in a fixed order.
  const ordered = [...specs].sort((a, b) => {
    const da = Math.abs((p.rank.get(a.to) as number) - (p.rank.get(a.from) as number));
    const db = Math.abs((p.rank.get(b.to) as number) - (p.rank.get(b.from) as number));
    return da - db;
  });
  for (const spec of ordered) {
    const r = router.route(spec);
    routes.push(r);
    score += router.hits(r.points, spec.from, spec.to) * 1000 + polyLength(r.points) / 100;
  }
  for (let i = 0; i < routes.length; i++) {
    for (let j = i + 1; j < routes.length; j++) {
      for (const [a, b] of segments((routes[i] as Routed).points)) {
        for (const [c, d] of segments((routes[j] as Routed).points)) if (segsCross(a, b, c, d)) score += 10;
      }
    }
  }
  return { routes, score };
}
