/**
 * Builds the simulation a scenario describes, and its actions as the simulator's: all the
 * worker needs for a run (the runner, with the expectation checks, loads only with a lesson
 * or an opened scenario's expectations).
 */
import type { NemesisConfig } from "../sim/nemesis";
import { Simulation, type TraceListener } from "../sim/sim";
import { toSimAction } from "./actions";
import type { TimedAction } from "./record";
import type { Scenario } from "./schema";
import { type ConfigOverrides, scenarioConfig } from "./settings";

/** What buildSimulation takes beyond the settings' overrides (runner.ts's RunOptions has these and more). */
export interface BuildOptions extends ConfigOverrides {
  /** Overrides the run's length (µs). */
  durationUs?: number;
  onTrace?: TraceListener;
}

export function scenarioNemesis(s: Scenario, durationUs: number): NemesisConfig | undefined {
  const n = s.nemesis;
  if (n === undefined) return undefined;
  return {
    faults: (n.faults ?? null) as NemesisConfig["faults"],
    intervalMinUs: n.intervalMin,
    intervalMaxUs: Math.max(n.intervalMin, n.intervalMax),
    quietAfterUs: n.quietAfter ?? Math.floor(durationUs * 0.75),
    includeClients: n.includeClients,
  };
}

/**
 * Builds the simulation a scenario describes; its actions are not queued: move time with
 * applyActionsTo(sim, scenarioActions(s), ...), which performs each action after every
 * event due at or before its time (the browser records and replays user actions the same way).
 */
export function buildSimulation(s: Scenario, opts: BuildOptions = {}): Simulation {
  const durationUs = opts.durationUs ?? s.duration;
  return new Simulation(scenarioConfig(s, opts), scenarioNemesis(s, durationUs), opts.onTrace);
}

/** The scenario's actions as simulator actions, in time order (file order for equal times: the sort is stable). */
export function scenarioActions(s: Scenario): (TimedAction & { readonly optional?: boolean })[] {
  return s.actions
    .map((a) => (a.optional === true ? { at: a.at, action: toSimAction(a), optional: true } : { at: a.at, action: toSimAction(a) }))
    .sort((x, y) => x.at - y.at);
}
