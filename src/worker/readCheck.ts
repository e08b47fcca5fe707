/**
 * "Check the reads": the key-value clients' history of the current branch up to the cursor,
 * checked for linearizability (src/core/lin), answered as plain data for the page.
 *
 * The app does not keep the history as it plays: it is rebuilt when asked, by replaying the
 * branch from the start in a scratch simulation (as the history export does), and dropped
 * once checked. So a check costs one replay's time and the history's memory (one record per
 * client operation, about 200 bytes each: some 2 MB for an hour with two clients) only while
 * it runs, and nothing at all otherwise. The search is bounded by READ_CHECK_STEPS per key:
 * past it the answer is "unknown", never a guess.
 */
import { checkLinearizability } from "../core/lin/check";
import { applyActionsTo } from "../core/replay/timeline";
import { HistoryRecorder, type HistoryOp } from "../core/scenario/history";
import type { TimedAction } from "../core/scenario/record";
import { buildSimulation } from "../core/scenario/runner";
import type { Scenario } from "../core/scenario/schema";
import type { ReadCheckResult } from "./readCheckTypes";
import { answerOf, KV_OPS, violationView } from "./readWitness";

/** The search's budget per key: past it, that key's answer is "unknown". */
export const READ_CHECK_STEPS = 200_000;

/** The clients' operations of a branch (its actions) from time zero up to `until`, replayed in a scratch simulation. */
export function branchHistory(scenario: Scenario, actions: readonly TimedAction[], until: number): HistoryOp[] {
  const recorder = new HistoryRecorder();
  const scratch = buildSimulation(scenario, { onTrace: (e) => recorder.observe(e) });
  applyActionsTo(scratch, actions, 0, until);
  return recorder.finish(scratch.seed).operations;
}

/** Checks the key-value operations of a history (operations still open count as unknown outcomes). */
export function checkReads(operations: readonly HistoryOp[], untilUs: number, maxSteps: number = READ_CHECK_STEPS): ReadCheckResult {
  const kv = operations.filter((o) => o.key !== null && KV_OPS.has(o.operation) && o.outcome !== "fail");
  const reads = kv.filter((o) => o.operation === "get" && answerOf(o) !== undefined).length;
  const writes = kv.length - kv.filter((o) => o.operation === "get").length;
  if (reads === 0) return { kind: "no-reads", untilUs, writes };
  const r = checkLinearizability(kv, maxSteps);
  const counts = { untilUs, reads, writes, keys: r.keys.length };
  const bad = r.keys.filter((k) => k.verdict === "violation");
  const first = bad[0];
  if (first?.stuck !== undefined) {
    const held = first.expected === undefined ? null : { value: first.expected.value, writer: first.expected.writer };
    return { kind: "violation", ...counts, violation: violationView(kv, first.stuck, held), badKeys: bad.map((k) => k.key) };
  }
  if (r.verdict === "unknown") {
    return { kind: "unknown", ...counts, maxSteps, undecided: r.keys.filter((k) => k.verdict === "unknown").map((k) => k.key) };
  }
  return { kind: "ok", ...counts };
}
