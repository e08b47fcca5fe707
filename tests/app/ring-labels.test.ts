import { describe, expect, it } from "vitest";
import { computeLayout, type Place } from "../../src/app/ring/geometry";
import { groupShapes, polygonHas } from "../../src/app/ring/groups";
import { type Box, boxesOverlap, fixedObstacles, type LabelWish, placeRingLabels, textSize } from "../../src/app/ring/labels";
import { messageRoute, type Route, routeAt } from "../../src/app/ring/routes";

const ids = (prefix: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`);

/** A crowd: 40 messages on the links of a 5-node ring with holders, at several points along each link. */
function crowd(): { wishes: LabelWish[]; obstacles: Box[] } {
  const L = computeLayout(ids("n", 5), ids("h", 3), "s1", ids("c", 2));
  const nodes = ids("n", 5).map((id) => L.places.get(id) as Place);
  const wishes: LabelWish[] = [];
  let id = 0;
  for (let i = 0; i < nodes.length; i++) {
    for (let j = 0; j < nodes.length; j++) {
      if (i === j) continue;
      const a = nodes[i] as Place;
      const b = nodes[j] as Place;
      for (const t of [0.3, 0.55]) {
        id++;
        wishes.push({ id, at: { x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t }, text: id % 3 === 0 ? "append reply" : "heartbeat", priority: id % 7 === 0 ? 2 : 0 });
      }
    }
  }
  return { wishes, obstacles: fixedObstacles(L) };
}

describe("message label placement", () => {
  it("in a crowd, no label covers another label or the fixed text, and many still get a spot", () => {
    const { wishes, obstacles } = crowd();
    expect(wishes.length).toBe(40);
    const placed = placeRingLabels(wishes, obstacles);
    const boxes = [...placed.values()].map((p) => p.box);
    for (let i = 0; i < boxes.length; i++) {
      for (const o of obstacles) expect(boxesOverlap(boxes[i] as Box, o)).toBe(false);
      for (let j = i + 1; j < boxes.length; j++) expect(boxesOverlap(boxes[i] as Box, boxes[j] as Box)).toBe(false);
    }
    expect(placed.size).toBeGreaterThan(4);
    // Some were left out: the crowd is real (their dots are still drawn).
    expect(placed.size).toBeLessThan(wishes.length);
  });

  it("the label sits beside its own dot, and the same input gives the same placement", () => {
    const { wishes, obstacles } = crowd();
    const a = placeRingLabels(wishes, obstacles);
    const b = placeRingLabels([...wishes].reverse(), obstacles);
    expect([...b.entries()].sort((x, y) => x[0] - y[0])).toEqual([...a.entries()].sort((x, y) => x[0] - y[0]));
    for (const [id, p] of a) {
      const w = wishes.find((x) => x.id === id) as LabelWish;
      expect(p.box.x).toBeCloseTo(w.at.x + p.dx, 6);
      expect(Math.hypot(p.dx, p.dy)).toBeLessThan(textSize(w.text).w + 90);
    }
  });

  it("higher priority wins a contested spot (the lease message over the heartbeat)", () => {
    const at = { x: 100, y: 100 };
    const wall: Box[] = [{ x: 0, y: 0, w: 1000, h: 80 }];
    const placed = placeRingLabels(
      [
        { id: 1, at, text: "heartbeat", priority: 0 },
        { id: 2, at, text: "refresh", priority: 2 },
      ],
      wall,
      { x: 0, y: 0, w: 140, h: 140 },
    );
    expect(placed.has(2)).toBe(true);
    const only = placeRingLabels([{ id: 1, at, text: "heartbeat", priority: 0 }], [...wall, (placed.get(2) as { box: Box }).box], { x: 0, y: 0, w: 140, h: 140 });
    expect(placed.has(1)).toBe(only.has(1));
  });
});

describe("partition groups", () => {
  const L = computeLayout(ids("n", 5), ids("h", 3), "s1", ids("c", 2));
  const at = (id: string): Place => L.places.get(id) as Place;

  for (const groups of [
    [
      ["n1", "n2", "h1", "h2"],
      ["n3", "n4", "n5", "h3", "s1"],
    ],
    [["n3"], ["n1", "n2", "n4", "n5", "h1", "h2", "h3", "s1"]],
    [
      ["n1", "n2", "n3", "s1"],
      ["n4", "n5", "h1"],
      ["h2", "h3"],
    ],
    [
      ["n1", "h1", "h3"],
      ["n2", "n3", "n4", "n5", "h2", "s1"],
    ],
  ]) {
    it(`every member, holders and storage too, is inside an outline of its group; nobody else is: ${JSON.stringify(groups)}`, () => {
      const shapes = groupShapes(groups, L);
      expect(shapes).toHaveLength(groups.length);
      groups.forEach((members, i) => {
        const outlines = (shapes[i] as (typeof shapes)[number]).outlines;
        for (const id of members) expect({ id, inside: outlines.some((o) => polygonHas(o, at(id))) }).toEqual({ id, inside: true });
        for (const [id, p] of L.places) {
          if (members.includes(id)) continue;
          expect({ id, inside: outlines.some((o) => polygonHas(o, p)) }).toEqual({ id, inside: false });
        }
        // Holders and the storage carry the group's letter.
        const badged = (shapes[i] as (typeof shapes)[number]).badges.map((b) => b.id).sort();
        expect(badged).toEqual(members.filter((id) => !id.startsWith("n")).sort());
      });
    });
  }
});

describe("the Lease story view", () => {
  it("keeps lease and storage messages and what goes to or from a holder or the storage; hides Raft's and the clients' traffic", async () => {
    const { isRaftTraffic, inLeaseStory, messageKind, RAFT_KINDS } = await import("../../src/app/theme");
    const lease = new Set(["h1", "h2", "s1"]);
    const m = (label: string, from: string, to: string) => ({ label, from, to });
    for (const label of ["append", "heartbeat", "append reply", "vote", "vote reply", "pre-vote", "pre-vote reply", "snapshot", "timeout now"]) {
      expect(isRaftTraffic(label)).toBe(true);
      expect(inLeaseStory(m(label, "n1", "n2"), lease)).toBe(false);
    }
    // One classification: Raft's kinds are the space-time legend's kinds.
    expect(RAFT_KINDS.has(messageKind("append"))).toBe(true);
    for (const [label, from, to] of [
      ["acquire", "h1", "n3"],
      ["granted", "n3", "h1"],
      ["refresh", "h2", "n3"],
      ["refreshed", "n3", "h2"],
      ["write", "h1", "s1"],
      ["write ok", "s1", "h1"],
      ["not leader", "n2", "h1"],
    ] as const)
      expect(inLeaseStory(m(label, from, to), lease)).toBe(true);
    expect(inLeaseStory(m("put", "c1", "n3"), lease)).toBe(false);
    expect(inLeaseStory(m("reply", "n3", "c1"), lease)).toBe(false);
  });
});

describe("a lease message's label always finds a spot", () => {
  // The dot of a lease or storage message may sit in a narrow gap (between a node's clock and the
  // storage, say) as it leaves or reaches a process; alone on the ring, its label must still be shown.
  for (const [nodes, holders] of [
    [5, 3],
    [7, 10],
  ] as const) {
    it(`${nodes} nodes, ${holders} holders: every point of every holder's and the storage's routes`, () => {
      const L = computeLayout(ids("n", nodes), ids("h", holders), "s1", ids("c", 2));
      const obstacles = fixedObstacles(L);
      const pairs: [string, string, string][] = [];
      for (const h of ids("h", holders)) {
        for (const n of ids("n", nodes)) pairs.push([h, n, "refresh"], [n, h, "refreshed"]);
        pairs.push([h, "s1", "write"], ["s1", h, "write ok"]);
      }
      const missed: string[] = [];
      for (const [from, to, text] of pairs) {
        const route = messageRoute(from, to, L) as Route;
        for (let k = 0; k <= 50; k++) {
          const at = routeAt(route, k / 50);
          const placed = placeRingLabels([{ id: 1, at, text, priority: 2 }], obstacles, { x: 0, y: 0, w: L.width, h: L.height });
          if (!placed.has(1)) missed.push(`${text} ${from}→${to} at t=${k / 50} (${at.x.toFixed(0)},${at.y.toFixed(0)})`);
          else for (const o of obstacles) expect(boxesOverlap(o, (placed.get(1) as { box: Box }).box)).toBe(false);
        }
      }
      expect(missed).toEqual([]);
    });
  }
});
