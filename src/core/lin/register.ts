/**
 * The key-value history as registers: one register per key, each operation turned into
 * a step on that register's value (null when the key is absent).
 *
 * Only key-value operations are checked (put, append, delete, cas, get); lease operations
 * and storage writes are not registers and are left out. Outcomes:
 * - `ok`: it took effect once, between its call and its return, and its answer must match;
 * - `fail`: it certainly had no effect, so it is dropped;
 * - `info`: unknown. Its return time is +∞: a write may take effect any time after its call,
 *   or never (which is the same as taking effect after everything else); an `info` read is
 *   dropped, since nothing is known of what it read.
 *
 * `cas` with its `expect` recorded swaps when the value is the expected one. In a history
 * without `expect` (files written before it was recorded) a swap's precondition cannot be
 * checked: an `ok` cas that applied is a write of its value, one that did not apply reads its
 * answer's value, and an `info` cas has an unknown effect (it set its value, or did nothing).
 *
 * A put with a `lease` attaches the key to the lease, which deletes the key when it ends: no
 * client operation does that, so each such put brings an unknown "lease-end" delete that may
 * take effect any time after the put's call, or never (generous: it may also be placed
 * before the put, or let a key vanish whose lease still runs). Histories recorded since the
 * lease service's deletions are in them (a `delete` in the `system` session at the instant a
 * lease's end was applied) need none of that: with `leaseEndsRecorded` the recorded deletes
 * are checked like any other, and no unknown delete is added.
 */
import type { HistoryOp } from "../scenario/history";

export type Value = string | null;

export interface LinOp {
  /** The operation as recorded. */
  readonly op: HistoryOp;
  readonly call: number;
  /** +∞ when the outcome is unknown. */
  readonly ret: number;
  /** The register's value after this operation from `v`; undefined when its answer rules `v` out. */
  readonly step: (v: Value) => Value | undefined;
}

const KV_OPERATIONS = new Set(["put", "append", "delete", "cas", "get"]);

/** The answer's value, or undefined when the answer has none. */
function answered(op: HistoryOp): Value | undefined {
  const out = op.output as { value?: unknown } | null;
  if (out === null || typeof out !== "object" || !("value" in out)) return undefined;
  return typeof out.value === "string" || out.value === null ? out.value : undefined;
}

/** A step that reads `seen` and changes nothing. */
const reads =
  (seen: Value | undefined) =>
  (v: Value): Value | undefined =>
    seen === undefined || seen === v ? v : undefined;

function stepOf(op: HistoryOp): ((v: Value) => Value | undefined) | null {
  const known = op.outcome === "ok";
  const out = (op.output ?? {}) as { error?: unknown; applied?: unknown };
  const value = op.value;
  switch (op.operation) {
    case "get":
      return known ? reads(answered(op)) : null;
    case "put":
      // A put refused (e.g. its lease was not held) had no effect and answered the current value.
      if (known && out.error !== undefined) return reads(answered(op));
      return () => value;
    case "delete":
      return () => null;
    case "append": {
      const seen = known ? answered(op) : undefined;
      return (v) => {
        const next = (v ?? "") + (value ?? "");
        return seen === undefined || seen === next ? next : undefined;
      };
    }
    case "cas": {
      const expect = op.expect;
      if (expect === undefined) return !known || out.applied === true ? () => value : reads(answered(op));
      if (!known) return (v) => (v === expect ? value : v);
      const seen = answered(op);
      return out.applied === true
        ? (v) => (v === expect ? value : undefined)
        : (v) => (v !== expect && (seen === undefined || seen === v) ? v : undefined);
    }
    default:
      return null;
  }
}

/** Whether the operation may change the register (a refused put or a cas that did not swap only reads it). */
export function isWrite(op: HistoryOp): boolean {
  if (op.operation === "get") return false;
  const out = (op.output ?? {}) as { error?: unknown; applied?: unknown };
  return !(op.outcome === "ok" && (out.error !== undefined || out.applied === false));
}

/** The history's key-value operations, split by key (keys in sorted order). */
export function registersOf(operations: readonly HistoryOp[], leaseEndsRecorded = false): Map<string, LinOp[]> {
  const byKey = new Map<string, LinOp[]>();
  for (const op of operations) {
    if (op.key === null || !KV_OPERATIONS.has(op.operation) || op.outcome === "fail") continue;
    const step = stepOf(op);
    if (step === null) continue;
    const ret = op.outcome === "info" || op.returnUs === null ? Number.POSITIVE_INFINITY : op.returnUs;
    const list = byKey.get(op.key) ?? [];
    list.push({ op, call: op.callUs, ret, step });
    if (!leaseEndsRecorded && op.operation === "put" && op.lease !== undefined && isWrite(op)) {
      const end: HistoryOp = { ...op, client: `lease ${op.lease}`, operation: "lease-end", value: null, outcome: "info", output: null, returnUs: null };
      list.push({ op: end, call: op.callUs, ret: Number.POSITIVE_INFINITY, step: () => null });
    }
    byKey.set(op.key, list);
  }
  for (const [key, ops] of byKey) byKey.set(key, withoutUnseenAppends(ops));
  return new Map([...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * On a key that only sees appends and reads, the value only grows, so an unknown append that
 * took effect shows in every answer after it. One whose text is in no answer had no effect
 * anyone saw: it is dropped (as if it never took effect, which is always allowed), which
 * spares the search from trying it everywhere. The clients' random workload is such a key.
 */
function withoutUnseenAppends(ops: LinOp[]): LinOp[] {
  if (!ops.every((o) => o.op.operation === "append" || o.op.operation === "get")) return ops;
  const answers = ops.flatMap((o) => (o.op.outcome === "ok" ? [answered(o.op) ?? ""] : []));
  return ops.filter((o) => o.op.outcome !== "info" || o.op.value === null || o.op.value === "" || answers.some((a) => a.includes(o.op.value as string)));
}
