/**
 * Leader election (6.824 lab 3A in spirit): initial election, re-election after
 * the leader is cut off, the old leader rejoining, and no leader without a majority.
 */
import { describe, expect } from "vitest";
import type { NodeId } from "../../src/core/raft/types";
import { ms, sec } from "../../src/core/sim/time";
import {
  advanceBy,
  agreedLeader,
  appendOk,
  awaitConverged,
  awaitLeader,
  expectHistoryConsistent,
  expectIdenticalLogs,
  expectNoViolations,
  History,
  itForSeeds,
  leadersNow,
  makeSim,
  maxCommit,
  node,
  runUntil,
  stateOf,
  submitAppend,
  tag,
} from "./helpers";

const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8];

describe("initial election", () => {
  itForSeeds("one leader within 2 s, terms agree, and it keeps leading for 10 s", SEEDS, (seed) => {
    const sim = makeSim(seed);
    const roleChanges: string[] = [];
    sim.onTrace((e) => {
      if (e.kind === "role" || e.kind === "hard") roleChanges.push(`${e.proc} ${e.kind} term ${e.term} at ${e.t}`);
    });

    // Within 2 s: exactly one leader, and every node in its term knowing it.
    const allAgree = (): boolean => {
      const l = agreedLeader(sim);
      return l !== null && sim.nodeIds.every((id) => node(sim, id).term === node(sim, l).term && node(sim, id).leader === l);
    };
    expect(runUntil(sim, allAgree, sec(2)), `${tag(sim)}: no leader known to all within 2 s`).toBe(true);
    expect(leadersNow(sim), `${tag(sim)}: leaders`).toHaveLength(1);
    const leader = agreedLeader(sim) as NodeId;
    const term = node(sim, leader).term;
    expect(term, `${tag(sim)}: first term`).toBeGreaterThanOrEqual(1);

    // 10 s of a healthy network: no new term, no change of leader.
    const before = roleChanges.length;
    advanceBy(sim, sec(10));
    expect(roleChanges.slice(before), `${tag(sim)}: role or term changes on a healthy network`).toEqual([]);
    expect(leadersNow(sim), `${tag(sim)}: leaders after 10 s`).toEqual([leader]);
    for (const id of sim.nodeIds) expect(node(sim, id).term, `${tag(sim)}: term of ${id}`).toBe(term);
    expectNoViolations(sim);
  });
});

describe("re-election", () => {
  itForSeeds("a new leader after the leader is cut off; the old one rejoins as follower", SEEDS, (seed) => {
    const sim = makeSim(seed);
    const l1 = awaitLeader(sim, sec(2));
    const t1 = node(sim, l1).term;
    const rest = sim.nodeIds.filter((id) => id !== l1);

    // Cut the leader off: the others elect a new one in a later term.
    sim.act({ type: "partition", groups: [[l1], rest] });
    const l2 = awaitLeader(sim, sec(2), rest);
    expect(node(sim, l2).term, `${tag(sim)}: new leader's term`).toBeGreaterThan(t1);
    // CheckQuorum: the cut-off leader steps down on its own.
    expect(
      runUntil(sim, () => node(sim, l1).role !== "leader", ms(3 * 300)),
      `${tag(sim)}: ${l1} still leader alone`,
    ).toBe(true);

    // The old leader rejoins: a single leader remains, and everyone is in its term.
    sim.act({ type: "heal" });
    advanceBy(sim, sec(2));
    const l = agreedLeader(sim);
    expect(l, `${tag(sim)}: leader after heal`).not.toBeNull();
    expect(leadersNow(sim), `${tag(sim)}: leaders after heal`).toEqual([l]);
    for (const id of sim.nodeIds) expect(node(sim, id).term, `${tag(sim)}: term of ${id}`).toBe(node(sim, l as NodeId).term);

    // Cut off the new leader too, then heal again: still exactly one leader.
    const l3 = l as NodeId;
    const t3 = node(sim, l3).term;
    sim.act({ type: "partition", groups: [[l3], sim.nodeIds.filter((id) => id !== l3)] });
    const l4 = awaitLeader(
      sim,
      sec(2),
      sim.nodeIds.filter((id) => id !== l3),
    );
    sim.act({ type: "heal" });
    advanceBy(sim, sec(2));
    expect(leadersNow(sim), `${tag(sim)}: leaders after the second heal`).toHaveLength(1);
    expect(agreedLeader(sim), `${tag(sim)}: agreed leader after the second heal`).not.toBeNull();
    expect(node(sim, l4).term, `${tag(sim)}: the third leader's term`).toBeGreaterThan(t3);
    expectNoViolations(sim);
  });

  itForSeeds("a cut-off leader's uncommitted entries are discarded when it rejoins", SEEDS, (seed) => {
    const sim = makeSim(seed, { clients: { count: 4 } });
    const hist = new History(sim);
    const l1 = awaitLeader(sim, sec(2));
    // Every client writes once, so each knows (targets) the leader.
    for (const c of sim.clientIds) appendOk(sim, hist, c, "k", `${c}-before;`);
    const t1 = node(sim, l1).term;
    const committedBefore = node(sim, l1).commitIndex;
    const rest = sim.nodeIds.filter((id) => id !== l1);

    // c1, c2 can reach only the old leader; c3, c4 only the majority.
    sim.act({
      type: "partition",
      groups: [
        [l1, "c1", "c2"],
        [...rest, "c3", "c4"],
      ],
    });
    submitAppend(sim, "c1", "k", "c1-lost;");
    submitAppend(sim, "c2", "k2", "c2-lost;");
    advanceBy(sim, ms(50));
    const n1 = node(sim, l1);
    const divergent = n1.log.slice(committedBefore).filter((e) => e.term === t1 && e.cmd.type === "client");
    expect(divergent.length, `${tag(sim)}: writes appended by the cut-off leader`).toBe(2);

    // The majority moves on and commits its own writes.
    const l2 = awaitLeader(sim, sec(2), rest);
    appendOk(sim, hist, "c3", "k", "c3-after;");
    appendOk(sim, hist, "c4", "k2", "c4-after;");
    advanceBy(sim, sec(1));
    expect(node(sim, l1).commitIndex, `${tag(sim)}: cut-off leader committed nothing new`).toBe(committedBefore);
    expect(hist.outcome("k", "c1-lost;"), `${tag(sim)}: c1's write cannot be acknowledged`).toBeNull();

    // Rejoin: the old leader's divergent entries are overwritten by the majority's.
    sim.act({ type: "heal" });
    const leader = awaitConverged(sim, sec(10));
    expect(leadersNow(sim), `${tag(sim)}: single leader after rejoin`).toEqual([leader]);
    expect(leader, `${tag(sim)}: old leader cannot win with a stale log`).not.toBe(l1);
    for (const e of divergent) {
      const now = node(sim, l1).entryAt(e.index);
      expect(now === undefined || now.term !== t1, `${tag(sim)}: ${l1} still holds uncommitted entry ${e.index} of term ${t1}`).toBe(true);
    }
    expect(node(sim, l2).term, `${tag(sim)}: term`).toBeGreaterThan(t1);
    expectIdenticalLogs(sim, leader);
    // c1 and c2 keep retrying with the same sequence number: their writes end up at most once.
    runUntil(sim, () => hist.outcome("k", "c1-lost;") !== null && hist.outcome("k2", "c2-lost;") !== null, sec(10));
    awaitConverged(sim, sec(5));
    expectHistoryConsistent(sim, hist, stateOf(sim, leader));
    expectNoViolations(sim);
  });
});

describe("no leader without a majority", () => {
  itForSeeds("partitioned 2/2/1: the leader steps down, nobody leads, writes wait; heal elects a leader", SEEDS, (seed) => {
    const sim = makeSim(seed, { clients: { count: 1 } });
    const hist = new History(sim);
    const l = awaitLeader(sim, sec(2));
    appendOk(sim, hist, "c1", "k", "first;");
    const others = sim.nodeIds.filter((id) => id !== l);
    const [a, b, c, d] = others as [NodeId, NodeId, NodeId, NodeId];
    sim.act({ type: "partition", groups: [[l, a], [b, c], [d]] });
    const commitBefore = maxCommit(sim);

    // CheckQuorum: the leader steps down within a couple of election timeouts.
    expect(
      runUntil(sim, () => leadersNow(sim).length === 0, ms(2 * 300 + 50)),
      `${tag(sim)}: ${l} did not step down without a majority`,
    ).toBe(true);

    // From here on, over many election timeouts, nobody becomes leader.
    const newLeaders: string[] = [];
    const stop = sim.onTrace((e) => {
      if (e.kind === "role" && e.role === "leader") newLeaders.push(`${e.proc} term ${e.term} at ${e.t}`);
    });
    submitAppend(sim, "c1", "k", "stuck;");
    advanceBy(sim, sec(3));
    stop();
    expect(newLeaders, `${tag(sim)}: leaders elected without a majority`).toEqual([]);
    expect(leadersNow(sim), `${tag(sim)}: leaders`).toEqual([]);
    expect(maxCommit(sim), `${tag(sim)}: commit index moved without a majority`).toBe(commitBefore);
    expect(hist.outcome("k", "stuck;"), `${tag(sim)}: write acknowledged without a majority`).toBeNull();

    // Heal: a leader appears and the waiting write commits, once.
    sim.act({ type: "heal" });
    const l2 = awaitLeader(sim, sec(3));
    runUntil(sim, () => hist.outcome("k", "stuck;") !== null, sec(10));
    expect(hist.outcome("k", "stuck;"), `${tag(sim)}: write after heal`).toBe("ok");
    expect(stateOf(sim, l2).k, `${tag(sim)}: final value`).toBe("first;stuck;");
    expectNoViolations(sim);
  });

  itForSeeds("3 of 5 crashed: the leader steps down and nobody leads until one restarts", SEEDS.slice(0, 4), (seed) => {
    const sim = makeSim(seed, { clients: { count: 1 } });
    const hist = new History(sim);
    const l = awaitLeader(sim, sec(2));
    appendOk(sim, hist, "c1", "k", "first;");
    const followers = sim.nodeIds.filter((id) => id !== l);
    for (const f of followers.slice(0, 3)) sim.act({ type: "crash", proc: f });
    expect(
      runUntil(sim, () => leadersNow(sim).length === 0, ms(2 * 300 + 50)),
      `${tag(sim)}: ${l} did not step down with 3 of 5 down`,
    ).toBe(true);
    const commitBefore = maxCommit(sim);
    submitAppend(sim, "c1", "k", "stuck;");
    advanceBy(sim, sec(3));
    expect(leadersNow(sim), `${tag(sim)}: leaders with 2 of 5 up`).toEqual([]);
    expect(maxCommit(sim), `${tag(sim)}: commit index`).toBe(commitBefore);
    expect(hist.outcome("k", "stuck;"), `${tag(sim)}: write acknowledged with 2 of 5 up`).toBeNull();

    sim.act({ type: "restart", proc: followers[0] as NodeId });
    const l2 = awaitLeader(sim, sec(3));
    runUntil(sim, () => hist.outcome("k", "stuck;") !== null, sec(10));
    expect(hist.outcome("k", "stuck;"), `${tag(sim)}: write after a majority is back`).toBe("ok");
    expect(stateOf(sim, l2).k, `${tag(sim)}: final value`).toBe("first;stuck;");
    expectNoViolations(sim);
  });
});
