/**
 * Linearizability of the key-value clients' history (docs/history.md), key by key: each key
 * is an independent register (a history is linearizable exactly when each key's is), checked
 * with a bounded search. Pure and deterministic.
 */
import type { HistoryOp } from "../scenario/history";
import { isWrite, type LinOp, registersOf, type Value } from "./register";
import { searchRegister } from "./search";

export type Verdict = "ok" | "violation" | "unknown";

export interface KeyResult {
  readonly key: string;
  readonly verdict: Verdict;
  /** Operations checked on this key (fail outcomes and unknown reads left out). */
  readonly operations: number;
  readonly steps: number;
  /** For a violation: the longest order found in which every operation's answer fits. */
  readonly prefix?: HistoryOp[];
  /** For a violation: the operation that could not be placed after that prefix. */
  readonly stuck?: HistoryOp;
  /** For a violation: the value the key held after the prefix, and the write that left it (null: none did, the key was absent). */
  readonly expected?: { readonly value: Value; readonly writer: HistoryOp | null };
}

export interface LinResult {
  /** violation if any key has one; else unknown if any key's search ran out of steps; else ok. */
  readonly verdict: Verdict;
  readonly keys: KeyResult[];
  /** The step budget each key had. */
  readonly maxSteps: number;
}

export const DEFAULT_MAX_STEPS = 1_000_000;

/** The last operation of `order` that changed the register, i.e. wrote the value it held at the end. */
function lastWriter(ops: readonly LinOp[], order: readonly number[]): HistoryOp | null {
  const writes = order.map((i) => (ops[i] as LinOp).op).filter(isWrite);
  return writes[writes.length - 1] ?? null;
}

/** The session HistoryRecorder gives the lease service's own deletions (SYSTEM_SESSION there). */
const LEASE_SERVICE_SESSION = "system";

export interface LinOptions {
  /**
   * The history records the keys that leases' ends deleted (`delete`s in the `system` session,
   * as HistoryRecorder writes them). Default: true when any operation is in that session. When
   * false, each put attached to a lease brings an unknown delete instead (docs/history.md).
   */
  readonly leaseEndsRecorded?: boolean;
}

/** Checks every key of the history; `maxSteps` bounds each key's search (then its verdict is unknown). */
export function checkLinearizability(operations: readonly HistoryOp[], maxSteps: number = DEFAULT_MAX_STEPS, options: LinOptions = {}): LinResult {
  const keys: KeyResult[] = [];
  const recorded = options.leaseEndsRecorded ?? operations.some((op) => op.session === LEASE_SERVICE_SESSION);
  for (const [key, ops] of registersOf(operations, recorded)) {
    const r = searchRegister(ops, null, maxSteps);
    const base = { key, verdict: r.verdict, operations: ops.length, steps: r.steps };
    if (r.verdict !== "violation") {
      keys.push(base);
      continue;
    }
    keys.push({
      ...base,
      prefix: r.prefix.map((i) => (ops[i] as LinOp).op),
      stuck: (ops[r.stuck] as LinOp).op,
      expected: { value: r.value, writer: lastWriter(ops, r.prefix) },
    });
  }
  const verdict: Verdict = keys.some((k) => k.verdict === "violation")
    ? "violation"
    : keys.some((k) => k.verdict === "unknown")
      ? "unknown"
      : "ok";
  return { verdict, keys, maxSteps };
}

const seconds = (us: number): string => `${(us / 1e6).toFixed(3)} s`;
const shown = (v: unknown): string => (v === null || v === undefined ? "nothing (the key was absent)" : JSON.stringify(v));

/** One operation in plain words: who did what on which key, what came back, and when. */
export function describeOp(op: HistoryOp): string {
  const what = op.value === null ? `${op.operation} ${op.key}` : `${op.operation} ${op.key} ${JSON.stringify(op.value)}`;
  const out = op.output as { value?: unknown } | null;
  const answer = op.outcome === "ok" && out !== null && typeof out === "object" && "value" in out ? `, answered ${shown(out.value)}` : "";
  const when = op.returnUs === null ? `called at ${seconds(op.callUs)}, never answered` : `called at ${seconds(op.callUs)}, answered at ${seconds(op.returnUs)}`;
  return `${op.client} (session ${op.session}, #${op.seq}) ${what}${answer} (${when})`;
}

/** The result in plain words, one line per line of output. */
export function describeLinResult(r: LinResult): string[] {
  const lines: string[] = [];
  for (const k of r.keys) {
    if (k.verdict === "ok") continue;
    if (k.verdict === "unknown") {
      lines.push(`key ${k.key}: unknown (timed out after ${r.maxSteps} steps; ${k.operations} operations)`);
      continue;
    }
    lines.push(`key ${k.key}: NOT linearizable. No order of its ${k.operations} operations fits every answer.`);
    lines.push(`  the longest order found that fits (${k.prefix?.length ?? 0} operations) ends with:`);
    for (const op of (k.prefix ?? []).slice(-3)) lines.push(`    ${describeOp(op)}`);
    if (k.stuck !== undefined) lines.push(`  and then this one cannot be placed: ${describeOp(k.stuck)}`);
    if (k.expected !== undefined) {
      const by = k.expected.writer === null ? "no write before it" : `written by ${describeOp(k.expected.writer)}`;
      lines.push(`  at that point the key held ${shown(k.expected.value)} (${by})`);
    }
  }
  const ok = r.keys.filter((k) => k.verdict === "ok").length;
  lines.push(`linearizability: ${r.verdict === "unknown" ? `unknown (timed out after ${r.maxSteps} steps)` : r.verdict}; ${ok} of ${r.keys.length} key(s) linearizable`);
  return lines;
}
