/**
 * How a live run's replay says it could not follow the recording (replay.ts): the start of its
 * assertion's detail. A module of its own so the dashboard and the CLI can tell it apart
 * without loading the replay.
 */
export const DIVERGED = "the replay diverged from the live run";
