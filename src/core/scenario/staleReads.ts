/**
 * A minimal real-time check of reads against acknowledged appends, per key: a read that
 * was called after an append to its key was acknowledged must see that append, unless a
 * write that replaces the whole value (a put, a delete, a cas) may have come in between. Not
 * a linearizability checker (docs/history.md exports the history for those): it only finds
 * stale reads, which is what a leader answering reads without confirming its leadership
 * (ReadIndex skipped) produces.
 *
 * Sound for the random workload: its appends are of values unique per client and sequence
 * number ("c1.1:5;"), so a value holds an append's text only if that append is in it. Its
 * puts (a client that saw a key's value reach `maxValueChars` writes a fresh value) start
 * the value over, so a read may miss an append A only when some put P may have taken effect
 * after A and before the read R: P's call before R's return, and P's return after A's call
 * (or P's outcome unknown). Missing A with no such P is reported; a read that misses A
 * because of P is never reported, so nothing is reported that a linearizable run can do.
 */
import type { History, HistoryOp } from "./history";

export interface StaleRead {
  readonly key: string;
  readonly client: string;
  /** The read's call time and the acknowledged append it missed (virtual µs). */
  readonly readCallUs: number;
  readonly missed: string;
  readonly appendReturnUs: number;
  readonly value: string | null;
}

interface Append {
  readonly value: string;
  readonly callUs: number;
  readonly returnUs: number;
}

/** A write that may have replaced the whole value: its call, and its return (+∞ when unknown). */
interface Overwrite {
  readonly callUs: number;
  readonly returnUs: number;
}

const OVERWRITES = new Set(["put", "delete", "cas"]);

function push<T>(m: Map<string, T[]>, key: string, x: T): void {
  const list = m.get(key);
  if (list === undefined) m.set(key, [x]);
  else list.push(x);
}

/** Could a write in `over` have taken effect after append `a` and before a read that returned at `readReturnUs`? */
function overwrittenBetween(over: readonly Overwrite[] | undefined, a: Append, readReturnUs: number): boolean {
  if (over === undefined) return false;
  for (const w of over) if (w.callUs < readReturnUs && w.returnUs > a.callUs) return true;
  return false;
}

function gathered(h: History): { appends: Map<string, Append[]>; overwrites: Map<string, Overwrite[]> } {
  const appends = new Map<string, Append[]>();
  const overwrites = new Map<string, Overwrite[]>();
  for (const op of h.operations) {
    if (op.key === null) continue;
    if (op.operation === "append" && op.outcome === "ok" && op.value !== null && op.returnUs !== null) {
      push(appends, op.key, { value: op.value, callUs: op.callUs, returnUs: op.returnUs });
    } else if (OVERWRITES.has(op.operation) && op.outcome !== "fail") {
      push(overwrites, op.key, { callUs: op.callUs, returnUs: op.returnUs ?? Number.POSITIVE_INFINITY });
    }
  }
  return { appends, overwrites };
}

function readValue(op: HistoryOp): string | null {
  const output = op.output as { value?: string | null } | null;
  return output?.value ?? null;
}

/** Every ok read that misses an append acknowledged before the read was called, with no put (or delete, cas) that may have come in between. */
export function staleReads(h: History): StaleRead[] {
  const { appends, overwrites } = gathered(h);
  const out: StaleRead[] = [];
  for (const op of h.operations) {
    if (op.operation !== "get" || op.outcome !== "ok" || op.key === null || op.returnUs === null) continue;
    const value = readValue(op);
    const parts = new Set((value ?? "").split(";").filter((p) => p !== ""));
    const over = overwrites.get(op.key);
    for (const a of appends.get(op.key) ?? []) {
      if (a.returnUs >= op.callUs) continue;
      if (!parts.has(a.value.replace(/;$/, "")) && !overwrittenBetween(over, a, op.returnUs)) {
        out.push({ key: op.key, client: op.client, readCallUs: op.callUs, missed: a.value, appendReturnUs: a.returnUs, value });
        break;
      }
    }
  }
  return out;
}
