import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkLinearizability, describeLinResult } from "../../src/core/lin/check";
import { RaftNode } from "../../src/core/raft/node";
import type { HistoryOp } from "../../src/core/scenario/history";
import { runScenario } from "../../src/core/scenario/runner";
import { parseScenario, parseScenarioText } from "../../src/core/scenario/schema";
import { staleReads } from "../../src/core/scenario/staleReads";

type Outcome = HistoryOp["outcome"];
let seq = 0;
/** One operation: `answer` is the output's value (ok outcomes), `ret` null for unknown outcomes. */
function op(client: string, operation: string, key: string, value: string | null, outcome: Outcome, answer: unknown, call: number, ret: number | null, extra: object = {}): HistoryOp {
  return {
    client,
    session: `${client}.1`,
    seq: ++seq,
    operation,
    key,
    value,
    outcome,
    output: outcome === "ok" ? { value: answer, ...extra } : null,
    callUs: call,
    returnUs: outcome === "info" ? null : ret,
  };
}
const put = (c: string, k: string, v: string, call: number, ret: number | null, outcome: Outcome = "ok") => op(c, "put", k, v, outcome, v, call, ret);
const get = (c: string, k: string, seen: string | null, call: number, ret: number, outcome: Outcome = "ok") => op(c, "get", k, null, outcome, seen, call, ret);

describe("linearizability of key-value histories", () => {
  it("accepts a sequential history and reads concurrent with a write that see either value", () => {
    const h = [put("c1", "x", "a", 0, 10), get("c2", "x", "a", 11, 12), put("c1", "x", "b", 20, 30), get("c2", "x", "a", 21, 22), get("c3", "x", "b", 23, 24)];
    expect(checkLinearizability(h).verdict).toBe("ok");
    // ...but once a read saw b, a later read may not see a again.
    const back = [...h, get("c2", "x", "a", 25, 26)];
    expect(checkLinearizability(back).verdict).toBe("violation");
  });

  it("rejects a stale read and names the read and the write it should have seen", () => {
    const stale = get("c2", "x", "a", 40, 50);
    const h = [put("c1", "x", "a", 0, 10), put("c1", "x", "b", 20, 30), stale];
    const r = checkLinearizability(h);
    expect(r.verdict).toBe("violation");
    const k = r.keys[0];
    expect(k?.stuck).toBe(stale);
    expect(k?.expected?.value).toBe("b");
    expect(k?.expected?.writer?.value).toBe("b");
    expect(k?.prefix?.map((o) => o.value)).toEqual(["a", "b"]);
    const text = describeLinResult(r).join("\n");
    expect(text).toContain("NOT linearizable");
    expect(text).toContain('get x, answered "a"');
    expect(text).toContain('key held "b"');
  });

  it("a read of a value nobody wrote is a violation; the initial value is absent (null)", () => {
    expect(checkLinearizability([get("c1", "x", null, 0, 1)]).verdict).toBe("ok");
    expect(checkLinearizability([get("c1", "x", "ghost", 0, 1)]).verdict).toBe("violation");
  });

  it("an info write may have taken effect at any time after its call, or never", () => {
    const w = put("c1", "x", "a", 5, null, "info");
    expect(checkLinearizability([w, get("c2", "x", "a", 100, 101)]).verdict).toBe("ok");
    expect(checkLinearizability([w, get("c2", "x", null, 100, 101)]).verdict).toBe("ok");
    // It took effect, so it cannot be undone later.
    expect(checkLinearizability([w, get("c2", "x", "a", 100, 101), get("c2", "x", null, 102, 103)]).verdict).toBe("violation");
    // Not before its call.
    expect(checkLinearizability([get("c2", "x", "a", 0, 1), w]).verdict).toBe("violation");
  });

  it("fail operations had no effect, and an info read is dropped", () => {
    expect(checkLinearizability([put("c1", "x", "a", 0, 1, "fail"), get("c2", "x", "a", 2, 3)]).verdict).toBe("violation");
    expect(checkLinearizability([put("c1", "x", "a", 0, 1, "fail"), get("c2", "x", null, 2, 3)]).verdict).toBe("ok");
    const infoRead = op("c2", "get", "x", null, "info", null, 2, null);
    const failRead = get("c3", "x", "ghost", 2, 3, "fail");
    expect(checkLinearizability([put("c1", "x", "a", 0, 1), infoRead, failRead]).keys[0]?.operations).toBe(1);
  });

  it("checks appends' answers and cas without its expected value", () => {
    const a1 = op("c1", "append", "x", "1;", "ok", "1;", 0, 1);
    expect(checkLinearizability([a1, op("c2", "append", "x", "2;", "ok", "1;2;", 2, 3)]).verdict).toBe("ok");
    expect(checkLinearizability([a1, op("c2", "append", "x", "2;", "ok", "2;", 2, 3)]).verdict).toBe("violation");
    const swapped = op("c1", "cas", "x", "b", "ok", "b", 2, 3, { applied: true });
    const refused = op("c2", "cas", "x", "z", "ok", "b", 4, 5, { applied: false });
    expect(checkLinearizability([put("c1", "x", "a", 0, 1), swapped, refused]).verdict).toBe("ok");
    const wrongRefusal = op("c2", "cas", "x", "z", "ok", "a", 4, 5, { applied: false });
    expect(checkLinearizability([put("c1", "x", "a", 0, 1), swapped, wrongRefusal]).verdict).toBe("violation");
    // An unknown cas may have swapped or not.
    const maybe = op("c1", "cas", "x", "b", "info", null, 2, null);
    expect(checkLinearizability([put("c1", "x", "a", 0, 1), maybe, get("c2", "x", "a", 10, 11), get("c2", "x", "b", 12, 13)]).verdict).toBe("ok");
  });

  it("drops unknown appends that no answer shows (a key of appends and reads only), and keeps the others", () => {
    const unseen = Array.from({ length: 10 }, (_, i) => op(`c${i}`, "append", "x", `i${i};`, "info", null, 0, null));
    const needed = op("d", "append", "x", "n;", "info", null, 0, null);
    const h = [...unseen, needed, get("r", "x", "n;", 10, 11)];
    const r = checkLinearizability(h, 50);
    expect(r.verdict).toBe("ok");
    expect(r.keys[0]?.operations).toBe(2);
    // Kept when an answer shows it, and then it cannot be undone.
    expect(checkLinearizability([needed, get("r", "x", "n;", 10, 11), get("r", "x", null, 12, 13)]).verdict).toBe("violation");
    // Not dropped on a key with puts: a put may have overwritten it after it was seen by no one.
    const withPut = [...h, put("p", "x", "q", 20, 21)];
    expect(checkLinearizability(withPut).keys[0]?.operations).toBe(13);
  });

  it("checks cas against its recorded expected value", () => {
    const cas = (expect: string | null, applied: boolean, answer: string | null, outcome: Outcome = "ok") => ({
      ...op("c2", "cas", "x", "b", outcome, answer, 2, 3, { applied }),
      expect,
    });
    const a = put("c1", "x", "a", 0, 1);
    expect(checkLinearizability([a, cas("a", true, "b"), get("c3", "x", "b", 4, 5)]).verdict).toBe("ok");
    expect(checkLinearizability([a, cas("z", true, "b")]).verdict).toBe("violation");
    expect(checkLinearizability([a, cas("z", false, "a"), get("c3", "x", "a", 4, 5)]).verdict).toBe("ok");
    expect(checkLinearizability([a, cas("a", false, "a")]).verdict).toBe("violation");
    // An unknown cas whose precondition failed had no effect even if it happened.
    expect(checkLinearizability([a, cas("z", false, null, "info"), get("c3", "x", "b", 4, 5)]).verdict).toBe("violation");
    expect(checkLinearizability([a, cas("a", false, null, "info"), get("c3", "x", "b", 4, 5)]).verdict).toBe("ok");
  });

  it("a key put with a lease may vanish when the lease ends; one put without may not", () => {
    const leased = { ...put("h1", "/holders/h1", "h1", 0, 1), lease: "lock" };
    const refused = { ...op("h1", "put", "/holders/h1", "h1", "ok", null, 10, 11, { error: "lease lock is not held" }), lease: "lock" };
    expect(checkLinearizability([leased, get("c1", "/holders/h1", null, 5, 6), refused]).verdict).toBe("ok");
    const plain = put("h1", "/holders/h1", "h1", 0, 1);
    expect(checkLinearizability([plain, get("c1", "/holders/h1", null, 5, 6)]).verdict).toBe("violation");
    expect(checkLinearizability([plain, { ...refused, lease: undefined }]).verdict).toBe("violation");
  });

  it("checks each key on its own: a violation on one key leaves the others linearizable", () => {
    const h = [put("c1", "x", "a", 0, 10), get("c2", "y", "a", 1, 2), get("c2", "x", "a", 11, 12), put("c3", "y", "b", 0, 1)];
    const r = checkLinearizability(h);
    expect(r.verdict).toBe("violation");
    expect(r.keys.map((k) => [k.key, k.verdict])).toEqual([
      ["x", "ok"],
      ["y", "violation"],
    ]);
    // Lease operations and storage writes are not registers.
    const lease = { ...put("h1", "lock", "v", 0, 1), operation: "storage-write", output: { accepted: true } };
    expect(checkLinearizability([lease]).keys).toEqual([]);
  });

  it("gives unknown, not a guess, when the step budget runs out", () => {
    // Many concurrent writes and a read of the first: the search must try many orders.
    const h = Array.from({ length: 12 }, (_, i) => put(`c${i}`, "x", `v${i}`, 0, 100));
    h.push(get("z", "x", "v0", 0, 100), get("z", "x", "v1", 101, 102));
    const tight = checkLinearizability(h, 5);
    expect(tight.verdict).toBe("unknown");
    expect(describeLinResult(tight).join("\n")).toContain("unknown (timed out after 5 steps)");
    expect(checkLinearizability(h).verdict).toBe("ok");
    // The budget never turns a violation into ok.
    const bad = [...h, get("z", "x", "never", 103, 104)];
    expect(checkLinearizability(bad, 5).verdict).toBe("unknown");
    expect(checkLinearizability(bad).verdict).toBe("violation");
  });
});

/** A history from a sequential register model: operation i takes effect at 100·(i+1), inside its random interval. */
const arbHistory = fc
  .array(
    fc.record({
      key: fc.constantFrom("x", "y"),
      kind: fc.constantFrom("put", "append", "delete", "get", "get"),
      lead: fc.integer({ min: 0, max: 250 }),
      lag: fc.integer({ min: 0, max: 250 }),
      unknown: fc.boolean(),
      tookEffect: fc.boolean(),
    }),
    { minLength: 1, maxLength: 30 },
  )
  .map((spec) => {
    const state = new Map<string, string | null>();
    return spec.map((s, i) => {
      const t = 100 * (i + 1);
      const before = state.get(s.key) ?? null;
      const value = s.kind === "put" ? `v${i}` : s.kind === "append" ? `${i};` : null;
      const after = s.kind === "put" ? value : s.kind === "append" ? (before ?? "") + value : s.kind === "delete" ? null : before;
      const unknown = s.kind !== "get" && s.unknown;
      if (!unknown || s.tookEffect) state.set(s.key, after);
      return op(`p${i}`, s.kind, s.key, value, unknown ? "info" : "ok", after, t - s.lead, t + s.lag);
    });
  });

describe("linearizability: property tests against a sequential model", () => {
  it("accepts every history that has a real linearization", () => {
    fc.assert(
      fc.property(arbHistory, (h) => {
        expect(checkLinearizability(h).verdict).toBe("ok");
      }),
      { numRuns: 300, seed: 42 },
    );
  });

  it("rejects the history once one read's value is corrupted to a value never written", () => {
    fc.assert(
      fc.property(arbHistory, fc.nat(), (h, pick) => {
        const reads = h.flatMap((o, i) => (o.operation === "get" ? [i] : []));
        fc.pre(reads.length > 0);
        const i = reads[pick % reads.length] as number;
        const bad = h.map((o, j) => (j === i ? { ...o, output: { value: "never-written" } } : o));
        const r = checkLinearizability(bad);
        expect(r.verdict).toBe("violation");
        expect(r.keys.find((k) => k.verdict === "violation")?.key).toBe(h[i]?.key);
      }),
      { numRuns: 300, seed: 43 },
    );
  });
});

describe("linearizability of real runs", () => {
  it("a shipped scenario with clients (a partition, writes on both sides) gives a linearizable history", () => {
    const file = join(import.meta.dirname, "../../scenarios/raft/minority-partition.json");
    const p = parseScenarioText(readFileSync(file, "utf8"));
    if (!p.ok) throw new Error(p.errors.join("; "));
    const h = runScenario(p.scenario, { history: true }).history;
    const kv = h?.operations.filter((o) => o.operation !== "storage-write") ?? [];
    expect(kv.length).toBeGreaterThan(0);
    const r = checkLinearizability(h?.operations ?? []);
    expect(r.verdict, describeLinResult(r).join("\n")).toBe("ok");
  });

  it("the lease holders' keys (put with their lease, deleted when it ends) are recorded with the lease and accepted", () => {
    const s = parseScenario({ name: "holders", duration: "20s", holders: { count: 3, ttlMs: 1500 }, nemesis: {} });
    if (!s.ok) throw new Error(s.errors.join("; "));
    for (const seed of [1, 2]) {
      const ops = runScenario(s.scenario, { seed, history: true, checkers: false }).history?.operations ?? [];
      expect(ops.some((o) => o.operation === "put" && o.lease !== undefined), `seed ${seed}`).toBe(true);
      const r = checkLinearizability(ops);
      expect(r.verdict, `seed ${seed}:\n${describeLinResult(r).join("\n")}`).toBe("ok");
    }
  });

  it("random reads and appends under the random nemesis stay linearizable", () => {
    for (const seed of [1, 2, 3]) {
      const s = parseScenario({ name: "lin", duration: "8s", clients: { count: 3, workload: "random" }, nemesis: { includeClients: true } });
      if (!s.ok) throw new Error(s.errors.join("; "));
      const h = runScenario(s.scenario, { seed, history: true, checkers: false }).history;
      const ops = h?.operations ?? [];
      expect(ops.filter((o) => o.operation === "get" && o.outcome === "ok").length, `seed ${seed}`).toBeGreaterThan(0);
      const r = checkLinearizability(ops);
      expect(r.verdict, `seed ${seed}:\n${describeLinResult(r).join("\n")}`).toBe("ok");
      // The same history with one read's answer changed is caught.
      const i = ops.findIndex((o) => o.operation === "get" && o.outcome === "ok");
      const bad = ops.map((o, j) => (j === i ? { ...o, output: { value: "never-written" } } : o));
      expect(checkLinearizability(bad).verdict, `seed ${seed}`).toBe("violation");
    }
  });
});

describe("linearizability: a planted bug", () => {
  it("finds the stale reads of a leader that skips ReadIndex, and names the read", () => {
    const proto = RaftNode.prototype as unknown as Record<string, unknown>;
    const original = proto.requestRead;
    expect(typeof original).toBe("function");
    proto.requestRead = function (this: RaftNode, ctx: unknown) {
      if (this.role !== "leader") return false;
      (this as unknown as { st: { readStates: { ctx: unknown; index: number }[] } }).st.readStates.push({ ctx, index: this.commitIndex });
      return true;
    };
    try {
      const s = parseScenario({
        name: "hunt",
        duration: "6s",
        clients: { count: 3, workload: "random" },
        nemesis: { intervalMin: "50ms", intervalMax: "500ms", quietAfter: "5s" },
      });
      if (!s.ok) throw new Error(s.errors.join("; "));
      let found: number | null = null;
      for (let seed = 1; seed <= 200 && found === null; seed++) {
        const h = runScenario(s.scenario, { seed, history: true, checkers: false }).history;
        if (h === null || staleReads(h).length === 0) continue;
        found = seed;
        const r = checkLinearizability(h.operations);
        expect(r.verdict, `seed ${seed}`).toBe("violation");
        const bad = r.keys.find((k) => k.verdict === "violation");
        expect(bad?.stuck?.operation, `seed ${seed}`).toBe("get");
        console.log(`planted ReadIndex bug, seed ${seed}:\n${describeLinResult(r).join("\n")}`);
      }
      expect(found, "no seed in 1..200 showed a stale read").not.toBeNull();
    } finally {
      proto.requestRead = original;
    }
  });
});
