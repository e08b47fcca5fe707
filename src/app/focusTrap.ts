/**
 * Keeps Tab inside a modal dialog: from its last focusable element Tab goes to the first,
 * and Shift+Tab from the first to the last (aria-modal promises the page behind is out of reach).
 */
import { type RefObject, useCallback, useEffect, useRef } from "react";

const FOCUSABLE = 'button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), a[href], [tabindex]:not([tabindex="-1"])';

export function trapTab(e: { key: string; shiftKey: boolean; preventDefault(): void; currentTarget: Element }): void {
  if (e.key !== "Tab") return;
  const all = [...e.currentTarget.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.offsetParent !== null || el === document.activeElement);
  const first = all[0];
  const last = all.at(-1);
  if (first === undefined || last === undefined) return;
  const active = document.activeElement;
  if (e.shiftKey && (active === first || !e.currentTarget.contains(active))) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && (active === last || !e.currentTarget.contains(active))) {
    e.preventDefault();
    first.focus();
  }
}

/**
 * A dialog whose buttons are disabled while a task runs (which drops focus to the page, out
 * of the dialog's keys: Escape, Tab, Space): when the task ends and focus is outside the
 * dialog, it goes back to where it was when the task started, or to `fallback`. Returns
 * the function to call as a task starts.
 */
export function useFocusBack(busy: boolean, dialog: RefObject<HTMLElement | null>, fallback: RefObject<HTMLElement | null>): () => void {
  const from = useRef<HTMLElement | null>(null);
  useEffect(() => {
    if (busy) return;
    const box = dialog.current;
    const back = from.current;
    from.current = null;
    if (box === null || box.contains(document.activeElement)) return;
    if (back?.isConnected && box.contains(back) && !back.hasAttribute("disabled")) back.focus();
    else fallback.current?.focus();
  }, [busy, dialog, fallback]);
  return useCallback(() => {
    from.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  }, []);
}
