/**
 * Reset asks first when it would throw away something of the user's: their own actions (a
 * scenario's scripted ones come back with the run) or branches. Like opening a file over a
 * run with actions, it says what would be lost and the safe answer has the focus.
 */
import { useEffect, useId, useRef } from "react";
import type { SimView } from "../worker/protocol";
import { type LabState, selectSend, useLab } from "./store";
import { useUi } from "./ui";
import { Modal } from "./Modal";

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

export function ResetDialog() {
  const open = useUi((u) => u.resetOpen);
  const view = useLab((s) => (open ? s.view : null));
  const send = useLab(selectSend);
  const close = useUi((u) => u.closeReset);
  const keep = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const textId = useId();
  useEffect(() => {
    if (!open) return;
    // The safe answer has the focus; closing returns it to where it was (the Reset button, or the page).
    const back = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    keep.current?.focus();
    return () => back?.focus();
  }, [open]);
  if (!open || view === null) return null;
  const loses = resetLoses(view);
  const reset = (): void => {
    close();
    send({ type: "restart" });
  };
  return (
    <Modal role="alertdialog" labelledBy={titleId} describedBy={textId} onClose={close} keepKeys>
      <h2 id={titleId}>Start this run again from 0 s?</h2>
      <p id={textId}>
        Reset throws away {loses === null ? "nothing of yours" : lossWords(loses)}. It cannot be undone.
        {view.timeline.script !== null && " The scenario's own scripted actions come back with the run."} To keep this run, use Share &amp;
        export first (Copy share link or Download scenario).
      </p>
      <div className="actions dialog-actions">
        <button type="button" className="danger" onClick={reset}>
          Reset and lose them
        </button>
        <button ref={keep} type="button" className="primary" onClick={close}>
          Keep my run
        </button>
      </div>
    </Modal>
  );
}
