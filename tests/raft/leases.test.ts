/**
 * The leader's lease for reads (src/core/raft/reads.ts, docs/reads.md), on hand-driven nodes:
 * a read under the lease needs no heartbeat round; the lease ends on time; a leadership
 * transfer ends it for the term; a restarted server refuses votes for an election timeout.
 */
import { describe, expect, it } from "vitest";
import type { RaftConfig } from "../../src/core/raft/types";
import { ELECTION_MIN_US, electedCluster, rv } from "./harness";

const LEASE: Partial<RaftConfig> = { reads: "leader-lease", leaseDriftBoundPpm: 20_000, preVote: true, checkQuorum: true };

/** An elected 3-node cluster whose leader n1 has had a heartbeat round acknowledged. */
function leasedCluster(over: Partial<RaftConfig> = LEASE) {
  const net = electedCluster(3, over);
  net.heartbeat("n1");
  net.run();
  return net;
}

describe("leader lease", () => {
  it("answers a read at once, with no heartbeat round (ReadIndex sends one)", () => {
    const net = leasedCluster();
    const n1 = net.node("n1");
    expect(n1.leaderLeaseHolds(net.now)).toBe(true);
    expect(n1.requestRead(7, net.now)).toBe(true);
    const rd = net.flush("n1");
    expect(rd.readStates).toEqual([{ ctx: 7, index: n1.commitIndex, lease: true }]);
    expect(rd.messages).toHaveLength(0);

    const plain = leasedCluster({ ...LEASE, reads: "read-index" });
    plain.node("n1").requestRead(7, plain.now);
    const rd2 = plain.flush("n1");
    expect(rd2.readStates).toHaveLength(0);
    expect(rd2.messages.map((m) => m.msg.type)).toEqual(["AppendEntries", "AppendEntries"]);
  });

  it("lasts the minimum election timeout shortened by the drift bound, from the confirmed round's send time", () => {
    const net = leasedCluster();
    const n1 = net.node("n1");
    const until = n1.leaderLeaseUntil as number;
    expect(n1.leaderLeaseUs).toBe(Math.floor((ELECTION_MIN_US * 980_000) / 1_020_000));
    // The round was sent at most a few µs ago (each delivery moves the harness's clock by 1 µs).
    expect(until).toBeGreaterThan(net.now + n1.leaderLeaseUs - 100);
    expect(n1.leaderLeaseHolds(until - 1)).toBe(true);
    expect(n1.leaderLeaseHolds(until)).toBe(false);
    // Past it, a read goes back to a heartbeat round.
    n1.requestRead(1, until);
    const rd = net.flush("n1");
    expect(rd.readStates).toHaveLength(0);
    expect(rd.messages.length).toBeGreaterThan(0);
  });

  it("ends for the rest of the term once the leader has sent TimeoutNow (the transferee's election skips the voters' check)", () => {
    const net = leasedCluster();
    const n1 = net.node("n1");
    expect(n1.transferLeadership(net.now, "n2")).toBeNull();
    net.flush("n1");
    // Drop the TimeoutNow: the transfer is aborted after an election timeout, and n1 leads on.
    net.take((e) => e.msg.type === "TimeoutNow");
    // Heartbeats go on (and are acknowledged) until the transfer is given up.
    while (n1.transferee !== null) {
      net.heartbeat("n1");
      net.run((e) => e.msg.type !== "TimeoutNow");
    }
    net.heartbeat("n1");
    net.run();
    expect(n1.role).toBe("leader");
    expect(n1.transferee).toBeNull();
    expect(n1.leaderLeaseHolds(net.now)).toBe(false);
    n1.requestRead(1, net.now);
    expect(net.flush("n1").readStates).toHaveLength(0);
  });

  it("a restarted server refuses to vote for an election timeout after it boots (it may have acknowledged the lease)", () => {
    for (const reads of ["leader-lease", "read-index"] as const) {
      const net = leasedCluster({ ...LEASE, reads });
      const n3 = net.host("n3");
      const bootAt = net.now + 10;
      n3.reboot(bootAt);
      // n2 asks for a pre-vote (and a vote) in a later term, with a log as long as anyone's.
      const last = net.node("n2").lastIndex;
      const term = net.node("n2").term;
      n3.node.step(bootAt + 1, "n2", rv(term + 1, last, term, true));
      n3.node.step(bootAt + 2, "n2", rv(term + 1, last, term, false));
      const granted = n3.ready().messages.map((m) => (m.msg.type === "RequestVoteResp" ? m.msg.granted : null));
      // (CheckQuorum's rule: a request from a disruptive candidate is ignored, not answered.)
      expect({ reads, granted }).toEqual({ reads, granted: reads === "leader-lease" ? [] : [true, true] });
      // An election timeout after booting, it votes again.
      const later = bootAt + ELECTION_MIN_US;
      n3.node.step(later, "n2", rv(term + 2, last, term, true));
      expect(n3.ready().messages.map((m) => (m.msg.type === "RequestVoteResp" ? m.msg.granted : null))).toEqual([true]);
    }
  });
});
