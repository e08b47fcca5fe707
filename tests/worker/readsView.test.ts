import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { applyActionsTo } from "../../src/core/replay/timeline";
import { buildSimulation as build, scenarioActions } from "../../src/core/scenario/runner";
import { loadScenario } from "../support/scenarios";
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

  it("the leader names the cut-off holder its write waits for, until that holder's lease runs out", () => {
    const sc = loadScenario(join(import.meta.dirname, "../../scenarios/reads"), "read-lease-partitioned-holder.json");
    const s = build(sc);
    const actions = scenarioActions(sc);
    let next = applyActionsTo(s, actions, 0, 3_000_000).next;
    const leader = s.leader() as string;
    const window = { from: 1, to: 10 };
    expect(nodeView(s, leader, window).reads?.waitingOn).toEqual([]);
    next = applyActionsTo(s, actions, next, 3_200_000).next;
    const waiting = nodeView(s, leader, window).reads?.waitingOn ?? [];
    expect(waiting).toHaveLength(1);
    const cut = waiting[0]?.node as string;
    expect(cut).not.toBe(leader);
    expect(waiting[0]?.until).toBeGreaterThan(s.now);
    applyActionsTo(s, actions, next, 4_500_000);
    expect(nodeView(s, leader, window).reads?.waitingOn).toEqual([]);
  });
});
