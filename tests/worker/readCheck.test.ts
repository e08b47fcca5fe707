/** "Check the reads": the worker's check of a branch's key-value history, the write a stale read missed, and the host's answer. */
import { afterEach, describe, expect, it } from "vitest";
import { RaftNode } from "../../src/core/raft/node";
import type { HistoryOp } from "../../src/core/scenario/history";
import { runScenario } from "../../src/core/scenario/runner";
import { parseScenario, type Scenario } from "../../src/core/scenario/schema";
import { staleReads } from "../../src/core/scenario/staleReads";
import { DEFAULT_SETTINGS } from "../../src/app/params";
import { branchHistory, checkReads } from "../../src/worker/readCheck";
import type { ReadCheckResult } from "../../src/worker/readCheckTypes";
import { missedWrite, opLabel, violationSentence, violationView } from "../../src/worker/readWitness";
import { fakeHost } from "../support/host";

let seq = 0;
function op(client: string, operation: string, key: string, value: string | null, call: number, ret: number | null, answer?: string | null, outcome: HistoryOp["outcome"] = "ok"): HistoryOp {
  return {
    client,
    session: `${client}.1`,
    seq: ++seq,
    operation,
    key,
    value,
    outcome,
    output: outcome === "ok" ? { value: answer === undefined ? value : answer } : null,
    callUs: call,
    returnUs: outcome === "info" ? null : ret,
  };
}
const put = (c: string, k: string, v: string, call: number, ret: number) => op(c, "put", k, v, call, ret);
const get = (c: string, k: string, seen: string | null, call: number, ret: number) => op(c, "get", k, null, call, ret, seen);
/** An append answers the value after it. */
const append = (c: string, k: string, v: string, call: number, ret: number, after: string) => op(c, "append", k, v, call, ret, after);
const S = 1_000_000;

function scenario(input: Record<string, unknown>): Scenario {
  const r = parseScenario({ name: "reads", duration: "6s", ...input });
  if (!r.ok) throw new Error(r.errors.join("; "));
  return r.scenario;
}

describe("the write a read should have seen", () => {
  it("names the latest finished write the answer does not show", () => {
    const pa = put("c1", "x", "a", 0, 10);
    const pb = put("c1", "x", "b", 20, 30);
    const stale = get("h2", "x", "a", 40, 50);
    expect(missedWrite([pa, pb, stale], stale)).toBe(pb);
    // Read after a third write that it does show: nothing missed.
    const pa2 = put("c3", "x", "a", 32, 35);
    expect(missedWrite([pa, pb, pa2, stale], stale)).toBeNull();
  });

  it("ignores writes still running when the read was called, writes with no answer and refused ones", () => {
    const pa = put("c1", "x", "a", 0, 10);
    const running = put("c1", "x", "b", 20, 45);
    const info = op("c2", "put", "x", "c", 5, null, undefined, "info");
    const refused: HistoryOp = { ...put("c2", "x", "d", 1, 2), output: { error: "not held", value: null } };
    const read = get("h2", "x", "a", 40, 50);
    expect(missedWrite([pa, running, info, refused, read], read)).toBeNull();
  });

  it("on appends: the latest finished append missing from the value, matched piece by piece", () => {
    const a1 = append("c1", "k", "c1.1:1;", 0, 10, "c1.1:1;");
    const a2 = append("c2", "k", "c2.1:1;", 12, 20, "c1.1:1;c2.1:1;");
    const a11 = append("c1", "k", "c1.1:11;", 22, 30, "c1.1:1;c2.1:1;c1.1:11;");
    const read = get("c3", "k", "c1.1:1;c1.1:11;", 40, 41);
    // "c1.1:1;" shows; c2's is missing, c1.1:11 shows (not mistaken for c1.1:1).
    expect(missedWrite([a1, a2, a11, read], read)).toBe(a2);
    const read2 = get("c3", "k", "c1.1:1;c2.1:1;", 40, 41);
    expect(missedWrite([a1, a2, a11, read2], read2)).toBe(a11);
    // "a;" is not in "ba;" (a piece, not a substring).
    const pa = append("c1", "j", "a;", 0, 10, "a;");
    const pba = append("c2", "j", "ba;", 12, 20, "a;ba;");
    const read3 = get("c3", "j", "ba;", 40, 41);
    expect(missedWrite([pa, pba, read3], read3)).toBe(pa);
  });

  it("a delete is missed by a read that still sees a value; a value nobody wrote names no write", () => {
    const pa = put("c1", "x", "a", 0, 10);
    const del = op("c2", "delete", "x", null, 12, 20, null);
    const read = get("c3", "x", "a", 30, 31);
    expect(missedWrite([pa, del, read], read)).toBe(del);
    const ghost = get("c3", "x", "ghost", 5, 6);
    expect(missedWrite([ghost], ghost)).toBeNull();
  });

  it("says it in one sentence, with the times as the app writes them", () => {
    const pb = put("c1", "x", "b", 6.5 * S, 6.9 * S);
    const read = get("h2", "x", "a", 7.2 * S, 7.3 * S);
    expect(violationSentence(read, pb, null)).toBe(
      "h2's read of x at 7.200 s returned 'a', but the write of 'b' by c1 had already finished at 6.900 s: a linearizable store must return 'b' or something written later.",
    );
    expect(opLabel(read)).toBe("read x → 'a'");
    expect(opLabel(append("c1", "x", "c1:5;", 0, 1, "c1:5;"))).toBe("append x 'c1:5;'");
    expect(opLabel(get("c1", "x", null, 0, 1))).toBe("read x → nothing");
  });

  it("draws the stuck read, the write it missed and the one it saw, at most 14 operations", () => {
    const ops: HistoryOp[] = [put("c1", "x", "a", 0, 10), put("c1", "x", "b", 20, 30)];
    for (let i = 0; i < 30; i++) ops.push(get("c2", "x", "b", 31 + i * 2, 32 + i * 2));
    const stale = get("c3", "x", "a", 40, 100);
    const v = violationView([...ops, stale], stale, { value: "b", writer: ops[1] as HistoryOp });
    expect(v.ops.length).toBe(14);
    expect(v.onKey).toBe(33);
    expect(v.ops[v.stuck]?.label).toBe("read x → 'a'");
    expect(v.missed).not.toBeNull();
    expect(v.ops[v.missed as number]?.label).toBe("write x 'b'");
    expect(v.ops.map((o) => o.label)).toContain("write x 'a'");
    expect(v.ops.map((o) => o.callUs)).toEqual([...v.ops.map((o) => o.callUs)].sort((a, b) => a - b));
  });
});

describe("checkReads", () => {
  it("a normal run with key-value clients: ok, with counts, as plain data", () => {
    const s = scenario({ clients: { count: 3, workload: "random" } });
    const ops = branchHistory(s, [], 6 * S);
    const r = checkReads(ops, 6 * S);
    expect(r.kind).toBe("ok");
    if (r.kind !== "ok") return;
    expect(r.reads).toBeGreaterThan(0);
    expect(r.writes).toBeGreaterThan(0);
    expect(r.keys).toBeGreaterThan(0);
    // The same history the scenario runner records.
    const h = runScenario(s, { history: true, checkers: false }).history?.operations ?? [];
    expect(ops.length).toBe(h.filter((o) => o.callUs <= 6 * S).length);
    expect(structuredClone(r)).toEqual(r);
    expect(JSON.parse(JSON.stringify(r))).toEqual(r);
  });

  it("a run whose clients do not read says so", () => {
    const s = scenario({ clients: { count: 0, workload: "none" } });
    expect(checkReads(branchHistory(s, [], 3 * S), 3 * S).kind).toBe("no-reads");
  });

  it("too small a step budget answers unknown, never a guess", () => {
    const s = scenario({ clients: { count: 3, workload: "random" } });
    const r = checkReads(branchHistory(s, [], 6 * S), 6 * S, 1);
    expect(r.kind).toBe("unknown");
    if (r.kind === "unknown") expect(r.undecided.length).toBeGreaterThan(0);
  });
});

describe("checkReads on a planted stale read", () => {
  const proto = RaftNode.prototype as unknown as Record<string, unknown>;
  const original = proto.requestRead;
  afterEach(() => {
    proto.requestRead = original;
  });

  it("a leader that skips ReadIndex: a violation naming the stale read and the write it missed", () => {
    expect(typeof original).toBe("function");
    proto.requestRead = function (this: RaftNode, ctx: unknown) {
      if (this.role !== "leader") return false;
      (this as unknown as { st: { readStates: { ctx: unknown; index: number }[] } }).st.readStates.push({ ctx, index: this.commitIndex });
      return true;
    };
    const s = scenario({ clients: { count: 3, workload: "random" }, nemesis: { intervalMin: "50ms", intervalMax: "500ms", quietAfter: "5s" } });
    let result: ReadCheckResult | null = null;
    for (let seed = 1; seed <= 200 && result === null; seed++) {
      const h = runScenario({ ...s, seed }, { history: true, checkers: false }).history;
      if (h === null || staleReads(h).length === 0) continue;
      result = checkReads(h.operations, 6 * S);
    }
    expect(result?.kind).toBe("violation");
    if (result?.kind !== "violation") return;
    const v = result.violation;
    const stuck = v.ops[v.stuck];
    expect(stuck?.operation).toBe("get");
    expect(v.missed).not.toBeNull();
    const missed = v.ops[v.missed as number];
    expect(missed?.returnUs).toBeLessThan(stuck?.callUs as number);
    expect(v.sentence).toContain("had already finished");
    expect(v.sentence).toContain(`${stuck?.client}'s read of ${v.key}`);
    expect(structuredClone(result)).toEqual(result);
  });
});

describe("the host answers check-reads", () => {
  it("with a read-check for the request, and no new view", () => {
    const h = fakeHost();
    h.host.handle({ type: "start", settings: { ...DEFAULT_SETTINGS, autoplay: false, clients: { count: 2, workload: "random" } } });
    h.host.handle({ type: "seek", t: 0 });
    for (let i = 0; i < 3000; i++) h.host.handle({ type: "step" });
    const views = h.views().length;
    h.host.handle({ type: "check-reads", requestId: 41 });
    const answer = h.posts.at(-1);
    expect(answer?.type).toBe("read-check");
    if (answer?.type !== "read-check") return;
    expect(answer.requestId).toBe(41);
    expect(answer.result.untilUs).toBe(h.last().now);
    expect(answer.result.kind).toBe("ok");
    expect(h.views().length).toBe(views);
  });
});
