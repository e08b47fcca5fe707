/**
 * A statechart drawn from an xstate machine definition (pure: machine -> layout).
 *
 * The layout walks the machine's state nodes and their transitions (events, `after`
 * delays, guards), so the drawing follows the machine when the machine changes.
 *
 * - Top-level states are placed in columns by BFS distance from the initial state over
 *   the drawn edges; compound states are boxes holding their children, stacked
 *   vertically in BFS order from the initial child.
 * - Edges between top-level states are lifted from wherever the transition is defined
 *   (a child's transition to another top-level state counts as the parent's edge) and
 *   labelled by event ("GRANTED", "after:untilRenew"). An event that leads to the same
 *   target from three or more top-level states (RELEASE, REFRESH_LOST) would be a fan
 *   of long arrows: it is returned as a note ("notes") for the page to write under the diagram.
 * - Inner edges join sibling children of one compound state (waiting -> renewing, ...).
 * - Self-loops (a retry re-entering its own state) are left out.
 * - The order of the states inside each column and the route of each long edge are
 *   chosen by trying every combination and scoring it (edges through boxes, crossings,
 *   length): the columns hold at most three states, so this stays small.
 *
 * Coordinates are SVG user units (about CSS pixels at a 16 px root font).
 */
import { holderMachine } from "../../core/holder/holderMachine";

/** The parts of an xstate StateNode the layout reads (structural, so tests may pass plain objects). */
export interface MachineNodeLike {
  readonly key: string;
  readonly path: readonly string[];
  readonly type: string;
  readonly states: { readonly [key: string]: MachineNodeLike };
  readonly transitions: ReadonlyMap<string, readonly MachineTransitionLike[]>;
  readonly after: readonly { readonly delay: unknown; readonly eventType: string }[];
  readonly initial: { readonly target: readonly { readonly path: readonly string[] }[] } | undefined;
}

export interface MachineTransitionLike {
  readonly target: readonly { readonly path: readonly string[] }[] | undefined;
  readonly guard?: unknown;
}

export interface MachineLike {
  readonly root: MachineNodeLike;
}

export interface Rect {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

export interface StateBox extends Rect {
  /** Dotted path from the root: "holding", "holding.waiting". */
  readonly id: string;
  /** The state's own name: "waiting". */
  readonly key: string;
  readonly parent: string | null;
  /** 1 for top-level states, 2 for their children, ... */
  readonly depth: number;
  readonly compound: boolean;
  /** Where the badges of holders in this state go (leaf states only; compounds get none). */
  readonly badgeY: number;
}

export interface Point {
  readonly x: number;
  readonly y: number;
}

export interface EdgeLabel {
  readonly x: number;
  /** Baseline of the first line. */
  readonly y: number;
  readonly anchor: "start" | "middle" | "end";
  readonly lines: readonly string[];
}

export interface ChartEdge {
  /** "from->to". */
  readonly id: string;
  readonly from: string;
  readonly to: string;
  /** Events, one per line: "GRANTED", "after:untilRenew", "after:untilNominalEnd [hasGrace]". */
  readonly events: readonly string[];
  /** Between two children of one compound state (drawn small, labelled on hover only). */
  readonly inner: boolean;
  readonly points: readonly Point[];
  /** null for inner edges (their events are in a tooltip). */
  readonly label: EdgeLabel | null;
}

/** An event taken from several top-level states to one target, written under the diagram. */
export interface ChartNote {
  readonly event: string;
  readonly from: readonly string[];
  readonly to: string;
  /** "RELEASE: idle, requesting, lost → released". */
  readonly text: string;
}

export interface StatechartLayout {
  readonly width: number;
  readonly height: number;
  /** Every state of the machine, parents before their children. */
  readonly boxes: readonly StateBox[];
  readonly byId: ReadonlyMap<string, StateBox>;
  readonly edges: readonly ChartEdge[];
  readonly notes: readonly ChartNote[];
  /** The "down" box for crashed holders (not a state of the machine). */
  readonly down: Rect;
  readonly initial: string;
}

export const LEAF_W = 84;
export const LEAF_H = 34;
const PAD_X = 10;
const HEADER = 17;
const CHILD_GAP = 12;
const PAD_BOTTOM = 9;
const COL_GAP = 104;
const ROW_GAP = 26;
const RANK_GAP_TB = 46;
const ORDER_GAP_TB = 24;
const LANE_GAP = 16;
const MARGIN = 8;
export const LABEL_LINE = 11;
/** An event from at least this many top-level states to one target becomes a note. */
const FAN_IN_NOTE = 3;

const AFTER_PREFIX = "xstate.after.";

interface RawTransition {
  readonly source: string;
  readonly event: string;
  readonly target: string;
  readonly guard: string | null;
}

const pathId = (p: readonly string[]): string => p.join(".");
const top = (id: string): string => id.split(".")[0] as string;
/** The ancestor of `id` at `depth` (1 = top level). */
const atDepth = (id: string, depth: number): string | null => {
  const parts = id.split(".");
  return parts.length < depth ? null : parts.slice(0, depth).join(".");
};

function guardName(g: unknown): string | null {
  if (g === undefined || g === null) return null;
  if (typeof g === "string") return g;
  if (typeof g === "object" && "type" in g && typeof (g as { type: unknown }).type === "string") return (g as { type: string }).type;
  if (typeof g === "function") return g.name || "guard";
  return "guard";
}

function allNodes(root: MachineNodeLike): MachineNodeLike[] {
  const out: MachineNodeLike[] = [];
  const visit = (n: MachineNodeLike): void => {
    out.push(n);
    for (const c of Object.values(n.states)) visit(c);
  };
  visit(root);
  return out;
}

/** The leaf a transition into `n` ends in (following initial states). */
function initialLeaf(n: MachineNodeLike, byPath: ReadonlyMap<string, MachineNodeLike>): string {
  let cur = n;
  for (let i = 0; i < 32; i++) {
    const t = cur.initial?.target[0];
    if (cur.type !== "compound" || t === undefined) break;
    const next = byPath.get(pathId(t.path));
    if (next === undefined) break;
    cur = next;
  }
  return pathId(cur.path);
}

/** Does `n` or a descendant define a transition on `event`? */
function handles(n: MachineNodeLike, event: string): boolean {
  if (n.transitions.has(event)) return true;
  return Object.values(n.states).some((c) => handles(c, event));
}

/** Every transition of the machine, with sources made concrete and display labels. */
export function machineTransitions(machine: MachineLike): RawTransition[] {
  const nodes = allNodes(machine.root);
  const byPath = new Map(nodes.map((n) => [pathId(n.path), n]));
  const raw: RawTransition[] = [];
  for (const n of nodes) {
    const delayOf = new Map(n.after.map((a) => [a.eventType, a.delay]));
    for (const [eventType, defs] of n.transitions) {
      let event = eventType;
      if (eventType.startsWith(AFTER_PREFIX)) {
        const d = delayOf.get(eventType);
        event =
          typeof d === "string"
            ? `after:${d}`
            : typeof d === "number"
              ? `after ${d} ms`
              : `after:${eventType.slice(AFTER_PREFIX.length).split(".")[0]}`;
      }
      for (const def of defs) {
        for (const t of def.target ?? []) {
          const tn = byPath.get(pathId(t.path));
          if (tn === undefined) continue;
          const target = initialLeaf(tn, byPath);
          // A transition defined on a compound state applies in each child that does not
          // handle the event itself (xstate picks the deepest handler).
          const sources: MachineNodeLike[] = [];
          const expand = (s: MachineNodeLike): void => {
            const kids = Object.values(s.states);
            if (s.type !== "compound" || kids.length === 0) {
              sources.push(s);
              return;
            }
            for (const k of kids) if (!handles(k, eventType)) expand(k);
          };
          if (n.path.length === 0 || n.type === "compound") {
            for (const k of Object.values(n.states)) if (!handles(k, eventType)) expand(k);
          } else sources.push(n);
          for (const s of sources) raw.push({ source: pathId(s.path), event, target, guard: guardName(def.guard) });
        }
      }
    }
  }
  return raw;
}

interface EdgeSpec {
  from: string;
  to: string;
  events: string[];
  inner: boolean;
}

/** Groups transitions into drawn edges (top-level and inner) and notes. */
function edgeSpecs(raw: readonly RawTransition[]): { top: EdgeSpec[]; inner: EdgeSpec[]; notes: ChartNote[] } {
  // Guards matter where one event from one state leads to different places.
  const bySourceEvent = new Map<string, RawTransition[]>();
  for (const r of raw) {
    if (r.source === r.target) continue;
    const k = `${r.source}\u0000${r.event}`;
    const list = bySourceEvent.get(k);
    if (list === undefined) bySourceEvent.set(k, [r]);
    else list.push(r);
  }
  const labelled: { from: string; to: string; event: string }[] = [];
  for (const list of bySourceEvent.values()) {
    const targets = new Set(list.map((r) => r.target));
    for (const r of list) {
      const event = targets.size > 1 ? `${r.event} [${r.guard ?? "else"}]` : r.event;
      labelled.push({ from: r.source, to: r.target, event });
    }
  }
  const topMap = new Map<string, EdgeSpec>();
  const innerMap = new Map<string, EdgeSpec>();
  const add = (map: Map<string, EdgeSpec>, from: string, to: string, event: string, inner: boolean): void => {
    const k = `${from}->${to}`;
    const e = map.get(k);
    if (e === undefined) map.set(k, { from, to, events: [event], inner });
    else if (!e.events.includes(event)) e.events.push(event);
  };
  for (const l of labelled) {
    const a = top(l.from);
    const b = top(l.to);
    if (a !== b) add(topMap, a, b, l.event, false);
    else {
      const ca = atDepth(l.from, 2);
      const cb = atDepth(l.to, 2);
      if (ca !== null && cb !== null && ca !== cb) add(innerMap, ca, cb, l.event, true);
    }
  }
  // Fans: one event to one target from many top-level states.
  const fan = new Map<string, Set<string>>();
  for (const e of topMap.values()) {
    for (const ev of e.events) {
      const k = `${ev}\u0000${e.to}`;
      const s = fan.get(k) ?? new Set<string>();
      s.add(e.from);
      fan.set(k, s);
    }
  }
  const notes: ChartNote[] = [];
  for (const [k, froms] of fan) {
    if (froms.size < FAN_IN_NOTE) continue;
    const [event, to] = k.split("\u0000") as [string, string];
    const from = [...froms];
    notes.push({ event, from, to, text: `${event}: ${from.join(", ")} → ${to}` });
    for (const f of from) {
      const e = topMap.get(`${f}->${to}`);
      if (e !== undefined) e.events = e.events.filter((x) => x !== event);
    }
  }
  return { top: [...topMap.values()].filter((e) => e.events.length > 0), inner: [...innerMap.values()], notes };
}

/** BFS distance from `start` over `edges`; unreached nodes come after the farthest. */
function bfsRanks(ids: readonly string[], start: string, edges: readonly { from: string; to: string }[]): Map<string, number> {
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

interface Size {
  w: number;
  h: number;
}

/**
 * The order of a compound state's children: as many edges as possible between
 * neighbours (an arrow across the gap instead of one around the side), then as close
 * as possible to BFS order from the initial child.
 */
function childOrder(n: MachineNodeLike, inner: readonly EdgeSpec[]): MachineNodeLike[] {
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

/** Which way the top-level flow goes: left to right (children stacked) or top to bottom (children side by side). */
export type Direction = "LR" | "TB";

function sizeOf(n: MachineNodeLike, inner: readonly EdgeSpec[], dir: Direction, memo: Map<string, Size>): Size {
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

function placeChildren(
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

// ---------------------------------------------------------------------------------
// Geometry for scoring routes.

function segIntersectsRect(a: Point, b: Point, r: Rect): boolean {
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

function segsCross(a: Point, b: Point, c: Point, d: Point): boolean {
  const o = (p: Point, q: Point, r: Point): number => Math.sign((q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x));
  return o(a, b, c) * o(a, b, d) < 0 && o(c, d, a) * o(c, d, b) < 0;
}

export function rectsOverlap(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

const segments = (pts: readonly Point[]): [Point, Point][] => pts.slice(1).map((p, i) => [pts[i] as Point, p]);

function polyLength(pts: readonly Point[]): number {
  let s = 0;
  for (const [a, b] of segments(pts)) s += Math.hypot(b.x - a.x, b.y - a.y);
  return s;
}

// ---------------------------------------------------------------------------------
// Top-level placement and routing.

interface TopPlacement {
  readonly rects: Map<string, Rect>;
  readonly rank: Map<string, number>;
  readonly order: Map<string, number>;
  readonly columns: string[][];
  readonly down: Rect;
}

function placeTop(columns: readonly (readonly string[])[], sizes: ReadonlyMap<string, Size>, dir: Direction): TopPlacement {
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

interface Routed {
  readonly spec: EdgeSpec;
  readonly points: Point[];
  /** Which side of its longest segment the label goes: before = above / left, after = below / right. */
  readonly labelSide: "before" | "after";
}

/**
 * Routes every top-level edge. `labelRoom` says how much room (along the column, in
 * these coordinates) an edge's label needs beside a short arrow between two states of
 * one column: when the gap is smaller, the edge goes around the side instead.
 */
function routeAll(p: TopPlacement, specs: readonly EdgeSpec[], labelRoom: (s: EdgeSpec) => number): { routes: Routed[]; score: number } {
  const pairKey = (a: string, b: string): string => `${a}->${b}`;
  const present = new Set(specs.map((s) => pairKey(s.from, s.to)));
  let minY = Number.POSITIVE_INFINITY;
  let maxY = Number.NEGATIVE_INFINITY;
  let maxX = Number.NEGATIVE_INFINITY;
  for (const r of [...p.rects.values(), p.down]) {
    minY = Math.min(minY, r.y);
    maxY = Math.max(maxY, r.y + r.h);
    maxX = Math.max(maxX, r.x + r.w);
  }
  const obstacles = [...p.rects.entries()].map(([id, r]) => ({ id, r })).concat([{ id: "\u0000down", r: p.down }]);
  const hits = (pts: readonly Point[], a: string, b: string): number => {
    let n = 0;
    for (const [s, t] of segments(pts)) for (const o of obstacles) if (o.id !== a && o.id !== b && segIntersectsRect(s, t, o.r)) n++;
    return n;
  };
  let topLanes = 0;
  let bottomLanes = 0;
  const sideLanes = new Map<number, number>();
  // Attachment offsets so several lane edges at one box do not share a line.
  const used = new Map<string, number>();
  const slot = (id: string, side: string): number => {
    const k = `${id}:${side}`;
    const n = used.get(k) ?? 0;
    used.set(k, n + 1);
    return n;
  };
  const routes: Routed[] = [];
  let score = 0;
  // Short edges first, so lanes are spent on the long ones in a fixed order.
  const ordered = [...specs].sort((a, b) => {
    const da = Math.abs((p.rank.get(a.to) as number) - (p.rank.get(a.from) as number));
    const db = Math.abs((p.rank.get(b.to) as number) - (p.rank.get(b.from) as number));
    return da - db;
  });
  for (const spec of ordered) {
    const A = p.rects.get(spec.from) as Rect;
    const B = p.rects.get(spec.to) as Rect;
    const ra = p.rank.get(spec.from) as number;
    const rb = p.rank.get(spec.to) as number;
    const dr = rb - ra;
    const reverse = present.has(pairKey(spec.to, spec.from));
    const acx = A.x + A.w / 2;
    const bcx = B.x + B.w / 2;
    let points: Point[];
    let labelSide: Routed["labelSide"] = dr >= 0 ? "before" : "after";
    if (Math.abs(dr) === 1) {
      const ax = dr > 0 ? A.x + A.w : A.x;
      const bx = dr > 0 ? B.x : B.x + B.w;
      const lo = Math.max(A.y, B.y) + 8;
      const hi = Math.min(A.y + A.h, B.y + B.h) - 8;
      if (hi >= lo) {
        const mid = (lo + hi) / 2;
        const y = Math.min(hi, Math.max(lo, mid + (reverse ? (dr > 0 ? -8 : 8) : 0)));
        points = [
          { x: ax, y },
          { x: bx, y },
        ];
      } else {
        const off = reverse ? (dr > 0 ? -6 : 6) : 0;
        const ay = Math.min(A.y + A.h - 8, Math.max(A.y + 8, B.y + B.h / 2)) + off;
        const by = Math.min(B.y + B.h - 8, Math.max(B.y + 8, A.y + A.h / 2)) + off;
        points = [
          { x: ax, y: ay },
          { x: bx, y: by },
        ];
      }
    } else {
      const candidates: { pts: Point[]; side: Routed["labelSide"]; lane: "top" | "bottom" | "side" | "none"; penalty?: number }[] = [];
      const oa = p.order.get(spec.from) as number;
      const ob = p.order.get(spec.to) as number;
      if (dr === 0 && Math.abs(oa - ob) === 1) {
        const down = A.y < B.y;
        const x = (Math.max(A.x, B.x) + Math.min(A.x + A.w, B.x + B.w)) / 2 + (reverse ? (down ? -12 : 12) : 0);
        const gap = down ? B.y - (A.y + A.h) : A.y - (B.y + B.h);
        candidates.push({
          pts: [
            { x, y: down ? A.y + A.h : A.y },
            { x, y: down ? B.y : B.y + B.h },
          ],
          side: "after",
          lane: "none",
          penalty: gap < labelRoom(spec) ? 500 : 0,
        });
      }
      if (!(dr === 0 && Math.abs(oa - ob) === 1) || (candidates[0]?.penalty ?? 0) > 0) {
        if (dr !== 0) {
          // Straight across the columns in between, where a gap lets it through.
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
              return hits(pts, spec.from, spec.to) === 0;
            });
            if (found !== undefined) {
              candidates.push({
                pts: [
                  { x: ax, y: found },
                  { x: bx, y: found },
                ],
                side: dr > 0 ? "before" : "after",
                lane: "none",
              });
              break;
            }
          }
        }
        if (dr !== 0) {
          // Over the top or under the bottom of everything.
          const sa = slot(spec.from, "lane") * 10;
          const sb = slot(spec.to, "lane") * 10;
          const fx = acx + Math.sign(-dr) * (12 + sa);
          const tx = bcx + Math.sign(dr) * (12 + sb);
          const ty = minY - LANE_GAP * (topLanes + 1);
          const by = maxY + LANE_GAP * (bottomLanes + 1);
          candidates.push({
            pts: [
              { x: fx, y: A.y },
              { x: fx, y: ty },
              { x: tx, y: ty },
              { x: tx, y: B.y },
            ],
            side: "before",
            lane: "top",
          });
          candidates.push({
            pts: [
              { x: fx, y: A.y + A.h },
              { x: fx, y: by },
              { x: tx, y: by },
              { x: tx, y: B.y + B.h },
            ],
            side: "after",
            lane: "bottom",
          });
        }
        if (dr === 0) {
          const col = ra;
          const k = sideLanes.get(col) ?? 0;
          const sx = Math.max(A.x + A.w, B.x + B.w) + 14 + 10 * k;
          candidates.push({
            pts: [
              { x: A.x + A.w, y: A.y + A.h / 2 },
              { x: sx, y: A.y + A.h / 2 },
              { x: sx, y: B.y + B.h / 2 },
              { x: B.x + B.w, y: B.y + B.h / 2 },
            ],
            side: "after",
            lane: "side",
          });
        }
      }
      let best = candidates[0] as (typeof candidates)[number];
      let bestCost = Number.POSITIVE_INFINITY;
      for (const c of candidates) {
        const cost = hits(c.pts, spec.from, spec.to) * 1000 + polyLength(c.pts) / 10 + (c.penalty ?? 0);
        if (cost < bestCost) {
          bestCost = cost;
          best = c;
        }
      }
      if (best.lane === "top") topLanes++;
      else if (best.lane === "bottom") bottomLanes++;
      else if (best.lane === "side") sideLanes.set(ra, (sideLanes.get(ra) ?? 0) + 1);
      points = best.pts;
      labelSide = best.side;
    }
    routes.push({ spec, points, labelSide });
    score += hits(points, spec.from, spec.to) * 1000 + polyLength(points) / 100;
  }
  for (let i = 0; i < routes.length; i++) {
    for (let j = i + 1; j < routes.length; j++) {
      for (const [a, b] of segments((routes[i] as Routed).points)) {
        for (const [c, d] of segments((routes[j] as Routed).points)) if (segsCross(a, b, c, d)) score += 10;
      }
    }
  }
  void maxX;
  return { routes, score };
}

function permutations<T>(xs: readonly T[]): T[][] {
  if (xs.length <= 1) return [xs.slice()];
  const out: T[][] = [];
  xs.forEach((x, i) => {
    for (const rest of permutations([...xs.slice(0, i), ...xs.slice(i + 1)])) out.push([x, ...rest]);
  });
  return out;
}

/** The box a label's text takes (approximate, from textWidth). */
export function labelBox(l: EdgeLabel): Rect {
  const wide = Math.max(...l.lines.map(textWidth));
  const x = l.anchor === "middle" ? l.x - wide / 2 : l.anchor === "end" ? l.x - wide : l.x;
  return { x, y: l.y - LABEL_LINE + 2, w: wide, h: (l.lines.length - 1) * LABEL_LINE + LABEL_LINE + 1 };
}

/** A label beside a segment, at fraction t along it. */
function labelAt(a: Point, b: Point, t: number, lines: readonly string[], side: Routed["labelSide"]): EdgeLabel {
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

function overlapArea(a: Rect, b: Rect): number {
  const w = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

/**
 * Label placement: beside the longest segment (on a route around the side, beside the
 * segment into the target or out of the source when the text fits along it, so the
 * label stays inside the drawing), at the middle or, if that covers a box, another
 * label or a line, somewhat further along; on either side of a straight segment.
 */
function labelFor(
  points: readonly Point[],
  lines: readonly string[],
  side: Routed["labelSide"],
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
    const wide = Math.max(...lines.map(textWidth)) + 8;
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
  const sides: Routed["labelSide"][] = [side, side === "before" ? "after" : "before"];
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

function innerEdge(
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

/**
 * An event as drawn on an edge, one or two lines: "GRANTED"; "after:untilDeadline" as
 * "after deadline" (a timer; "until" dropped); a guard on a line of its own ("if hasGrace",
 * "otherwise").
 */
export function shortEvent(event: string): string[] {
  const m = /^(.*?)(?: \[(.+)\])?$/.exec(event);
  const base = m?.[1] ?? event;
  const guard = m?.[2];
  let name = base;
  if (base.startsWith("after:")) {
    const d = base.slice("after:".length);
    const bare = d.startsWith("until") && d.length > 5 ? d.charAt(5).toLowerCase() + d.slice(6) : d;
    name = `after ${bare}`;
  }
  if (guard === undefined) return [name];
  return [name, guard === "else" ? "otherwise" : `if ${guard}`];
}

export interface LayoutOptions {
  readonly direction?: Direction;
}

const transposeRect = (r: Rect): Rect => ({ x: r.y, y: r.x, w: r.h, h: r.w });
const transposePoint = (p: Point): Point => ({ x: p.y, y: p.x });

/** Lays out a machine's statechart (see the module comment). Deterministic. */
export function layoutStatechart(machine: MachineLike, options: LayoutOptions = {}): StatechartLayout {
  const dir = options.direction ?? "TB";
  const root = machine.root;
  const raw = machineTransitions(machine);
  const { top: topSpecs, inner: innerSpecs, notes } = edgeSpecs(raw);
  const tops = Object.values(root.states);
  const topIds = tops.map((n) => pathId(n.path));
  const init = root.initial?.target[0];
  const initial = init === undefined ? (topIds[0] as string) : pathId(init.path);
  const rank = bfsRanks(topIds, initial, topSpecs);
  const memo = new Map<string, Size>();
  for (const n of tops) sizeOf(n, innerSpecs, dir, memo);
  // The top level is placed and routed left to right; for TB in transposed coordinates.
  const topSizes = new Map<string, Size>();
  for (const id of topIds) {
    const z = memo.get(id) as Size;
    topSizes.set(id, dir === "LR" ? z : { w: z.h, h: z.w });
  }

  // Along a column: a label's height (LR), or its width (TB, where columns are rows).
  const labelRoom = (sp: EdgeSpec): number => {
    const lines = sp.events.flatMap(shortEvent);
    return dir === "LR" ? lines.length * LABEL_LINE + 6 : Math.max(...lines.map(textWidth)) + 10;
  };
  const nCols = Math.max(...rank.values()) + 1;
  const baseCols: string[][] = Array.from({ length: nCols }, () => []);
  for (const id of topIds) (baseCols[rank.get(id) as number] as string[]).push(id);

  // Try every order of every column (small: at most a few dozen combinations).
  const perms = baseCols.map((c) => (c.length <= 4 ? permutations(c) : [c]));
  let bestCols = baseCols;
  let bestScore = Number.POSITIVE_INFINITY;
  const choose = (ci: number, acc: string[][]): void => {
    if (ci === perms.length) {
      const { score } = routeAll(placeTop(acc, topSizes, dir), topSpecs, labelRoom);
      if (score < bestScore - 1e-9) {
        bestScore = score;
        bestCols = acc.map((c) => c.slice());
      }
      return;
    }
    for (const p of perms[ci] as string[][]) choose(ci + 1, [...acc, p]);
  };
  choose(0, []);

  const placement = placeTop(bestCols, topSizes, dir);
  const { routes } = routeAll(placement, topSpecs, labelRoom);
  const rectOf = (id: string): Rect => {
    const r = placement.rects.get(id) as Rect;
    return dir === "LR" ? r : transposeRect(r);
  };
  const toFinal = (p: Point): Point => (dir === "LR" ? p : transposePoint(p));

  const boxes: StateBox[] = [];
  for (const n of tops) {
    const r = rectOf(pathId(n.path));
    placeChildren(n, r.x, r.y, 1, null, innerSpecs, dir, memo, boxes);
  }
  const byId0 = new Map(boxes.map((b) => [b.id, b]));
  const orderIn = new Map<string, number>();
  for (const n of allNodes(root)) {
    for (const [i, k] of childOrder(n, innerSpecs).entries()) orderIn.set(pathId(k.path), i);
  }

  const innerPresent = new Set(innerSpecs.map((s) => `${s.from}->${s.to}`));
  const down = dir === "LR" ? placement.down : transposeRect(placement.down);
  const finalRoutes = routes.map((r) => ({ r, points: r.points.map(toFinal) }));
  // Labels keep off the boxes (the top-level ones: labels go between them), each other and other lines.
  const labelObstacles: Rect[] = [...boxes.filter((b) => b.depth === 1), down];
  const topEdges: ChartEdge[] = [];
  for (const { r, points } of finalRoutes) {
    const others = finalRoutes.filter((o) => o.r !== r).flatMap((o) => segments(o.points));
    const label = labelFor(points, r.spec.events.flatMap(shortEvent), r.labelSide, labelObstacles, others);
    labelObstacles.push(labelBox(label));
    topEdges.push({
      id: `${r.spec.from}->${r.spec.to}`,
      from: r.spec.from,
      to: r.spec.to,
      events: r.spec.events,
      inner: false,
      points,
      label,
    });
  }
  const edges: ChartEdge[] = [
    ...topEdges,
    ...innerSpecs.map((s) => innerEdge(s, byId0, orderIn, innerPresent.has(`${s.to}->${s.from}`), dir)),
  ];

  // Normalise: everything (boxes, routes, labels) inside [MARGIN, width - MARGIN].
  let minX = Number.POSITIVE_INFINITY;
  let minY = Number.POSITIVE_INFINITY;
  let maxX = Number.NEGATIVE_INFINITY;
  let maxY = Number.NEGATIVE_INFINITY;
  const grow = (x: number, y: number): void => {
    minX = Math.min(minX, x);
    minY = Math.min(minY, y);
    maxX = Math.max(maxX, x);
    maxY = Math.max(maxY, y);
  };
  for (const b of [...boxes, down]) {
    grow(b.x, b.y);
    grow(b.x + b.w, b.y + b.h);
  }
  for (const e of edges) {
    for (const pt of e.points) grow(pt.x, pt.y);
    if (e.label !== null) {
      const r = labelBox(e.label);
      grow(r.x, r.y);
      grow(r.x + r.w, r.y + r.h);
    }
  }
  const dx = MARGIN - minX;
  const dy = MARGIN - minY;
  const shift = <T extends { x: number; y: number }>(r: T): T => ({ ...r, x: r.x + dx, y: r.y + dy });
  const finalBoxes = boxes.map((b) => ({ ...shift(b), badgeY: b.badgeY + dy }));
  return {
    width: Math.ceil(maxX - minX + 2 * MARGIN),
    height: Math.ceil(maxY - minY + 2 * MARGIN),
    boxes: finalBoxes,
    byId: new Map(finalBoxes.map((b) => [b.id, b])),
    edges: edges.map((e) => ({ ...e, points: e.points.map(shift), label: e.label === null ? null : shift(e.label) })),
    notes,
    down: shift(down),
    initial,
  };
}

/** Rough width of a label line at the edge-label font (10 units). */
export function textWidth(text: string): number {
  let w = 0;
  for (const ch of text) w += ch >= "A" && ch <= "Z" ? 6.8 : 5.4;
  return w;
}

/**
 * The box a dotted state ("holding.waiting", "jeopardy.{...}") is drawn in: the deepest
 * box whose id is a prefix of it; null for "down" or an unknown state.
 */
export function boxForState(layout: StatechartLayout, state: string): string | null {
  const parts = state.split(".");
  for (let n = parts.length; n > 0; n--) {
    const id = parts.slice(0, n).join(".");
    if (layout.byId.has(id)) return id;
  }
  return null;
}

export interface BadgePlace {
  readonly x: number;
  readonly w: number;
  readonly text: string;
  /** Holder ids it stands for (one, or several for the "+N" overflow). */
  readonly ids: readonly string[];
}

/** Width of a badge (its text at the 10-unit bold badge font, plus padding). */
export function badgeWidth(text: string): number {
  let w = 8;
  for (const ch of text) w += ch === " " ? 3 : ch === "⏸" ? 9 : 5.9;
  return w;
}

/**
 * Places badges in a row inside a box (left to right, 3 units apart); what does not fit
 * is one "+N" badge at the end.
 */
export function placeBadges(box: Rect, badges: readonly { readonly id: string; readonly text: string }[]): BadgePlace[] {
  const gap = 3;
  const left = box.x + 5;
  const right = box.x + box.w - 5;
  const out: BadgePlace[] = [];
  let x = left;
  for (let i = 0; i < badges.length; i++) {
    const b = badges[i] as { id: string; text: string };
    const w = badgeWidth(b.text);
    const restAfter = badges.length - i - 1;
    const moreW = restAfter > 0 ? gap + badgeWidth(`+${restAfter}`) : 0;
    if (x + w + moreW > right) {
      const rest = badges.slice(i);
      const text = `+${rest.length}`;
      out.push({ x, w: badgeWidth(text), text, ids: rest.map((r) => r.id) });
      return out;
    }
    out.push({ x, w, text: b.text, ids: [b.id] });
    x += w + gap;
  }
  return out;
}

let holderLayout: StatechartLayout | null = null;

/** The holder statechart's layout, computed once from `holderMachine`. */
export function holderChartLayout(): StatechartLayout {
  if (holderLayout === null) holderLayout = layoutStatechart(holderMachine);
  return holderLayout;
}
