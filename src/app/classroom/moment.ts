/**
 * Classroom mode's choices, pure so they are tested: the caption (the latest important event
 * in one sentence) and the panels the moment needs beside the cluster.
 */
import { lessonFocus } from "../lesson/lessonUi";
import type { PanelId } from "../lesson/panels";
import type { LessonStep } from "../../core/lesson/schema";
import { formatInstant } from "../../core/sim/time";
import type { TimelineMarker, TimelineMarkerKind } from "../../worker/protocol";

/** The newest marker at or before the cursor (not the user's own actions: the class saw those). */
export function latestMoment(markers: readonly TimelineMarker[], now: number): TimelineMarker | null {
  for (let i = markers.length - 1; i >= 0; i--) {
    const m = markers[i] as TimelineMarker;
    if (m.t <= now && m.kind !== "action") return m;
  }
  return null;
}

const SENTENCE: Readonly<Record<TimelineMarkerKind, string>> = {
  election: "A new leader was elected",
  expiry: "A lease expired",
  rejection: "The storage rejected a stale write",
  violation: "Safety was violated",
  action: "You acted",
  scripted: "The scenario's script acted",
};

/** "At 2.512 s: The storage rejected a stale write: write by h1 (token 7) rejected." */
export function captionOf(m: TimelineMarker | null): string {
  if (m === null) return "Nothing notable yet: the cluster is electing a leader and the holders are asking for the lease.";
  return `At ${formatInstant(m.t)}: ${SENTENCE[m.kind]}: ${m.label}.`;
}

/** What each kind of moment is about, as the panel that shows it. */
const BY_KIND: Readonly<Record<TimelineMarkerKind, PanelId>> = {
  election: "log",
  expiry: "lease-timeline",
  rejection: "storage",
  violation: "checkers",
  action: "lease-timeline",
  scripted: "lease-timeline",
};

/** Panels that fit beside the cluster in classroom mode (the others need the full page). */
const FITS: ReadonlySet<PanelId> = new Set<PanelId>(["lease-timeline", "storage", "log", "checkers", "holders", "events"]);

/**
 * The panels beside the cluster, at most `max`: in a lesson, the ones the step points at
 * (none when it points at none: the card says it all); in the lab, the one the latest moment
 * is about, then the lease story (the lease timeline and the storage).
 */
export function classroomPanels(step: LessonStep | null, moment: TimelineMarker | null, max: number): PanelId[] {
  const wanted: PanelId[] = [];
  if (step !== null) wanted.push(...lessonFocus(step).panels);
  else {
    if (moment !== null) wanted.push(BY_KIND[moment.kind]);
    wanted.push("lease-timeline", "storage");
  }
  return [...new Set(wanted.filter((p) => FITS.has(p)))].slice(0, max);
}
