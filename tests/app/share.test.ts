import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { shareEqual } from "../../src/app/share";

describe("shareEqual", () => {
  it("keeps the old objects for unchanged parts and new ones for changed parts", () => {
    const prev = { now: 1, nodes: [{ id: "n1", term: 1 }, { id: "n2", term: 1 }], storage: { writes: [1, 2] } };
    const next = { now: 2, nodes: [{ id: "n1", term: 1 }, { id: "n2", term: 2 }], storage: { writes: [1, 2] } };
    const out = shareEqual(prev, next);
    expect(out).toEqual(next);
    expect(out).not.toBe(prev);
    expect(out.storage).toBe(prev.storage);
    expect(out.nodes).not.toBe(prev.nodes);
    expect(out.nodes[0]).toBe(prev.nodes[0]);
    expect(out.nodes[1]).toEqual({ id: "n2", term: 2 });
    expect(out.nodes[1]).not.toBe(prev.nodes[1]);
  });

  it("an equal value gives back the old object itself; key sets and lengths count", () => {
    const a = { x: [1, { y: null }], z: "s" };
    expect(shareEqual(a, structuredClone(a))).toBe(a);
    expect(shareEqual({ x: 1 }, { x: 1, y: 2 })).toEqual({ x: 1, y: 2 });
    expect(shareEqual({ x: 1, y: 2 }, { x: 1 })).toEqual({ x: 1 });
    expect(shareEqual([1, 2], [1])).toEqual([1]);
  });

  it("the result always deep-equals the new value (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        expect(shareEqual(a, b)).toEqual(b);
        expect(shareEqual(a, structuredClone(a))).toEqual(a);
      }),
      { seed: 42, numRuns: 300 },
    );
  });
});
