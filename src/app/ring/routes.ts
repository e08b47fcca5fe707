/**
 * The paths messages ride on the ring. Between two nodes a straight chord (a chord of the
 * circle never passes another node). To or from a holder, the storage or a client a path
 * may have to go round: a straight line from h1 to the storage would pass over n3 and look
 * as if n3 sent it. Such a path is the least-bent curve that keeps clear of every process
 * it does not involve, or else a path round the outside of the ring (deterministic, memoised
 * per layout).
 */
import { LANE_OFFSET, type Place, type Pt, type RingLayout } from "./geometry";

/** A path as a polyline (smooth enough: many short pieces), with the length run up to each point. */
export interface Route {
  readonly pts: readonly Pt[];
  readonly cum: readonly number[];
}

function routeOf(pts: readonly Pt[]): Route {
  const cum = [0];
  for (let i = 1; i < pts.length; i++) {
    const a = pts[i - 1] as Pt;
    const b = pts[i] as Pt;
    cum.push((cum[i - 1] as number) + Math.hypot(b.x - a.x, b.y - a.y));
  }
  return { pts, cum };
}

/** The point a share t (0..1) of the way along a route, by length. */
export function routeAt(r: Route, t: number): Pt {
  const total = r.cum[r.cum.length - 1] ?? 0;
  const first = r.pts[0] ?? { x: 0, y: 0 };
  if (total <= 0 || t <= 0) return first;
  const want = Math.min(1, t) * total;
  let lo = 1;
  let hi = r.cum.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((r.cum[mid] as number) < want) lo = mid + 1;
    else hi = mid;
  }
  const a = r.pts[lo - 1] as Pt;
  const b = r.pts[lo] as Pt;
  const span = (r.cum[lo] as number) - (r.cum[lo - 1] as number);
  const f = span <= 0 ? 0 : (want - (r.cum[lo - 1] as number)) / span;
  return { x: a.x + (b.x - a.x) * f, y: a.y + (b.y - a.y) * f };
}

/** How far a path keeps from a node's centre: its radius, the timer ring and some air. */
export const NODE_CLEARANCE = 48;
/** How far a path keeps from a holder's box or the storage's outline. */
const BOX_CLEARANCE = 10;

function unit(dx: number, dy: number): Pt {
  const l = Math.hypot(dx, dy);
  return l === 0 ? { x: 0, y: -1 } : { x: dx / l, y: dy / l };
}

/** Distance from a point to the box centred on c with half sizes hw, hh (0 inside). */
function boxDistance(p: Pt, c: Pt, hw: number, hh: number): number {
  const dx = Math.max(0, Math.abs(p.x - c.x) - hw);
  const dy = Math.max(0, Math.abs(p.y - c.y) - hh);
  return Math.hypot(dx, dy);
}

/** How much room a point leaves around a process (negative: too close). */
export function roomAround(p: Pt, at: Place, L: Pick<RingLayout, "holderSize">): number {
  if (at.kind === "node") return Math.hypot(p.x - at.x, p.y - at.y) - NODE_CLEARANCE;
  if (at.kind === "holder") return boxDistance(p, at, L.holderSize.w / 2, L.holderSize.h / 2) - BOX_CLEARANCE;
  if (at.kind === "storage") return boxDistance(p, at, 34, 40) - BOX_CLEARANCE;
  return Math.hypot(p.x - at.x, p.y - at.y) - at.radius - 6;
}

/** The least room a centre-to-centre path leaves around any of `others` (its ends sit inside their own processes). */
function leastRoom(pts: readonly Pt[], a: Place, b: Place, others: readonly Place[], L: RingLayout): number {
  let least = Number.POSITIVE_INFINITY;
  for (const p of pts) {
    if (Math.hypot(p.x - a.x, p.y - a.y) <= a.radius || Math.hypot(p.x - b.x, p.y - b.y) <= b.radius) continue;
    for (const o of others) least = Math.min(least, roomAround(p, o, L));
  }
  return least;
}

/** Points every few units along a quadratic curve from a to b bent towards c. */
function quadPoints(a: Pt, c: Pt, b: Pt): Pt[] {
  const n = 40;
  const out: Pt[] = [];
  for (let i = 0; i <= n; i++) {
    const t = i / n;
    const u = 1 - t;
    out.push({ x: u * u * a.x + 2 * u * t * c.x + t * t * b.x, y: u * u * a.y + 2 * u * t * c.y + t * t * b.y });
  }
  return out;
}

/** Straight from a to b, in pieces of at most 8 units (so clearance checks see every part). */
function linePoints(a: Pt, b: Pt): Pt[] {
  const n = Math.max(1, Math.ceil(Math.hypot(b.x - a.x, b.y - a.y) / 8));
  return Array.from({ length: n + 1 }, (_, i) => ({ x: a.x + ((b.x - a.x) * i) / n, y: a.y + ((b.y - a.y) * i) / n }));
}

/**
 * Round the outside of the ring: from a out to the orbit, along it (clockwise or not) and in
 * to b. A node is entered straight from outside, another process from its nearest side.
 */
function orbitPoints(a: Place, b: Place, L: RingLayout, clockwise: boolean): Pt[] {
  const R = L.ringRadius + NODE_CLEARANCE + 12;
  const c = L.center;
  const ang = (p: Pt): number => Math.atan2(p.y - c.y, p.x - c.x);
  const onOrbit = (t: number): Pt => ({ x: c.x + R * Math.cos(t), y: c.y + R * Math.sin(t) });
  const ta = ang(a);
  let tb = ang(b);
  if (clockwise) while (tb < ta) tb += 2 * Math.PI;
  else while (tb > ta) tb -= 2 * Math.PI;
  const steps = Math.max(2, Math.ceil((Math.abs(tb - ta) * R) / 8));
  const arc = Array.from({ length: steps + 1 }, (_, i) => onOrbit(ta + ((tb - ta) * i) / steps));
  return [...linePoints(a, arc[0] as Pt), ...arc.slice(1), ...linePoints(arc[arc.length - 1] as Pt, b).slice(1)];
}

function pathLength(pts: readonly Pt[]): number {
  let s = 0;
  for (let i = 1; i < pts.length; i++) s += Math.hypot((pts[i] as Pt).x - (pts[i - 1] as Pt).x, (pts[i] as Pt).y - (pts[i - 1] as Pt).y);
  return s;
}

/** Bends tried, as shares of the distance, sideways from the straight line (least first). */
const BENDS = [0, 0.15, -0.15, 0.3, -0.3, 0.45, -0.45, 0.6, -0.6];

/** The centre-to-centre path between two processes, clear of every other process if it can be. */
export function routeCentres(fromId: string, toId: string, L: RingLayout): Pt[] {
  const a = L.places.get(fromId);
  const b = L.places.get(toId);
  if (a === undefined || b === undefined) return [];
  if (a.kind === "node" && b.kind === "node") return [a, b];
  const others = [...L.places.entries()].filter(([id]) => id !== fromId && id !== toId).map(([, p]) => p);
  const mid = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
  const d = Math.hypot(b.x - a.x, b.y - a.y);
  const n = unit(a.y - b.y, b.x - a.x);
  let best: Pt[] = [a, b];
  let bestRoom = Number.NEGATIVE_INFINITY;
  const consider = (pts: Pt[]): boolean => {
    const room = leastRoom(pts, a, b, others, L);
    if (room > bestRoom) {
      bestRoom = room;
      best = pts;
    }
    return room >= 0;
  };
  for (const k of BENDS) if (consider(quadPoints(a, { x: mid.x + n.x * k * d, y: mid.y + n.y * k * d }, b))) return best;
  // No gentle bend clears: go round the outside of the ring, the shorter way that clears.
  const round = [orbitPoints(a, b, L, true), orbitPoints(a, b, L, false)].sort((p, q) => pathLength(p) - pathLength(q));
  for (const pts of round) if (leastRoom(pts, a, b, others, L) >= 0) return pts;
  for (const pts of round) consider(pts);
  return best;
}

const cache = new WeakMap<RingLayout, Map<string, Route>>();

/**
 * The route of a message from one process to another: edge to edge, leaving and arriving
 * along its path, shifted `lane` to the left of its direction so requests and replies do
 * not overlap. Memoised per layout.
 */
export function messageRoute(fromId: string, toId: string, L: RingLayout, lane = LANE_OFFSET): Route | null {
  const a = L.places.get(fromId);
  const b = L.places.get(toId);
  if (a === undefined || b === undefined) return null;
  let byKey = cache.get(L);
  if (byKey === undefined) {
    byKey = new Map();
    cache.set(L, byKey);
  }
  const key = `${fromId}>${toId}@${lane}`;
  const hit = byKey.get(key);
  if (hit !== undefined) return hit;
  const centres = routeCentres(fromId, toId, L);
  const d = Math.hypot(b.x - a.x, b.y - a.y);
  // Cut off the part inside each end's shape (as far as half the distance for close neighbours).
  const r1 = Math.min(a.radius, d / 2);
  const r2 = Math.min(b.radius, d / 2);
  const outside = centres.filter((p) => Math.hypot(p.x - a.x, p.y - a.y) > r1 && Math.hypot(p.x - b.x, p.y - b.y) > r2);
  const ua = unit((outside[0] ?? b).x - a.x, (outside[0] ?? b).y - a.y);
  const last = outside[outside.length - 1] ?? a;
  const ub = unit(last.x - b.x, last.y - b.y);
  const pts = [{ x: a.x + ua.x * r1, y: a.y + ua.y * r1 }, ...outside, { x: b.x + ub.x * r2, y: b.y + ub.y * r2 }];
  const s = unit(b.x - a.x, b.y - a.y);
  // Left of the direction of travel (y grows downwards, so left is (u.y, -u.x)).
  const route = routeOf(pts.map((p) => ({ x: p.x + s.y * lane, y: p.y - s.x * lane })));
  byKey.set(key, route);
  return route;
}
