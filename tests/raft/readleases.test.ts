/**
 * Read leases for followers on hand-driven nodes (rules 3, 4 and 5 of src/core/raft/leases.ts;
 * rules 1 and 2 are in the host and are tested on whole runs in tests/core/read-leases.test.ts).
 */
import { describe, expect, it } from "vitest";
import type { AppendEntries, RaftConfig } from "../../src/core/raft/types";
import { electedCluster, type Envelope, Host, ids, Net, raftConfig } from "./harness";

const LEASES: Partial<RaftConfig> = { readLeaseFollowers: 4, readLeaseUs: 1_000_000, leaseDriftBoundPpm: 20_000, preVote: true, checkQuorum: true };

/**
 * n1 wins an election among five nodes and commits its no-op; the followers' answers to its
 * appends carry their asks (askAt: when each follower answered first, on the harness's clock).
 * No heartbeat round has gone out since: nothing is granted yet.
 */
function asked(): { net: Net; askAt: Map<string, number> } {
  const voters = ids(5);
  const net = new Net(voters.map((id) => new Host(raftConfig(id, voters, LEASES))));
  net.timeout("n1");
  const askAt = new Map<string, number>();
  net.run((e) => {
    if (e.msg.type === "AppendEntries" && !askAt.has(e.to)) askAt.set(e.to, net.now + 1);
    return true;
  });
  expect(net.node("n1").role).toBe("leader");
  return { net, askAt };
}

const isGrant = (e: Envelope): boolean => e.msg.type === "AppendEntries" && (e.msg as AppendEntries).grant !== undefined;

describe("read leases: the node's rules", () => {
  it("rule 3: a grant waits for a heartbeat round, sent after the ask arrived, that a majority acknowledged", () => {
    const { net } = asked();
    const n1 = net.node("n1");
    // Asks arrived, but no round after them is confirmed yet: nothing granted.
    expect(n1.readLeaseHolders(net.now)).toEqual([]);
    // The next round reaches only n2: with n1, two of five. Still nothing.
    net.heartbeat("n1");
    const late = net.take((e) => e.from === "n1" && e.to !== "n2");
    net.run();
    expect(n1.readLeaseHolders(net.now)).toEqual([]);
    expect(net.node("n2").heldReadLease).toBeNull();
    // n3's acknowledgement makes a majority: every asker is granted.
    net.queue.push(...late.filter((e) => e.to === "n3"));
    const grants: Envelope[] = [];
    net.run((e) => {
      if (isGrant(e)) grants.push(e);
      return true;
    });
    expect(n1.readLeaseHolders(net.now).map((h) => h.peer).sort()).toEqual(["n2", "n3", "n4", "n5"]);
    expect(grants.map((g) => g.to).sort()).toEqual(["n2", "n3", "n4", "n5"]);
  });

  it("rule 3: the holder times its lease from its ask, shortened by the drift bound; the leader from its grant, full length", () => {
    const { net, askAt } = asked();
    net.heartbeat("n1");
    net.run();
    const n2 = net.node("n2");
    const held = n2.heldReadLease;
    expect(held).not.toBeNull();
    expect(n2.heldLeaseUs).toBe(Math.floor((1_000_000 * 980_000) / 1_020_000));
    expect(held?.until).toBe((askAt.get("n2") as number) + n2.heldLeaseUs);
    const record = net.node("n1").readLeaseHolders(net.now).find((h) => h.peer === "n2");
    // Granted after the ask, for the full length: it ends later on the leader's books.
    expect(record?.until).toBeGreaterThan((held?.until as number) + 1_000_000 - n2.heldLeaseUs);
    expect(n2.localReadFloor(net.now)).toBe(net.node("n1").commitIndex);
    expect(n2.localReadFloor(held?.until as number)).toBeNull();
  });

  it("rule 4: a new leader makes nothing visible until a read lease, lengthened by the drift bound, has passed since it won", () => {
    const net = electedCluster(3, LEASES);
    const n1 = net.node("n1");
    const wait = n1.newLeaderWaitUs;
    expect(wait).toBe(Math.ceil((1_000_000 * 1_020_000) / 980_000));
    expect(n1.commitIndex).toBeGreaterThan(0);
    const wonAt = net.now - net.delivered; // elected within the deliveries of electedCluster (1 µs each)
    expect(n1.visibleIndex(wonAt + wait - net.delivered - 1)).toBe(0);
    expect(n1.visibleIndex(net.now + wait)).toBe(n1.commitIndex);
  });

  it("rule 5: a holder drops its lease when it learns of a new term", () => {
    const { net } = asked();
    net.heartbeat("n1");
    net.run();
    const n2 = net.node("n2");
    expect(n2.localReadFloor(net.now)).not.toBeNull();
    // n3 becomes a candidate in a later term; n2 hears of it in an append from n3 as leader of that term.
    const term = n2.term + 1;
    n2.step(net.now + 1, "n3", { type: "AppendEntries", term, prevLogIndex: 0, prevLogTerm: 0, entries: [], leaderCommit: 0, readCtx: 0 });
    expect(n2.localReadFloor(net.now + 1)).toBeNull();
    const events = net.flush("n2").events;
    expect(events).toContainEqual(expect.objectContaining({ type: "readlease", phase: "dropped", peer: "n1" }));
  });
  it("a renewal keeps the holder's old floor: an entry committed while the renewal waited is not visible until the holder reports it applied", () => {
    const { net } = asked();
    const n1 = net.node("n1");
    const lease = (n1 as unknown as { st: { lease: { asks: Record<string, unknown>; wonAt: number } } }).st.lease;
    net.heartbeat("n1");
    net.run();
    const c0 = n1.commitIndex;
    expect(n1.readLeaseHolders(net.now).map((h) => h.peer)).toContain("n2");
    // Rounds go by until n2, past half its lease, asks again: its renewal waits for the next round.
    for (let i = 0; i < 100 && lease.asks.n2 === undefined; i++) {
      net.heartbeat("n1");
      net.run();
    }
    expect(lease.asks.n2).toBeDefined();
    // An entry commits without n2 (its messages are lost), then a round without n2 confirms the renewal.
    expect(n1.propose({ type: "client", clientId: "c1", seq: 1, op: { type: "put", key: "x", value: "1" } })).not.toBeNull();
    net.flush("n1");
    net.run((e) => e.to !== "n2" && e.from !== "n2");
    expect(n1.commitIndex).toBeGreaterThan(c0);
    net.heartbeat("n1");
    net.run((e) => e.to !== "n2" && e.from !== "n2");
    expect(lease.asks.n2).toBeUndefined();
    // Once the new leader's wait (rule 4) is over, n2 still holds its renewed lease and has not
    // applied the new entry: nothing past c0 may be visible.
    const after = lease.wonAt + n1.newLeaderWaitUs;
    const n2 = n1.readLeaseHolders(after).find((h) => h.peer === "n2");
    expect(n2?.applied).toBe(c0);
    expect(n1.visibleIndex(after)).toBe(c0);
    // The others have it: without n2, it would be visible.
    expect(n1.readLeaseHolders(after).filter((h) => h.peer !== "n2").every((h) => h.applied > c0)).toBe(true);
  });
});
