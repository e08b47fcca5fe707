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
 *
 * The parts: statechartMachine.ts reads the machine, statechartBoxes.ts sizes and places
 * the states' boxes, statechartRoutes.ts places the top level and routes its edges,
 * statechartLabels.ts writes and places the labels; this file puts them together.
 */
import { childOrder, innerEdge, placeChildren, sizeOf } from "./statechartBoxes";
import { bfsRanks, permutations, segments } from "./statechartGeometry";
import { LABEL_LINE, labelBox, labelFor, shortEvent, labelWidth } from "./statechartLabels";
import { allNodes, type EdgeSpec, edgeSpecs, type MachineLike, machineTransitions, pathId } from "./statechartMachine";
import holderChart from "./holderChart.json";
import { fromPlain, type PlainNode } from "./statechartPlain";
import { placeTop, type Routed, routeAll } from "./statechartRoutes";
import type { ChartEdge, Direction, Point, Rect, Size, StateBox, StatechartLayout } from "./statechartTypes";

export { LEAF_H, LEAF_W } from "./statechartBoxes";
export { rectsOverlap } from "./statechartGeometry";
export { LABEL_LINE, labelBox, shortEvent, labelWidth } from "./statechartLabels";
export { type MachineLike, type MachineNodeLike, type MachineTransitionLike, machineTransitions } from "./statechartMachine";
export type { ChartEdge, ChartNote, Direction, EdgeLabel, Point, Rect, StateBox, StatechartLayout } from "./statechartTypes";

const MARGIN = 8;

export interface LayoutOptions {
  readonly direction?: Direction;
}

const transposeRect = (r: Rect): Rect => ({ x: r.y, y: r.x, w: r.h, h: r.w });
const transposePoint = (p: Point): Point => ({ x: p.y, y: p.x });

/**
 * The order of the states in each column that routes best: every order of every column
 * is tried (small: at most a few dozen combinations).
 */
function bestColumns(
  baseCols: readonly string[][],
  topSizes: ReadonlyMap<string, Size>,
  dir: Direction,
  topSpecs: readonly EdgeSpec[],
  labelRoom: (s: EdgeSpec) => number,
): string[][] {
  const perms = baseCols.map((c) => (c.length <= 4 ? permutations(c) : [c]));
  let bestCols = baseCols.map((c) => c);
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
  return bestCols;
}

/** The top-level edges with their labels, which keep off the top-level boxes, the down box, each other and other lines. */
function labelledEdges(finalRoutes: readonly { r: Routed; points: Point[] }[], boxes: readonly StateBox[], down: Rect): ChartEdge[] {
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
  return topEdges;
}

/** Moves everything (boxes, routes, labels) inside [MARGIN, width - MARGIN]. */
function normalise(layout: Omit<StatechartLayout, "width" | "height" | "byId">): StatechartLayout {
  const { boxes, down, edges } = layout;
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
    notes: layout.notes,
    down: shift(down),
    initial: layout.initial,
  };
}

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
    return dir === "LR" ? lines.length * LABEL_LINE + 6 : Math.max(...lines.map(labelWidth)) + 10;
  };
  const nCols = Math.max(...rank.values()) + 1;
  const baseCols: string[][] = Array.from({ length: nCols }, () => []);
  for (const id of topIds) (baseCols[rank.get(id) as number] as string[]).push(id);

  const placement = placeTop(bestColumns(baseCols, topSizes, dir, topSpecs, labelRoom), topSizes, dir);
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
  const edges: ChartEdge[] = [
    ...labelledEdges(finalRoutes, boxes, down),
    ...innerSpecs.map((s) => innerEdge(s, byId0, orderIn, innerPresent.has(`${s.to}->${s.from}`), dir)),
  ];
  return normalise({ boxes, edges, notes, down, initial });
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

/** The holder statechart's layout, computed once from `holderMachine`'s shape (holderChart.json: no xstate in the page). */
export function holderChartLayout(): StatechartLayout {
  if (holderLayout === null) holderLayout = layoutStatechart(fromPlain(holderChart as unknown as PlainNode));
  return holderLayout;
}
