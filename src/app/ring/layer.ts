/**
 * What the ring's layers share: the marks a view is drawn with, and the shape of a
 * layer. Each layer (network, nodes, holders, messages) owns its <g> elements: `draw`
 * joins a new view (keyed, so elements are reused), `frame` moves what moves between
 * views and only sets attributes.
 */
import type { InspectTarget, SimView } from "../../worker/protocol";
import type { Selection } from "../store";
import type { RingLayout } from "./geometry";
import type { Box } from "./labels";

/** What is selected and what is highlighted (a violation, a hovered event). */
export interface RingMarks {
  readonly selected: Selection;
  readonly highlight: readonly string[];
  /** The message highlighted in both the ring and the space-time diagram. */
  readonly focus?: number | null;
  /** The "Lease story" view: only lease and storage messages are drawn (theme.ts: inLeaseStory). */
  readonly leaseStory?: boolean;
}

export const NO_MARKS: RingMarks = { selected: null, highlight: [] };

/** Is this node, holder, storage or message the one selected? */
export function isSelected(marks: RingMarks, kind: InspectTarget["kind"], id?: string | number): boolean {
  const s = marks.selected;
  if (s === null || s.kind !== kind) return false;
  return s.kind === "storage" || ("id" in s && s.id === id);
}

/** One layer of the ring. */
export interface RingLayer {
  /** Joins a new view. */
  draw(v: SimView, L: RingLayout, marks: RingMarks): void;
  /**
   * Draws the moving parts at display time `now`; `clocks`: also what changes once per view.
   * `board`: boxes already taken by text this frame (labels.ts); a layer that places text
   * keeps it off these and adds its own.
   */
  frame(v: SimView, now: number, clocks: boolean, board?: Box[]): void;
}

/** Adds or removes a class, writing only when that changes something (classList.remove of an absent class still writes the attribute). */
export function setClass(el: Element, name: string, on: boolean): void {
  if (el.classList.contains(name) !== on) el.classList.toggle(name, on);
}

/**
 * Sets an element's text, unless it already says that: in place, in its one text node, when it has one (a new
 * text node each time would be two more changes to the page for every label that changes).
 */
export function setWords(el: Element, s: string): void {
  const t = el.firstChild;
  if (t !== null && t.nodeType === 3 && t.nextSibling === null) {
    if ((t as Text).data !== s) (t as Text).data = s;
  } else if (el.textContent !== s) el.textContent = s;
}
