import { describe, expect, it } from "vitest";
import { computeLayout, linkSegment, pointAt, type Place } from "../../src/app/ring/geometry";
import { messageRoute, NODE_CLEARANCE, routeAt } from "../../src/app/ring/routes";

const ids = (prefix: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`);

/** The least distance from the route (between its ends) to the centre of each node it does not involve. */
function leastNodeDistance(from: string, to: string, L: ReturnType<typeof computeLayout>): number {
  const r = messageRoute(from, to, L, 0);
  if (r === null) throw new Error("no route");
  let least = Number.POSITIVE_INFINITY;
  for (const [id, p] of L.places) {
    if (id === from || id === to || p.kind !== "node") continue;
    for (let i = 0; i <= 100; i++) {
      const q = routeAt(r, i / 100);
      least = Math.min(least, Math.hypot(q.x - p.x, q.y - p.y));
    }
  }
  return least;
}

describe("message routes", () => {
  it("a straight line from h1 to the storage passes over a node (the bug the routes fix)", () => {
    const L = computeLayout(ids("n", 5), ids("h", 3), "s1", ids("c", 2));
    const s = linkSegment(L.places.get("h1") as Place, L.places.get("s1") as Place, 0);
    const nodes = ids("n", 5).map((id) => L.places.get(id) as Place);
    let least = Number.POSITIVE_INFINITY;
    for (let i = 0; i <= 100; i++) {
      const q = pointAt(s, i / 100);
      for (const p of nodes) least = Math.min(least, Math.hypot(q.x - p.x, q.y - p.y));
    }
    expect(least).toBeLessThan(NODE_CLEARANCE);
  });

  for (const [n, h, c] of [
    [3, 1, 1],
    [3, 3, 2],
    [5, 3, 2],
    [5, 6, 4],
    [7, 4, 2],
    [9, 5, 2],
  ] as const) {
    it(`${n} nodes, ${h} holders, ${c} clients: holder, storage and client messages keep clear of every node they do not involve`, () => {
      const L = computeLayout(ids("n", n), ids("h", h), "s1", ids("c", c));
      const pairs: [string, string][] = [];
      for (const x of [...ids("h", h), ...ids("c", c)]) {
        for (const y of [...ids("n", n), "s1"]) {
          if (x.startsWith("c") && y === "s1") continue;
          pairs.push([x, y], [y, x]);
        }
      }
      for (const [a, b] of pairs) expect({ a, b, d: leastNodeDistance(a, b, L) >= NODE_CLEARANCE - 0.5 }).toEqual({ a, b, d: true });
    });
  }

  it("node to node stays a straight chord; routes are deterministic", () => {
    const L = computeLayout(ids("n", 5), ids("h", 3), "s1", ids("c", 2));
    const r = messageRoute("n1", "n3", L, 0);
    expect(r).not.toBeNull();
    // Two points: the sender's edge and the receiver's edge.
    expect(r?.pts).toHaveLength(2);
    const L2 = computeLayout(ids("n", 5), ids("h", 3), "s1", ids("c", 2));
    expect(messageRoute("h1", "s1", L2)).toEqual(messageRoute("h1", "s1", L));
  });
});
