/**
 * Cluster membership changes, one server at a time (Ongaro's dissertation, chapter 4), in
 * the style of raft_paper_test.go: each title names the section it checks. Hand-driven
 * nodes first; then whole clusters with leases, where the point is that the lease service
 * keeps its promise through a change.
 */
import { describe, expect, it } from "vitest";
import type { Command, NodeEvent } from "../../src/core/raft/types";
import { runScenario } from "../../src/core/scenario/runner";
import { parseScenario } from "../../src/core/scenario/schema";
import type { TraceEvent } from "../../src/core/sim/trace";
import { electedCluster, Host, ids, Net, raftConfig } from "./harness";

const put = (seq: number): Command => ({ type: "client", clientId: "c1", seq, op: { type: "put", key: "k", value: `${seq}` } });

/** A 3-node cluster n1..n3 led by n1, with a spare n4 outside the configuration (it knows only the first one). */
function clusterWithSpare(): Net {
  const voters = ids(3);
  const net = new Net([...voters, "n4"].map((id) => new Host(raftConfig(id, voters))));
  net.timeout("n1");
  net.run();
  expect(net.node("n1").role).toBe("leader");
  return net;
}

function configEvents(net: Net, id: string): string[] {
  return net
    .host(id)
    .readies.flatMap((rd) => rd.events)
    .flatMap((e: NodeEvent) => (e.type === "config" ? [`${e.index}:${e.voters.join(",")}`] : []));
}

describe("membership changes (dissertation 4)", () => {
  it("4.1 a server added to the configuration is caught up, counts in majorities, and can vote", () => {
    const net = clusterWithSpare();
    const n1 = net.node("n1");
    expect(net.node("n4").isMember).toBe(false);
    expect(n1.proposeConfigChange({ add: "n4" })).toBeNull();
    net.flush("n1");
    // The leader uses the new configuration as soon as the entry is in its log.
    expect(n1.config).toEqual(["n1", "n2", "n3", "n4"]);
    net.run();
    net.heartbeat("n1");
    net.run();
    expect(net.node("n4").isMember).toBe(true);
    expect(net.node("n4").lastIndex).toBe(n1.lastIndex);
    expect(n1.commitIndex).toBe(n1.lastIndex);
    // A majority of four is three: with n2 and n3 silent, nothing commits.
    n1.propose(put(1));
    net.flush("n1");
    net.run((e) => e.to !== "n2" && e.to !== "n3");
    expect(n1.commitIndex).toBeLessThan(n1.lastIndex);
  });

  it("4.1 a configuration takes effect when appended, and is undone if the entry is cut off", () => {
    const net = electedCluster(3);
    const n1 = net.node("n1");
    expect(n1.proposeConfigChange({ remove: "n3" })).toBeNull();
    net.flush("n1");
    // Only n2 gets the entry (index 2); it uses the new configuration before it commits.
    net.run((e) => e.to === "n2" && e.msg.type === "AppendEntries");
    const n2 = net.node("n2");
    expect(n2.config).toEqual(["n1", "n2"]);
    // A leader of a later term whose log lacks the entry overwrites index 2: the change is undone.
    const term = n2.term + 1;
    n2.step(net.now, "n3", {
      type: "AppendEntries",
      term,
      prevLogIndex: 1,
      prevLogTerm: 1,
      entries: [{ index: 2, term, cmd: { type: "noop" } }],
      leaderCommit: 1,
      readCtx: 0,
    });
    net.flush("n2");
    expect(n2.config).toEqual(["n1", "n2", "n3"]);
    expect(configEvents(net, "n2")).toEqual(["2:n1,n2", "0:n1,n2,n3"]);
  });

  it("4.1 one change at a time: a second change waits until the first is committed", () => {
    const net = clusterWithSpare();
    const n1 = net.node("n1");
    expect(n1.proposeConfigChange({ add: "n4" })).toBeNull();
    expect(n1.proposeConfigChange({ remove: "n2" })).toMatch(/not committed yet: one change at a time/);
    net.flush("n1");
    net.run();
    expect(n1.proposeConfigChange({ remove: "n2" })).toBeNull();
  });

  it("4.1 (the 2015 fix) a new leader proposes no change before it has committed an entry of its own term", () => {
    const net = electedCluster(3);
    // n2 takes over; before its no-op of the new term commits, it must refuse a change.
    const n2 = net.node("n2");
    n2.onTimer(n2.electionDeadline);
    net.flush("n2");
    // Deliver the votes, hold back every append n2 sends as leader.
    net.run((e) => e.msg.type !== "AppendEntries" || e.from !== "n2");
    expect(n2.role).toBe("leader");
    expect(n2.proposeConfigChange({ remove: "n3" })).toMatch(/has not yet committed an entry of its term/);
    // Heartbeat rounds find the lost no-op and send it again; once it commits, a change may start.
    for (let i = 0; i < 4 && n2.commitIndex < n2.lastIndex; i++) {
      net.heartbeat("n2");
      net.run();
    }
    expect(n2.termAt(n2.commitIndex)).toBe(n2.term);
    expect(n2.proposeConfigChange({ remove: "n3" })).toBeNull();
  });

  it("4.2.2 a leader that removes itself does not count itself, leads until the change commits, then steps down", () => {
    const net = electedCluster(3);
    const n1 = net.node("n1");
    expect(n1.proposeConfigChange({ remove: "n1" })).toBeNull();
    net.flush("n1");
    expect(n1.isMember).toBe(false);
    expect(n1.role).toBe("leader");
    // Only n2 answers: n2 alone is not a majority of {n2, n3}, so the change does not commit.
    net.run((e) => e.to !== "n3");
    expect(n1.role).toBe("leader");
    expect(n1.commitIndex).toBeLessThan(n1.lastIndex);
    const term = n1.term;
    net.heartbeat("n1");
    net.run();
    expect(n1.commitIndex).toBe(n1.lastIndex);
    expect(n1.role).toBe("follower");
    // It handed over as it left (3.10): the member with the longest log won the next term at
    // once, with no election timeout waited out.
    const heir = ["n2", "n3"].filter((id) => net.node(id).role === "leader");
    expect(heir).toHaveLength(1);
    expect(net.node(heir[0] as string).term).toBe(term + 1);
    expect(net.node(heir[0] as string).config).toEqual(["n2", "n3"]);
    // n1 starts no election now: it is not in its own configuration.
    n1.onTimer(n1.electionDeadline);
    expect(n1.role).toBe("follower");
    expect(net.flush("n1").messages).toEqual([]);
  });

  it("4.2.3 a spare (or removed) server starts no election and cannot be handed leadership", () => {
    const net = clusterWithSpare();
    const n4 = net.node("n4");
    n4.onTimer(n4.electionDeadline);
    expect(n4.role).toBe("follower");
    expect(net.flush("n4").messages).toEqual([]);
    n4.forceElectionTimeout(net.now);
    expect(n4.role).toBe("follower");
    expect(net.node("n1").transferLeadership(net.now, "n4")).toMatch(/not a voter/);
  });

  it("4.1 a restarted server finds its configuration in its log", () => {
    const net = clusterWithSpare();
    net.node("n1").proposeConfigChange({ add: "n4" });
    net.flush("n1");
    net.run();
    net.host("n4").reboot(net.now);
    expect(net.node("n4").config).toEqual(["n1", "n2", "n3", "n4"]);
    expect(net.node("n4").isMember).toBe(true);
    expect(net.node("n4").configIndex).toBe(net.node("n1").configIndex);
  });
});

describe("the lease service keeps its promise through membership changes", () => {
  it("over 12 seeds: add a spare, remove a follower, remove the leader, add it back; no violation, no holder loses its lease", () => {
    for (let seed = 1; seed <= 12; seed++) {
      const parsed = parseScenario({
        name: "membership with leases",
        seed,
        duration: "14s",
        cluster: { nodes: 3, spares: 1 },
        clients: { count: 2, workload: "random" },
        holders: { count: 2 },
        storage: { fencing: true },
        actions: [
          { at: "2s", do: "add-node", node: "n4" },
          { at: "4s", do: "remove-node", node: "follower" },
          { at: "7s", do: "remove-node", node: "leader" },
          { at: "10s", do: "add-node", node: "n1" },
        ],
        expect: [{ at: "14s", that: "leader-exists" }],
      });
      if (!parsed.ok) throw new Error(parsed.errors.join("; "));
      const configs: string[] = [];
      const lost: string[] = [];
      const r = runScenario(parsed.scenario, {
        onTrace: (e: TraceEvent) => {
          if (e.kind === "config" && e.proc === "n4") configs.push(e.voters.join(","));
          if (e.kind === "holder" && e.state.startsWith("lost")) lost.push(e.proc);
        },
      });
      const failed = r.actionFailures.map((f) => `${f.action.type}: ${f.error}`);
      // n1 can only come back if it was the one removed; otherwise adding it is refused.
      expect(failed.filter((f) => !f.includes("n1 is already a member")), `seed ${seed}`).toEqual([]);
      expect(r.violations, `seed ${seed}`).toEqual([]);
      expect(lost, `seed ${seed}`).toEqual([]);
      expect(r.expectations.every((x) => x.ok), `seed ${seed}`).toBe(true);
      expect(configs.length, `seed ${seed}: ${configs.join(" / ")}`).toBeGreaterThanOrEqual(3);
    }
  });
});
