/**
 * A minimal real-time check of reads against acknowledged appends, per key: a read that
 * was called after an append to its key was acknowledged must see that append. Not a
 * linearizability checker (docs/history.md exports the history for those): it only finds
 * stale reads, which is what a leader answering reads without confirming its leadership
 * (ReadIndex skipped) produces. Sound for the random workload: its writes are appends of
 * values unique per client and sequence number ("c1:5;"), and nothing deletes, so a value
 * only ever grows and an acknowledged append stays in it for good.
 */
import type { History } from "./history";

export interface StaleRead {
  readonly key: string;
  readonly client: string;
  /** The read's call time and the acknowledged append it missed (virtual µs). */
  readonly readCallUs: number;
  readonly missed: string;
  readonly appendReturnUs: number;
  readonly value: string | null;
}

/** Every ok read that misses an append acknowledged before the read was called. */
export function staleReads(h: History): StaleRead[] {
  const appends = new Map<string, { value: string; returnUs: number }[]>();
  for (const op of h.operations) {
    if (op.operation !== "append" || op.outcome !== "ok" || op.key === null || op.value === null || op.returnUs === null) continue;
    let list = appends.get(op.key);
    if (list === undefined) {
      list = [];
      appends.set(op.key, list);
    }
    list.push({ value: op.value, returnUs: op.returnUs });
  }
  const out: StaleRead[] = [];
  for (const op of h.operations) {
    if (op.operation !== "get" || op.outcome !== "ok" || op.key === null) continue;
    const output = op.output as { value?: string | null } | null;
    const value = output?.value ?? null;
    const parts = new Set((value ?? "").split(";").filter((p) => p !== ""));
    for (const a of appends.get(op.key) ?? []) {
      if (a.returnUs >= op.callUs) continue;
      if (!parts.has(a.value.replace(/;$/, ""))) {
        out.push({ key: op.key, client: op.client, readCallUs: op.callUs, missed: a.value, appendReturnUs: a.returnUs, value });
        break;
      }
    }
  }
  return out;
}
