/**
 * A run the page plays, ready for time travel: the timeline with its snapshot settings, and the
 * journal saved in its snapshots (a scenario's run, or the shadow of a live run).
 */
import { Timeline } from "../core/replay/timeline";
import { buildSimulation, scenarioActions } from "../core/scenario/build";
import { observerNeeds } from "../core/scenario/observer";
import type { Scenario } from "../core/scenario/schema";
import type { Simulation } from "../core/sim/sim";
import type { ExpectationTracker } from "./expectations";
import { Journal } from "./journal";
import { lessonsPart } from "./parts";

/** Memory the time-travel snapshots of a run (every branch) may hold, estimated; beyond it they are thinned. */
export const SNAPSHOT_BUDGET_BYTES = 128 * 1024 * 1024;

/**
 * Snapshots kept per branch: with the interval below, a run of up to 68 minutes keeps them 8 s
 * apart (each time the count is reached, every other one goes and the interval doubles), so a
 * seek replays at most that much.
 */
export const MAX_SNAPSHOTS = 512;

/**
 * Virtual time between a run's snapshots to begin with (a seek replays at most this much until
 * the first thinning). 8 s: an hour-long run had them 8 s apart anyway (4 s, thinned at 34
 * minutes), and each snapshot costs the player about 0.5 ms of CPU (the processes' copies,
 * the checkers', the journal's), some 15% of playing the dashboard's run at 4 s (issue 15).
 */
export const SNAPSHOT_EVERY_US = 8_000_000;

/** The time-travel settings of a run the page plays: snapshots, their count and their memory. */
export function snapshotOptions(): { maxSnapshotBytes: number; maxSnapshots: number; snapshotBytes: (sim: Simulation) => number; snapshotEveryUs: number } {
  return { maxSnapshotBytes: SNAPSHOT_BUDGET_BYTES, maxSnapshots: MAX_SNAPSHOTS, snapshotBytes: snapshotEstimator(), snapshotEveryUs: SNAPSHOT_EVERY_US };
}

/**
 * A run of a scenario, ready for time travel: the timeline, with the journal saved in its snapshots.
 * With `track` (an opened scenario with expectations: a plain share link of a page run has none), its expectations are checked as it runs: their observer is saved beside the journal.
 */
export function newRun(scenario: Scenario, track = false): { timeline: Timeline; journal: Journal; tracker: ExpectationTracker | null } {
  const options = snapshotOptions();
  if (!track) {
    const journal = new Journal();
    const sim = buildSimulation(scenario, { onTrace: journal.listener });
    return { timeline: new Timeline(sim, scenarioActions(scenario), { ...options, companion: journal }), journal, tracker: null };
  }
  const { ExpectationTracker, newObservedRun } = lessonsPart();
  const run = newObservedRun(scenario, observerNeeds(scenario.expect), options);
  return { timeline: run.timeline, journal: run.journal, tracker: new ExpectationTracker(scenario, run.observer) };
}

/**
 * What a snapshot holds of its own whatever the interval: the processes' state but their logs,
 * the checkers' copies, the queue (about 100 KB a snapshot in all, measured, of which the
 * journal's own part, Journal.savedBytes, is some 10 KB).
 */
const SNAPSHOT_FIXED_BYTES = 90_000;
/**
 * What a snapshot holds per trace event since the one before it: the log entries appended
 * meanwhile, and the checkers' history of them (the journal's share is added by the timeline,
 * Journal.savedBytes). Measured on the dashboard's default run: the heap grows by about 100 KB
 * a snapshot plus 1.3 MB per simulated minute of the run, of which the journal's histories are
 * 1 MB and the rest about 5 KB per simulated second, some 800 events.
 */
const SNAPSHOT_BYTES_PER_EVENT = 6;

/**
 * Estimates what each snapshot of one run holds (called once per snapshot, in time order on a
 * branch): a fixed part, and the history made since the previous snapshot. Snapshots share
 * their logs in chunks (RaftServer.freeze, the checkers' copy-on-write arrays), so a snapshot
 * costs what changed since the one before it, not the whole log.
 */
function snapshotEstimator(): (sim: Simulation) => number {
  let before = 0;
  return (sim) => {
    const since = Math.max(0, sim.eventsProcessed - before);
    before = sim.eventsProcessed;
    return SNAPSHOT_FIXED_BYTES + since * SNAPSHOT_BYTES_PER_EVENT;
  };
}
