/**
 * "Measure" in the Reads panel: reads per second, read and write latency, and how many reads
 * were answered under a lease, for the current branch up to the cursor. Computed as "Check the
 * reads" is (readCheck.ts): on demand, by replaying the branch in a scratch simulation, so
 * nothing is kept while the run plays. With `compare`, the same scenario and actions are
 * replayed once more with the other way of reading (ReadIndex <-> the leader's lease), up to
 * the same instant, for the side-by-side columns.
 */
import { applyActionsTo } from "../core/replay/timeline";
import { HistoryRecorder } from "../core/scenario/history";
import { readWriteFigures } from "../core/scenario/readStats";
import type { TimedAction } from "../core/scenario/record";
import { buildSimulation, scenarioConfig } from "../core/scenario/runner";
import type { Scenario } from "../core/scenario/schema";
import type { LatencyView, ReadFiguresColumn, ReadsMode } from "./readCheckTypes";

/** The other way of reading. */
export function otherMode(mode: ReadsMode): ReadsMode {
  return mode === "read-index" ? "leader-lease" : "read-index";
}

/** The scenario with its reads done the other way (and without its expectations, which were written for its own mode). */
export function withReads(scenario: Scenario, mode: ReadsMode): Scenario {
  return { ...scenario, cluster: { ...scenario.cluster, reads: mode }, expect: [] };
}

/** The figures of one replay of `scenario` with `actions`, from time zero up to `until`. */
export function measureRun(scenario: Scenario, actions: readonly TimedAction[], until: number, current: boolean): ReadFiguresColumn {
  const recorder = new HistoryRecorder();
  // The reads a lease answered, by client and request: counted once the client has the answer (as the history counts them).
  const byLease = new Map<string, "local" | "leader-lease">();
  const waited = new Set<number>();
  const scratch = buildSimulation(scenario, {
    onTrace: (e) => {
      recorder.observe(e);
      if (e.kind === "lease-read") byLease.set(`${e.client}#${e.seq}`, e.via);
      else if (e.kind === "write-wait" && e.waitingOn.length > 0) waited.add(e.index);
    },
  });
  applyActionsTo(scratch, actions, 0, until);
  const ops = recorder.finish(scratch.seed).operations;
  const answered = ops.filter((o) => o.operation === "get" && o.outcome === "ok").map((o) => byLease.get(`${o.client}#${o.seq}`));
  const localReads = answered.filter((v) => v === "local").length;
  const leaderLeaseReads = answered.filter((v) => v === "leader-lease").length;
  const f = readWriteFigures(ops);
  const c = scenarioConfig(scenario);
  const view = (x: typeof f.reads): LatencyView => ({ count: x.count, perSecond: x.perSecond, meanUs: x.meanUs, p99Us: x.p99Us });
  return {
    mode: c.raft.reads,
    readLeaseFollowers: c.raft.readLeaseFollowers,
    current,
    reads: view(f.reads),
    writes: view(f.writes),
    localReads,
    unansweredReads: ops.filter((o) => o.operation === "get" && o.outcome !== "ok").length,
    leaderLeaseReads,
    writeWaits: waited.size,
  };
}

/** The scenario with this many read-lease followers (and without its expectations). */
export function withHolders(scenario: Scenario, followers: number): Scenario {
  return { ...scenario, cluster: { ...scenario.cluster, readLeaseFollowers: followers }, expect: [] };
}

/** The same run with 0, 2 and 4 read-lease followers (at most the cluster's followers), the current count marked. */
export function measureHolders(scenario: Scenario, actions: readonly TimedAction[], until: number): ReadFiguresColumn[] {
  const c = scenarioConfig(scenario);
  const counts = [...new Set([0, 2, 4].map((k) => Math.min(k, c.nodes - 1)))];
  return counts.map((k) =>
    k === c.raft.readLeaseFollowers ? measureRun(scenario, actions, until, true) : measureRun(withHolders(scenario, k), actions, until, false),
  );
}

/** The current run's column, and with `compare` the other mode's (same seed and actions). */
export function measureReads(scenario: Scenario, actions: readonly TimedAction[], until: number, compare: boolean): ReadFiguresColumn[] {
  const here = measureRun(scenario, actions, until, true);
  if (!compare) return [here];
  return [here, measureRun(withReads(scenario, otherMode(here.mode)), actions, until, false)];
}
