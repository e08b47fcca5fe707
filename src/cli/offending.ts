/**
 * A small set of operations that is not linearizable on its own, cut from a key whose
 * history is not: what the CLI prints after a violation, so a reader sees the few
 * operations that cannot be ordered instead of hundreds.
 */
import { checkLinearizability, type KeyResult } from "../core/lin/check";
import { isWrite } from "../core/lin/register";
import type { HistoryOp } from "../core/scenario/history";

/** Each trial check's step budget: a trial that runs out counts as "not shown to violate". */
const TRIAL_STEPS = 100_000;
/** Keys with more operations than this are cut to the time before the stuck read only. */
const MAX_TRIALS = 400;

const answerOf = (op: HistoryOp): string | null => {
  const out = op.output as { value?: unknown } | null;
  return op.outcome === "ok" && out !== null && typeof out === "object" && typeof out.value === "string" ? out.value : null;
};

/**
 * Greedy shrinking: keep only operations called before the stuck one returned, then drop
 * each operation whose removal leaves the set still not linearizable. Reads and other
 * non-writes may always go; a write may go only if no answer left shows its value (removing
 * it would otherwise make a read of a value nobody wrote, a different violation).
 * Every candidate is checked again, so the result is never linearizable.
 */
export function smallestOffending(operations: readonly HistoryOp[], key: KeyResult, leaseEndsRecorded: boolean): HistoryOp[] {
  const stuckReturn = key.stuck?.returnUs ?? Number.POSITIVE_INFINITY;
  const violates = (ops: readonly HistoryOp[]) => checkLinearizability(ops, TRIAL_STEPS, { leaseEndsRecorded }).verdict === "violation";
  const onKey = operations.filter((op) => op.key === key.key && op.outcome !== "fail");
  const early = onKey.filter((op) => op.callUs <= stuckReturn);
  let kept = violates(early) ? early : onKey;
  let trials = 0;
  for (const pass of [false, true]) {
    for (const op of [...kept]) {
      if (trials++ >= MAX_TRIALS) return kept;
      if (isWrite(op) !== pass) continue;
      const rest = kept.filter((x) => x !== op);
      if (pass && op.value !== null && op.value !== "" && rest.some((x) => answerOf(x)?.includes(op.value as string))) continue;
      if (violates(rest)) kept = rest;
    }
  }
  return kept;
}
