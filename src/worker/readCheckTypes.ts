/**
 * The answer to "Check the reads" (worker -> page, part of the protocol in protocol.ts):
 * plain, structured-clone-safe data.
 */

/** The page asks for the check of the current branch up to the cursor (a ToWorker message). */
export interface ReadCheckRequest {
  readonly type: "check-reads";
  readonly requestId: number;
}

/** The worker's answer (a FromWorker message). */
export interface ReadCheckAnswer {
  readonly type: "read-check";
  readonly requestId: number;
  readonly result: ReadCheckResult;
}

/** One key-value operation as the read check draws it. */
export interface ReadCheckOp {
  readonly client: string;
  readonly session: string;
  readonly seq: number;
  /** get, put, append, delete or cas. */
  readonly operation: string;
  readonly key: string;
  /** The value written (null for a get or a delete). */
  readonly value: string | null;
  /** ok: answered; info: no answer came (it may or may not have taken effect). */
  readonly outcome: "ok" | "info";
  /** What it answered: the key's value (null: the key was absent); null too when it has no answer. */
  readonly answer: string | null;
  readonly callUs: number;
  /** Null when no answer came (drawn open-ended). */
  readonly returnUs: number | null;
  /** In plain words, short: "read x → 'a'", "append x 'c1.1:5;'". */
  readonly label: string;
}

/** A read (or another operation) that no order of the key's operations can explain, and what it should have seen. */
export interface ReadViolationView {
  readonly key: string;
  /** The operations around it on that key, by call time (at most READ_CHECK_OPS_SHOWN). */
  readonly ops: readonly ReadCheckOp[];
  /** The operation that cannot be placed (an index into ops). */
  readonly stuck: number;
  /** The write it should have seen (an index into ops), or null when none can be named. */
  readonly missed: number | null;
  /** What went wrong, in one plain sentence. */
  readonly sentence: string;
  /** Operations on the key in all (ops holds the ones around the violation). */
  readonly onKey: number;
}

/** The answer to "Check the reads": plain data. */
export type ReadCheckResult =
  | { readonly kind: "no-reads"; readonly untilUs: number; readonly writes: number }
  | { readonly kind: "ok"; readonly untilUs: number; readonly reads: number; readonly writes: number; readonly keys: number }
  | {
      readonly kind: "unknown";
      readonly untilUs: number;
      readonly reads: number;
      readonly writes: number;
      readonly keys: number;
      readonly maxSteps: number;
      /** The keys the search could not decide within its budget. */
      readonly undecided: readonly string[];
    }
  | {
      readonly kind: "violation";
      readonly untilUs: number;
      readonly reads: number;
      readonly writes: number;
      readonly keys: number;
      readonly violation: ReadViolationView;
      /** Every key with a violation (the first is drawn). */
      readonly badKeys: readonly string[];
    }
  | { readonly kind: "error"; readonly untilUs: number; readonly message: string };

/** The read check draws at most this many operations around the violation. */
export const READ_CHECK_OPS_SHOWN = 14;

/** "Measure": the page asks for the run's read and write figures so far; with `compare`, also the same run with the other way of reading. */
export interface ReadFiguresRequest {
  readonly type: "measure-reads";
  readonly requestId: number;
  readonly compare: boolean;
  /** Instead: the same run with 0, 2 and 4 read-lease followers (as many as the cluster has), the trade-off of read leases. */
  readonly holders?: boolean;
}

/** How the leader confirms reads (the scenario's `cluster.reads`). */
export type ReadsMode = "read-index" | "leader-lease";

/** Call to answer, in µs, of the operations that completed (0 without any). */
export interface LatencyView {
  readonly count: number;
  readonly perSecond: number;
  readonly meanUs: number;
  readonly p99Us: number;
}

/** One column of the figures: a run with one way of reading. */
export interface ReadFiguresColumn {
  readonly mode: ReadsMode;
  readonly readLeaseFollowers: number;
  /** The run on screen (false: the same seed and actions replayed with the other mode). */
  readonly current: boolean;
  readonly reads: LatencyView;
  readonly writes: LatencyView;
  /** Answered reads (as counted in `reads`) that a follower answered under its read lease, or the leader under its lease; the rest went through a heartbeat round (ReadIndex). */
  readonly localReads: number;
  readonly leaderLeaseReads: number;
  /** Reads refused or never answered (a server that could not confirm it leads answers none: safe, not available). */
  readonly unansweredReads: number;
  /** Writes the leader held back for read-lease holders at least once. */
  readonly writeWaits: number;
}

export type ReadFiguresResult =
  | { readonly kind: "ok"; readonly untilUs: number; readonly columns: readonly ReadFiguresColumn[] }
  | { readonly kind: "error"; readonly untilUs: number; readonly message: string };

export interface ReadFiguresAnswer {
  readonly type: "read-figures";
  readonly requestId: number;
  readonly result: ReadFiguresResult;
}
