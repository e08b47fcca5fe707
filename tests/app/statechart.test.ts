import { describe, expect, it } from "vitest";
import { createMachine } from "xstate";
import {
  boxForState,
  type ChartEdge,
  holderChartLayout,
  labelBox,
  layoutStatechart,
  type MachineLike,
  placeBadges,
  type Rect,
  rectsOverlap,
  type StatechartLayout,
  shortEvent,
} from "../../src/app/panels/statechartLayout";
import { holderMachine } from "../../src/core/holder/holderMachine";

/** Every state of a machine as a dotted path (the root excluded), walking the definition. */
function machineStates(m: MachineLike): string[] {
  const out: string[] = [];
  const visit = (n: MachineLike["root"]): void => {
    if (n.path.length > 0) out.push(n.path.join("."));
    for (const c of Object.values(n.states)) visit(c);
  };
  visit(m.root);
  return out;
}

const inside = (inner: Rect, outer: Rect): boolean =>
  inner.x > outer.x && inner.y > outer.y && inner.x + inner.w < outer.x + outer.w && inner.y + inner.h < outer.y + outer.h;

const isAncestor = (a: string, b: string): boolean => b.startsWith(`${a}.`);

/** Distance from a point to a rectangle's border (0 when on it). */
function distToBorder(p: { x: number; y: number }, r: Rect): number {
  const dx = Math.max(r.x - p.x, 0, p.x - (r.x + r.w));
  const dy = Math.max(r.y - p.y, 0, p.y - (r.y + r.h));
  if (dx > 0 || dy > 0) return Math.hypot(dx, dy);
  return Math.min(p.x - r.x, r.x + r.w - p.x, p.y - r.y, r.y + r.h - p.y);
}

function checkGeometry(layout: StatechartLayout, states: readonly string[]): void {
  // Every state exactly once.
  const ids = layout.boxes.map((b) => b.id);
  expect([...ids].sort()).toEqual([...states].sort());
  expect(new Set(ids).size).toBe(ids.length);
  // Children inside their parent's box.
  for (const b of layout.boxes) {
    if (b.parent === null) {
      expect(b.depth).toBe(1);
      continue;
    }
    const parent = layout.byId.get(b.parent);
    expect(parent, b.id).toBeDefined();
    expect(inside(b, parent as Rect), `${b.id} inside ${b.parent}`).toBe(true);
    expect(b.depth).toBe((parent?.depth ?? 0) + 1);
  }
  // No two boxes overlap unless one contains the other; the down box overlaps none.
  for (const a of layout.boxes) {
    expect(rectsOverlap(a, layout.down), `${a.id} vs down`).toBe(false);
    for (const b of layout.boxes) {
      if (a === b || isAncestor(a.id, b.id) || isAncestor(b.id, a.id)) continue;
      expect(rectsOverlap(a, b), `${a.id} overlaps ${b.id}`).toBe(false);
    }
  }
  // Everything inside the drawing.
  for (const b of [...layout.boxes, layout.down]) {
    expect(b.x).toBeGreaterThanOrEqual(0);
    expect(b.y).toBeGreaterThanOrEqual(0);
    expect(b.x + b.w).toBeLessThanOrEqual(layout.width);
    expect(b.y + b.h).toBeLessThanOrEqual(layout.height);
  }
  // Edges join existing states, start on the source's border and end on the target's.
  for (const e of layout.edges) {
    const from = layout.byId.get(e.from);
    const to = layout.byId.get(e.to);
    expect(from, e.id).toBeDefined();
    expect(to, e.id).toBeDefined();
    expect(e.from).not.toBe(e.to);
    expect(e.events.length).toBeGreaterThan(0);
    expect(distToBorder(e.points[0] as { x: number; y: number }, from as Rect), `${e.id} starts on ${e.from}`).toBeLessThan(0.01);
    expect(distToBorder(e.points[e.points.length - 1] as { x: number; y: number }, to as Rect), `${e.id} ends on ${e.to}`).toBeLessThan(
      0.01,
    );
    for (const p of e.points) {
      expect(p.x).toBeGreaterThanOrEqual(0);
      expect(p.y).toBeGreaterThanOrEqual(0);
      expect(p.x).toBeLessThanOrEqual(layout.width);
      expect(p.y).toBeLessThanOrEqual(layout.height);
    }
    if (e.inner) {
      // Between two children of one compound state.
      expect(from?.parent).not.toBeNull();
      expect(from?.parent).toBe(to?.parent);
      expect(e.label).toBeNull();
    } else {
      expect(from?.depth).toBe(1);
      expect(to?.depth).toBe(1);
      expect(e.label).not.toBeNull();
    }
  }
}

const edge = (layout: StatechartLayout, from: string, to: string): ChartEdge | undefined =>
  layout.edges.find((e) => e.from === from && e.to === to);

describe("holder statechart layout", () => {
  const layout = holderChartLayout();
  const states = machineStates(holderMachine);

  it("draws every state of holderMachine exactly once, children inside parents, no overlaps, edges on real states", () => {
    expect(states).toContain("holding.waiting");
    expect(states).toContain("jeopardy.renewing");
    checkGeometry(layout, states);
  });

  it("is computed once (memoised) and deterministic", () => {
    expect(holderChartLayout()).toBe(layout);
    const again = layoutStatechart(holderMachine);
    expect(again.boxes).toEqual(layout.boxes);
    expect(again.edges).toEqual(layout.edges);
  });

  it("takes its edges from the machine's transitions, labelled by event, delay and guard", () => {
    expect(edge(layout, "requesting", "holding")?.events).toEqual(["GRANTED"]);
    expect(edge(layout, "idle", "requesting")?.events).toEqual(["after:startDelay"]);
    // Lifted from waiting, renewing and backoff: one edge.
    expect(edge(layout, "holding", "jeopardy")?.events).toEqual(["after:untilDeadline"]);
    expect(edge(layout, "jeopardy", "holding")?.events).toEqual(["RENEWED"]);
    // One timer, two targets: the guard tells them apart.
    expect(edge(layout, "jeopardy", "grace")?.events).toEqual(["after:untilNominalEnd [hasGrace]"]);
    expect(edge(layout, "jeopardy", "lost")?.events).toEqual(["after:untilNominalEnd [else]"]);
    expect(edge(layout, "lost", "requesting")?.events).toEqual(["after:acquireRetry"]);
    // Inner edges of holding.
    expect(edge(layout, "holding.waiting", "holding.renewing")?.events).toEqual(["after:untilRenew"]);
    expect(edge(layout, "holding.renewing", "holding.backoff")?.events).toContain("after:requestTimeout");
    // A compound's own transition into a child applies from its other children.
    expect(edge(layout, "requesting.sending", "requesting.denied")?.events).toEqual(["DENIED"]);
    // No self-loops (retries re-entering their own state).
    expect(layout.edges.every((e) => e.from !== e.to)).toBe(true);
  });

  it("writes an event taken from three or more states to one target as a note instead of a fan of arrows", () => {
    const texts = layout.notes.map((n) => n.text);
    expect(texts).toContain("RELEASE: idle, requesting, lost → released");
    expect(texts).toContain("RELEASE: holding, jeopardy, grace → releasing");
    expect(edge(layout, "idle", "released")).toBeUndefined();
    // holding -> releasing keeps its other event.
    expect(edge(layout, "holding", "releasing")?.events).toEqual(["after:untilHoldEnd"]);
  });

  it("ranks top-level states by BFS distance from idle (top to bottom)", () => {
    const y = (id: string): number => layout.byId.get(id)?.y ?? Number.NaN;
    expect(layout.initial).toBe("idle");
    expect(y("idle")).toBeLessThan(y("requesting"));
    expect(y("requesting")).toBeLessThan(y("holding"));
    expect(y("holding")).toBeLessThan(y("jeopardy"));
    expect(y("jeopardy")).toBe(y("releasing"));
    expect(y("jeopardy")).toBeLessThan(y("grace"));
    // holding's children side by side, in BFS order from waiting.
    const x = (id: string): number => layout.byId.get(id)?.x ?? Number.NaN;
    expect(x("holding.waiting")).toBeLessThan(x("holding.renewing"));
    expect(x("holding.renewing")).toBeLessThan(x("holding.backoff"));
  });

  it("keeps edge labels off the state boxes and off each other", () => {
    const labels = layout.edges
      .filter((e) => e.label !== null)
      .map((e) => ({ id: e.id, r: labelBox(e.label as NonNullable<ChartEdge["label"]>) }));
    for (const l of labels) {
      for (const b of layout.boxes) expect(rectsOverlap(l.r, b), `label of ${l.id} on ${b.id}`).toBe(false);
      for (const m of labels) if (m !== l) expect(rectsOverlap(l.r, m.r), `label of ${l.id} on label of ${m.id}`).toBe(false);
    }
  });

  it("also lays out left to right with the same guarantees", () => {
    const lr = layoutStatechart(holderMachine, { direction: "LR" });
    checkGeometry(lr, states);
    expect(lr.byId.get("idle")?.x).toBeLessThan(lr.byId.get("requesting")?.x ?? 0);
  });

  it("follows the machine it is given (any machine, not a copied list)", () => {
    const light = createMachine({
      id: "light",
      initial: "green",
      states: {
        green: { after: { 3000: "yellow" } },
        yellow: { on: { TIMER: "red" } },
        red: {
          initial: "walk",
          on: { TIMER: "green" },
          states: { walk: { on: { COUNT: "wait" } }, wait: { on: { COUNT: "stop" } }, stop: {} },
        },
      },
    });
    const l = layoutStatechart(light);
    checkGeometry(l, machineStates(light));
    expect(edge(l, "green", "yellow")?.events).toEqual(["after 3000 ms"]);
    expect(edge(l, "red", "green")?.events).toEqual(["TIMER"]);
    expect(edge(l, "red.walk", "red.wait")?.inner).toBe(true);
    expect(l.notes).toEqual([]);
  });
});

describe("placing holders on the chart", () => {
  const layout = holderChartLayout();

  it("finds the box of a dotted state, falling back to the deepest known ancestor", () => {
    expect(boxForState(layout, "holding.waiting")).toBe("holding.waiting");
    expect(boxForState(layout, "lost")).toBe("lost");
    expect(boxForState(layout, "jeopardy.{renewing,other}")).toBe("jeopardy");
    expect(boxForState(layout, "down")).toBeNull();
  });

  it("puts badges in a row inside the box and folds what does not fit into +N", () => {
    const box = layout.byId.get("requesting.denied") as Rect;
    const many = Array.from({ length: 9 }, (_, i) => ({ id: `h${i + 1}`, text: `h${i + 1}` }));
    const places = placeBadges(box, many);
    const last = places[places.length - 1];
    expect(last?.text).toMatch(/^\+\d$/);
    expect(places.flatMap((p) => p.ids)).toEqual(many.map((m) => m.id));
    for (const p of places) {
      expect(p.x).toBeGreaterThanOrEqual(box.x);
      expect(p.x + p.w).toBeLessThanOrEqual(box.x + box.w);
    }
    // The default three holders fit in a leaf without folding.
    expect(placeBadges(box, many.slice(0, 3)).map((p) => p.text)).toEqual(["h1", "h2", "h3"]);
  });

  it("labels edges in words, not the machine's names", () => {
    expect(shortEvent("GRANTED")).toEqual(["got the lease"]);
    expect(shortEvent("after:untilDeadline")).toEqual(["its own deadline passed"]);
    expect(shortEvent("after:untilNominalEnd [hasGrace]")).toEqual(["the lease's time ran out", "if there is a grace period"]);
    expect(shortEvent("after:writeBackoff [else]")).toEqual(["time to try again", "otherwise"]);
  });
});
