/**
 * Assertions where the rules live, each paired with a checker (etcd's commitTo panic,
 * TigerBeetle's paired assertions): each test reaches one with an input or a state that
 * correct code never produces, and expects a clear Error (in a run it surfaces as an
 * `assertion` violation through the process-exception path).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { LeaseTable } from "../../src/core/lease/table";
import { LeaseTracker, type TrackerEvent } from "../../src/core/lease/tracker";
import type { ProcessContext } from "../../src/core/sim/process";
import type { Payload, ProcEvent } from "../../src/core/sim/trace";
import { runScenario } from "../../src/core/scenario/runner";
import { FencedStorage } from "../../src/core/storage/storage";
import { electedCluster } from "../raft/harness";
import { loadScenario, testLeaseSettings } from "../support/scenarios";
import { sweeps } from "../support/sweeps";

afterEach(() => {
  vi.restoreAllMocks();
});

const grant = (name: string, holder: string) => ({ type: "grant" as const, name, holder, ttlMs: 2000 });

describe("paired assertions", () => {
  it("lease table: a fresh grant whose token would not exceed the name's last token throws", () => {
    const t = LeaseTable.empty(testLeaseSettings);
    t.applyClient(grant("lock", "h1"), 7);
    t.applyClient({ type: "revoke", name: "lock", holder: "h1", token: 7 }, 8);
    // A log index going backwards: impossible for entries applied in order.
    expect(() => t.applyClient(grant("lock", "h2"), 7)).toThrow(/fresh grant of "lock" at index 7 would not exceed its last token 7/);
    expect(() => t.applyClient(grant("lock", "h2"), 5)).toThrow(/fencing tokens only grow/);
    // In order, it is fine.
    expect(t.applyClient(grant("lock", "h2"), 9).result).toMatchObject({ kind: "granted", token: 9 });
  });

  it("Raft node: the commit index never moves back, stands still, or passes the log", () => {
    const net = electedCluster(3);
    const node = net.node("n1");
    const setCommit = (i: number) => (node as unknown as { setCommit(i: number): void }).setCommit(i);
    const commit = node.commitIndex;
    expect(commit).toBeGreaterThan(0);
    expect(node.lastIndex).toBe(commit);
    expect(() => setCommit(commit)).toThrow(/commit index would move from \d+ to \d+ .*commit only moves forward/);
    expect(() => setCommit(commit - 1)).toThrow(/commit only moves forward/);
    expect(() => setCommit(node.lastIndex + 1)).toThrow(/never past the log/);
    expect(node.commitIndex).toBe(commit);
  });

  it("lease tracker: a refresh that leaves another holding tracked throws", () => {
    const table = LeaseTable.empty(testLeaseSettings);
    const tracker = LeaseTracker.promote(testLeaseSettings, 0, [], []);
    tracker.onApplied(0, table.applyClient(grant("lock", "h1"), 1), []);
    // A planted bug in the bookkeeping: track() records someone else's holding.
    const internals = tracker as unknown as { track: (...args: unknown[]) => unknown };
    const track = internals.track.bind(tracker);
    vi.spyOn(internals, "track").mockImplementation((name, _holder, ...rest) => track(name, "h2", ...rest));
    const events: TrackerEvent[] = [];
    expect(() => tracker.refresh(1000, "lock", "h1", 1, false, events)).toThrow(
      /refresh of "lock" by h1 \(token 1\) did not leave that holding tracked/,
    );
  });

  it("fenced storage: accepting a write below the highest token with fencing on throws", () => {
    const st = new FencedStorage("s1", { fencing: true });
    const sends: Payload[] = [];
    const ctx: ProcessContext = {
      now: 0,
      send: (_to: string, p: Payload) => sends.push(p),
      emit: (_e: ProcEvent) => {},
      pauseSelf: () => {},
    };
    const write = (token: number, reqId: number) => ({
      type: "StorageWrite" as const,
      reqId,
      resource: "R",
      holder: "h1",
      token,
      value: `v${reqId}`,
    });
    st.onMessage(ctx, "h1", write(10, 1));
    // A planted bug in the rule: every token admitted.
    vi.spyOn(st as unknown as { admits: () => boolean }, "admits").mockReturnValue(true);
    expect(() => st.onMessage(ctx, "h1", write(9, 2))).toThrow(
      /accepted a write to R with token 9 below the highest seen, 10, with fencing on/,
    );
    // With fencing off, accepting a stale token is the point (an efficiency lock): no assertion.
    st.setFencing(false);
    expect(() => st.onMessage(ctx, "h1", write(8, 3))).not.toThrow();
  });

  it("in a run, a broken assertion halts it as an `assertion` violation (the lease sweep with the fencing rule broken)", () => {
    vi.spyOn(FencedStorage.prototype as unknown as { admits: () => boolean }, "admits").mockReturnValue(true);
    const scenario = loadScenario(sweeps, "lease-sweep.json");
    let found: string | null = null;
    for (let seed = 1; seed <= 100 && found === null; seed++) {
      const r = runScenario(scenario, { seed });
      const v = r.violations.find((x) => x.invariant === "assertion");
      if (v !== undefined) found = v.detail;
    }
    expect(found).toMatch(/below the highest seen, \d+, with fencing on/);
  });
});
