/**
 * Churn (6.824 lab 3C "Figure 8" and "churn" in spirit): hundreds of crash/restart
 * rounds with clients writing, and the random nemesis with every kind of fault.
 * Zero invariant violations, and at the end every acknowledged write is in the
 * final state exactly once. The clients append without a cap on values (maxValueChars 0, no
 * puts): that final-state check needs values that only grow.
 */
import { describe, expect } from "vitest";
import type { NodeId } from "../../src/core/raft/types";
import { ALL_FAULTS } from "../../src/core/sim/nemesis";
import { Rng } from "../../src/core/sim/rng";
import type { Simulation } from "../../src/core/sim/sim";
import { ms, sec } from "../../src/core/sim/time";
import {
  advanceBy,
  awaitConverged,
  expectHistoryConsistent,
  expectIdenticalLogs,
  expectNoViolations,
  History,
  healAll,
  itForSeeds,
  majority,
  makeSim,
  stateOf,
  stopClients,
  tag,
  upNodes,
} from "./helpers";

/**
 * Every kind of fault but membership changes: a server removed from the configuration
 * hears no leader any more, so "every node converges" cannot hold once one is removed
 * (the membership sweeps in tests/core check those runs instead).
 */
const CONVERGING_FAULTS = ALL_FAULTS.filter((k) => k !== "membership");

/** Heals everything, lets writes finish, stops the clients, waits for every node to agree. */
function finish(sim: Simulation, settleUs: number): NodeId {
  healAll(sim);
  advanceBy(sim, settleUs);
  stopClients(sim);
  const leader = awaitConverged(sim, sec(10));
  expectIdenticalLogs(sim, leader);
  return leader;
}

function expectProgress(sim: Simulation, hist: History, minOk: number): void {
  expect(hist.count("ok", "append"), `${tag(sim)}: acknowledged appends`).toBeGreaterThanOrEqual(minOk);
  expect(hist.count("ok", "get"), `${tag(sim)}: successful reads`).toBeGreaterThan(0);
}

describe("Figure 8 under churn", () => {
  itForSeeds("250 rounds of crashing and restarting random nodes while clients write", [51, 52, 53, 56], (seed) => {
    const sim = makeSim(seed, { clients: { count: 3, workload: "random", keys: 3, maxValueChars: 0 } });
    const hist = new History(sim);
    const rng = Rng.fromSeed(seed).fork("figure8-test");
    let crashes = 0;
    for (let round = 0; round < 250; round++) {
      // Mostly short steps, sometimes long enough for an election and some commits.
      advanceBy(sim, rng.chance(0.1) ? rng.int(ms(200), ms(1000)) : rng.int(ms(5), ms(60)));
      const leader = sim.leader();
      const up = upNodes(sim);
      if (leader !== null && rng.chance(0.5)) {
        sim.act({ type: "crash", proc: leader });
        crashes++;
      } else if (up.length > majority(sim) && rng.chance(0.3)) {
        sim.act({ type: "crash", proc: rng.pick(up) });
        crashes++;
      }
      const down = sim.nodeIds.filter((id) => sim.status(id) === "down");
      if (down.length > 0 && (upNodes(sim).length < majority(sim) || rng.chance(0.3))) {
        sim.act({ type: "restart", proc: rng.pick(down) });
      }
    }
    expect(crashes, `${tag(sim)}: crashes`).toBeGreaterThanOrEqual(50);
    const leader = finish(sim, sec(3));
    expectProgress(sim, hist, 20);
    expectHistoryConsistent(sim, hist, stateOf(sim, leader));
    expectNoViolations(sim);
  });

  itForSeeds("200 rounds of churn on an unreliable network", [54, 55], (seed) => {
    const sim = makeSim(seed, {
      network: { dropRate: 0.1, duplicateRate: 0.05, latencyMinMs: 5, latencyMaxMs: 60 },
      clients: { count: 3, workload: "random", keys: 3, maxValueChars: 0 },
    });
    const hist = new History(sim);
    const rng = Rng.fromSeed(seed).fork("figure8-unreliable-test");
    for (let round = 0; round < 200; round++) {
      advanceBy(sim, rng.chance(0.1) ? rng.int(ms(200), ms(1000)) : rng.int(ms(5), ms(60)));
      const leader = sim.leader();
      if (leader !== null && rng.chance(0.5)) sim.act({ type: "crash", proc: leader });
      const down = sim.nodeIds.filter((id) => sim.status(id) === "down");
      if (down.length > 0 && (upNodes(sim).length < majority(sim) || rng.chance(0.3))) {
        sim.act({ type: "restart", proc: rng.pick(down) });
      }
    }
    const leader = finish(sim, sec(3));
    expectProgress(sim, hist, 10);
    expectHistoryConsistent(sim, hist, stateOf(sim, leader));
    expectNoViolations(sim);
  });
});

describe("churn with concurrent clients and the random nemesis", () => {
  itForSeeds(
    "30 s of every fault, then quiet: acknowledged writes exactly once, reads consistent",
    [61, 62, 63, 64, 65, 66, 67, 68, 69, 70],
    (seed) => {
      const sim = makeSim(
        seed,
        { clients: { count: 5, workload: "random", keys: 4, maxValueChars: 0 } },
        { intervalMinUs: ms(50), intervalMaxUs: ms(600), faults: CONVERGING_FAULTS, quietAfterUs: sec(30), includeClients: true },
      );
      const hist = new History(sim);
      sim.advanceTo(sec(30));
      const okDuringFaults = hist.count("ok", "append");
      // The nemesis heals everything at its next tick after 30 s; clients keep working.
      sim.advanceTo(sec(40));
      const leader = finish(sim, sec(1));
      expect(okDuringFaults, `${tag(sim)}: appends acknowledged during the faults`).toBeGreaterThan(0);
      expect(hist.count("ok", "append"), `${tag(sim)}: appends acknowledged in the quiet period`).toBeGreaterThan(okDuringFaults);
      expectProgress(sim, hist, 50);
      expectHistoryConsistent(sim, hist, stateOf(sim, leader));
      expectNoViolations(sim);
    },
  );
});
