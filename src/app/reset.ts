/**
 * Reset asks first when it would throw away something of the user's: their own actions (a
 * scenario's scripted ones come back with the run) or branches. Like opening a file over a
 * run with actions, it says what would be lost and the safe answer has the focus.
 *
 * The rule and the words are here, on the first screen (the Reset button and R use them);
 * the dialog itself (ResetDialog.tsx) loads when first asked for.
 */
import type { SimView } from "../worker/protocol";
import type { LabState } from "./store";
import { useUi } from "./ui";

/** What a Reset would throw away: the user's own actions on this branch and the other branches; null when nothing. */
export function resetLoses(view: SimView): { readonly actions: number; readonly branches: number } | null {
  const actions = view.timeline.actions.filter((a) => !a.scripted).length;
  const branches = view.timeline.branches.length - 1;
  return actions === 0 && branches === 0 ? null : { actions, branches };
}

/** Reset (the button and R): at once when nothing of the user's would be lost, else the question first. */
export function requestReset(lab: LabState, view: SimView): void {
  if (resetLoses(view) === null) lab.send({ type: "restart" });
  else useUi.getState().askReset();
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The question, in words: "your 2 actions and 1 other branch". */
export function lossWords(loses: { readonly actions: number; readonly branches: number }): string {
  const parts: string[] = [];
  if (loses.actions > 0) parts.push(`your ${plural(loses.actions, "action", "actions")} on this branch`);
  if (loses.branches > 0) parts.push(plural(loses.branches, "other branch", "other branches"));
  return parts.join(" and ");
}

