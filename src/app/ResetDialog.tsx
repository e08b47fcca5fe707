/** Reset's question (reset.ts says when it is asked): loaded when first asked for (lazyParts.tsx). */
import { useEffect, useId, useRef } from "react";
import { lossWords, resetLoses } from "./reset";
import { selectSend, useLab } from "./store";
import { useUi } from "./ui";
import { Modal } from "./Modal";

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
