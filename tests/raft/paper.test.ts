/**
 * Tests derived from the Raft paper (Ongaro & Ousterhout, "In Search of an
 * Understandable Consensus Algorithm", extended version), after etcd's
 * raft_paper_test.go: every title names the section it checks. PreVote,
 * CheckQuorum and ReadIndex come from Ongaro's dissertation (sections 9.6, 6.2
 * and 6.4). The node is driven by hand (sans-IO) except where a whole cluster
 * is the point, which runs in the Simulation.
 */
import { describe, expect, it } from "vitest";
import type {
  AppendEntries,
  AppendEntriesResp,
  Entry,
  NodeId,
  RaftMessage,
  RequestVoteResp,
  Role,
} from "../../src/core/raft/types";
import { defaultConfig, mergeConfig } from "../../src/core/sim/config";
import { Simulation } from "../../src/core/sim/sim";
import { ms, sec } from "../../src/core/sim/time";
import type { TraceEvent } from "../../src/core/sim/trace";
import { type Disk, type Envelope, electedCluster, entry, Host, ids, logOf, Net, persistProblems, raftConfig, termsOf, only, rv } from "./harness";

// ---- message builders ----------------------------------------------------------

function ae(term: number, prevLogIndex: number, prevLogTerm: number, entries: Entry[] = [], leaderCommit = 0, readCtx = 0): AppendEntries {
  return { type: "AppendEntries", term, prevLogIndex, prevLogTerm, entries, leaderCommit, readCtx };
}
function aeResp(term: number, success: boolean, matchIndex = 0, rejectIndex = 0): AppendEntriesResp {
  return { type: "AppendEntriesResp", term, success, matchIndex, rejectIndex, conflictIndex: 0, conflictTerm: 0, readCtx: 0 };
}
function rvResp(term: number, granted: boolean, preVote = false): RequestVoteResp {
  return { type: "RequestVoteResp", term, granted, preVote };
}


/** The ReadIndex round an append carries. */
function readCtxOf(o: { msg: RaftMessage } | undefined): number {
  if (o === undefined || o.msg.type !== "AppendEntries") throw new Error("expected an AppendEntries");
  return o.msg.readCtx;
}

function cloneDisk(d: Disk): Disk {
  return { hard: { ...d.hard }, log: d.log.slice() };
}

const isAppendTo = (to: NodeId) => (e: Envelope) => e.to === to && e.msg.type === "AppendEntries";

// ---- 5.1 -------------------------------------------------------------------------

/** n1 of a three-node cluster at term 2 (log [1, 2]), brought into `role`. */
function nodeInRole(role: Role): Net {
  const voters = ids(3);
  const over = { preVote: role === "precandidate" };
  const net = new Net(voters.map((id) => new Host(raftConfig(id, voters, over), { term: 2, votedFor: null }, logOf([1, 2]))));
  if (role !== "follower") net.timeout("n1");
  if (role === "leader") net.deliver({ from: "n3", to: "n1", msg: rvResp(3, true) });
  net.queue = [];
  expect(net.node("n1").role).toBe(role);
  return net;
}

describe("§5.1 Raft basics: terms", () => {
  const roles: Role[] = ["follower", "precandidate", "candidate", "leader"];
  const kinds = ["AppendEntries", "AppendEntriesResp", "RequestVote", "RequestVoteResp"] as const;

  for (const role of roles) {
    for (const kind of kinds) {
      it(`§5.1 a ${role} that sees a higher term in ${kind} adopts it and becomes follower`, () => {
        const net = nodeInRole(role);
        const n1 = net.node("n1");
        const before = n1.term;
        const T = before + 5;
        const msg: RaftMessage =
          kind === "AppendEntries"
            ? ae(T, 0, 0)
            : kind === "AppendEntriesResp"
              ? aeResp(T, false)
              : kind === "RequestVote"
                ? rv(T, 2, 2)
                : rvResp(T, false);
        const rd = net.deliver({ from: "n2", to: "n1", msg });

        expect(n1.term).toBe(T);
        expect(n1.role).toBe("follower");
        expect(rd.hardState?.term, "the new term is persisted in the same Ready").toBe(T);
        // Figure 2: votedFor is reset with the new term (and may then go to the requester itself).
        expect(n1.votedFor).toBe(kind === "RequestVote" && role !== "leader" ? "n2" : null);
        expect(n1.leader).toBe(kind === "AppendEntries" ? "n2" : null);
        if (kind === "AppendEntries") expect(only(rd.messages, "n2", "AppendEntriesResp")).toMatchObject({ term: T, success: true });
        if (kind === "RequestVote") expect(only(rd.messages, "n2", "RequestVoteResp").term).toBe(T);
        if (role === "leader") expect(n1.requestRead(1), "a deposed leader serves no reads").toBe(false);
      });
    }
  }

  // Stale terms: "If a server receives a request with a stale term number, it rejects the request."
  for (const role of ["follower", "leader"] as const) {
    it(`§5.1 a ${role} rejects requests with a stale term and replies with its current term`, () => {
      const net = electedCluster(3, {}, "n1", 4); // n1 leads term 5, n2 and n3 follow it
      const id = role === "leader" ? "n1" : "n2";
      const node = net.node(id);
      expect(node.term).toBe(5);
      const logBefore = termsOf(node.log);
      const leaderBefore = node.leader;
      const voteBefore = node.votedFor;

      // An append from a deposed leader of term 3 that would overwrite index 1.
      let rd = net.deliver({ from: "n3", to: id, msg: ae(3, 0, 0, [entry(1, 3)], 1) });
      expect(only(rd.messages, "n3", "AppendEntriesResp")).toMatchObject({ term: 5, success: false });
      expect(termsOf(node.log)).toEqual(logBefore);
      expect(node.leader).toBe(leaderBefore);
      expect(node.role).toBe(role);
      expect(rd.hardState).toBeNull();

      // A vote request of term 3 from a candidate with a much longer log: still refused.
      rd = net.deliver({ from: "n3", to: id, msg: rv(3, 50, 4) });
      expect(only(rd.messages, "n3", "RequestVoteResp")).toMatchObject({ term: 5, granted: false, preVote: false });
      expect(node.votedFor).toBe(voteBefore);

      rd = net.deliver({ from: "n3", to: id, msg: rv(3, 50, 4, true) });
      expect(only(rd.messages, "n3", "RequestVoteResp")).toMatchObject({ term: 5, granted: false, preVote: true });
      expect(node.term).toBe(5);
      expect(node.role).toBe(role);
    });
  }

  it("§5.1 a leader ignores replies of an earlier term", () => {
    const net = electedCluster(5, {}, "n1", 4);
    const n1 = net.node("n1");
    const match = n1.progress.n2?.match;
    n1.propose({ type: "noop" });
    net.flush("n1");
    const commit = n1.commitIndex;
    // Replies of term 4 claiming everything is replicated must not move match or commit.
    for (const p of ["n2", "n3", "n4"]) net.deliver({ from: p, to: "n1", msg: aeResp(4, true, 99) });
    expect(n1.progress.n2?.match).toBe(match);
    expect(n1.commitIndex).toBe(commit);
    expect(n1.role).toBe("leader");
  });

  it("§5.1 a candidate does not count votes granted in an earlier term", () => {
    const net = nodeInRole("candidate"); // term 3
    net.deliver({ from: "n2", to: "n1", msg: rvResp(2, true) });
    net.deliver({ from: "n3", to: "n1", msg: rvResp(2, true) });
    expect(net.node("n1").role).toBe("candidate");
    net.deliver({ from: "n3", to: "n1", msg: rvResp(3, true) });
    expect(net.node("n1").role).toBe("leader");
  });
});

// ---- 5.2 -------------------------------------------------------------------------

describe("§5.2 Leader election", () => {
  it("§5.2 each server votes for at most one candidate in a term, and persists the vote before replying", () => {
    const voters = ids(3);
    const host = new Host(raftConfig("n1", voters));
    const node = host.node;
    const before = cloneDisk(host.disk);

    node.step(10, "n2", rv(1, 0, 0));
    let rd = host.ready();
    expect(only(rd.messages, "n2", "RequestVoteResp")).toMatchObject({ term: 1, granted: true });
    expect(rd.hardState, "the vote is in the Ready that carries the grant").toEqual({ term: 1, votedFor: "n2" });
    // Sending that Ready's grant with only the old disk would break the rule: the Ready is what makes it legal.
    expect(persistProblems("n1", before, node, rd).length).toBeGreaterThan(0);
    expect(persistProblems("n1", host.disk, node, rd)).toEqual([]);

    node.step(20, "n3", rv(1, 5, 1));
    rd = host.ready();
    expect(only(rd.messages, "n3", "RequestVoteResp")).toMatchObject({ term: 1, granted: false });
    expect(rd.hardState).toBeNull();
    expect(node.votedFor).toBe("n2");

    // A retransmitted request from the same candidate is granted again (the reply may have been lost).
    node.step(30, "n2", rv(1, 0, 0));
    rd = host.ready();
    expect(only(rd.messages, "n2", "RequestVoteResp")).toMatchObject({ term: 1, granted: true });

    // The vote survives a crash: after a restart from disk, n3 is still refused in term 1.
    host.reboot(40);
    host.node.step(50, "n3", rv(1, 5, 1));
    rd = host.ready();
    expect(only(rd.messages, "n3", "RequestVoteResp")).toMatchObject({ term: 1, granted: false });

    // A new term is a new vote.
    host.node.step(60, "n3", rv(2, 0, 0));
    rd = host.ready();
    expect(only(rd.messages, "n3", "RequestVoteResp")).toMatchObject({ term: 2, granted: true });
    expect(rd.hardState).toEqual({ term: 2, votedFor: "n3" });
  });

  it("§5.2 a follower that knows the leader of its term refuses a vote to anyone else in that term", () => {
    const net = electedCluster(3);
    const rd = net.deliver({ from: "n3", to: "n2", msg: rv(1, 9, 1) });
    expect(only(rd.messages, "n3", "RequestVoteResp").granted).toBe(false);
  });

  for (const preVote of [false, true]) {
    for (const size of [1, 3, 5]) {
      it(`§5.2 a candidate that receives votes from a majority of ${size} becomes leader in one round (preVote ${preVote})`, () => {
        const voters = ids(size);
        const quorum = Math.floor(size / 2) + 1;
        const net = new Net(voters.map((id) => new Host(raftConfig(id, voters, { preVote }), { term: 3, votedFor: null })));
        const n1 = net.node("n1");
        const rounds: { pre: boolean; sent: number }[] = [];

        let rd = net.timeout("n1");
        for (;;) {
          const reqs = rd.messages.filter((m) => m.msg.type === "RequestVote");
          if (n1.role === "leader") break;
          const pre = n1.role === "precandidate";
          expect(n1.role).toBe(preVote && rounds.length === 0 ? "precandidate" : "candidate");
          expect(n1.term, pre ? "a pre-candidate keeps its term" : "a candidate increments its term").toBe(pre ? 3 : 4);
          expect(reqs.map((m) => m.to).sort(), "a request to every other server").toEqual(voters.slice(1));
          rounds.push({ pre, sent: reqs.length });
          // Peers answer; grants come back one at a time (late replies of a finished round are dropped).
          const requests = net.take((e) => e.msg.type === "RequestVote");
          net.queue = [];
          const replies: Envelope[] = [];
          for (const req of requests) {
            net.deliver(req);
            replies.push(...net.take((e) => e.to === "n1"));
          }
          expect(replies.every((r) => r.msg.type === "RequestVoteResp" && r.msg.granted)).toBe(true);
          const role = n1.role;
          for (let i = 0; i < replies.length; i++) {
            // A duplicated grant must not count twice.
            if (i === 0 && quorum > 2) {
              net.deliver(replies[0] as Envelope);
              expect(n1.role, "one voter counted once").toBe(role);
            }
            rd = net.deliver(replies[i] as Envelope);
            const votes = 1 + i + 1;
            if (votes < quorum) expect(n1.role).toBe(role);
            else break;
          }
          expect(n1.role).not.toBe(role);
        }
        expect(n1.role).toBe("leader");
        expect(n1.term).toBe(4);
        expect(rounds.map((r) => r.pre)).toEqual(size === 1 ? [] : preVote ? [true, false] : [false]);
        // The new leader announces itself to every peer at once (an append with its no-op).
        const appends = rd.messages.filter((m) => m.msg.type === "AppendEntries");
        expect(appends.map((m) => m.to).sort()).toEqual(voters.slice(1));
        expect(n1.entryAt(1)).toMatchObject({ index: 1, term: 4, cmd: { type: "noop" } });
        if (size === 1) expect(n1.commitIndex, "a lone server commits its no-op at once").toBe(1);
      });
    }
  }

  it("§5.2 a candidate that a majority refuses returns to follower without becoming leader", () => {
    const voters = ids(5);
    const net = new Net(voters.map((id) => new Host(raftConfig(id, voters), { term: 1, votedFor: null }, id === "n1" ? [] : logOf([1]))));
    net.timeout("n1");
    net.run();
    const n1 = net.node("n1");
    expect(n1.role).toBe("follower");
    expect(n1.term).toBe(2);
    expect(voters.every((id) => net.node(id).role !== "leader")).toBe(true);
  });

  it("§5.2 election timeouts are drawn from [min, max] and a valid append resets the timer", () => {
    const host = new Host(raftConfig("n1", ids(3)));
    const d0 = host.node.electionDeadline;
    expect(d0).toBeGreaterThanOrEqual(150_000);
    expect(d0).toBeLessThanOrEqual(300_000);
    host.node.onTimer(d0 - 1);
    expect(host.node.role).toBe("follower");
    host.node.step(d0 - 1, "n2", ae(1, 0, 0));
    expect(host.node.electionDeadline).toBeGreaterThanOrEqual(d0 - 1 + 150_000);
    host.node.onTimer(d0);
    expect(host.node.role, "the heartbeat postponed the election").toBe("follower");
    host.node.onTimer(host.node.electionDeadline);
    expect(host.node.role).toBe("candidate");
  });

  it("§5.2 a Simulation elects a leader within 2 s of virtual time (seeds 1..20, sizes 1/3/5, preVote on/off)", () => {
    const slow: string[] = [];
    for (const preVote of [true, false]) {
      for (const nodes of [1, 3, 5]) {
        for (let seed = 1; seed <= 20; seed++) {
          const sim = new Simulation(mergeConfig(defaultConfig(), { seed, nodes, raft: { preVote }, hashTrace: false }));
          let firstLeaderAt: number | null = null;
          sim.onTrace((e: TraceEvent) => {
            if (firstLeaderAt === null && e.kind === "role" && e.role === "leader") firstLeaderAt = e.t;
          });
          sim.advanceTo(sec(2));
          const tag = `seed ${seed}, ${nodes} nodes, preVote ${preVote}`;
          if (firstLeaderAt === null || sim.leader() === null) slow.push(tag);
          expect(sim.violations, tag).toEqual([]);
        }
      }
    }
    expect(slow).toEqual([]);
  });
});

// ---- 5.3 -------------------------------------------------------------------------

/** Figure 7: the leader's log (it leads term 8) and the followers (a) to (f). */
const FIG7_LEADER = [1, 1, 1, 4, 4, 5, 5, 6, 6, 6];
const FIG7: Record<string, number[]> = {
  a: [1, 1, 1, 4, 4, 5, 5, 6, 6],
  b: [1, 1, 1, 4],
  c: [1, 1, 1, 4, 4, 5, 5, 6, 6, 6, 6],
  d: [1, 1, 1, 4, 4, 5, 5, 6, 6, 6, 7, 7],
  e: [1, 1, 1, 4, 4, 4, 4],
  f: [1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 3],
};

/** Rewrites a rejection so the leader can only step back one index (no fast back-up hint). */
function withoutHint(e: Envelope): Envelope {
  if (e.msg.type !== "AppendEntriesResp" || e.msg.success) return e;
  return { ...e, msg: { ...e.msg, conflictIndex: e.msg.rejectIndex, conflictTerm: 0 } };
}

function figure7(maxEntriesPerAppend: number): Net {
  const voters = ["L", ...Object.keys(FIG7)];
  const hosts = [new Host(raftConfig("L", voters, { maxEntriesPerAppend }), { term: 7, votedFor: null }, logOf(FIG7_LEADER))];
  for (const [id, terms] of Object.entries(FIG7)) {
    hosts.push(new Host(raftConfig(id, voters, { maxEntriesPerAppend }), { term: Math.max(...terms), votedFor: null }, logOf(terms)));
  }
  return new Net(hosts);
}

/** Runs the election and the replication that follows; counts each follower's rejected appends. */
function runFigure7(net: Net, hint: boolean): Record<string, number> {
  const rejections: Record<string, number> = {};
  net.timeout("L");
  net.run((e) => {
    if (e.msg.type === "AppendEntriesResp" && !e.msg.success) rejections[e.from] = (rejections[e.from] ?? 0) + 1;
    return hint ? true : withoutHint(e);
  });
  return rejections;
}

describe("§5.3 Log replication", () => {
  for (const maxEntriesPerAppend of [1, 3, 64]) {
    it(`§5.3 Figure 7: every follower's log ends identical to the term-8 leader's (maxEntriesPerAppend ${maxEntriesPerAppend})`, () => {
      const net = figure7(maxEntriesPerAppend);
      runFigure7(net, true);
      const L = net.node("L");
      expect(L.role).toBe("leader");
      expect(L.term).toBe(8);
      // The leader never rewrites its own log: it only appended its no-op of term 8.
      expect(termsOf(L.log)).toEqual([...FIG7_LEADER, 8]);
      for (const id of Object.keys(FIG7)) {
        expect(net.node(id).log, `follower (${id})`).toEqual(L.log);
        expect(net.host(id).disk.log, `follower (${id}) on disk`).toEqual(L.log);
      }
      expect(L.commitIndex).toBe(11);
      // The next heartbeat carries the commit index to the followers.
      net.heartbeat("L");
      net.run();
      for (const id of Object.keys(FIG7)) expect(net.node(id).commitIndex, `follower (${id})`).toBe(11);
    });
  }

  it("§5.3 Figure 7: the conflict hint needs one round trip per conflicting term, not one per entry", () => {
    const withHint = runFigure7(figure7(64), true);
    const naiveNet = figure7(64);
    const naive = runFigure7(naiveNet, false);
    // Without the hint the leader still converges, only slower.
    for (const id of Object.keys(FIG7)) expect(naiveNet.node(id).log).toEqual(naiveNet.node("L").log);
    // (f) holds conflicting entries of terms 2 and 3 at indexes 4..11: at most one rejection per term,
    // against one per index from 10 down to 4 when stepping back one index at a time.
    expect(withHint.f).toBeLessThanOrEqual(2);
    expect(naive.f).toBe(7);
    // (b) is merely short: the hint (its last index + 1) jumps straight to the end of its log.
    expect(withHint.b).toBe(1);
    expect(naive.b).toBe(6);
    // (e) has extra entries of term 4: one rejection for its length, one for its term.
    expect(withHint.e).toBeLessThanOrEqual(2);
    expect(naive.e).toBe(5);
    expect(withHint.c ?? 0).toBe(0);
    expect(withHint.d ?? 0).toBe(0);
  });

  it("§5.3 the conflict hint skips a long divergent suffix in one round trip", () => {
    const voters = ["L", "F", "G"];
    const count = (hint: boolean): { rejections: number; log: readonly Entry[]; leaderLog: readonly Entry[] } => {
      const long = (t: number): number[] => [1, ...Array.from({ length: 200 }, () => t)];
      const net = new Net([
        new Host(raftConfig("L", voters), { term: 3, votedFor: null }, logOf(long(3))),
        new Host(raftConfig("F", voters), { term: 2, votedFor: null }, logOf(long(2))),
        new Host(raftConfig("G", voters), { term: 0, votedFor: null }, []),
      ]);
      let rejections = 0;
      net.timeout("L");
      net.run((e) => {
        if (e.from === "F" && e.msg.type === "AppendEntriesResp" && !e.msg.success) rejections++;
        return hint ? true : withoutHint(e);
      });
      return { rejections, log: net.node("F").log, leaderLog: net.node("L").log };
    };
    const fast = count(true);
    const slow = count(false);
    expect(fast.log).toEqual(fast.leaderLog);
    expect(slow.log).toEqual(slow.leaderLog);
    expect(fast.rejections).toBe(1);
    expect(slow.rejections).toBe(200);
  });

  it("§5.3 when the leader also holds the conflicting term, it resumes after its own last entry of that term", () => {
    // Leader [1, 2, 2, 2, 5, 5]; the follower has term 2 from index 2 to 8. They agree up to index 4.
    const voters = ["L", "F", "G"];
    const net = new Net([
      new Host(raftConfig("L", voters), { term: 5, votedFor: null }, logOf([1, 2, 2, 2, 5, 5])),
      new Host(raftConfig("F", voters), { term: 2, votedFor: null }, logOf([1, 2, 2, 2, 2, 2, 2, 2])),
      new Host(raftConfig("G", voters), { term: 5, votedFor: null }, logOf([1, 2, 2, 2, 5, 5])),
    ]);
    const toF: AppendEntries[] = [];
    net.timeout("L");
    net.run((e) => {
      if (e.to === "F" && e.msg.type === "AppendEntries") toF.push(e.msg);
      return true;
    });
    expect(net.node("F").log).toEqual(net.node("L").log);
    expect(toF.map((m) => m.prevLogIndex)).toEqual([6, 4]);
    // Entries 2..4 already match: they are not shipped again.
    expect(toF[1]?.entries.map((e) => e.index)).toEqual([5, 6, 7]);
  });

  it("§5.3 a leader ignores a stale rejection for an index it has already moved past", () => {
    const net = electedCluster(3);
    const n1 = net.node("n1");
    n1.propose({ type: "noop" });
    net.flush("n1");
    net.run();
    expect(n1.progress.n2).toMatchObject({ match: 2, next: 3 });
    // A late rejection of an old append at prevLogIndex 0 must not move nextIndex back or trigger a resend.
    const rd = net.deliver({ from: "n2", to: "n1", msg: { ...aeResp(1, false, 0, 0), conflictIndex: 1 } });
    expect(rd.messages).toEqual([]);
    expect(n1.progress.n2).toMatchObject({ match: 2, next: 3 });
  });

  it("§5.3 a follower refuses an append whose previous entry does not match, and changes nothing", () => {
    const host = new Host(raftConfig("n2", ids(3)), { term: 3, votedFor: null }, logOf([1, 1, 2]));
    host.node.step(10, "n1", ae(3, 3, 3, [entry(4, 3)], 4));
    const rd = host.ready();
    expect(only(rd.messages, "n1", "AppendEntriesResp")).toMatchObject({
      success: false,
      rejectIndex: 3,
      conflictTerm: 2,
      conflictIndex: 3,
    });
    expect(termsOf(host.node.log)).toEqual([1, 1, 2]);
    expect(host.node.commitIndex).toBe(0);
    expect(rd.entries).toEqual([]);
    expect(rd.truncateFrom).toBeNull();
  });

  it("§5.3 a follower sets commitIndex = min(leaderCommit, index of last new entry)", () => {
    // n2 holds stale entries 3..5 of term 1 that the leader of term 2 may not have.
    const host = new Host(raftConfig("n2", ids(3)), { term: 2, votedFor: null }, logOf([1, 1, 1, 1, 1]));
    host.node.step(10, "n1", ae(2, 1, 1, [entry(2, 1)], 10));
    expect(host.node.commitIndex, "not beyond the last entry the append vouches for").toBe(2);
    host.ready();
    host.node.step(20, "n1", ae(2, 2, 1, [entry(3, 2)], 2));
    const rd = host.ready();
    expect(rd.truncateFrom).toBe(3);
    expect(termsOf(host.node.log)).toEqual([1, 1, 2]);
    expect(host.node.commitIndex).toBe(2);
  });
});

// ---- 5.4 -------------------------------------------------------------------------

describe("§5.4 Safety", () => {
  const cases: { voter: number[]; lastLogIndex: number; lastLogTerm: number; granted: boolean; why: string }[] = [
    { voter: [1, 1, 2], lastLogIndex: 1, lastLogTerm: 3, granted: true, why: "higher last term wins, even with a shorter log" },
    { voter: [1, 1, 2], lastLogIndex: 3, lastLogTerm: 2, granted: true, why: "same last term, same length" },
    { voter: [1, 1, 2], lastLogIndex: 9, lastLogTerm: 2, granted: true, why: "same last term, longer log wins" },
    { voter: [1, 1, 2], lastLogIndex: 2, lastLogTerm: 2, granted: false, why: "same last term, shorter log loses" },
    { voter: [1, 1, 2], lastLogIndex: 9, lastLogTerm: 1, granted: false, why: "lower last term loses, even with a longer log" },
    { voter: [1, 1, 2], lastLogIndex: 0, lastLogTerm: 0, granted: false, why: "an empty log loses to a non-empty one" },
    { voter: [], lastLogIndex: 0, lastLogTerm: 0, granted: true, why: "two empty logs are equally up to date" },
    { voter: [], lastLogIndex: 1, lastLogTerm: 1, granted: true, why: "anything beats an empty log" },
  ];
  for (const preVote of [false, true]) {
    for (const c of cases) {
      it(`§5.4.1 election restriction (${preVote ? "pre-vote" : "vote"}): ${c.why}`, () => {
        const host = new Host(raftConfig("n1", ids(3), { preVote }), { term: 4, votedFor: null }, logOf(c.voter));
        host.node.step(10, "n2", rv(5, c.lastLogIndex, c.lastLogTerm, preVote));
        const rd = host.ready();
        expect(only(rd.messages, "n2", "RequestVoteResp")).toMatchObject({ granted: c.granted, preVote });
        expect(host.node.votedFor).toBe(!preVote && c.granted ? "n2" : null);
      });
    }
  }

  /**
   * Figure 8 (c): S1 leads term 4 with log [1, 2, 4]. It has brought S3 and S4 up to
   * [1, 2], so the entry of term 2 at index 2 is on a majority (S1, S3, S4; S2 has it
   * too), but S1's own entry of term 4 has reached no one. S5 holds [1, 3].
   */
  function figure8c(): Net {
    const voters = ["s1", "s2", "s3", "s4", "s5"];
    const host = (id: string, term: number, votedFor: string | null, terms: number[]): Host =>
      new Host(raftConfig(id, voters, { maxEntriesPerAppend: 1 }), { term, votedFor }, logOf(terms));
    const net = new Net([
      host("s1", 3, null, [1, 2]),
      host("s2", 2, "s1", [1, 2]),
      host("s3", 3, "s5", [1]),
      host("s4", 3, "s5", [1]),
      host("s5", 3, "s5", [1, 3]),
    ]);
    net.timeout("s1");
    net.run((e) => {
      if (e.msg.type !== "AppendEntries") return true;
      if (e.to === "s2" || e.to === "s5") return false; // S1 does not reach them
      // Once S3 and S4 hold index 2, the append of index 3 is lost on its way to them.
      return !(net.node(e.to).lastIndex >= 2 && e.msg.entries.some((x) => x.index === 3));
    });
    const s1 = net.node("s1");
    expect(s1.role).toBe("leader");
    expect(s1.term).toBe(4);
    expect(termsOf(s1.log)).toEqual([1, 2, 4]);
    expect(termsOf(net.node("s3").log)).toEqual([1, 2]);
    expect(termsOf(net.node("s4").log)).toEqual([1, 2]);
    expect(s1.progress.s3?.match).toBe(2);
    expect(s1.progress.s4?.match).toBe(2);
    return net;
  }

  it("§5.4.2 Figure 8: a leader does not commit an entry of an earlier term by counting replicas", () => {
    const net = figure8c();
    expect(net.node("s1").commitIndex, "index 2 (term 2) is on a majority but must not commit").toBe(0);
    for (const id of ["s2", "s3", "s4"]) expect(net.node(id).commitIndex).toBe(0);

    // Why (Figure 8 (d)): if S1 crashes now, S5 can win term 5 with votes from S2, S3, S4
    // and overwrite index 2 on all of them. Had index 2 been committed, that would lose it.
    net.queue = [];
    net.timeout("s5");
    net.run((e) => e.to !== "s1" && e.from !== "s1");
    expect(net.node("s5").role).toBe("leader");
    expect(net.node("s5").term).toBe(5);
    for (const id of ["s2", "s3", "s4"]) expect(termsOf(net.node(id).log), id).toEqual([1, 3, 5]);
  });

  it("§5.4.2 Figure 8 (e): once an entry of the leader's term is on a majority, it and the earlier ones commit", () => {
    const net = figure8c();
    const s1 = net.node("s1");
    // A heartbeat round shows S1 that S3 and S4 lack index 3 (heartbeats carry no entries),
    // and S1 sends it again; those appends are held here.
    net.heartbeat("s1");
    const held: Envelope[] = [];
    net.run((e) => {
      if (e.to === "s2" || e.to === "s5") return false;
      if (e.msg.type === "AppendEntries" && e.msg.entries.length > 0) {
        held.push(e);
        return false;
      }
      return true;
    });
    const toS3 = held.find((e) => e.to === "s3");
    const toS4 = held.find((e) => e.to === "s4");
    expect(held).toHaveLength(2);
    expect(toS3?.msg).toMatchObject({ prevLogIndex: 2, entries: [{ index: 3, term: 4 }] });

    net.deliver(toS3 as Envelope);
    net.run();
    expect(s1.progress.s3?.match).toBe(3);
    expect(s1.commitIndex, "index 3 is on S1 and S3 only: 2 of 5").toBe(0);

    net.deliver(toS4 as Envelope);
    net.run();
    expect(s1.commitIndex, "index 3 (term 4) is on a majority: it commits, and index 2 with it").toBe(3);

    // Now S5 cannot win any more: S3 and S4 refuse it (their last term 4 beats its 3).
    net.timeout("s5");
    net.run((e) => e.to !== "s1" && e.from !== "s1");
    expect(net.node("s5").role).not.toBe("leader");
    expect(termsOf(net.node("s3").log)).toEqual([1, 2, 4]);
  });
});

// ---- persistence (Figure 2) ---------------------------------------------------------

describe("Figure 2 / §5.1 persistence: state is in the Ready that carries the messages depending on it", () => {
  it("Figure 2: a candidate's new term and self-vote are in the Ready with its RequestVotes", () => {
    const host = new Host(raftConfig("n1", ids(3)), { term: 6, votedFor: "n2" }, logOf([1, 6]));
    const before = cloneDisk(host.disk);
    host.node.onTimer(host.node.electionDeadline);
    const rd = host.ready();
    expect(rd.hardState).toEqual({ term: 7, votedFor: "n1" });
    expect(only(rd.messages, "n2", "RequestVote")).toMatchObject({ term: 7, lastLogIndex: 2, lastLogTerm: 6, preVote: false });
    expect(persistProblems("n1", before, host.node, rd).length).toBeGreaterThan(0);
  });

  it("Figure 2: a follower's new term and entries are in the Ready that acknowledges them, and survive a crash", () => {
    const host = new Host(raftConfig("n2", ids(3)), { term: 1, votedFor: null }, logOf([1]));
    const before = cloneDisk(host.disk);
    host.node.step(10, "n1", ae(3, 1, 1, [entry(2, 3), entry(3, 3)], 1));
    const rd = host.ready();
    expect(rd.hardState).toEqual({ term: 3, votedFor: null });
    expect(rd.entries.map((e) => e.index)).toEqual([2, 3]);
    expect(only(rd.messages, "n1", "AppendEntriesResp")).toMatchObject({ term: 3, success: true, matchIndex: 3 });
    expect(persistProblems("n2", before, host.node, rd).length).toBeGreaterThan(0);

    host.reboot(20);
    expect(host.node.term).toBe(3);
    expect(termsOf(host.node.log)).toEqual([1, 3, 3]);
  });

  it("Figure 2: a truncation and its replacement entries are in the Ready that acknowledges them", () => {
    const host = new Host(raftConfig("n2", ids(3)), { term: 3, votedFor: null }, logOf([1, 1, 2, 2]));
    host.node.step(10, "n1", ae(3, 2, 1, [entry(3, 3)]));
    const rd = host.ready();
    expect(rd.truncateFrom).toBe(3);
    expect(rd.entries).toEqual([entry(3, 3)]);
    expect(only(rd.messages, "n1", "AppendEntriesResp")).toMatchObject({ success: true, matchIndex: 3 });
    expect(termsOf(host.disk.log)).toEqual([1, 1, 3]);
  });

  it("Figure 2: a leader's proposed entry is in the Ready that sends it", () => {
    const net = electedCluster(3);
    const n1 = net.node("n1");
    const at = n1.propose({ type: "client", clientId: "c", seq: 1, op: { type: "put", key: "x", value: "1" } });
    expect(at).toEqual({ index: 2, term: 1 });
    const rd = net.flush("n1");
    expect(rd.entries.map((e) => e.index)).toEqual([2]);
    expect(only(rd.messages, "n2", "AppendEntries").entries.map((e) => e.index)).toEqual([2]);
    expect(net.node("n2").propose({ type: "noop" }), "only the leader accepts proposals").toBeNull();
  });

  it("Figure 2: a term learned from a reply is persisted even when there is nothing to send", () => {
    const net = electedCluster(3);
    const rd = net.deliver({ from: "n2", to: "n1", msg: aeResp(9, false) });
    expect(rd.hardState).toEqual({ term: 9, votedFor: null });
    expect(rd.messages).toEqual([]);
    net.host("n1").reboot(net.now);
    expect(net.node("n1").term).toBe(9);
  });

  it("Figure 2: the harness check itself catches a message sent ahead of its state", () => {
    // Guard against a vacuous check: a granting reply with an unpersisted vote is reported.
    const host = new Host(raftConfig("n1", ids(3)));
    host.node.step(10, "n2", rv(1, 0, 0));
    const rd = host.node.ready();
    expect(persistProblems("n1", host.disk, host.node, rd).join()).toMatch(/granted n2 its vote in term 1/);
  });
});

// ---- PreVote and CheckQuorum (dissertation 9.6, 6.2) -------------------------------

function stableLeader(sim: Simulation): NodeId {
  const l = sim.leader();
  if (l === null) throw new Error(`no leader at ${sim.now}`);
  for (const id of sim.nodeIds) expect(sim.server(id).node?.leader, `${id} follows ${l}`).toBe(l);
  return l;
}

describe("PreVote (dissertation §9.6) and CheckQuorum (§6.2)", () => {
  it("§9.6 a pre-candidate does not increment its term, and a pre-vote request changes nobody's term or vote", () => {
    const host = new Host(raftConfig("n1", ids(3), { preVote: true }), { term: 4, votedFor: "n3" }, logOf([1, 4]));
    host.node.onTimer(host.node.electionDeadline);
    const rd = host.ready();
    expect(host.node.role).toBe("precandidate");
    expect(host.node.term).toBe(4);
    expect(rd.hardState).toBeNull();
    expect(only(rd.messages, "n2", "RequestVote")).toMatchObject({ term: 5, preVote: true });

    const voter = new Host(raftConfig("n2", ids(3), { preVote: true }), { term: 4, votedFor: "n3" }, logOf([1, 4]));
    voter.node.step(10, "n1", rv(5, 2, 4, true));
    const vrd = voter.ready();
    expect(only(vrd.messages, "n1", "RequestVoteResp")).toMatchObject({ granted: true, preVote: true, term: 5 });
    expect(voter.node.term).toBe(4);
    expect(voter.node.votedFor).toBe("n3");
    expect(vrd.hardState).toBeNull();

    // A granted pre-vote carries the prospective term; the pre-candidate must not adopt it
    // as if it had seen a newer leader, but campaign for real.
    host.node.step(20, "n2", vrd.messages[0]?.msg as RaftMessage);
    const crd = host.ready();
    expect(host.node.role).toBe("candidate");
    expect(host.node.term).toBe(5);
    expect(crd.hardState).toEqual({ term: 5, votedFor: "n1" });
  });

  it("§9.6 a server that hears from its leader refuses pre-votes, even without CheckQuorum; the leader refuses too", () => {
    const net = electedCluster(3, { preVote: true, checkQuorum: false });
    const heardAt = net.now;
    // n3 was cut off and campaigns with a log as good as anyone's.
    const ask = (to: NodeId, at: number) => {
      net.now = at;
      return only(net.deliver({ from: "n3", to, msg: rv(2, 1, 1, true) }).messages, "n3", "RequestVoteResp");
    };
    expect(ask("n2", heardAt + 1_000)).toMatchObject({ granted: false, preVote: true, term: 1 });
    expect(ask("n1", heardAt + 1_000)).toMatchObject({ granted: false, preVote: true, term: 1 });
    // Once the leader has been silent for the minimum election timeout, the follower agrees.
    expect(ask("n2", heardAt + 150_000)).toMatchObject({ granted: true, preVote: true, term: 2 });
    expect(net.node("n2").term).toBe(1);
    expect(ask("n1", heardAt + 10 * 300_000).granted, "a leader is its own leader").toBe(false);
  });

  it("§4.2.3 with CheckQuorum, a server that hears from its leader ignores a vote request of a higher term", () => {
    const net = electedCluster(3, { checkQuorum: true });
    const n2 = net.node("n2");
    const heardAt = net.now;
    net.now = heardAt + 1_000;
    let rd = net.deliver({ from: "n3", to: "n2", msg: rv(7, 9, 1) });
    expect(rd.messages, "no reply, no term change").toEqual([]);
    expect(n2.term).toBe(1);
    expect(n2.leader).toBe("n1");
    expect(rd.hardState).toBeNull();
    // After a minimum election timeout of silence, the request is heard (and granted: the log is up to date).
    net.now = heardAt + 150_000;
    rd = net.deliver({ from: "n3", to: "n2", msg: rv(7, 9, 1) });
    expect(only(rd.messages, "n3", "RequestVoteResp")).toMatchObject({ term: 7, granted: true });
    expect(n2.term).toBe(7);
  });

  const rejoin = (preVote: boolean, seed: number, checkQuorum = true) => {
    const sim = new Simulation(mergeConfig(defaultConfig(), { seed, nodes: 5, raft: { preVote, checkQuorum }, hashTrace: false }));
    sim.advanceTo(sec(1));
    const leader = stableLeader(sim);
    const term = sim.server(leader).node?.term as number;
    const loner = sim.nodeIds.find((id) => id !== leader) as NodeId;
    sim.act({ type: "partition", groups: [[loner], sim.nodeIds.filter((id) => id !== loner)] });
    sim.advanceTo(sec(3)); // many election timeouts alone
    const lonerTerm = sim.server(loner).node?.term as number;
    sim.act({ type: "heal" });
    sim.advanceTo(sec(4));
    return { sim, leader, term, lonerTerm };
  };

  for (const seed of [1, 2, 3, 4, 5]) {
    it(`§9.6 PreVote: a partitioned follower that rejoins does not disrupt the leader (seed ${seed})`, () => {
      const { sim, leader, term, lonerTerm } = rejoin(true, seed);
      expect(lonerTerm, "alone, it never won a pre-vote, so it never raised its term").toBe(term);
      expect(sim.leader()).toBe(leader);
      for (const id of sim.nodeIds) expect(sim.server(id).node?.term, id).toBe(term);
      stableLeader(sim);
      expect(sim.violations).toEqual([]);
    });
  }

  it("§9.6 PreVote alone (CheckQuorum off): a rejoining follower never disrupts the leader (seeds 1..40)", () => {
    const disrupted: number[] = [];
    for (let seed = 1; seed <= 40; seed++) {
      const { sim, leader, term, lonerTerm } = rejoin(true, seed, false);
      expect(lonerTerm).toBe(term);
      if (sim.leader() !== leader || sim.server(leader).node?.term !== term) disrupted.push(seed);
      expect(sim.violations).toEqual([]);
      // Refusing pre-votes while a leader is heard must not stall elections once it is gone.
      sim.act({ type: "crash", proc: leader });
      const crashedAt = sim.now;
      sim.advanceTo(crashedAt + sec(1));
      expect(sim.leader(), `seed ${seed}: a new leader within 1 s of the crash`).not.toBeNull();
    }
    expect(disrupted).toEqual([]);
  });

  it("§9.6 control: without PreVote the same rejoin raises the term and deposes the leader", () => {
    const { sim, term, lonerTerm } = rejoin(false, 1);
    expect(lonerTerm).toBeGreaterThan(term);
    const now = sim.leader();
    expect(now).not.toBeNull();
    expect(sim.server(now as NodeId).node?.term).toBeGreaterThan(term);
    expect(sim.violations).toEqual([]);
  });

  const isolateLeader = (checkQuorum: boolean, seed: number) => {
    const cfg = mergeConfig(defaultConfig(), { seed, nodes: 5, raft: { checkQuorum }, hashTrace: false });
    const sim = new Simulation(cfg);
    sim.advanceTo(sec(1));
    const old = stableLeader(sim);
    const term = sim.server(old).node?.term as number;
    let steppedDownAt: number | null = null;
    sim.onTrace((e) => {
      if (steppedDownAt === null && e.kind === "role" && e.proc === old && e.role !== "leader") steppedDownAt = e.t;
    });
    const cutAt = sim.now;
    sim.act({ type: "partition", groups: [[old], sim.nodeIds.filter((id) => id !== old)] });
    sim.advanceTo(cutAt + sec(2));
    return { sim, cfg, old, term, cutAt, steppedDownAt: steppedDownAt as number | null };
  };

  for (const seed of [1, 2, 3]) {
    it(`§6.2 CheckQuorum: a leader cut off from the majority steps down within two election timeouts (seed ${seed})`, () => {
      const { sim, cfg, old, term, cutAt, steppedDownAt } = isolateLeader(true, seed);
      expect(steppedDownAt).not.toBeNull();
      // Rounds are electionTimeoutMin apart; the first after the cut may still count earlier replies.
      expect((steppedDownAt as number) - cutAt).toBeLessThanOrEqual(2 * ms(cfg.raft.electionTimeoutMinMs));
      expect(sim.server(old).node?.role).not.toBe("leader");
      // The majority side elected a leader of a later term meanwhile.
      const next = sim.leader();
      expect(next).not.toBe(old);
      expect(sim.server(next as NodeId).node?.term).toBeGreaterThan(term);
      expect(sim.violations).toEqual([]);
    });
  }

  it("§6.2 control: without CheckQuorum the isolated leader stays leader", () => {
    const { sim, old, steppedDownAt } = isolateLeader(false, 1);
    expect(steppedDownAt).toBeNull();
    expect(sim.server(old).node?.role).toBe("leader");
  });
});

// ---- ReadIndex (dissertation 6.4) ---------------------------------------------------------

describe("ReadIndex (dissertation §6.4, paper §8)", () => {
  it("§6.4 on a fresh leader a read waits for its no-op to commit, then for a majority heartbeat round", () => {
    const voters = ids(5);
    const net = new Net(voters.map((id) => new Host(raftConfig(id, voters))));
    net.timeout("n1");
    // Win with n2 and n3 only; n4 and n5 stay unreachable for the whole test.
    for (const req of net.take((e) => e.to === "n2" || e.to === "n3")) net.deliver(req);
    net.queue = net.queue.filter((e) => e.to === "n1");
    for (const reply of net.take(() => true)) net.deliver(reply);
    const n1 = net.node("n1");
    expect(n1.role).toBe("leader");
    expect(n1.commitIndex).toBe(0);
    net.queue = net.queue.filter((e) => e.to === "n2" || e.to === "n3");

    expect(n1.requestRead(1)).toBe(true);
    let rd = net.flush("n1");
    expect(rd.readStates).toEqual([]);

    // Deliver the no-op appends and their replies.
    const appends = net.take(() => true);
    for (const a of appends) net.deliver(a);
    const replies = net.take(() => true);
    rd = net.deliver(replies[0] as Envelope);
    expect(n1.commitIndex).toBe(0);
    expect(rd.readStates).toEqual([]);
    rd = net.deliver(replies[1] as Envelope);
    expect(n1.commitIndex, "no-op committed").toBe(1);
    expect(rd.readStates, "the no-op's acks predate the read round").toEqual([]);
    const round = rd.messages.filter((m) => m.msg.type === "AppendEntries");
    expect(round.map((m) => m.to).sort()).toEqual(["n2", "n3", "n4", "n5"]);
    const ctx = readCtxOf(round[0]);
    expect(ctx).toBeGreaterThan(0);

    net.queue = net.queue.filter((e) => e.to === "n2" || e.to === "n3");
    const [toN2, toN3] = [net.take(isAppendTo("n2"))[0], net.take(isAppendTo("n3"))[0]];
    net.deliver(toN2 as Envelope);
    rd = net.deliver(net.take(() => true)[0] as Envelope);
    expect(rd.readStates, "leader + n2 is 2 of 5").toEqual([]);
    net.deliver(toN3 as Envelope);
    rd = net.deliver(net.take(() => true)[0] as Envelope);
    expect(rd.readStates).toEqual([{ ctx: 1, index: 1 }]);
  });

  it("§6.4 on an established leader a read returns only after a majority acknowledges a heartbeat sent after it", () => {
    const net = electedCluster(5);
    const n1 = net.node("n1");
    expect(n1.commitIndex).toBe(1);
    const replyFrom = (p: NodeId, round: Envelope[]): Envelope => {
      net.deliver(round.find((e) => e.to === p) as Envelope);
      return net.take((e) => e.to === "n1")[0] as Envelope;
    };

    // Read 6 starts a heartbeat round; the followers answer it but the answers are held back.
    expect(n1.requestRead(6)).toBe(true);
    let rd = net.flush("n1");
    expect(rd.readStates).toEqual([]);
    const round6 = net.take(() => true);
    expect(round6.map((e) => e.to).sort()).toEqual(["n2", "n3", "n4", "n5"]);
    const replies6 = ["n2", "n3", "n4", "n5"].map((p) => replyFrom(p, round6));

    // Read 7 starts a later round.
    expect(n1.requestRead(7)).toBe(true);
    rd = net.flush("n1");
    expect(rd.readStates).toEqual([]);
    const round7 = net.take(() => true);
    expect(readCtxOf(round7[0])).toBeGreaterThan(readCtxOf(round6[0]));

    // Answers to the earlier round confirm read 6 once a majority (n1, n2, n3) is in, but never read 7.
    rd = net.deliver(replies6[0] as Envelope);
    expect(rd.readStates, "n1 + n2 is 2 of 5").toEqual([]);
    rd = net.deliver(replies6[1] as Envelope);
    expect(rd.readStates).toEqual([{ ctx: 6, index: 1 }]);
    for (const r of replies6.slice(2)) expect(net.deliver(r).readStates, "sent before read 7 was asked").toEqual([]);

    // A proposal after read 7 does not change the index it must wait for.
    n1.propose({ type: "noop" });
    net.flush("n1");
    net.queue = [];

    rd = net.deliver(replyFrom("n4", round7));
    expect(rd.readStates).toEqual([]);
    rd = net.deliver(replyFrom("n5", round7));
    expect(rd.readStates).toEqual([{ ctx: 7, index: 1 }]);
    expect(net.node("n2").requestRead(8), "followers do not serve ReadIndex").toBe(false);
  });
});
