/**
 * Small DOM helpers the drawings share: each writes only when the value changes, so a
 * frame that changes nothing costs no style or layout work.
 */
import type * as d3 from "d3-selection";

/** Sets an element's text, unless it already says that. */
export function setText(el: Element, s: string): void {
  if (el.textContent !== s) el.textContent = s;
}

/** Sets an attribute, unless it already has that value. */
export function setAttr(el: Element, name: string, value: string): void {
  if (el.getAttribute(name) !== value) el.setAttribute(name, value);
}

/** A horizontal line from x1 to x2 at y (a tick, a violation's rule). */
export function setRule(line: Element | null, x1: number, x2: number, y: string): void {
  if (line === null) return;
  setAttr(line, "x1", String(x1));
  setAttr(line, "x2", String(x2));
  setAttr(line, "y1", y);
  setAttr(line, "y2", y);
}

/** A number rounded to a tenth, as an attribute value ("12.3"). */
export const r1 = (v: number): string => (Math.round(v * 10) / 10).toString();

/** A group of keyed elements in a layer. */
export type G<D> = d3.Selection<SVGGElement, D, SVGGElement, unknown>;

/** What each element was last drawn from, so an unchanged one costs no DOM writes. */
const drawnFrom = new WeakMap<Element, string>();

/** Whether `el` was last drawn from another signature than `sig` (and records `sig`). */
export function isNew(el: Element, sig: string): boolean {
  if (drawnFrom.get(el) === sig) return false;
  drawnFrom.set(el, sig);
  return true;
}

/** The elements of `sel` whose signature changed since they were last drawn (and records the new one). */
export function changed<D>(sel: G<D>, sig: (d: D) => string): G<D> {
  return sel.filter(function (d) {
    return isNew(this, sig(d));
  });
}
