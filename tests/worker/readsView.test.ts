import { describe, expect, it } from "vitest";
import { parseScenario } from "../../src/core/scenario/schema";
import { buildSimulation } from "../../src/core/scenario/runner";
import { nodeReadsView } from "../../src/worker/readsView";
import { nodeView } from "../../src/worker/view";

function sim(cluster: Record<string, unknown>) {
  const r = parseScenario({ duration: "5s", cluster: { nodes: 3, ...cluster } });
  if (!r.ok) throw new Error(r.errors.join("; "));
  const s = buildSimulation(r.scenario);
  s.advanceTo(3_000_000);
  return s;
}

describe("nodeReadsView", () => {
  it("is null with neither lease on", () => {
    const s = sim({});
    const id = s.leader() as string;
    expect(nodeReadsView(s.server(id).node as never, s.clockOf(id), s.now)).toBeNull();
  });

  it("shows the leader's holders and visible index, and each follower's lease from it, in virtual time after now", () => {
    const s = sim({ readLeaseFollowers: 2, reads: "leader-lease" });
    const leader = s.leader() as string;
    const lv = nodeReadsView(s.server(leader).node as never, s.clockOf(leader), s.now);
    expect(lv?.holders.map((h) => h.node).sort()).toEqual(s.nodeIds.filter((x) => x !== leader).sort());
    for (const h of lv?.holders ?? []) expect(h.until).toBeGreaterThan(s.now);
    expect(lv?.visibleIndex).toBe(s.server(leader).node?.commitIndex);
    expect(lv?.leaderLeaseUntil).toBeGreaterThan(s.now);
    for (const f of s.nodeIds.filter((x) => x !== leader)) {
      const fv = nodeReadsView(s.server(f).node as never, s.clockOf(f), s.now);
      expect(fv?.heldFrom).toBe(leader);
      expect(fv?.heldUntil).toBeGreaterThan(s.now);
    }
  });

  it("is wired into the node's view as `reads`, absent with neither lease on and while the node is down", () => {
    const s = sim({ readLeaseFollowers: 2, reads: "leader-lease" });
    const leader = s.leader() as string;
    const window = { from: 1, to: 10 };
    expect(nodeView(s, leader, window).reads?.leaderLeaseUntil).toBeGreaterThan(s.now);
    const f = s.nodeIds.find((x) => x !== leader) as string;
    expect(nodeView(s, f, window).reads?.heldFrom).toBe(leader);
    const plain = sim({});
    expect("reads" in nodeView(plain, plain.leader() as string, window)).toBe(false);
    s.act({ type: "crash", proc: f });
    expect(nodeView(s, f, window).reads).toBeUndefined();
  });
});
