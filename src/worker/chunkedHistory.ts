/**
 * A bounded history (the newest `limit` items of a list that only grows) kept as immutable
 * chunks that saved copies share: a time-travel snapshot of the journal then costs the
 * items added since the one before it, not its whole history. Whole chunks are dropped from
 * the front once the rest holds `limit` items. A chunk may be packed (Packer) to hold its
 * items in less memory than their objects; the open tail stays as objects.
 */
import { type MessageColumns, NO_NAME, packMessages, unpackInto, unpackMessages } from "./messageColumns";
import type { DiagramMessage } from "./protocol";
import type { SharedPart } from "../core/replay/timeline";

export interface Packer<T, P> {
  pack(items: readonly T[]): P;
  unpack(packed: P): T[];
}

interface Chunk<P> extends SharedPart {
  readonly packed: P;
  readonly length: number;
}

/** A saved history: never changed afterwards. */
export interface ChunkedHistoryState<T, P> {
  readonly chunks: readonly Chunk<P>[];
  readonly tail: readonly T[];
}

export const CHUNK_ITEMS = 256;
/** An array slot, and what an array or a chunk record costs besides its slots. */
const SLOT_BYTES = 8;
const RECORD_BYTES = 64;

export class ChunkedHistory<T, P = readonly T[]> {
  private chunks: Chunk<P>[] = [];
  private tail: T[] = [];
  /** Items in the chunks. */
  private inChunks = 0;

  /** @param packedItemBytes what an item holds once in a chunk (counted once, by the chunk, however many copies share it) */
  constructor(
    private readonly limit: number,
    private readonly packer: Packer<T, P>,
    private readonly packedItemBytes: number,
  ) {}

  get length(): number {
    return this.inChunks + this.tail.length;
  }

  push(item: T): void {
    this.tail.push(item);
    if (this.tail.length >= CHUNK_ITEMS) {
      const items = this.tail;
      this.chunks.push({ packed: this.packer.pack(items), length: items.length, bytes: RECORD_BYTES + items.length * this.packedItemBytes });
      this.inChunks += items.length;
      this.tail = [];
    }
    for (;;) {
      const first = this.chunks[0];
      if (first === undefined || this.length - first.length < this.limit) break;
      this.chunks.shift();
      this.inChunks -= first.length;
    }
  }

  /** The newest `n` items (at most `limit`), oldest first. */
  newest(n = this.limit): T[] {
    const want = Math.min(n, this.limit, this.length);
    const out: T[] = [];
    let skip = this.length - want;
    for (const c of this.chunks) {
      if (skip >= c.length) {
        skip -= c.length;
        continue;
      }
      const items = this.packer.unpack(c.packed);
      for (let i = skip; i < items.length; i++) out.push(items[i] as T);
      skip = 0;
    }
    for (let i = skip; i < this.tail.length; i++) out.push(this.tail[i] as T);
    return out;
  }

  save(): ChunkedHistoryState<T, P> {
    return { chunks: this.chunks.slice(), tail: this.tail.slice() };
  }

  load(s: ChunkedHistoryState<T, P>): void {
    this.chunks = s.chunks.slice();
    this.tail = s.tail.slice();
    this.inChunks = 0;
    for (const c of this.chunks) this.inChunks += c.length;
  }

  /**
   * What a saved copy holds of its own (its lists: the tail's items are the objects the next
   * copies and then a chunk hold too, counted once there), and the chunks it shares.
   */
  savedBytes(s: ChunkedHistoryState<T, P>): { own: number; shared: readonly SharedPart[] } {
    return { own: 2 * RECORD_BYTES + s.tail.length * SLOT_BYTES + s.chunks.length * SLOT_BYTES, shared: s.chunks };
  }
}

/** Items kept as they are (a chunk is a frozen array of them). */
export function plainPacker<T>(): Packer<T, readonly T[]> {
  return { pack: (items) => items.slice(), unpack: (p) => p as T[] };
}

/** Diagram messages packed in columns (messageColumns.ts: the same form crosses to the page). */
export type PackedMessages = MessageColumns;

/** About what a packed message holds: 3 numbers and 4 codes (names are a handful per chunk). */
export const PACKED_MESSAGE_BYTES = 3 * 8 + 4 * 2 + 2;

export const messagePacker: Packer<DiagramMessage, PackedMessages> = { pack: packMessages, unpack: unpackMessages };

/** A saved message history: never changed afterwards. */
export interface MessageHistoryState {
  readonly chunks: readonly Chunk<PackedMessages>[];
  /** The open chunk's messages, packed as a chunk is. */
  readonly tail: PackedMessages;
}

/**
 * The diagram's messages as a ChunkedHistory keeps them, but written straight into columns:
 * the open chunk is a PackedMessages being filled (no object per message), and it becomes a
 * shared chunk as it is once full. newest() gives them back as DiagramMessage objects.
 */
export class MessageHistory {
  private chunks: Chunk<PackedMessages>[] = [];
  private inChunks = 0;
  private nums = new Float64Array(CHUNK_ITEMS * 3);
  private codes = new Uint16Array(CHUNK_ITEMS * 4);
  private names: string[] = [];
  private index = new Map<string, number>();
  private count = 0;

  constructor(private readonly limit: number) {}

  get length(): number {
    return this.inChunks + this.count;
  }

  /** A message that ended: delivered (reason null) or dropped (with the reason in words). */
  push(id: number, from: string, to: string, sentAt: number, endAt: number, label: string, reason: string | null): void {
    const k = this.count;
    this.nums[k * 3] = id;
    this.nums[k * 3 + 1] = sentAt;
    this.nums[k * 3 + 2] = endAt;
    this.codes[k * 4] = this.code(from);
    this.codes[k * 4 + 1] = this.code(to);
    this.codes[k * 4 + 2] = this.code(label);
    this.codes[k * 4 + 3] = reason === null ? NO_NAME : this.code(reason);
    this.count = k + 1;
    if (this.count === CHUNK_ITEMS) {
      this.chunks.push({ packed: { nums: this.nums, codes: this.codes, names: this.names }, length: CHUNK_ITEMS, bytes: RECORD_BYTES + CHUNK_ITEMS * PACKED_MESSAGE_BYTES });
      this.inChunks += CHUNK_ITEMS;
      this.nums = new Float64Array(CHUNK_ITEMS * 3);
      this.codes = new Uint16Array(CHUNK_ITEMS * 4);
      this.names = [];
      this.index = new Map();
      this.count = 0;
    }
    for (;;) {
      const first = this.chunks[0];
      if (first === undefined || this.length - first.length < this.limit) break;
      this.chunks.shift();
      this.inChunks -= first.length;
    }
  }

  private code(s: string): number {
    let i = this.index.get(s);
    if (i === undefined) {
      i = this.names.length;
      if (i >= NO_NAME) throw new Error("MessageHistory: too many names in one chunk");
      this.names.push(s);
      this.index.set(s, i);
    }
    return i;
  }

  /** The newest `n` messages (at most `limit`), oldest first. */
  newest(n = this.limit): DiagramMessage[] {
    const want = Math.min(n, this.limit, this.length);
    const out: DiagramMessage[] = [];
    let skip = this.length - want;
    for (const c of this.chunks) {
      if (skip >= c.length) {
        skip -= c.length;
        continue;
      }
      unpackInto(out, c.packed, skip, c.length);
      skip = 0;
    }
    unpackInto(out, this.openChunk(), skip, this.count);
    return out;
  }

  /**
   * The newest `n` messages (at most `limit`), oldest first, in fresh columns (what a view
   * carries to the page): copied column by column from the chunks, with no object per message.
   */
  newestColumns(n = this.limit): PackedMessages {
    const want = Math.min(n, this.limit, this.length);
    const out = freshColumns(want);
    // Most often (a view's new messages) they are all in the open chunk: its columns, copied as they are.
    if (want <= this.count) {
      const from = this.count - want;
      out.nums.set(this.nums.subarray(from * 3, this.count * 3));
      out.codes.set(this.codes.subarray(from * 4, this.count * 4));
      return { nums: out.nums, codes: out.codes, names: this.names.slice() };
    }
    const index = new Map<string, number>();
    let at = 0;
    let skip = this.length - want;
    for (const c of this.chunks) {
      if (skip >= c.length) {
        skip -= c.length;
        continue;
      }
      at = copyColumns(out, index, at, c.packed, skip, c.length);
      skip = 0;
    }
    copyColumns(out, index, at, this.openChunk(), skip, this.count);
    return out;
  }

  private openChunk(): PackedMessages {
    return { nums: this.nums, codes: this.codes, names: this.names };
  }

  save(): MessageHistoryState {
    const k = this.count;
    return { chunks: this.chunks.slice(), tail: { nums: this.nums.slice(0, k * 3), codes: this.codes.slice(0, k * 4), names: this.names.slice() } };
  }

  load(s: MessageHistoryState): void {
    this.chunks = s.chunks.slice();
    this.inChunks = 0;
    for (const c of this.chunks) this.inChunks += c.length;
    this.nums = new Float64Array(CHUNK_ITEMS * 3);
    this.nums.set(s.tail.nums);
    this.codes = new Uint16Array(CHUNK_ITEMS * 4);
    this.codes.set(s.tail.codes);
    this.names = s.tail.names.slice();
    this.index = new Map(this.names.map((name, i) => [name, i]));
    this.count = s.tail.nums.length / 3;
  }

  /** What a saved copy holds of its own (its open chunk's columns and the list of chunks), and the chunks it shares. */
  savedBytes(s: MessageHistoryState): { own: number; shared: readonly SharedPart[] } {
    return { own: 2 * RECORD_BYTES + (s.tail.nums.length / 3) * PACKED_MESSAGE_BYTES + s.chunks.length * SLOT_BYTES, shared: s.chunks };
  }
}

/**
 * Columns for n messages in one buffer (one allocation rather than two; columnBuffers hands it
 * over once): the numbers first, then the codes.
 */
function freshColumns(n: number): { nums: Float64Array; codes: Uint16Array; names: string[] } {
  const buffer = new ArrayBuffer(n * 3 * 8 + n * 4 * 2);
  return { nums: new Float64Array(buffer, 0, n * 3), codes: new Uint16Array(buffer, n * 3 * 8, n * 4), names: [] };
}

/**
 * Copies the messages from..to (exclusive) of `src` into `out` from message `at` on, its
 * name codes translated to out's names (added as they come). Returns the next free message.
 */
function copyColumns(out: { nums: Float64Array; codes: Uint16Array; names: string[] }, index: Map<string, number>, at: number, src: PackedMessages, from: number, to: number): number {
  if (to <= from) return at;
  out.nums.set(src.nums.subarray(from * 3, to * 3), at * 3);
  let same = true;
  const remap = src.names.map((name, i) => {
    let k = index.get(name);
    if (k === undefined) {
      k = out.names.length;
      if (k >= NO_NAME) throw new Error("MessageHistory: too many names");
      out.names.push(name);
      index.set(name, k);
    }
    if (k !== i) same = false;
    return k;
  });
  if (same) out.codes.set(src.codes.subarray(from * 4, to * 4), at * 4);
  else {
    const codes = out.codes;
    for (let j = from * 4, k = at * 4; j < to * 4; j++, k++) {
      const c = src.codes[j] as number;
      codes[k] = c === NO_NAME ? NO_NAME : (remap[c] as number);
    }
  }
  return at + (to - from);
}
