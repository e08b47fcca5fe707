/**
 * The "Share & export" button. Its dialog (ShareMenu.tsx: links, files, exports,
 * pictures) is a chunk of its own, loaded when first opened.
 */
import { lazy, Suspense, useCallback, useEffect, useRef } from "react";
import { useUi } from "../ui";
import { SHARE_NAMES } from "./names";

const ShareDialogChunk = lazy(() => import("./ShareMenu").then((m) => ({ default: m.ShareDialog })));

export function ShareMenu() {
  const open = useUi((u) => u.shareOpen);
  const setOpen = useUi((u) => u.setShareOpen);
  const trigger = useRef<HTMLButtonElement>(null);
  const close = useCallback(() => setOpen(false), [setOpen]);
  // However the dialog closes (its Close button, Escape, a run opened), focus returns to the button that opened it.
  const wasOpen = useRef(open);
  useEffect(() => {
    if (wasOpen.current && !open) trigger.current?.focus();
    wasOpen.current = open;
  }, [open]);
  return (
    <>
      <button ref={trigger} type="button" className="share-trigger" aria-haspopup="dialog" aria-expanded={open} onClick={() => setOpen(true)}>
        {SHARE_NAMES.open}
      </button>
      {open && (
        <Suspense fallback={null}>
          <ShareDialogChunk onClose={close} />
        </Suspense>
      )}
    </>
  );
}
