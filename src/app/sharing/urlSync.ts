/**
 * Keeps the address honest: reloading the page reopens the run on screen.
 *
 * - When the current run's user actions change (an action, a branch switch), one second
 *   after the last change the hash becomes the run's share link (#run=1.…), asked of the
 *   worker as a scenario export. With no actions and no link behind the run, the hash
 *   is dropped and the query (?seed=…) names the run, as before.
 * - When a new run starts that did not come from a link (Settings, Reset), an old
 *   #run=… would reopen the wrong run, so it is dropped.
 * The first run's hash is left alone: it is this run's link, or a broken one that the
 * page's notice explains.
 */
import type { LabStore } from "../store";
import type { TimedActionView } from "../../worker/protocol";
import { encodeRunHash, runPayloadFromHash } from "./link";

export const URL_SYNC_DELAY_MS = 1000;


/** Identity of an action list: the same actions at the same times give the same key. */
export function actionsKey(branch: number, actions: readonly TimedActionView[]): string {
  return `${branch}:${actions.map((a) => `${a.at}/${a.text}`).join("|")}`;
}

/** Replaces the hash, keeping the path and the query. "" removes it. */
export function replaceHash(hash: string): void {
  if (typeof window === "undefined") return;
  const { pathname, search } = window.location;
  if (window.location.hash === hash || (hash === "" && window.location.hash === "")) return;
  window.history.replaceState(window.history.state, "", `${pathname}${search}${hash}`);
}

/** Starts watching the page's store; returns a function that stops. */
export function startUrlSync(lab: LabStore, delayMs = URL_SYNC_DELAY_MS): () => void {
  let runId: number | null = null;
  let lastActions: readonly TimedActionView[] | null = null;
  let key = "";
  let timer: ReturnType<typeof setTimeout> | null = null;

  const cancel = (): void => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
  };

  const update = async (): Promise<void> => {
    timer = null;
    const v = lab.getState().view;
    if (v === null) return;
    // A run opened from a file or link keeps the link it was opened with.
    if (v.timeline.actions.length === 0 && !v.opened) {
      replaceHash("");
      return;
    }
    const forRun = v.runId;
    try {
      const exp = await lab.getState().requestExport("scenario");
      const hash = await encodeRunHash(exp.text);
      if (lab.getState().view?.runId === forRun) replaceHash(hash);
    } catch {
      // The worker said why (the store shows its errors); the address keeps its last good link.
    }
  };

  const unsubscribe = lab.subscribe((s) => {
    const v = s.view;
    if (v === null) return;
    if (v.runId !== runId) {
      const first = runId === null;
      runId = v.runId;
      lastActions = v.timeline.actions;
      key = actionsKey(v.timeline.branch, v.timeline.actions);
      cancel();
      const hasRunHash = typeof window !== "undefined" && runPayloadFromHash(window.location.hash) !== null;
      if (!first && !v.opened && hasRunHash) {
        if (v.timeline.actions.length === 0) replaceHash("");
        else timer = setTimeout(() => void update(), delayMs);
      }
      return;
    }
    if (v.timeline.actions === lastActions) return;
    lastActions = v.timeline.actions;
    const k = actionsKey(v.timeline.branch, v.timeline.actions);
    if (k === key) return;
    key = k;
    cancel();
    timer = setTimeout(() => void update(), delayMs);
  });
  return () => {
    cancel();
    unsubscribe();
  };
}
