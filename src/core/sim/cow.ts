/**
 * A growable array whose copies share memory: it is stored in chunks, and a copy shares
 * every chunk until one side writes to it (copy on write). Snapshots of the checkers'
 * per-index history (which grows with the log) then cost a few pointers per chunk
 * instead of a copy of everything.
 */
const SHIFT = 10;
const CHUNK = 1 << SHIFT;
const MASK = CHUNK - 1;

export class CowArray<T> {
  private chunks: T[][];
  /** owned[c]: this copy may write chunk c in place (no other copy holds it). */
  private owned: boolean[];
  private len: number;

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
    return (this.chunks[i >> SHIFT] as T[])[i & MASK];
  }

  /** Sets index i; i may be the length (an append), not beyond. */
  set(i: number, v: T): void {
    if (i === this.len) {
      this.push(v);
      return;
    }
    if (i < 0 || i > this.len) throw new Error(`CowArray.set: index ${i} outside 0..${this.len}`);
    this.writable(i >> SHIFT)[i & MASK] = v;
  }

  push(v: T): void {
    const c = this.len >> SHIFT;
    if (c === this.chunks.length) {
      this.chunks.push([]);
      this.owned.push(true);
    }
    this.writable(c).push(v);
    this.len++;
  }

  /** Keeps the first n items. */
  truncate(n: number): void {
    if (n >= this.len) return;
    const keep = Math.max(0, n);
    const chunksKept = (keep + MASK) >> SHIFT;
    this.chunks.length = chunksKept;
    this.owned.length = chunksKept;
    if (keep & MASK) this.writable(chunksKept - 1).length = keep & MASK;
    this.len = keep;
  }

  /** A copy that shares every chunk with this one until either writes. */
  clone(): CowArray<T> {
    const c = Object.create(CowArray.prototype) as CowArray<T>;
    this.owned.fill(false);
    c.chunks = this.chunks.slice();
    c.owned = this.owned.slice();
    c.len = this.len;
    return c;
  }

  toArray(): T[] {
    const out: T[] = [];
    for (const ch of this.chunks) for (const x of ch) out.push(x);
    return out;
  }

  private writable(c: number): T[] {
    if (!this.owned[c]) {
      this.chunks[c] = (this.chunks[c] as T[]).slice();
      this.owned[c] = true;
    }
    return this.chunks[c] as T[];
  }
}
