/**
 * Wing & Gong's search with Lowe's just-in-time linearization, memoized on
 * (operations linearized, register value) as Porcupine does, for one register.
 *
 * The calls and returns form one list in time order. Walking it from the front, a call's
 * operation is linearized now if the register allows it (and that (set, value) pair was not
 * tried before); it is then lifted out of the list and the walk restarts. Meeting a return
 * means that operation should already have been linearized: undo the last choice and try the
 * next one. Operations with an unknown outcome have no return, so they never force
 * backtracking and may stay unlinearized (they never took effect); among the candidates they
 * are tried last.
 */
import type { LinOp, Value } from "./register";

interface Entry {
  readonly call: boolean;
  readonly op: number;
  readonly time: number;
  match: Entry | null;
  prev: Entry | null;
  next: Entry | null;
}

export type KeySearch =
  | { readonly verdict: "ok" | "unknown"; readonly steps: number }
  | {
      readonly verdict: "violation";
      readonly steps: number;
      /** The longest linearizable order found, as indices into the key's operations. */
      readonly prefix: number[];
      /** The register's value after that prefix. */
      readonly value: Value;
      /** The operation that could not be placed after it (it returned before any order could take it). */
      readonly stuck: number;
    };

function entriesOf(ops: readonly LinOp[]): Entry {
  const list: Entry[] = [];
  ops.forEach((o, i) => {
    const call: Entry = { call: true, op: i, time: o.call, match: null, prev: null, next: null };
    list.push(call);
    if (Number.isFinite(o.ret)) {
      call.match = { call: false, op: i, time: o.ret, match: null, prev: null, next: null };
      list.push(call.match);
    }
  });
  // At equal times calls come first: operations that touch at an instant count as concurrent.
  list.sort((a, b) => a.time - b.time || Number(a.call === false) - Number(b.call === false) || a.op - b.op);
  const head: Entry = { call: false, op: -1, time: Number.NEGATIVE_INFINITY, match: null, prev: null, next: null };
  let last = head;
  for (const e of list) {
    last.next = e;
    e.prev = last;
    last = e;
  }
  return head;
}

function lift(e: Entry): void {
  for (const x of e.match === null ? [e] : [e, e.match]) {
    (x.prev as Entry).next = x.next;
    if (x.next !== null) x.next.prev = x.prev;
  }
}

function unlift(e: Entry): void {
  for (const x of e.match === null ? [e] : [e.match, e]) {
    (x.prev as Entry).next = x;
    if (x.next !== null) x.next.prev = x;
  }
}

/** Searches for a linearization of one register's operations, starting from `initial`, within `maxSteps`. */
export function searchRegister(ops: readonly LinOp[], initial: Value, maxSteps: number): KeySearch {
  const head = entriesOf(ops);
  const need = ops.filter((o) => Number.isFinite(o.ret)).length;
  const bits = new Uint32Array(Math.ceil(ops.length / 32) + 1);
  const flip = (i: number): void => {
    bits[i >> 5] = (bits[i >> 5] as number) ^ (1 << (i & 31));
  };
  const seen = new Set<string>();
  const stack: { entry: Entry; before: Value; unknownPass: boolean }[] = [];
  let done = 0;
  let value = initial;
  let entry = head.next;
  // The calls before the first return are the candidates: first those that returned, then (a
  // second pass) those with an unknown outcome, which are rarely needed and costly to try.
  let unknownPass = false;
  let steps = 0;
  let worst: { prefix: number[]; value: Value; stuck: number } | null = null;

  while (done < need) {
    if (++steps > maxSteps) return { verdict: "unknown", steps: maxSteps };
    if (entry?.call) {
      const e: Entry = entry;
      if ((e.match === null) !== unknownPass) {
        entry = e.next;
        continue;
      }
      const next = (ops[e.op] as LinOp).step(value);
      flip(e.op);
      const key = next === undefined ? "" : `${bits.join(",")}|${next === null ? "-" : `=${next}`}`;
      if (next !== undefined && !seen.has(key)) {
        seen.add(key);
        stack.push({ entry: e, before: value, unknownPass });
        value = next;
        lift(e);
        if (e.match !== null) done++;
        entry = head.next;
        unknownPass = false;
      } else {
        flip(e.op);
        entry = e.next;
      }
      continue;
    }
    if (!unknownPass) {
      unknownPass = true;
      entry = head.next;
      continue;
    }
    // A return (or the end): that operation should have been linearized by now.
    if (entry !== null && (worst === null || stack.length > worst.prefix.length)) {
      worst = { prefix: stack.map((f) => f.entry.op), value, stuck: entry.op };
    }
    const f = stack.pop();
    if (f === undefined) {
      const w = worst ?? { prefix: [], value: initial, stuck: 0 };
      return { verdict: "violation", steps, ...w };
    }
    value = f.before;
    flip(f.entry.op);
    unlift(f.entry);
    if (f.entry.match !== null) done--;
    entry = f.entry.next;
    unknownPass = f.unknownPass;
  }
  return { verdict: "ok", steps };
}
