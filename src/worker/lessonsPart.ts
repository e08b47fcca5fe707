/** What plays a lesson or tracks an opened scenario's expectations (parts.ts loads it on demand): a run from the page's settings needs neither. */
export { LessonPlayer, newLessonRun, newObservedRun } from "./lessonPlayer";
export { ExpectationTracker } from "./expectations";
