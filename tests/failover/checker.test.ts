import { describe, expect, it } from "vitest";
import { replicaRole } from "../../src/core/holder/replica";
import { PrimaryChecker } from "../../src/core/sim/checkers/primary";
import type { CheckerHost, Violation } from "../../src/core/sim/checkers/types";
import type { TraceEvent } from "../../src/core/sim/trace";

function host(found: Omit<Violation, "time" | "seed">[]): CheckerHost {
  return {
    seed: 1,
    now: 0,
    nodeIds: [],
    holderIds: ["h1", "h2"],
    diskOf: () => undefined,
    stateOf: () => null,
    isUp: () => true,
    localNow: () => 0,
    holderTiming: () => null,
    report: (v) => found.push(v),
    boundBroken: () => {},
  };
}

let n = 0;
const replica = (proc: string, t: number, lease = "ag01"): TraceEvent & { kind: "replica" } => ({
  t,
  n: n++,
  proc,
  kind: "replica",
  role: "secondary",
  leaseName: lease,
  token: null,
  cause: "start",
});
const write = (from: string, t: number, token: number): TraceEvent & { kind: "send" } => ({
  t,
  n: n++,
  kind: "send",
  id: n,
  from,
  to: "s1",
  deliverAt: t + 10,
  dup: false,
  msg: { type: "StorageWrite", reqId: n, resource: "ag01", holder: from, token, value: `${from}#${n}` },
});

function run(events: TraceEvent[]): Omit<Violation, "time" | "seed">[] {
  const found: Omit<Violation, "time" | "seed">[] = [];
  const c = new PrimaryChecker(host(found));
  for (const e of events) {
    if (e.kind === "replica") c.onReplica(e.proc, e);
    else if (e.kind === "send") c.onSend(e);
  }
  return found;
}

describe("the two-primaries checker", () => {
  it("a handover (the old primary's last write before the new one's first) is not two primaries", () => {
    expect(run([replica("h1", 0), replica("h2", 0), write("h1", 100, 1), write("h1", 200, 1), write("h2", 300, 2), write("h2", 400, 2)])).toEqual([]);
  });

  it("an old primary writing after the new primary's first write is two primaries, reported once", () => {
    const found = run([replica("h1", 0), replica("h2", 0), write("h1", 100, 1), write("h2", 300, 2), write("h1", 350, 1), write("h1", 360, 1)]);
    expect(found).toHaveLength(1);
    expect(found[0]?.invariant).toBe("two-primaries");
    expect(found[0]?.nodes).toEqual(["h2", "h1"]);
  });

  it("counts only replicas, and only replicas of the same lease", () => {
    expect(run([replica("h1", 0), write("h1", 100, 1), write("h9", 150, 2), write("h1", 200, 1)])).toEqual([]);
    expect(run([replica("h1", 0, "a"), replica("h2", 0, "b"), write("h1", 100, 1), write("h2", 150, 2), write("h1", 200, 1)])).toEqual([]);
  });

  it("a clone judges on its own", () => {
    const found: Omit<Violation, "time" | "seed">[] = [];
    const c = new PrimaryChecker(host(found));
    c.onReplica("h1", replica("h1", 0));
    c.onReplica("h2", replica("h2", 0));
    c.onSend(write("h1", 100, 1));
    const copy = c.clone(host(found));
    copy.onSend(write("h2", 150, 2));
    copy.onSend(write("h1", 200, 1));
    expect(found).toHaveLength(1);
    c.onSend(write("h1", 300, 1));
    expect(found).toHaveLength(1);
  });
});

describe("a replica's role", () => {
  it("primary while holding a token, offline in jeopardy and grace, secondary otherwise", () => {
    expect(replicaRole("holding", 3)).toBe("primary");
    expect(replicaRole("holding", null)).toBe("secondary");
    expect(replicaRole("jeopardy", 3)).toBe("offline");
    expect(replicaRole("grace", 3)).toBe("offline");
    expect(replicaRole("requesting", null)).toBe("secondary");
    expect(replicaRole("lost", null)).toBe("secondary");
  });
});
