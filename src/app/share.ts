/**
 * Structural sharing between two views: returns `next`, except that every part of it
 * that is deep-equal to the same part of `prev` is replaced by prev's object. Views
 * cross from the worker as fresh copies 25 times a second; with sharing, a panel whose
 * data did not change gets the very same object and React skips it.
 */
export function shareEqual<T>(prev: unknown, next: T): T {
  if (prev === next) return next;
  if (typeof prev !== "object" || typeof next !== "object" || prev === null || next === null) return next;
  if (Array.isArray(next)) {
    if (!Array.isArray(prev)) return next;
    const out = next.map((x, i) => shareEqual(prev[i], x));
    return (out.length === prev.length && out.every((x, i) => x === prev[i]) ? prev : out) as T;
  }
  if (Array.isArray(prev)) return next;
  const p = prev as Record<string, unknown>;
  const n = next as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  let same = true;
  let count = 0;
  for (const k in n) {
    const v = shareEqual(p[k], n[k]);
    out[k] = v;
    if (v !== p[k]) same = false;
    count++;
  }
  if (same) {
    for (const _ in p) count--;
    if (count === 0) return prev as T;
  }
  return out as T;
}
