/**
 * A run as the user made it: its scenario settings plus the actions taken, each at the
 * virtual time it was taken. This module turns simulator actions back into scenario
 * actions, so a run made by clicking in the browser can be saved as a scenario file
 * (or a share link) and run again, exactly, by the CLI, the tests or another browser.
 *
 * Times are written exactly: "1500ms" when whole milliseconds, "1500250us" otherwise.
 */
import type { Action } from "../sim/sim";
import { formatExactDuration } from "../sim/time";
import { fileActionsOf, type ScenarioActionInput } from "./actions";

export type { ScenarioActionInput } from "./actions";

/** A user action and the virtual time (µs) it was taken at. */
export interface TimedAction {
  readonly at: number;
  readonly action: Action;
}

/**
 * A simulator action as scenario actions (the action table, actions.ts, says how): one, or
 * two for a clock change that both drifts and jumps.
 */
export function scenarioActionsOf(t: TimedAction): ScenarioActionInput[] {
  return fileActionsOf(t.action, formatExactDuration(t.at));
}
