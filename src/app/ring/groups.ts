/**
 * How partition groups are drawn on the ring (pure, unit-tested). A group is every process
 * in it, holders and the storage as much as nodes: one outline round all of them when that
 * outline swallows nobody else; else one round its nodes (when that is clean) and one round
 * each other member; else one round each member. Every holder or storage in a group also
 * gets a badge with the group's letter, so membership reads even where outlines are apart.
 */
import { polygonContains, polygonHull } from "d3-polygon";
import { groupLetter, outlinePoints, type Place, type Pt, type RingLayout } from "./geometry";

export interface GroupShape {
  readonly index: number;
  readonly letter: string;
  /** Closed polygons, each drawn as one outline. */
  readonly outlines: readonly (readonly Pt[])[];
  /** A letter badge for each member that is not a node: where its centre goes. */
  readonly badges: readonly { readonly id: string; readonly x: number; readonly y: number }[];
}

/** Room between a shape and the outline round it. */
const PAD = 12;
/** Room round a holder or the storage when it has an outline of its own. */
const HUG = 3;

function hull(pts: readonly Pt[]): Pt[] | null {
  const h = polygonHull(pts.map((p): [number, number] => [p.x, p.y]));
  return h === null ? null : h.map(([x, y]) => ({ x, y }));
}

export function polygonHas(poly: readonly Pt[], p: Pt): boolean {
  return polygonContains(
    poly.map((q): [number, number] => [q.x, q.y]),
    [p.x, p.y],
  );
}

/** Where a non-node member's badge sits: on its top-left corner. */
export function badgeSpot(p: Place, L: Pick<RingLayout, "holderSize">): Pt {
  if (p.kind === "holder") return { x: p.x - L.holderSize.w / 2, y: p.y - L.holderSize.h / 2 };
  if (p.kind === "storage") return { x: p.x - 34, y: p.y - 34 };
  return { x: p.x - p.radius, y: p.y - p.radius };
}

export function groupShapes(groups: readonly (readonly string[])[], L: RingLayout): GroupShape[] {
  return groups.map((members, index) => {
    const inGroup = new Set(members);
    const places = members.map((id) => [id, L.places.get(id)] as const).filter((x): x is readonly [string, Place] => x[1] !== undefined);
    const others = [...L.places.entries()].filter(([id]) => !inGroup.has(id)).map(([, p]) => p);
    const clean = (poly: readonly Pt[] | null): poly is Pt[] => poly !== null && !others.some((o) => polygonHas(poly, o));
    const round = (ps: readonly Place[], pad = PAD): Pt[] | null => hull(ps.flatMap((p) => outlinePoints(p, pad, L.holderSize)));
    // Holder boxes sit 6 apart: their outlines hug them, so neighbours of two groups do not overlap.
    const halo = (p: Place): Pt[] => hull(outlinePoints(p, p.kind === "node" ? PAD - 2 : HUG, L.holderSize)) ?? [];
    const all = round(places.map(([, p]) => p));
    let outlines: Pt[][];
    if (places.length > 0 && clean(all)) outlines = [all];
    else {
      const nodes = places.filter(([, p]) => p.kind === "node").map(([, p]) => p);
      const rest = places.filter(([, p]) => p.kind !== "node").map(([, p]) => p);
      const nodeHull = nodes.length > 0 ? round(nodes) : null;
      // The group's holders (one row) in one outline when that is clean, the storage in its own.
      const holders = rest.filter((p) => p.kind === "holder");
      const holderHull = holders.length > 1 ? round(holders, HUG) : null;
      const restShapes = clean(holderHull) ? [holderHull, ...rest.filter((p) => p.kind !== "holder").map(halo)] : rest.map(halo);
      outlines = clean(nodeHull) ? [nodeHull, ...restShapes] : [...nodes.map(halo), ...restShapes];
    }
    const badges = places.filter(([, p]) => p.kind !== "node").map(([id, p]) => ({ id, ...badgeSpot(p, L) }));
    return { index, letter: groupLetter(index), outlines: outlines.filter((o) => o.length > 2), badges };
  });
}
