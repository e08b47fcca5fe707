/**
 * The ring's input handlers, apart from what they draw: processes are buttons (pointer
 * and keyboard select them for the inspector), messages are pointer targets only (a
 * hundred tab stops that vanish in 20 ms would not help anyone).
 */
import type { InspectTarget } from "../../worker/protocol";
import type { G } from "../draw/dom";

function isActivation(e: KeyboardEvent): boolean {
  return e.key === "Enter" || e.key === " " || e.key === "Spacebar";
}

/** Makes a group a keyboard- and pointer-operable button that selects `target(d)`. */
export function asButton<D>(g: G<D>, target: (d: D) => InspectTarget, select: (t: InspectTarget) => void): void {
  g.attr("role", "button")
    .attr("tabindex", 0)
    .on("click", (_e: MouseEvent, d: D) => select(target(d)))
    .on("keydown", (e: KeyboardEvent, d: D) => {
      if (!isActivation(e)) return;
      e.preventDefault();
      e.stopPropagation();
      select(target(d));
    });
}

export interface MessagePointer {
  /** Opens the inspector on a message. */
  readonly select: (t: InspectTarget) => void;
  /** The pointer entered (id) or left (null) a message. */
  readonly focus: (id: number | null) => void;
  /** The message focused now (leaving one clears only the focus it set). */
  readonly focused: () => number | null | undefined;
}

/** A message dot: a click inspects it, pointing at it highlights it here and in the space-time diagram. */
export function asMessageTarget<D extends { readonly id: number }>(g: G<D>, p: MessagePointer): void {
  g.on("click", (_e: MouseEvent, d: D) => p.select({ kind: "message", id: d.id }));
  g.on("pointerenter", (_e: PointerEvent, d: D) => p.focus(d.id));
  g.on("pointerleave", (_e: PointerEvent, d: D) => {
    if (p.focused() === d.id) p.focus(null);
  });
}
