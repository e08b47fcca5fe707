/**
 * Read and write figures of a run, from its history (history.ts): how many completed, how
 * many per second, and how long they took. A pure function, for the bench, the tests and
 * the worker's view (reads under the leader's lease or read leases against ReadIndex).
 */
import type { HistoryOp } from "./history";

export interface LatencyFigures {
  /** Completed (ok) operations. */
  readonly count: number;
  /** Completed per second of the span from the first call to the last return (0 without any). */
  readonly perSecond: number;
  /** Call to answer, µs: mean, median, 99th percentile, slowest (0 without any). */
  readonly meanUs: number;
  readonly p50Us: number;
  readonly p99Us: number;
  readonly maxUs: number;
}

export interface ReadWriteFigures {
  readonly reads: LatencyFigures;
  readonly writes: LatencyFigures;
}

const WRITES: ReadonlySet<string> = new Set(["put", "append", "delete", "cas"]);

function figures(ops: readonly HistoryOp[]): LatencyFigures {
  const done = ops.filter((o) => o.outcome === "ok" && o.returnUs !== null);
  if (done.length === 0) return { count: 0, perSecond: 0, meanUs: 0, p50Us: 0, p99Us: 0, maxUs: 0 };
  const lat = done.map((o) => (o.returnUs as number) - o.callUs).sort((a, b) => a - b);
  // Loops, not Math.min(...list): a long run's history has more operations than a call may take arguments.
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const o of done) {
    first = Math.min(first, o.callUs);
    last = Math.max(last, o.returnUs as number);
  }
  const at = (q: number): number => lat[Math.min(lat.length - 1, Math.floor(q * lat.length))] as number;
  return {
    count: done.length,
    perSecond: last > first ? (done.length * 1e6) / (last - first) : 0,
    meanUs: lat.reduce((a, b) => a + b, 0) / lat.length,
    p50Us: at(0.5),
    p99Us: at(0.99),
    maxUs: lat[lat.length - 1] as number,
  };
}

/** The key-value reads (get) and writes (put, append, delete, cas) of a history, called at or after `fromUs`. */
export function readWriteFigures(operations: readonly HistoryOp[], fromUs = 0): ReadWriteFigures {
  const ops = operations.filter((o) => o.callUs >= fromUs);
  return { reads: figures(ops.filter((o) => o.operation === "get")), writes: figures(ops.filter((o) => WRITES.has(o.operation))) };
}
