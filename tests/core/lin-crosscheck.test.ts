/**
 * Cross-check of the linearizability checker (src/core/lin) against an independent one.
 *
 * Porcupine (Go) and Knossos (JVM) cannot run here, so this file holds a second checker
 * written from the definition, sharing no code with src/core/lin: for a register history of
 * at most 7 operations it tries every subset of the unknown (`info`) writes as "took effect"
 * and every order of the chosen operations, and accepts when one order respects real time
 * (an operation that returned before another was called comes first) and gives every `ok`
 * operation the answer it got. fast-check then compares the two on random small histories,
 * linearizable or not, with `info` operations; and checks that histories made by running
 * the sequential model are always accepted.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkLinearizability } from "../../src/core/lin/check";
import type { HistoryOp } from "../../src/core/scenario/history";

type V = string | null;
type Kind = "put" | "append" | "delete" | "cas" | "get";

interface Op {
  readonly kind: Kind;
  readonly value: V;
  readonly expect: V;
  readonly info: boolean;
  /** ok outcomes: the value answered (for cas that did not swap: the value it saw). */
  readonly answer: V;
  /** ok cas: whether it swapped. */
  readonly applied: boolean;
  readonly call: number;
  readonly ret: number;
}

/** One operation applied to the register's value `v`: the new value, or undefined when its answer rules `v` out. */
function apply(op: Op, v: V): V | undefined {
  switch (op.kind) {
    case "get":
      return op.answer === v ? v : undefined;
    case "put":
      return op.value;
    case "delete":
      return null;
    case "append": {
      const next = (v ?? "") + (op.value ?? "");
      return op.info || op.answer === next ? next : undefined;
    }
    case "cas":
      if (op.info) return v === op.expect ? op.value : v;
      if (op.applied) return v === op.expect ? op.value : undefined;
      return v !== op.expect && op.answer === v ? v : undefined;
  }
}

function* permutations(items: readonly Op[]): Generator<Op[]> {
  if (items.length <= 1) {
    yield [...items];
    return;
  }
  for (let i = 0; i < items.length; i++) {
    const rest = [...items.slice(0, i), ...items.slice(i + 1)];
    for (const p of permutations(rest)) yield [items[i] as Op, ...p];
  }
}

/** The brute-force checker: true when some subset of the unknown writes and some order fit. */
function bruteForce(ops: readonly Op[]): boolean {
  // An unknown read tells nothing; an unknown write may have taken effect, or not.
  const known = ops.filter((o) => !o.info);
  const unknown = ops.filter((o) => o.info && o.kind !== "get");
  for (let mask = 0; mask < 1 << unknown.length; mask++) {
    const chosen = [...known, ...unknown.filter((_, i) => mask & (1 << i))];
    for (const order of permutations(chosen)) {
      let ok = true;
      // Real time: no operation may come after one that was called after it returned.
      for (let i = 0; i < order.length && ok; i++)
        for (let j = i + 1; j < order.length && ok; j++) if ((order[j] as Op).ret < (order[i] as Op).call) ok = false;
      let v: V = null;
      for (const o of order) {
        if (!ok) break;
        const next = apply(o, v);
        if (next === undefined) ok = false;
        else v = next;
      }
      if (ok) return true;
    }
  }
  return false;
}

/** The same operation as the history records it (src/core/scenario/history.ts's shape). */
function toHistory(ops: readonly Op[]): HistoryOp[] {
  return ops.map((o, i) => ({
    client: `c${i}`,
    session: `c${i}.1`,
    seq: 1,
    operation: o.kind,
    key: "x",
    value: o.kind === "get" || o.kind === "delete" ? null : o.value,
    ...(o.kind === "cas" ? { expect: o.expect } : {}),
    outcome: o.info ? "info" : "ok",
    output: o.info ? null : o.kind === "cas" ? { value: o.answer, applied: o.applied } : { value: o.answer },
    callUs: o.call,
    returnUs: o.info ? null : o.ret,
  }));
}

const value = fc.constantFrom<V>("a", "b", null);
const text = fc.constantFrom("a", "b");
const arbOp: fc.Arbitrary<Op> = fc
  .record({
    kind: fc.constantFrom<Kind>("put", "append", "delete", "cas", "get", "get"),
    value: text,
    expect: value,
    info: fc.boolean(),
    answer: fc.constantFrom<V>("a", "b", "ab", "ba", "aa", null),
    applied: fc.boolean(),
    call: fc.integer({ min: 0, max: 20 }),
    len: fc.integer({ min: 0, max: 10 }),
  })
  .map(({ len, ...o }) => ({ ...o, ret: o.info ? Number.POSITIVE_INFINITY : o.call + len }));

describe("the checker agrees with an independent brute-force checker", () => {
  it("on random register histories of up to 7 operations, with unknown outcomes", () => {
    let violations = 0;
    let runs = 0;
    fc.assert(
      fc.property(fc.array(arbOp, { minLength: 1, maxLength: 7 }), (ops) => {
        const expected = bruteForce(ops);
        const got = checkLinearizability(toHistory(ops));
        expect(got.verdict).not.toBe("unknown");
        expect(got.verdict, JSON.stringify(ops)).toBe(expected ? "ok" : "violation");
        runs++;
        if (!expected) violations++;
      }),
      { numRuns: 1500, seed: 20261124 },
    );
    // Both answers must be common, or the comparison shows little.
    expect(violations).toBeGreaterThan(runs / 5);
    expect(runs - violations).toBeGreaterThan(runs / 5);
  });

  it("the brute-force checker itself knows the textbook cases", () => {
    const op = (kind: Kind, value: V, answer: V, call: number, ret: number, extra: Partial<Op> = {}): Op => ({
      kind, value, expect: null, info: false, answer, applied: true, call, ret, ...extra,
    });
    // A stale read: the write returned before the read was called.
    expect(bruteForce([op("put", "a", "a", 0, 1), op("get", null, null, 2, 3)])).toBe(false);
    // Concurrent: either value.
    expect(bruteForce([op("put", "a", "a", 0, 5), op("get", null, null, 2, 3)])).toBe(true);
    // An unknown write may have happened late, or never.
    expect(bruteForce([op("put", "a", null, 0, Number.POSITIVE_INFINITY, { info: true }), op("get", null, null, 2, 3), op("get", null, "a", 4, 5)])).toBe(true);
    expect(bruteForce([op("put", "a", null, 0, Number.POSITIVE_INFINITY, { info: true }), op("get", null, "a", 2, 3), op("get", null, null, 4, 5)])).toBe(false);
  });
});

/** Runs random operations through the sequential model at random instants inside random intervals. */
const arbSequential: fc.Arbitrary<Op[]> = fc
  .array(
    fc.record({
      kind: fc.constantFrom<Kind>("put", "append", "delete", "cas", "get", "get"),
      value: text,
      expect: value,
      unknown: fc.boolean(),
      tookEffect: fc.boolean(),
      lead: fc.integer({ min: 0, max: 30 }),
      lag: fc.integer({ min: 0, max: 30 }),
    }),
    { minLength: 1, maxLength: 14 },
  )
  .map((steps) => {
    let v: V = null;
    return steps.flatMap((s, i) => {
      const at = i * 10;
      const info = s.unknown && s.kind !== "get";
      if (info && !s.tookEffect) return [{ kind: s.kind, value: s.value, expect: s.expect, info, answer: null, applied: false, call: at - s.lead, ret: Number.POSITIVE_INFINITY }];
      const before: V = v;
      if (s.kind === "put") v = s.value;
      else if (s.kind === "append") v = (v ?? "") + s.value;
      else if (s.kind === "delete") v = null;
      else if (s.kind === "cas" && v === s.expect) v = s.value;
      const applied = s.kind === "cas" && before === s.expect;
      const answer = s.kind === "cas" && !applied ? before : v;
      return [{ kind: s.kind, value: s.value, expect: s.expect, info, answer, applied, call: at - s.lead, ret: info ? Number.POSITIVE_INFINITY : at + s.lag }];
    });
  });

describe("histories from the sequential model", () => {
  it("are always accepted, with cas and unknown outcomes (and by the brute force, when small)", () => {
    fc.assert(
      fc.property(arbSequential, (ops) => {
        expect(checkLinearizability(toHistory(ops)).verdict).toBe("ok");
        if (ops.length <= 6) expect(bruteForce(ops)).toBe(true);
      }),
      { numRuns: 500, seed: 7 },
    );
  });
});
