/**
 * Chunked arrays whose copies share memory, for state that grows with the Raft log and is
 * copied into every snapshot. CowArray: a growable array whose copies share every chunk
 * until one side writes to it (copy on write); the checkers' per-index history. chunksOf:
 * a plain array's frozen copy that shares unchanged chunks with the previous one; the
 * Raft logs in snapshots.
 */
/** 256 items a chunk: a write after a copy copies 2 KB, and a log's open chunk costs each snapshot 1 KB on average. */
const SHIFT = 8;
const CHUNK = 1 << SHIFT;
const MASK = CHUNK - 1;
export class CowArray<T> {
  /** chunks[k] holds the items of chunk base + k (the chunks before base were released by forgetBefore). */
  private chunks: T[][];
  /** owned[k]: this copy may write chunks[k] in place (no other copy holds it). */
  private owned: boolean[];
  private len: number;
  /** How many leading chunks forgetBefore released (a copy's lists hold only the chunks after them). */
  private base = 0;

  constructor(items: readonly T[] = []) {
    this.chunks = [];
    this.owned = [];
    this.len = 0;
    for (const x of items) this.push(x);
  }

  get length(): number {
    return this.len;
  }

  get(i: number): T | undefined {
    if (i < 0 || i >= this.len) return undefined;
    const chunk = this.chunks[(i >> SHIFT) - this.base];
    return chunk === undefined ? undefined : chunk[i & MASK];
  }

  /** Sets index i; i may be the length (an append), not beyond. */
  set(i: number, v: T): void {
    if (i === this.len) {
      this.push(v);
      return;
    }
    if (i < 0 || i > this.len) throw new Error(`CowArray.set: index ${i} outside 0..${this.len}`);
    if ((i >> SHIFT) < this.base) throw new Error(`CowArray.set: index ${i} was forgotten`);
    this.writable((i >> SHIFT) - this.base)[i & MASK] = v;
  }

  push(v: T): void {
    const k = (this.len >> SHIFT) - this.base;
    if (k === this.chunks.length) {
      this.chunks.push([]);
      this.owned.push(true);
    }
    this.writable(k).push(v);
    this.len++;
  }

  /** Keeps the first n items. */
  truncate(n: number): void {
    if (n >= this.len) return;
    const keep = Math.max(0, n);
    const chunksKept = Math.max(0, ((keep + MASK) >> SHIFT) - this.base);
    if (keep < this.base * CHUNK) throw new Error(`CowArray.truncate: ${keep} is in the forgotten items`);
    this.chunks.length = chunksKept;
    this.owned.length = chunksKept;
    if (keep & MASK) this.writable(chunksKept - 1).length = keep & MASK;
    this.len = keep;
  }

  /**
   * Releases the items before index n, a whole chunk at a time (get() then answers
   * undefined for them; indexes do not move). For per-index history that is no longer
   * consulted, such as the checkers' below every node's compacted log.
   */
  forgetBefore(n: number): void {
    const upTo = Math.min(n >> SHIFT, this.len >> SHIFT);
    if (upTo <= this.base) return;
    this.chunks = this.chunks.slice(upTo - this.base);
    this.owned = this.owned.slice(upTo - this.base);
    this.base = upTo;
  }

  /** A copy that shares every chunk with this one until either writes. */
  clone(): CowArray<T> {
    const c = Object.create(CowArray.prototype) as CowArray<T>;
    this.owned.fill(false);
    c.chunks = this.chunks.slice();
    c.owned = this.owned.slice();
    c.len = this.len;
    c.base = this.base;
    return c;
  }

  /** The items, from the first not forgotten (see forgetBefore). */
  toArray(): T[] {
    const out: T[] = [];
    for (const ch of this.chunks) for (const x of ch) out.push(x);
    return out;
  }

  private writable(k: number): T[] {
    if (!this.owned[k]) {
      this.chunks[k] = (this.chunks[k] as T[]).slice();
      this.owned[k] = true;
    }
    return this.chunks[k] as T[];
  }
}

/**
 * A log's items kept as chunks, aligned by position: item i of the array is at position
 * `first + i`, and a chunk holds the items of positions c x CHUNK to (c + 1) x CHUNK - 1
 * (the first and last chunks may be shorter). Aligned so a log that drops its oldest items
 * (a compacted Raft log) still shares its other chunks with earlier copies.
 */
export interface Chunks<T> {
  readonly first: number;
  readonly chunks: readonly (readonly T[])[];
}

export const NO_CHUNKS: Chunks<never> = Object.freeze({ first: 0, chunks: Object.freeze([]) });

/**
 * A growing array kept as chunks, sharing every chunk that holds the same items (the same
 * objects) at the same positions as `prev`, an earlier result of this function for the same
 * array. For lists that only grow (or drop their head), a series of copies then costs one
 * copy plus the tails.
 */
export function chunksOf<T>(items: readonly T[], prev: Chunks<T>, first = 0): Chunks<T> {
  const out: (readonly T[])[] = [];
  const prevBase = Math.floor(prev.first / CHUNK);
  for (let from = 0; from < items.length; ) {
    const c = Math.floor((first + from) / CHUNK);
    const to = Math.min(items.length, (c + 1) * CHUNK - first);
    const old = prev.chunks[c - prevBase];
    out.push(old !== undefined && sameItems(old, items, from, to) ? old : items.slice(from, to));
    from = to;
  }
  return { first, chunks: out };
}

/** The items of chunksOf's result, as one array. */
export function unchunk<T>(c: Chunks<T>): T[] {
  const out: T[] = [];
  for (const chunk of c.chunks) for (const x of chunk) out.push(x);
  return out;
}

function sameItems<T>(chunk: readonly T[], items: readonly T[], from: number, to: number): boolean {
  if (chunk.length !== to - from) return false;
  for (let i = 0; i < chunk.length; i++) if (chunk[i] !== items[from + i]) return false;
  return true;
}
