/**
 * The space-time diagram's finished messages as they cross from the worker to the page:
 * packed in columns (typed arrays, handed over in postMessage's transfer list) instead of
 * one object per message, which the structured clone would copy field by field and the
 * page's thread would rebuild object by object. The page unpacks them once, when they
 * arrive. Pure and small: both the worker and the page import it.
 */
import type { DiagramMessage } from "./protocol";

/** Messages in columns: times and ids as numbers, names (processes, labels, reasons) as codes into `names`. */
export interface MessageColumns {
  /** id, sentAt, endAt per message. */
  readonly nums: Float64Array;
  /** from, to, label, reason per message: indexes into names (NO_NAME for a null reason, that is, delivered). */
  readonly codes: Uint16Array;
  readonly names: readonly string[];
}

/** The code of a missing reason (the message was delivered). */
export const NO_NAME = 0xffff;

/** How many messages the columns hold. */
export function columnsLength(p: MessageColumns): number {
  return p.nums.length / 3;
}

/** No messages. */
export function emptyColumns(): MessageColumns {
  return { nums: new Float64Array(0), codes: new Uint16Array(0), names: [] };
}

/** Packs messages into fresh columns (their buffers belong to no one else, so they may be transferred). */
export function packMessages(items: readonly DiagramMessage[]): MessageColumns {
  const nums = new Float64Array(items.length * 3);
  const codes = new Uint16Array(items.length * 4);
  const names: string[] = [];
  const index = new Map<string, number>();
  const code = (s: string | null): number => {
    if (s === null) return NO_NAME;
    let i = index.get(s);
    if (i === undefined) {
      i = names.length;
      if (i >= NO_NAME) throw new Error("packMessages: too many names");
      names.push(s);
      index.set(s, i);
    }
    return i;
  };
  items.forEach((m, k) => {
    // The outcome is kept as whether there is a reason: only dropped messages have one.
    if ((m.outcome === "dropped") !== (m.reason !== null)) throw new Error(`packMessages: message ${m.id} is ${m.outcome} with reason ${m.reason}`);
    nums[k * 3] = m.id;
    nums[k * 3 + 1] = m.sentAt;
    nums[k * 3 + 2] = m.endAt;
    codes[k * 4] = code(m.from);
    codes[k * 4 + 1] = code(m.to);
    codes[k * 4 + 2] = code(m.label);
    codes[k * 4 + 3] = code(m.reason);
  });
  return { nums, codes, names };
}

/** Appends the messages from..to (exclusive) of the columns to `out`, as objects. */
export function unpackInto(out: DiagramMessage[], p: MessageColumns, from = 0, to = columnsLength(p)): DiagramMessage[] {
  const names = p.names;
  const nums = p.nums;
  const codes = p.codes;
  for (let k = from; k < to; k++) {
    const r = codes[k * 4 + 3] as number;
    out.push({
      id: nums[k * 3] as number,
      from: names[codes[k * 4] as number] as string,
      to: names[codes[k * 4 + 1] as number] as string,
      sentAt: nums[k * 3 + 1] as number,
      endAt: nums[k * 3 + 2] as number,
      label: names[codes[k * 4 + 2] as number] as string,
      outcome: r === NO_NAME ? "delivered" : "dropped",
      reason: r === NO_NAME ? null : (names[r] as string),
    });
  }
  return out;
}

/** The messages in the columns, as objects, oldest first. */
export function unpackMessages(p: MessageColumns): DiagramMessage[] {
  return unpackInto([], p);
}

/** The buffers to hand over with a message that carries these columns (postMessage's transfer list). */
export function columnBuffers(p: MessageColumns): ArrayBuffer[] {
  const out: ArrayBuffer[] = [];
  for (const a of [p.nums, p.codes]) if (a.byteLength > 0 && a.buffer instanceof ArrayBuffer && !out.includes(a.buffer)) out.push(a.buffer);
  return out;
}
