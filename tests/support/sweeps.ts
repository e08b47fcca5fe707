import { join } from "node:path";
import { checkLinearizability, describeLinResult } from "../../src/core/lin/check";
import type { HistoryOp } from "../../src/core/scenario/history";
import type { RunResult } from "../../src/core/scenario/runner";

/** The sweep tests' scenarios, shipped as files so a failing seed can be rerun from the CLI. */
export const sweeps = join(import.meta.dirname, "../../scenarios/sweeps");

/** The command that reruns exactly the run a sweep test made for `seed`, with its history checked. */
export function reproduce(file: string, seed: number): string {
  return `npm run sim -- --scenario scenarios/sweeps/${file} --seed ${seed} --check linearizability --check-steps ${SWEEP_LIN_STEPS}`;
}

/**
 * The step budget of the sweeps' linearizability check, per key. A key that needs more is
 * "unknown": counted and printed, not a failure. Small, to keep the unit suite fast; the
 * random workload's keys need a few hundred steps.
 */
export const SWEEP_LIN_STEPS = 20_000;

/** Linearizability as a standing invariant of a sweep: every run's history is checked. */
export class LinSweep {
  checked = 0;
  readonly unknown: string[] = [];
  readonly violations: string[] = [];
  /** Reads that completed, over all runs (a sweep whose histories have none checks little). */
  reads = 0;

  constructor(private readonly label: string) {}

  /** Checks one run's history (run it with `history: true`); `again` is the command that reproduces it. */
  check(r: RunResult, again: string): void {
    const ops = r.history?.operations;
    if (ops === undefined) throw new Error(`${this.label}: seed ${r.seed} was run without its history`);
    this.checkHistory(r.seed, ops, again);
  }

  checkHistory(seed: number, ops: readonly HistoryOp[], again: string): void {
    this.checked++;
    this.reads += ops.filter((o) => o.operation === "get" && o.outcome === "ok").length;
    const lin = checkLinearizability(ops, SWEEP_LIN_STEPS, { leaseEndsRecorded: true });
    if (lin.verdict === "violation") this.violations.push(`seed ${seed}: not linearizable (${again})\n${describeLinResult(lin).join("\n")}`);
    else if (lin.verdict === "unknown") this.unknown.push(`seed ${seed}: ${lin.keys.filter((k) => k.verdict === "unknown").map((k) => k.key).join(", ")}`);
  }

  /** Prints the tally (how many runs were checked, how many were unknown and which). */
  report(): void {
    const unknown = this.unknown.length > 0 ? `: ${this.unknown.join("; ")}` : "";
    console.log(
      `${this.label}: linearizability checked on ${this.checked} run(s) (${this.reads} reads), ${this.violations.length} violation(s), ${this.unknown.length} unknown (out of ${SWEEP_LIN_STEPS} steps)${unknown}`,
    );
  }
}
