/**
 * What a read that no order explains should have seen, in plain words: the write it missed
 * (computed from the history, not guessed), the operations around it to draw, and one
 * sentence for a student. Used by readCheck.ts; pure.
 */
import { isWrite } from "../core/lin/register";
import type { HistoryOp } from "../core/scenario/history";
import { formatInstant } from "../core/sim/time";
import { READ_CHECK_OPS_SHOWN, type ReadCheckOp, type ReadViolationView } from "./readCheckTypes";

const WRITES = new Set(["put", "append", "delete", "cas"]);
/** Writes that replace the whole value (an append adds to it). */
const OVERWRITES = new Set(["put", "delete", "cas"]);
export const KV_OPS = new Set(["get", ...WRITES]);

/** The key's value an operation answered (null: absent), or undefined when it has no answer. */
export function answerOf(op: HistoryOp): string | null | undefined {
  if (op.outcome !== "ok") return undefined;
  const out = op.output as { value?: unknown } | null;
  if (out === null || typeof out !== "object" || !("value" in out)) return undefined;
  return typeof out.value === "string" || out.value === null ? out.value : undefined;
}

/** Whether a value read (`seen`) shows the effect of write `w`. */
function reflects(seen: string | null, w: HistoryOp): boolean {
  switch (w.operation) {
    case "append": {
      if (seen === null || w.value === null) return false;
      // The workload's appends end in ";" ("c1.1:5;"): match whole pieces, so "c1.1:1;" is not found in "c1.1:11;".
      return w.value.endsWith(";") ? `;${seen}`.includes(`;${w.value}`) : seen.includes(w.value);
    }
    case "delete":
      return seen === null;
    default:
      return seen === w.value;
  }
}

/** A write that certainly took effect (answered ok, and not a refused put or a cas that did not swap). */
function tookEffect(w: HistoryOp): boolean {
  return WRITES.has(w.operation) && w.outcome === "ok" && isWrite(w) && w.returnUs !== null;
}

/**
 * The write `read` should have seen: of the writes to its key that had finished before it was
 * called, the latest one whose effect its answer does not show (and that no write it does show,
 * called after that one finished, overwrote). Null when there is none (the answer is wrong in
 * another way: a value nobody wrote, or an older value after a newer one was read).
 */
export function missedWrite(ops: readonly HistoryOp[], read: HistoryOp): HistoryOp | null {
  const seen = answerOf(read);
  if (seen === undefined || read.key === null) return null;
  const sameKey = ops.filter((o) => o !== read && o.key === read.key);
  const shownOverwrites = sameKey.filter((x) => OVERWRITES.has(x.operation) && x.outcome !== "fail" && isWrite(x) && reflects(seen, x));
  let best: HistoryOp | null = null;
  for (const w of sameKey) {
    if (!tookEffect(w) || (w.returnUs as number) >= read.callUs || reflects(seen, w)) continue;
    if (shownOverwrites.some((x) => x.callUs > (w.returnUs as number))) continue;
    if (best === null || (w.returnUs as number) > (best.returnUs as number)) best = w;
  }
  return best;
}

/** The write whose value `read` answered (the last append in it, or the put of it), or null. */
function seenWrite(ops: readonly HistoryOp[], read: HistoryOp): HistoryOp | null {
  const seen = answerOf(read);
  if (seen === undefined || seen === null) return null;
  const end = read.returnUs ?? Number.POSITIVE_INFINITY;
  let best: HistoryOp | null = null;
  for (const w of ops) {
    if (w === read || w.key !== read.key || !WRITES.has(w.operation) || w.outcome === "fail" || w.callUs > end || !reflects(seen, w)) continue;
    if (w.operation === "append" && !seen.endsWith(w.value ?? "")) continue;
    if (best === null || w.callUs > best.callUs) best = w;
  }
  return best;
}

/** A value in quotes, its end kept when it is long ("…c2.1:4;c1.1:7;"); "nothing" for an absent key. */
export function quoted(v: string | null, max = 24): string {
  if (v === null) return "nothing";
  return v.length <= max ? `'${v}'` : `'…${v.slice(v.length - max + 1)}'`;
}

/** The operation in a few plain words: "read x → 'a'", "append x 'c1:5;'". */
export function opLabel(op: HistoryOp): string {
  const key = op.key ?? "";
  switch (op.operation) {
    case "get":
      return op.outcome === "ok" ? `read ${key} → ${quoted(answerOf(op) ?? null, 16)}` : `read ${key} (no answer)`;
    case "append":
      return `append ${key} ${quoted(op.value, 16)}`;
    case "delete":
      return `delete ${key}`;
    case "cas":
      return `swap ${key} ${quoted(op.expect ?? null, 10)} → ${quoted(op.value, 10)}`;
    default:
      return `write ${key} ${quoted(op.value, 16)}`;
  }
}

/** What the write did, for the sentence: "c1's append of 'c1.1:5;'", "the write of 'b' by c1". */
function writeWords(w: HistoryOp): string {
  if (w.operation === "append") return `${w.client}'s append of ${quoted(w.value)}`;
  if (w.operation === "delete") return `${w.client}'s delete of ${w.key}`;
  return `the write of ${quoted(w.value)} by ${w.client}`;
}

/** What a store that behaves as one copy must return instead. */
function mustReturn(w: HistoryOp): string {
  if (w.operation === "append") return `a value that includes ${quoted(w.value)}`;
  if (w.operation === "delete") return "nothing (the key deleted) or something written later";
  return `${quoted(w.value)} or something written later`;
}

/** The violation in one sentence a student can follow. */
export function violationSentence(stuck: HistoryOp, missed: HistoryOp | null, held: { value: string | null; writer: HistoryOp | null } | null): string {
  const seen = answerOf(stuck) ?? null;
  const who = stuck.operation === "get" ? `${stuck.client}'s read of ${stuck.key}` : `${stuck.client}'s ${opLabel(stuck).split(" ")[0]} on ${stuck.key}`;
  const head = `${who} at ${formatInstant(stuck.callUs)} returned ${quoted(seen)}`;
  if (missed !== null && missed.returnUs !== null) {
    return `${head}, but ${writeWords(missed)} had already finished at ${formatInstant(missed.returnUs)}: a linearizable store must return ${mustReturn(missed)}.`;
  }
  const state =
    held === null ? "" : `: at that point the key held ${quoted(held.value)}${held.writer === null ? "" : ` (${writeWords(held.writer)})`}`;
  return `${head}, and no order of the operations on ${stuck.key} explains that answer${state}.`;
}

function toView(op: HistoryOp): ReadCheckOp {
  return {
    client: op.client,
    session: op.session,
    seq: op.seq,
    operation: op.operation,
    key: op.key ?? "",
    value: op.value,
    outcome: op.outcome === "info" ? "info" : "ok",
    answer: answerOf(op) ?? null,
    callUs: op.callUs,
    returnUs: op.outcome === "info" ? null : op.returnUs,
    label: opLabel(op),
  };
}

/**
 * The violation as the page draws it: the operations on the key around the stuck one (from
 * the earliest of it, the write it missed and the write it saw, to its return), at most
 * READ_CHECK_OPS_SHOWN of them, those three always among them.
 */
export function violationView(
  history: readonly HistoryOp[],
  stuck: HistoryOp,
  held: { value: string | null; writer: HistoryOp | null } | null,
): ReadViolationView {
  const key = stuck.key ?? "";
  const onKey = history.filter((o) => o.key === key && KV_OPS.has(o.operation) && o.outcome !== "fail");
  const missed = missedWrite(onKey, stuck);
  const saw = seenWrite(onKey, stuck);
  const must = [stuck, missed, saw].filter((o): o is HistoryOp => o !== null);
  const start = Math.min(...must.map((o) => o.callUs));
  const end = stuck.returnUs ?? stuck.callUs;
  const around = onKey
    .filter((o) => !must.includes(o) && o.callUs <= end && (o.returnUs ?? Number.POSITIVE_INFINITY) >= start)
    .sort((a, b) => Math.abs(a.callUs - stuck.callUs) - Math.abs(b.callUs - stuck.callUs))
    .slice(0, Math.max(0, READ_CHECK_OPS_SHOWN - must.length));
  const shown = [...must, ...around].sort((a, b) => a.callUs - b.callUs || a.client.localeCompare(b.client));
  return {
    key,
    ops: shown.map(toView),
    stuck: shown.indexOf(stuck),
    missed: missed === null ? null : shown.indexOf(missed),
    sentence: violationSentence(stuck, missed, held),
    onKey: onKey.length,
  };
}
