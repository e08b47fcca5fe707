/**
 * An action that cannot run here and now (no leader, a paused leader, a name that names
 * nothing, a bad setting): the simulation skips it and says so. Anything else thrown while
 * an action runs is a bug, and halts the run as an `assertion` violation.
 */
export class ActionRefused extends Error {
  override name = "ActionRefused";
}

/** What was thrown, in words (an Error's message, or the value itself). */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
