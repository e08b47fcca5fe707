/**
 * The exported history (docs/history.md) is complete enough for an outside checker: a cas's
 * expected value, storage writes whose reply was lost as unknown, one session per holder
 * incarnation, and the keys a lease's end deleted.
 */
import { describe, expect, it } from "vitest";
import { checkLinearizability, describeLinResult } from "../../src/core/lin/check";
import { type HistoryOp, HistoryRecorder } from "../../src/core/scenario/history";
import { runScenario } from "../../src/core/scenario/runner";
import { parseScenario } from "../../src/core/scenario/schema";
import type { TraceEvent } from "../../src/core/sim/trace";

let n = 0;
/** A trace event at time `t` (the recorder reads only the fields it needs). */
const ev = (t: number, body: object): TraceEvent => ({ t, n: n++, ...body }) as unknown as TraceEvent;
const write = (id: number, t: number, reqId: number) =>
  ev(t, { kind: "send", id, from: "h1", to: "s1", deliverAt: t + 5, dup: false, msg: { type: "StorageWrite", reqId, resource: "r", holder: "h1", token: 3, value: `h1#${reqId}` } });
const reply = (id: number, t: number, reqId: number) =>
  ev(t, { kind: "send", id, from: "s1", to: "h1", deliverAt: t + 5, dup: false, msg: { type: "StorageReply", reqId, resource: "r", accepted: true, highest: 3 } });
const holderStart = (t: number) => ev(t, { kind: "holder", proc: "h1", state: "seeking", leaseName: "L", token: null, deadlineUs: null, event: "start" });

function recorded(events: TraceEvent[]): HistoryOp[] {
  const r = new HistoryRecorder();
  for (const e of events) r.observe(e);
  return r.finish(1).operations;
}

describe("the history recorder", () => {
  it("records a cas's expected value", () => {
    const ops = recorded([
      ev(10, { kind: "client", proc: "c1", phase: "invoke", clientId: "c1.1", seq: 1, op: { type: "cas", key: "x", expect: "a", value: "b" } }),
      ev(20, { kind: "client", proc: "c1", phase: "ok", clientId: "c1.1", seq: 1, op: { type: "cas", key: "x", expect: "a", value: "b" }, result: { kind: "kv", value: "b", applied: true } }),
    ]);
    expect(ops).toHaveLength(1);
    expect(ops[0]).toMatchObject({ operation: "cas", key: "x", value: "b", expect: "a", outcome: "ok", output: { value: "b", applied: true } });
  });

  it("a storage write whose reply was dropped is unknown (info), one whose reply arrived returns at the delivery", () => {
    const ops = recorded([holderStart(0), write(1, 10, 1), ev(15, { kind: "deliver", id: 1, from: "h1", to: "s1" }), reply(2, 15, 1), ev(18, { kind: "drop", id: 2, from: "s1", to: "h1", reason: "loss" }),
      write(3, 30, 2), ev(35, { kind: "deliver", id: 3, from: "h1", to: "s1" }), reply(4, 35, 2), ev(47, { kind: "deliver", id: 4, from: "s1", to: "h1" })]);
    expect(ops.map((o) => [o.seq, o.outcome, o.returnUs, o.output])).toEqual([
      [1, "info", null, null],
      [2, "ok", 47, { accepted: true, highest: 3 }],
    ]);
  });

  it("a duplicated reply answers the write if any copy arrives", () => {
    const ops = recorded([holderStart(0), write(1, 10, 1), reply(2, 15, 1), reply(3, 16, 1), ev(18, { kind: "drop", id: 2, from: "s1", to: "h1", reason: "loss" }), ev(22, { kind: "deliver", id: 3, from: "s1", to: "h1" })]);
    expect(ops.map((o) => [o.outcome, o.returnUs])).toEqual([["ok", 22]]);
  });

  it("storage writes are in the session of the holder's incarnation, like its other operations", () => {
    const ops = recorded([holderStart(0), write(1, 10, 1), ev(50, { kind: "crash", proc: "h1" }), holderStart(60), write(2, 70, 2)]);
    expect(ops.map((o) => o.session)).toEqual(["h1.1", "h1.2"]);
  });

  it("records the keys a lease's end deleted once, at the first node that applied it", () => {
    const end = (t: number, proc: string) => ev(t, { kind: "lease", proc, op: "expire", name: "L", holder: "h1", token: 3, index: 9, keys: ["a", "b"] });
    const ops = recorded([end(100, "n2"), end(120, "n1"), ev(130, { kind: "lease", proc: "n1", op: "expire", name: "M", holder: "h2", token: 4, index: 11 })]);
    expect(ops.map((o) => [o.client, o.session, o.seq, o.operation, o.key, o.lease, o.outcome, o.callUs, o.returnUs])).toEqual([
      ["system", "system", 9, "delete", "a", "L", "ok", 100, 100],
      ["system", "system", 9, "delete", "b", "L", "ok", 100, 100],
    ]);
  });
});

describe("the history of real runs", () => {
  const s = parseScenario({ name: "holders", duration: "20s", holders: { count: 3, ttlMs: 1500 }, nemesis: {} });
  if (!s.ok) throw new Error(s.errors.join("; "));

  it("holders' storage writes share the session of their key-value operations; lease ends are recorded and the history is linearizable", () => {
    let deletes = 0;
    for (const seed of [1, 2, 3]) {
      const ops = runScenario(s.scenario, { seed, history: true, checkers: false }).history?.operations ?? [];
      const writes = ops.filter((o) => o.operation === "storage-write");
      expect(writes.length, `seed ${seed}`).toBeGreaterThan(0);
      for (const w of writes) expect(w.session, `seed ${seed}`).toMatch(new RegExp(`^${w.client}\\.\\d+$`));
      const kvSessions = new Set(ops.filter((o) => o.client.startsWith("h") && o.operation !== "storage-write").map((o) => o.session));
      expect(writes.some((w) => kvSessions.has(w.session)), `seed ${seed}`).toBe(true);
      deletes += ops.filter((o) => o.session === "system").length;
      const r = checkLinearizability(ops, undefined, { leaseEndsRecorded: true });
      expect(r.verdict, `seed ${seed}:\n${describeLinResult(r).join("\n")}`).toBe("ok");
    }
    expect(deletes).toBeGreaterThan(0);
  });

  it("with lease ends recorded, a key read after its lease ended cannot still hold its value", () => {
    const mk = (client: string, operation: string, value: string | null, answer: string | null, call: number, ret: number, extra: Partial<HistoryOp> = {}): HistoryOp => ({
      client, session: client, seq: call, operation, key: "k", value, outcome: "ok", output: { value: answer }, callUs: call, returnUs: ret, ...extra,
    });
    const h = [mk("h1.1", "put", "v", "v", 0, 10, { lease: "L" }), mk("system", "delete", null, null, 50, 50, { lease: "L" }), mk("c1.1", "get", null, "v", 60, 70)];
    expect(checkLinearizability(h).verdict).toBe("violation");
    expect(checkLinearizability(h, undefined, { leaseEndsRecorded: false }).verdict).toBe("violation");
    // Without the record, the old checker could only assume an unknown delete: it accepts.
    expect(checkLinearizability([h[0] as HistoryOp, h[2] as HistoryOp]).verdict).toBe("ok");
    expect(checkLinearizability([h[0] as HistoryOp, mk("c1.1", "get", null, null, 60, 70)]).verdict).toBe("ok");
    expect(checkLinearizability([h[0] as HistoryOp, mk("c1.1", "get", null, null, 60, 70)], undefined, { leaseEndsRecorded: true }).verdict).toBe("violation");
  });
});
