/** staleReads: a read must see every append acknowledged before its call, unless a put may have replaced the value in between. */
import { describe, expect, it } from "vitest";
import type { History, HistoryOp } from "../../src/core/scenario/history";
import { staleReads } from "../../src/core/scenario/staleReads";

function op(operation: string, value: string | null, callUs: number, returnUs: number | null, client = "c1"): HistoryOp {
  const outcome = returnUs === null ? "info" : "ok";
  return { client, session: `${client}.1`, seq: callUs, operation, key: "k1", value, outcome, output: outcome === "ok" ? { kind: "kv", value } : null, callUs, returnUs };
}
const append = (v: string, call: number, ret: number | null): HistoryOp => op("append", v, call, ret);
const put = (v: string, call: number, ret: number | null): HistoryOp => op("put", v, call, ret);
const get = (seen: string | null, call: number, ret: number): HistoryOp => op("get", seen, call, ret, "c2");
const history = (...ops: HistoryOp[]): History => ({ format: "lease-lab-history/1", seed: 1, operations: ops });

describe("staleReads", () => {
  it("reports a read that misses an acknowledged append", () => {
    const found = staleReads(history(append("c1.1:1;", 0, 10), append("c1.1:2;", 20, 30), get("c1.1:1;", 40, 50)));
    expect(found.map((s) => s.missed)).toEqual(["c1.1:2;"]);
  });

  it("does not report a read of a value a put started over after the append", () => {
    // The put overlaps the read: it may have replaced "c1.1:1;c1.1:2;" just before the read.
    const h = history(append("c1.1:1;", 0, 10), append("c1.1:2;", 20, 30), put("c3.1:7;", 35, 60), get("c3.1:7;", 40, 50));
    expect(staleReads(h)).toEqual([]);
  });

  it("counts a put whose outcome is unknown as one that may have come in between", () => {
    const h = history(append("c1.1:1;", 0, 10), put("c3.1:7;", 5, null), get("c3.1:7;", 40, 50));
    expect(staleReads(h)).toEqual([]);
  });

  it("still reports a read that misses an append made after the last put", () => {
    // The put returned before the append was called: the append is in the value for good.
    const h = history(put("c3.1:7;", 0, 5), append("c1.1:8;", 10, 20), get("c3.1:7;", 30, 40));
    expect(staleReads(h).map((s) => s.missed)).toEqual(["c1.1:8;"]);
  });

  it("still reports it when the only put was called after the read returned", () => {
    const h = history(append("c1.1:1;", 0, 10), get(null, 20, 30), put("c3.1:7;", 31, 40));
    expect(staleReads(h).map((s) => s.missed)).toEqual(["c1.1:1;"]);
  });
});
