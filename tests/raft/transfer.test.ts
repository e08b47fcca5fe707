/**
 * Leadership transfer (Ongaro's dissertation, section 3.10; etcd's MsgTransferLeader and
 * MsgTimeoutNow): the leader stops taking proposals, brings the target's log up to date,
 * then tells it to start an election at once. Driven by hand, in the style of
 * raft_paper_test.go, except where a running cluster with leases is the point.
 */
import { describe, expect, it } from "vitest";
import type { NodeEvent, RaftMessage } from "../../src/core/raft/types";
import { runScenario } from "../../src/core/scenario/runner";
import { parseScenario } from "../../src/core/scenario/schema";
import type { TraceEvent } from "../../src/core/sim/trace";
import { electedCluster, type Envelope, HEARTBEAT_US } from "./harness";

const put = { type: "client" as const, clientId: "c1", seq: 1, op: { type: "put" as const, key: "k", value: "v" } };
const isType =
  (type: RaftMessage["type"], to?: string) =>
  (e: Envelope): boolean =>
    e.msg.type === type && (to === undefined || e.to === to);

function transferEvents(rds: readonly { events: readonly NodeEvent[] }[]): string[] {
  return rds.flatMap((rd) => rd.events.flatMap((e) => (e.type === "transfer" ? [`${e.phase} ${e.to}`] : [])));
}

/** A 3-node cluster led by n1 in which n3 missed the last entry. */
function n3Behind() {
  const net = electedCluster(3);
  const n1 = net.node("n1");
  n1.propose(put);
  net.flush("n1");
  net.run((e) => e.to !== "n3");
  return { net, n1 };
}

describe("leadership transfer (dissertation 3.10)", () => {
  it("3.10 an up-to-date target gets TimeoutNow at once, campaigns without a pre-vote, and wins in the next term", () => {
    const net = electedCluster(3, { preVote: true, checkQuorum: true });
    const n1 = net.node("n1");
    const term = n1.term;
    expect(n1.transferLeadership(net.now, "n2")).toBeNull();
    const rd = net.flush("n1");
    expect(transferEvents([rd])).toEqual(["started n2", "timeout-now n2"]);
    expect(net.queue.filter(isType("TimeoutNow", "n2"))).toHaveLength(1);
    net.run();
    expect(net.node("n2").role).toBe("leader");
    expect(net.node("n2").term).toBe(term + 1);
    expect(n1.role).toBe("follower");
    expect(n1.leader).toBe("n2");
  });

  it("3.10 voters grant the transfer's vote although they heard the leader just now (CheckQuorum's disruption rule is waived)", () => {
    const net = electedCluster(3, { checkQuorum: true });
    net.node("n1").transferLeadership(net.now, "n2");
    net.flush("n1");
    // Deliver only the TimeoutNow; keep n2's vote requests to inspect them.
    for (const env of net.take(isType("TimeoutNow"))) net.deliver(env);
    const votes = net.queue.filter(isType("RequestVote"));
    expect(votes.length).toBe(2);
    for (const v of votes) expect(v.msg).toMatchObject({ preVote: false, transfer: true });
    // n3 heard n1 within the election timeout, and still grants.
    const toN3 = net.take(isType("RequestVote", "n3"));
    net.deliver(toN3[0] as Envelope);
    expect(net.queue.find(isType("RequestVoteResp", "n2"))?.msg).toMatchObject({ granted: true });
  });

  it("3.10 a lagging target is caught up first: TimeoutNow only once its log matches the leader's", () => {
    const { net, n1 } = n3Behind();
    expect(n1.progress.n3?.match).toBeLessThan(n1.lastIndex);
    expect(n1.transferLeadership(net.now, "n3")).toBeNull();
    const rd = net.flush("n1");
    expect(transferEvents([rd])).toEqual(["started n3"]);
    expect(net.queue.some(isType("TimeoutNow"))).toBe(false);
    // The heartbeat round finds n3 behind and sends it what it lacks; its answer brings TimeoutNow.
    net.run();
    expect(net.node("n3").role).toBe("follower");
    net.heartbeat("n1");
    net.run();
    expect(net.node("n3").role).toBe("leader");
    expect(net.node("n3").lastIndex).toBeGreaterThanOrEqual(3);
    expect(transferEvents(net.host("n1").readies)).toContain("timeout-now n3");
  });

  it("3.10 the leader takes no proposals while it hands over", () => {
    const { net, n1 } = n3Behind();
    n1.transferLeadership(net.now, "n3");
    expect(n1.propose({ ...put, seq: 2 })).toBeNull();
    expect(n1.transferee).toBe("n3");
  });

  it("3.10 a transfer to a server that does not answer is given up after an election timeout, and proposals resume", () => {
    const { net, n1 } = n3Behind();
    n1.transferLeadership(net.now, "n3");
    net.flush("n1");
    net.take((e) => e.to === "n3");
    let at = net.now;
    // Heartbeats go on (n2 keeps answering); n3 hears nothing.
    while (n1.transferee !== null && at < net.now + 10 * HEARTBEAT_US) {
      at = n1.nextDeadline();
      n1.onTimer(at);
      net.flush("n1");
      net.run((e) => e.to !== "n3");
    }
    expect(n1.transferee).toBeNull();
    expect(n1.role).toBe("leader");
    expect(transferEvents(net.host("n1").readies).at(-1)).toBe("aborted n3");
    expect(n1.propose({ ...put, seq: 2 })).not.toBeNull();
  });

  it("3.10 refuses what cannot be transferred: not the leader, to itself, to a stranger", () => {
    const net = electedCluster(3);
    expect(net.node("n2").transferLeadership(net.now, "n3")).toMatch(/not the leader/);
    expect(net.node("n1").transferLeadership(net.now, "n1")).toMatch(/already the leader/);
    expect(net.node("n1").transferLeadership(net.now, "n9")).toMatch(/not a voter/);
  });
});

describe("a planned failover keeps the lease service's promise", () => {
  it("over 20 seeds: transfers to each follower in turn; every one succeeds, no holder loses its lease, no checker complains", () => {
    for (let seed = 1; seed <= 20; seed++) {
      const parsed = parseScenario({
        name: "planned failovers",
        seed,
        duration: "12s",
        clients: { count: 2, workload: "random" },
        holders: { count: 3 },
        storage: { fencing: true },
        actions: [
          { at: "2s", do: "transfer-leadership", to: "follower" },
          { at: "4s", do: "transfer-leadership", to: "follower" },
          { at: "6s", do: "transfer-leadership", to: "follower" },
          { at: "8s", do: "transfer-leadership", to: "follower" },
        ],
      });
      if (!parsed.ok) throw new Error(parsed.errors.join("; "));
      const leaders: string[] = [];
      const lost: string[] = [];
      const r = runScenario(parsed.scenario, {
        onTrace: (e: TraceEvent) => {
          if (e.kind === "role" && e.role === "leader") leaders.push(`${e.proc}@${Math.round(e.t / 1000)}ms: ${e.reason}`);
          if (e.kind === "holder" && e.state.startsWith("lost")) lost.push(e.proc);
        },
      });
      expect(r.violations, `seed ${seed}`).toEqual([]);
      expect(r.actionFailures, `seed ${seed}`).toEqual([]);
      expect(r.boundsBroken, `seed ${seed}`).toEqual([]);
      expect(lost, `seed ${seed}`).toEqual([]);
      // The first election, then one leader per transfer, each by TimeoutNow.
      expect(leaders.length, `seed ${seed}: ${leaders.join("; ")}`).toBe(5);
    }
  });
});
