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
 * - The moment: while the run is paused, MOMENT_DELAY_MS after the cursor last moved the
 *   query gets &t=SECONDS (the cursor, exact to the µs), so a reload reopens that moment;
 *   once it plays, t is dropped (it is not rewritten on every frame).
 */
import type { LabStore } from "../store";
import type { TimedActionView } from "../../worker/protocol";
import { momentText } from "../params";
import { runPayloadFromHash } from "./linkHash";

export const URL_SYNC_DELAY_MS = 1000;
/** The address follows a paused cursor this long after it last moved (ms). */
export const MOMENT_DELAY_MS = 300;

/** Sets (or with null removes) the query's t, keeping the rest of the address. */
export function replaceMoment(t: string | null): void {
  if (typeof window === "undefined") return;
  const { pathname, search, hash } = window.location;
  const q = new URLSearchParams(search);
  if (q.get("t") === t) return;
  if (t === null) q.delete("t");
  else q.set("t", t);
  // URLSearchParams escapes "/", which a query may hold as is: ?scenario=lease/03-… stays readable.
  const query = q.toString().replace(/%2F/gi, "/");
  window.history.replaceState(window.history.state, "", `${pathname}${query === "" ? "" : `?${query}`}${hash}`);
}


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
export function startUrlSync(lab: LabStore, delayMs = URL_SYNC_DELAY_MS, momentDelayMs = MOMENT_DELAY_MS): () => void {
  const stopMoment = syncMoment(lab, momentDelayMs);
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
      const { encodeRunHash } = await import("./link");
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
    stopMoment();
  };
}

/** Keeps the query's t on the paused cursor (debounced), and drops it while the run plays. */
function syncMoment(lab: LabStore, delayMs: number): () => void {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let pending: string | null = null;
  const cancel = (): void => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    pending = null;
  };
  const unsubscribe = lab.subscribe((s) => {
    const v = s.view;
    if (v === null || v.lesson !== undefined || !Number.isFinite(v.now)) return;
    if (v.playing) {
      cancel();
      replaceMoment(null);
      return;
    }
    const t = momentText(v.now);
    if (t === pending) return;
    cancel();
    pending = t;
    timer = setTimeout(() => {
      timer = null;
      pending = null;
      // Only if the run is still paused there.
      const now = lab.getState().view;
      if (now !== null && !now.playing && momentText(now.now) === t) replaceMoment(t);
    }, delayMs);
  });
  return () => {
    cancel();
    unsubscribe();
  };
}
