/**
 * Fast log repair (6.824 lab 3B "backup" in spirit): after a long partition the old
 * leader and one follower hold 50+ divergent, uncommitted entries while the majority
 * committed 50+ others. On heal every log converges to the majority's committed log,
 * and thanks to the conflict hint (Raft paper 5.3) the repair costs a few rejected
 * appends, not one per divergent entry.
 *
 * CheckQuorum is off here, as in the MIT lab: with it the cut-off leader would step
 * down after one election timeout and stop accepting writes, so the minority could not
 * build up a long divergent log. Pre-vote stays on.
 */
import { describe, expect } from "vitest";
import type { NodeId } from "../../src/core/raft/types";
import { ms, sec } from "../../src/core/sim/time";
import {
  agreedLeader,
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
  runUntil,
  stateOf,
  submitAppend,
  tag,
} from "./helpers";

const MINORITY_CLIENTS = 6;
const MAJORITY_CLIENTS = 2;
const WRITES_PER_CLIENT = 10;

describe("fast log repair after a long partition", () => {
  itForSeeds("50+ divergent entries on the old leader and a follower are replaced in a few round trips", [31, 32, 33, 34], (seed) => {
    const sim = makeSim(seed, {
      raft: { checkQuorum: false },
      // 5 attempts with a rotating target: every write reaches the cut-off leader once
      // (directly or by redirect) and is appended there once, then the client gives up
      // ("info") and moves on to its next write.
      clients: { count: MINORITY_CLIENTS + MAJORITY_CLIENTS, maxAttempts: 5 },
    });
    const hist = new History(sim);
    const minorityClients = sim.clientIds.slice(0, MINORITY_CLIENTS);
    const majorityClients = sim.clientIds.slice(MINORITY_CLIENTS);

    const old = awaitLeader(sim, sec(2));
    appendOk(sim, hist, "c1", "k", "base;");
    runUntil(sim, () => sim.nodeIds.every((id) => node(sim, id).commitIndex === node(sim, old).commitIndex), ms(200));
    const base = node(sim, old).commitIndex;
    const follower = sim.nodeIds.find((id) => id !== old) as NodeId;
    const minority = [old, follower];
    const majorityNodes = sim.nodeIds.filter((id) => !minority.includes(id));
    const oldTerm = node(sim, old).term;

    sim.act({
      type: "partition",
      groups: [
        [...minority, ...minorityClients],
        [...majorityNodes, ...majorityClients],
      ],
    });
    for (let i = 0; i < WRITES_PER_CLIENT; i++) {
      for (const c of minorityClients) submitAppend(sim, c, `m${i % 3}`, `${c}-lost-${i};`);
    }
    const majorityWrites: [string, string][] = [];
    for (let i = 0; i < 30; i++) {
      for (const c of majorityClients) {
        submitAppend(sim, c, `m${i % 3}`, `${c}-won-${i};`);
        majorityWrites.push([`m${i % 3}`, `${c}-won-${i};`]);
      }
    }
    const newLeader = awaitLeader(sim, sec(3), majorityNodes);

    // Both sides work until the minority clients have given up on all their writes
    // and the majority clients have had every write answered.
    const idle = (cs: readonly string[]): boolean => cs.every((c) => !sim.client(c).busy);
    expect(
      runUntil(sim, () => idle(minorityClients) && idle(majorityClients), sec(60)),
      `${tag(sim)}: clients still busy`,
    ).toBe(true);

    // A new majority leader (the current one crashes and restarts): it knows nothing of
    // the minority's logs and starts by probing them at its own last index, so the repair
    // must back up over the whole divergence.
    const termBefore = node(sim, newLeader).term;
    sim.act({ type: "crash", proc: newLeader });
    sim.act({ type: "restart", proc: newLeader });
    expect(
      runUntil(
        sim,
        () => agreedLeader(sim, majorityNodes) !== null && node(sim, agreedLeader(sim, majorityNodes) as NodeId).term > termBefore,
        sec(3),
      ),
      `${tag(sim)}: new leader in the majority after ${newLeader} restarted`,
    ).toBe(true);
    const majorityLeader = agreedLeader(sim, majorityNodes) as NodeId;
    runUntil(sim, () => majorityNodes.every((id) => node(sim, id).commitIndex === node(sim, majorityLeader).lastIndex), sec(1));

    const acked = majorityWrites.filter(([k, v]) => hist.outcome(k, v) === "ok").length;
    expect(acked, `${tag(sim)}: majority writes acknowledged`).toBeGreaterThanOrEqual(50);
    expect(node(sim, old).role, `${tag(sim)}: old leader still thinks it leads`).toBe("leader");
    expect(node(sim, old).term, `${tag(sim)}: old leader's term`).toBe(oldTerm);
    for (const id of minority) {
      expect(node(sim, id).commitIndex, `${tag(sim)}: minority ${id} committed nothing new`).toBe(base);
    }
    expect(hist.count("ok") - 1 - acked, `${tag(sim)}: minority writes acknowledged`).toBe(0);
    const majorityLog = node(sim, majorityLeader).log.map(entryKey);
    expect(node(sim, majorityLeader).commitIndex - base, `${tag(sim)}: entries the majority committed`).toBeGreaterThanOrEqual(50);
    const divergence = (id: NodeId): number => {
      const log = node(sim, id).log.map(entryKey);
      let common = 0;
      while (common < log.length && log[common] === majorityLog[common]) common++;
      return log.length - common;
    };
    for (const id of minority) {
      expect(divergence(id), `${tag(sim)}: divergent entries on ${id}`).toBeGreaterThanOrEqual(50);
    }
    const divergent = Math.min(...minority.map(divergence));

    // Heal and count the appends the minority rejects while being repaired: every
    // message, and the distinct probes (prevLogIndex values) the leader had to try.
    const rejections: Record<NodeId, number> = { [old]: 0, [follower]: 0 };
    const probes: Record<NodeId, Set<number>> = { [old]: new Set(), [follower]: new Set() };
    sim.onTrace((e) => {
      if (e.kind === "send" && e.msg.type === "AppendEntriesResp" && !e.msg.success && e.from in rejections) {
        rejections[e.from] = (rejections[e.from] ?? 0) + 1;
        probes[e.from]?.add(e.msg.rejectIndex);
      }
    });
    sim.act({ type: "heal" });
    const leader = awaitConverged(sim, sec(5));
    expectIdenticalLogs(sim, leader);
    const committed = node(sim, leader).log.map(entryKey);
    expect(committed.slice(0, majorityLog.length), `${tag(sim)}: the majority's log is kept`).toEqual(majorityLog);
    for (const e of node(sim, leader).log.slice(base)) {
      expect(e.term, `${tag(sim)}: entry ${e.index} of the cut-off term survived`).not.toBe(oldTerm);
    }
    for (const id of minority) {
      const tried = [...(probes[id] ?? [])].sort((a, b) => a - b);
      expect(
        tried.length,
        `${tag(sim)}: ${id} rejected probes at [${tried}] to repair ${divergent}+ divergent entries`,
      ).toBeLessThanOrEqual(3);
    }
    // The repair did have to back up (the case this test is about), but far less than one step per entry.
    const total = (rejections[old] ?? 0) + (rejections[follower] ?? 0);
    expect(total, `${tag(sim)}: rejected appends during the repair`).toBeGreaterThan(0);
    expect(total * 5, `${tag(sim)}: ${total} rejected appends for ${divergent}+ divergent entries`).toBeLessThan(divergent);
    expectHistoryConsistent(sim, hist, stateOf(sim, leader));
    expectNoViolations(sim);
  });
});
