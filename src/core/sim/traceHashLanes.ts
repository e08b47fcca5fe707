/**
 * The trace hash's lanes and its words (traceHash.ts has the layout of every event): two
 * 32-bit lanes, fed with numbers exactly (integers as two 32-bit words, other numbers by
 * the little-endian bits of their double) and strings by their length, then their
 * characters two by two.
 */
const P1 = 0x01000193;
const P2 = 0x5bd1e995;
const TWO_32 = 4294967296;
/** Scratch space for the bits of a non-integer (a value, not a cache: written and read at once). */
const F64 = new DataView(new ArrayBuffer(8));

export class HashLanes {
  /** Two 32-bit lanes in a typed array: int32 values in object fields would be boxed. */
  protected readonly h: Int32Array;

  constructor(a = 0x811c9dc5, b = 0x01000193) {
    this.h = new Int32Array([a, b]);
  }

  get hex(): string {
    const [a, b] = this.h as unknown as [number, number];
    return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
  }

  state(): [number, number] {
    return [this.h[0] as number, this.h[1] as number];
  }

  protected word(lo: number, hi: number): void {
    const h = this.h;
    let a = h[0] as number;
    let b = h[1] as number;
    a = Math.imul(a ^ lo, P1);
    a = Math.imul(a ^ hi, P1);
    b = Math.imul(b ^ lo, P2);
    b = Math.imul(b ^ (b >>> 15) ^ hi, P2);
    h[0] = a;
    h[1] = b;
  }

  /** Any number, exactly: a safe integer as its two 32-bit words, anything else by its double's bits. */
  protected num(x: number): void {
    // Most numbers are int32 (ids, indexes, terms, the first 35 minutes of µs): the general case's words, at once.
    if ((x | 0) === x) {
      this.word(x, x >> 31);
      return;
    }
    const lo = x >>> 0;
    const hi = Math.floor(x / TWO_32);
    if (lo + hi * TWO_32 === x && (hi | 0) === hi) {
      this.word(lo | 0, hi);
      return;
    }
    F64.setFloat64(0, x, true);
    this.word(F64.getInt32(0, true), F64.getInt32(4, true) ^ 0x7ff00000);
  }

  /** A number or its absence (null or undefined: not a number, so it cannot collide with one). */
  protected opt(x: number | null | undefined): void {
    if (x === null || x === undefined) this.word(-2, 0x7fffffff);
    else this.num(x);
  }

  protected bool(x: boolean | undefined): void {
    this.word(x === undefined ? 2 : x ? 1 : 0, 0x3f);
  }

  /** Its length, then its characters two by two. */
  protected str(x: string | null | undefined): void {
    if (x === null || x === undefined) {
      this.word(-1, 0x7fffffff);
      return;
    }
    const h = this.h;
    const n = x.length;
    let a = Math.imul((h[0] as number) ^ n, P1);
    let b = Math.imul((h[1] as number) ^ n, P2);
    let i = 0;
    for (; i + 1 < n; i += 2) {
      const c = x.charCodeAt(i) | (x.charCodeAt(i + 1) << 16);
      a = Math.imul(a ^ c, P1);
      b = Math.imul(b ^ (b >>> 15) ^ c, P2);
    }
    if (i < n) {
      const c = x.charCodeAt(i);
      a = Math.imul(a ^ c, P1);
      b = Math.imul(b ^ (b >>> 15) ^ c, P2);
    }
    h[0] = a;
    h[1] = b;
  }

  protected strs(xs: readonly string[] | undefined): void {
    if (xs === undefined) {
      this.word(-3, 0x7fffffff);
      return;
    }
    this.num(xs.length);
    for (const x of xs) this.str(x);
  }
}
