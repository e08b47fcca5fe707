/**
 * Persistence (6.824 lab 3C in spirit): crash every node, at once and one by one;
 * terms, votes and logs come back from the simulated disk, and committed values are
 * still there once a new leader commits.
 */
import { describe, expect } from "vitest";
import type { NodeId } from "../../src/core/raft/types";
import type { Simulation } from "../../src/core/sim/sim";
import { ms, sec } from "../../src/core/sim/time";
import {
  advanceBy,
  appendOk,
  awaitConverged,
  awaitLeader,
  entryKey,
  expectHistoryConsistent,
  expectIdenticalLogs,
  expectNoViolations,
  History,
  itForSeeds,
  makeSim,
  node,
  stateOf,
  tag,
} from "./helpers";

const SEEDS = [41, 42, 43, 44, 45];

interface Persisted {
  term: number;
  votedFor: NodeId | null;
  log: string[];
}

function persisted(sim: Simulation, id: NodeId): Persisted {
  const n = node(sim, id);
  return { term: n.term, votedFor: n.votedFor, log: n.log.map(entryKey) };
}

/** What a node booted with right after a restart must equal what it had before the crash. */
function expectRestored(sim: Simulation, id: NodeId, before: Persisted): void {
  const disk = sim.diskOf(id);
  expect(disk?.hard.term, `${tag(sim)}: term on ${id}'s disk`).toBe(before.term);
  expect(disk?.log.map(entryKey), `${tag(sim)}: log on ${id}'s disk`).toEqual(before.log);
  const after = persisted(sim, id);
  expect(after, `${tag(sim)}: ${id} after restart`).toEqual(before);
  expect(node(sim, id).role, `${tag(sim)}: ${id} boots as follower`).toBe("follower");
  expect(node(sim, id).commitIndex, `${tag(sim)}: ${id}'s commit index is volatile`).toBe(0);
}

describe("persistence", () => {
  itForSeeds("every node crashes at once: terms, votes and logs survive; committed values come back", SEEDS, (seed) => {
    const sim = makeSim(seed, { clients: { count: 2 } });
    const hist = new History(sim);
    awaitLeader(sim, sec(2));
    let expected = "";
    for (let i = 0; i < 3; i++) {
      for (let j = 0; j < 5; j++) {
        appendOk(sim, hist, `c${(j % 2) + 1}`, "k", `r${i}-${j};`);
        expected += `r${i}-${j};`;
      }
      const leader = awaitConverged(sim, sec(2));
      const committed = node(sim, leader).commitIndex;
      const before = new Map(sim.nodeIds.map((id) => [id, persisted(sim, id)]));

      for (const id of sim.nodeIds) sim.act({ type: "crash", proc: id });
      for (const id of sim.nodeIds) expect(sim.status(id), `${tag(sim)}: ${id}`).toBe("down");
      advanceBy(sim, ms(500));
      for (const id of sim.nodeIds) {
        sim.act({ type: "restart", proc: id });
        expectRestored(sim, id, before.get(id) as Persisted);
        expect(stateOf(sim, id), `${tag(sim)}: ${id}'s state machine is rebuilt from the log`).toEqual({});
      }

      // A new leader, in a later term, commits again: every value is back, on every node.
      const l2 = awaitConverged(sim, sec(5));
      expect(node(sim, l2).term, `${tag(sim)}: term after full restart`).toBeGreaterThan(before.get(l2)?.term ?? 0);
      expect(node(sim, l2).commitIndex, `${tag(sim)}: commit index after full restart`).toBeGreaterThan(committed);
      expectIdenticalLogs(sim, l2);
      for (const id of sim.nodeIds) expect(stateOf(sim, id).k, `${tag(sim)}: value on ${id} after round ${i}`).toBe(expected);
    }
    expectHistoryConsistent(sim, hist, stateOf(sim, awaitConverged(sim, sec(1))));
    expectNoViolations(sim);
  });

  itForSeeds("nodes crash one by one until all are down, then restart in reverse order", SEEDS, (seed) => {
    const sim = makeSim(seed, { clients: { count: 1 } });
    const hist = new History(sim);
    awaitLeader(sim, sec(2));
    let expected = "";
    let n = 0;
    const write = (): void => {
      const v = `v${n++};`;
      appendOk(sim, hist, "c1", "k", v, sec(10));
      expected += v;
    };
    write();
    // Leader first, then the others; write while a majority is still up.
    const order = [awaitLeader(sim, sec(1)), ...sim.nodeIds.filter((id) => id !== sim.leader())];
    const before = new Map<NodeId, Persisted>();
    for (const [i, id] of order.entries()) {
      before.set(id, persisted(sim, id));
      sim.act({ type: "crash", proc: id });
      if (i < 2) {
        write();
        write();
      } else {
        advanceBy(sim, ms(300));
      }
    }
    advanceBy(sim, sec(1));
    for (const id of [...order].reverse()) {
      sim.act({ type: "restart", proc: id });
      // Exactly the term, vote and log it had when it crashed.
      expectRestored(sim, id, before.get(id) as Persisted);
      advanceBy(sim, ms(100));
    }
    const l = awaitConverged(sim, sec(5));
    expectIdenticalLogs(sim, l);
    for (const id of sim.nodeIds) expect(stateOf(sim, id).k, `${tag(sim)}: value on ${id}`).toBe(expected);
    write();
    const l2 = awaitConverged(sim, sec(2));
    expectHistoryConsistent(sim, hist, stateOf(sim, l2));
    expectNoViolations(sim);
  });

  itForSeeds("rolling restarts, leader included, while writing: nothing committed is lost", SEEDS, (seed) => {
    const sim = makeSim(seed, { clients: { count: 1 } });
    const hist = new History(sim);
    awaitLeader(sim, sec(2));
    let expected = "";
    let n = 0;
    for (let round = 0; round < 2; round++) {
      for (const id of sim.nodeIds) {
        const b = persisted(sim, id);
        sim.act({ type: "crash", proc: id });
        const v = `w${n++};`;
        appendOk(sim, hist, "c1", "k", v, sec(10));
        expected += v;
        // Its disk did not change while it was down.
        expect(sim.diskOf(id)?.log.map(entryKey), `${tag(sim)}: ${id}'s disk while down`).toEqual(b.log);
        expect(sim.diskOf(id)?.hard.term, `${tag(sim)}: ${id}'s term while down`).toBe(b.term);
        sim.act({ type: "restart", proc: id });
        expectRestored(sim, id, b);
        awaitConverged(sim, sec(5));
        expect(stateOf(sim, id).k, `${tag(sim)}: value on restarted ${id}`).toBe(expected);
      }
    }
    const l = awaitConverged(sim, sec(2));
    expectIdenticalLogs(sim, l);
    expectHistoryConsistent(sim, hist, stateOf(sim, l));
    expectNoViolations(sim);
  });
});
