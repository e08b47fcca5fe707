/**
 * Classroom mode's choices, pure so they are tested: the caption (the latest key moment in
 * one sentence) and the panels the moment needs beside the cluster.
 */
import { lessonFocus } from "../lesson/lessonUi";
import type { PanelId } from "../lesson/panels";
import type { LessonStep } from "../../core/lesson/schema";
import { formatInstant } from "../../core/sim/time";
import type { Moment, MomentKind } from "../../worker/moments";

/** The newest key moment at or before the cursor (the view keeps those up to the cursor). */
export function latestMoment(moments: readonly Moment[], now: number): Moment | null {
  for (let i = moments.length - 1; i >= 0; i--) {
    const m = moments[i] as Moment;
    if (m.t <= now) return m;
  }
  return null;
}

/** "At 7.071 s: The storage rejected h1's write: its token 2 is older than the 11 …" */
export function captionOf(m: Moment | null): string {
  if (m === null) return "Nothing notable yet: the cluster is electing a leader and the holders are asking for the lease.";
  return `At ${formatInstant(m.t)}: ${m.text}`;
}

/** What each kind of moment is about, as the panel that shows it. */
const BY_KIND: Readonly<Record<MomentKind, PanelId>> = {
  "write-rejected": "storage",
  "lease-expired": "lease-timeline",
  "lease-lost": "lease-timeline",
  "lease-granted": "lease-timeline",
  jeopardy: "holders",
  grace: "holders",
  "renewed-in-grace": "holders",
  "leader-elected": "log",
  "new-primary": "holders",
  failover: "holders",
  "self-fenced": "holders",
  violation: "checkers",
};

/** Panels that fit beside the cluster in classroom mode (the others need the full page). */
const FITS: ReadonlySet<PanelId> = new Set<PanelId>(["lease-timeline", "storage", "log", "checkers", "holders", "events"]);

/**
 * The panels beside the cluster, at most `max`: in a lesson, the ones the step points at
 * (none when it points at none: the card says it all); in the lab, the one the latest moment
 * is about, then the lease story (the lease timeline and the storage).
 */
export function classroomPanels(step: LessonStep | null, moment: Moment | null, max: number): PanelId[] {
  const wanted: PanelId[] = [];
  if (step !== null) wanted.push(...lessonFocus(step).panels);
  else {
    if (moment !== null) wanted.push(BY_KIND[moment.kind]);
    wanted.push("lease-timeline", "storage");
  }
  return [...new Set(wanted.filter((p) => FITS.has(p)))].slice(0, max);
}
