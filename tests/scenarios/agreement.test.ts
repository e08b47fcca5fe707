/**
 * Log agreement (6.824 lab 3B in spirit): with a failed follower, without a
 * majority, and on an unreliable network.
 */
import { describe, expect } from "vitest";
import type { NodeId } from "../../src/core/raft/types";
import { ms, sec } from "../../src/core/sim/time";
import {
  advanceBy,
  appendOk,
  awaitConverged,
  awaitLeader,
  expectHistoryConsistent,
  expectIdenticalLogs,
  expectNoViolations,
  History,
  itForSeeds,
  makeSim,
  maxCommit,
  node,
  runUntil,
  stateOf,
  submitAppend,
  tag,
  tokens,
} from "./helpers";

const SEEDS = [11, 12, 13, 14, 15, 16];

describe("agreement despite a failed follower", () => {
  itForSeeds("writes commit on the 4 remaining nodes; the restarted follower catches up", SEEDS, (seed) => {
    const sim = makeSim(seed, { clients: { count: 1 } });
    const hist = new History(sim);
    const l = awaitLeader(sim, sec(2));
    appendOk(sim, hist, "c1", "k", "a0;");
    const f = sim.nodeIds.find((id) => id !== l) as NodeId;
    sim.act({ type: "crash", proc: f });
    const lastBefore = sim.diskOf(f)?.log.length ?? 0;

    let expected = "a0;";
    for (let i = 1; i <= 10; i++) {
      appendOk(sim, hist, "c1", "k", `a${i};`);
      expected += `a${i};`;
    }
    advanceBy(sim, ms(200));
    const live = sim.nodeIds.filter((id) => id !== f);
    const leader = awaitLeader(sim, sec(1));
    const commit = node(sim, leader).commitIndex;
    for (const id of live) {
      expect(node(sim, id).commitIndex, `${tag(sim)}: commit index of ${id}`).toBe(commit);
      expect(stateOf(sim, id).k, `${tag(sim)}: value on ${id}`).toBe(expected);
    }
    expect(sim.diskOf(f)?.log.length, `${tag(sim)}: the crashed follower's disk did not change`).toBe(lastBefore);

    // The follower comes back and catches up with everything it missed.
    sim.act({ type: "restart", proc: f });
    const final = awaitConverged(sim, sec(3));
    expectIdenticalLogs(sim, final);
    expect(stateOf(sim, f).k, `${tag(sim)}: value on the restarted ${f}`).toBe(expected);
    // ...and takes part again: with two others down it is needed for a majority.
    const others = sim.nodeIds.filter((id) => id !== final && id !== f).slice(0, 2);
    for (const id of others) sim.act({ type: "crash", proc: id });
    appendOk(sim, hist, "c1", "k", "a11;", sec(10));
    // The leader counted f's acknowledgement; f learns the commit with the next append.
    runUntil(sim, () => (stateOf(sim, f).k ?? "").includes("a11;"), ms(200));
    expect(stateOf(sim, f).k ?? "", `${tag(sim)}: value on ${f}`).toContain("a11;");
    expectNoViolations(sim);
  });
});

describe("no agreement without a majority", () => {
  itForSeeds("3 of 5 crashed: a write is not committed; after restart it commits exactly once", SEEDS, (seed) => {
    const sim = makeSim(seed, { clients: { count: 1 } });
    const hist = new History(sim);
    const l = awaitLeader(sim, sec(2));
    appendOk(sim, hist, "c1", "k", "w1;");
    const followers = sim.nodeIds.filter((id) => id !== l);
    const down = followers.slice(0, 3);
    for (const id of down) sim.act({ type: "crash", proc: id });
    const commitBefore = maxCommit(sim);
    const lastBefore = node(sim, l).lastIndex;

    // c1 last heard from the leader, so the write goes there and is appended, not committed.
    submitAppend(sim, "c1", "k", "w2;");
    advanceBy(sim, ms(60));
    expect(node(sim, l).lastIndex, `${tag(sim)}: the leader appended the write`).toBe(lastBefore + 1);
    advanceBy(sim, sec(2));
    expect(maxCommit(sim), `${tag(sim)}: commit index moved with 2 of 5 up`).toBe(commitBefore);
    expect(hist.outcome("k", "w2;"), `${tag(sim)}: write acknowledged with 2 of 5 up`).toBeNull();
    for (const id of sim.nodeIds.filter((x) => !down.includes(x))) {
      expect(stateOf(sim, id).k, `${tag(sim)}: value on ${id}`).toBe("w1;");
    }

    // Restart them: the write (or its retry, same sequence number) commits, once.
    for (const id of down) sim.act({ type: "restart", proc: id });
    runUntil(sim, () => hist.outcome("k", "w2;") !== null, sec(10));
    expect(hist.outcome("k", "w2;"), `${tag(sim)}: outcome after restart`).toBe("ok");
    appendOk(sim, hist, "c1", "k", "w3;");
    const final = awaitConverged(sim, sec(3));
    expectIdenticalLogs(sim, final);
    expect(stateOf(sim, final).k, `${tag(sim)}: final value`).toBe("w1;w2;w3;");
    expectNoViolations(sim);
  });
});

describe("agreement on an unreliable network", () => {
  itForSeeds("drop 20%, duplicate 10%, latency 5..200 ms: writes commit and all nodes agree", [21, 22, 23, 24], (seed) => {
    const sim = makeSim(seed, {
      network: { dropRate: 0.2, duplicateRate: 0.1, latencyMinMs: 5, latencyMaxMs: 200 },
      clients: { count: 3, requestTimeoutMs: 600 },
    });
    const hist = new History(sim);
    const values: Record<string, string[]> = {};
    for (let i = 0; i < 10; i++) {
      for (const c of sim.clientIds) {
        const key = `k${i % 2}`;
        const value = `${c}-${i};`;
        submitAppend(sim, c, key, value);
        values[key] = [...(values[key] ?? []), value];
      }
    }
    const all = Object.entries(values).flatMap(([k, vs]) => vs.map((v) => [k, v] as const));
    const done = runUntil(sim, () => all.every(([k, v]) => hist.outcome(k, v) !== null), sec(120));
    expect(done, `${tag(sim)}: clients still busy`).toBe(true);
    const outcomes = all.map(([k, v]) => `${k} ${v} ${hist.outcome(k, v)}`);
    expect(
      outcomes.filter((o) => !o.endsWith(" ok")),
      `${tag(sim)}: writes not acknowledged`,
    ).toEqual([]);

    // Still on the unreliable network: every node ends with the same log and state.
    const leader = awaitConverged(sim, sec(30));
    expectIdenticalLogs(sim, leader);
    const state = stateOf(sim, leader);
    for (const [k, vs] of Object.entries(values)) {
      expect(tokens(state[k]).sort(), `${tag(sim)}: tokens of ${k}`).toEqual(vs.slice().sort());
      // Each client's own writes are applied in the order it issued them.
      for (const c of sim.clientIds) {
        const mine = tokens(state[k]).filter((t) => t.startsWith(`${c}-`));
        expect(mine, `${tag(sim)}: order of ${c}'s writes to ${k}`).toEqual(vs.filter((v) => v.startsWith(`${c}-`)));
      }
    }
    expectHistoryConsistent(sim, hist, state);
    expectNoViolations(sim);
  });
});
