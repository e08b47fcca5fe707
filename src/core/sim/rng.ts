/**
 * The one source of randomness in the core: a seeded 32-bit integer PRNG
 * (xoshiro128**), forked by label so every node and every purpose gets its own
 * stream. A fork depends only on the parent's seed and the label, never on how
 * many numbers the parent has drawn, so adding a draw in one place never shifts
 * the numbers drawn somewhere else.
 */

export interface RngState {
  /** The seed this stream was derived from (kept so it can fork further). */
  readonly seed: number;
  /** xoshiro128** state words. */
  s0: number;
  s1: number;
  s2: number;
  s3: number;
}

/** FNV-1a over a string, 32-bit. */
export function hashString(text: string, basis = 0x811c9dc5): number {
  let h = basis >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** splitmix32 finaliser: a good 32-bit mixer. */
export function mix32(x: number): number {
  let z = (x + 0x9e3779b9) >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
  return (z ^ (z >>> 16)) >>> 0;
}

export class Rng {
  /** State in a typed array: 32-bit words stored in object fields would be boxed on every draw. */
  private readonly w: Uint32Array;
  private readonly seed: number;

  private constructor(st: RngState) {
    this.seed = st.seed;
    this.w = new Uint32Array([st.s0, st.s1, st.s2, st.s3]);
  }

  /** A stream from a user-facing seed (any safe integer). */
  static fromSeed(seed: number): Rng {
    if (!Number.isSafeInteger(seed)) throw new Error(`seed must be a safe integer, got ${seed}`);
    const lo = seed >>> 0;
    const hi = Math.floor(seed / 0x100000000) >>> 0;
    return Rng.fromWord(mix32(lo ^ mix32(hi)));
  }

  static restore(state: RngState): Rng {
    return new Rng(state);
  }

  private static fromWord(word: number): Rng {
    let x = word >>> 0;
    const next = (): number => {
      x = (x + 0x9e3779b9) >>> 0;
      return mix32(x);
    };
    const st: RngState = { seed: word >>> 0, s0: next(), s1: next(), s2: next(), s3: next() };
    if ((st.s0 | st.s1 | st.s2 | st.s3) === 0) st.s0 = 1;
    return new Rng(st);
  }

  /** An independent stream for a purpose, e.g. fork("node:n3") or fork("net"). */
  fork(label: string): Rng {
    return Rng.fromWord(hashString(label, mix32(this.seed)));
  }

  snapshot(): RngState {
    const w = this.w;
    return { seed: this.seed, s0: w[0] as number, s1: w[1] as number, s2: w[2] as number, s3: w[3] as number };
  }

  /** Next uniformly distributed unsigned 32-bit integer (xoshiro128**). */
  nextU32(): number {
    const w = this.w;
    const s0 = w[0] as number;
    const s1 = w[1] as number;
    const s2 = (w[2] as number) ^ s0;
    const s3 = (w[3] as number) ^ s1;
    const result = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
    w[1] = s1 ^ s2;
    w[0] = s0 ^ s3;
    w[2] = s2 ^ (s1 << 9);
    w[3] = rotl(s3, 11);
    return result;
  }

  /** Uniform integer in [lo, hi], both inclusive, without modulo bias. */
  int(lo: number, hi: number): number {
    if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(hi) || hi < lo) {
      throw new Error(`Rng.int: bad range [${lo}, ${hi}]`);
    }
    const span = hi - lo + 1;
    if (span <= 0x100000000) {
      const limit = 0x100000000 - (0x100000000 % span);
      for (;;) {
        const x = this.nextU32();
        if (x < limit) return lo + (x % span);
      }
    }
    // Wide ranges: combine two draws (53 bits) and reject the tail.
    const max = 2 ** 53;
    const limit = max - (max % span);
    for (;;) {
      const x = (this.nextU32() >>> 5) * 0x8000000 + (this.nextU32() >>> 6);
      if (x < limit) return lo + (x % span);
    }
  }

  /** True with probability p (0..1). */
  chance(p: number): boolean {
    if (p <= 0) return false;
    if (p >= 1) return true;
    return this.nextU32() < Math.floor(p * 0x100000000);
  }

  /** A uniformly chosen element; throws on an empty list. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("Rng.pick: empty list");
    return items[this.int(0, items.length - 1)] as T;
  }

  /** A shuffled copy (Fisher-Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      const tmp = out[i] as T;
      out[i] = out[j] as T;
      out[j] = tmp;
    }
    return out;
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}
