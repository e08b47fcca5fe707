/** The lesson card's decisions, apart from React: which buttons work, which keys go where, what to outline. */
import type { LessonStep } from "../../core/lesson/schema";
import { PANELS } from "../../core/lesson/steps";
import type { LessonView } from "../../worker/protocol";

export type LessonPanel = (typeof PANELS)[number];

export interface StepControls {
  readonly canBack: boolean;
  readonly canNext: boolean;
  readonly doItForMe: boolean;
}

/** Back from the second step on; Next once the step is done (or failed: the learner may go on); "Do it for me" while a "your turn" waits. */
export function stepControls(lv: LessonView, step: LessonStep): StepControls {
  return {
    canBack: lv.index > 0,
    canNext: lv.index < lv.count - 1 && (lv.status === "done" || lv.status === "failed"),
    doItForMe: step.kind === "your-turn" && lv.status === "waiting",
  };
}

/** What a key does in a lesson: PageDown and ArrowRight go on, PageUp and ArrowLeft go back; nothing while typing or on a slider. */
export function lessonKey(
  e: Pick<KeyboardEvent, "key" | "target" | "ctrlKey" | "metaKey" | "altKey" | "shiftKey">,
  back: (() => void) | null,
  next: (() => void) | null,
): (() => void) | null {
  if (e.ctrlKey || e.metaKey || e.altKey || e.shiftKey) return null;
  const t = e.target as { closest?: (s: string) => unknown } | null;
  if (t !== null && typeof t.closest === "function" && t.closest("input, select, textarea, [contenteditable], [role=slider]")) return null;
  if (e.key === "PageDown" || e.key === "ArrowRight") return next;
  if (e.key === "PageUp" || e.key === "ArrowLeft") return back;
  return null;
}

/** The processes to outline in the ring and the panels to outline: a message type points at the space-time diagram, a lease at the lease timeline. */
export function lessonFocus(step: LessonStep): { procs: string[]; panels: LessonPanel[] } {
  const procs: string[] = [];
  const panels = new Set<LessonPanel>();
  for (const h of step.highlight ?? []) {
    if ("proc" in h) procs.push(h.proc);
    else if ("panel" in h) panels.add(h.panel);
    else if ("message" in h) panels.add("space-time");
    else if ("lease" in h) panels.add("lease-timeline");
  }
  return { procs, panels: PANELS.filter((p) => panels.has(p)) };
}

/** The CSS class of each panel's section in the page. */
export const PANEL_CLASS: Readonly<Record<LessonPanel, string>> = {
  cluster: "ring-panel",
  "lease-timeline": "lease-timeline",
  holders: "holders-panel",
  storage: "storage-panel",
  log: "log-grid",
  "space-time": "spacetime-panel",
  events: "event-log",
  checkers: "checker-panel",
  "time-travel": "time-travel",
};
