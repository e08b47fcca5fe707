/**
 * Words in the space-time diagram, pure: how wide a text is, cutting it to fit, and
 * greedy placement so that no two labels cover each other.
 */

/** Rough text width in user units (the drawing uses a sans-serif face; digits and lower case average ~0.58 em). */
export function textWidth(s: string, fontPx: number): number {
  return s.length * fontPx * 0.58;
}

/** Cuts `s` to fit `maxPx` with an ellipsis ("" when not even one letter fits). */
export function fitText(s: string, fontPx: number, maxPx: number): string {
  if (textWidth(s, fontPx) <= maxPx) return s;
  const n = Math.floor(maxPx / (fontPx * 0.58)) - 1;
  return n < 2 ? "" : `${s.slice(0, n)}…`;
}

export interface Box {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

function hit(a: Box, b: Box): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

/**
 * Greedy label placement: takes candidates in order and keeps each that overlaps none
 * kept so far (at most `limit`). Returns the kept keys.
 */
export function placeLabels<K>(candidates: readonly { readonly key: K; readonly box: Box }[], limit: number): Set<K> {
  const kept: Box[] = [];
  const out = new Set<K>();
  for (const c of candidates) {
    if (out.size >= limit) break;
    if (kept.some((k) => hit(k, c.box))) continue;
    kept.push(c.box);
    out.add(c.key);
  }
  return out;
}

/** An arrow's label fits along it when the arrow is at least this much longer than the text. */
export const LABEL_PAD = 14;
export const ARROW_FONT = 12;
export const MARK_FONT = 12;

/** Does `label` fit on an arrow from (x1, y1) to (x2, y2)? */
export function arrowLabelFits(label: string, x1: number, y1: number, x2: number, y2: number, fontPx = ARROW_FONT): boolean {
  return Math.hypot(x2 - x1, y2 - y1) >= textWidth(label, fontPx) + 2 * LABEL_PAD;
}

