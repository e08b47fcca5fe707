/**
 * In a lesson, the page shows only the panels the lesson has needed so far: a panel appears
 * at the first step that names it (a highlight), or whose wait or action is about what it
 * shows, and stays. The cluster and the Inspector (where the learner acts) are always there.
 */
import type { LessonSection, LessonStep } from "../../core/lesson/schema";
import { stepConditions } from "../../core/lesson/steps";
import { type LessonPanel, lessonFocus } from "./lessonUi";

/** The lesson format's panels, and the network tools (where partitions and cuts are made) and the Inspector. */
export type PanelId = LessonPanel | "network" | "inspector";

const ALWAYS: readonly PanelId[] = ["cluster", "inspector"];
const NETWORK_ACTIONS = new Set(["partition", "heal", "cut", "disconnect", "connect", "network", "slow-link"]);

/** What a condition is about, as the panel that shows it. */
const BY_CONDITION: Readonly<Record<string, PanelId>> = {
  "storage-writes": "storage",
  violation: "checkers",
  committed: "log",
  "not-committed": "log",
  "commit-index-at-least": "log",
  "logs-agree": "log",
  "lease-held": "lease-timeline",
  "lease-not-held": "lease-timeline",
  "lease-token-at-least": "lease-timeline",
  "lease-transitions": "lease-timeline",
  "holder-state": "holders",
  "holder-was-in": "holders",
  "holder-never-in": "holders",
  "primary-is": "holders",
  "two-primaries": "checkers",
  messages: "space-time",
};

function needs(step: LessonStep): PanelId[] {
  // The panels the step highlights (as the card outlines them), then those its conditions are about.
  const out: PanelId[] = lessonFocus(step).panels;
  for (const c of stepConditions(step)) {
    const about = BY_CONDITION[c.that];
    if (about !== undefined) out.push(about);
  }
  if ((step.kind === "act" || step.kind === "your-turn") && NETWORK_ACTIONS.has(step.do.do)) out.push("network");
  if ((step.kind === "act" || step.kind === "your-turn") && step.do.do === "fencing") out.push("storage");
  return out;
}

/** The panels shown at step `index` (from 0): every panel needed by it or an earlier step. */
export function panelsNeeded(lesson: LessonSection, index: number): ReadonlySet<PanelId> {
  const shown = new Set<PanelId>(ALWAYS);
  lesson.steps.slice(0, index + 1).forEach((s) => {
    for (const p of needs(s)) shown.add(p);
  });
  return shown;
}
