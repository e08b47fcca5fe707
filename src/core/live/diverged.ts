/**
 * How a live run's replay says it could not follow the recording (replay.ts): an assertion
 * whose detail starts with DIVERGED. A module of its own so the dashboard and the CLI can tell
 * it apart without loading the replay.
 */
export const DIVERGED = "the replay diverged from the live run";

/** Whether a violation is the replay's divergence (not a fault of the run). */
export function isDivergence(v: { readonly invariant: string; readonly detail: string }): boolean {
  return v.invariant === "assertion" && v.detail.startsWith(DIVERGED);
}

/** What the divergence says, without the words that mark it as one. */
export function divergenceDetail(detail: string): string {
  return detail.slice(DIVERGED.length + 2);
}
