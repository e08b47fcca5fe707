/**
 * The scenario library's pairs: the same run with and without a policy, to compare side
 * by side. Apart from catalog.ts so the first screen has them without the bundled files.
 */

/**
 * Runs worth comparing side by side: the same story, one policy switched (ids: the file's
 * path in scenarios/ without ".json"). The first of each pair is shown on the left.
 */
export const PAIRS: readonly (readonly [left: string, right: string, what: string])[] = [
  ["lease/03-gc-pause-fenced", "lease/04-gc-pause-unfenced", "fencing on / off"],
  ["lease/06a-repeated-elections-keep-lease", "lease/06b-repeated-elections-checkpoint", "without / with lease checkpoints"],
  ["lease/11a-regrant-race-fenced", "lease/11b-regrant-race-unfenced", "fencing on / off"],
  ["raft/isolated-leader-checkquorum", "raft/isolated-leader-no-checkquorum", "with / without CheckQuorum"],
  ["failover/02-hung-primary-watchdog-on", "failover/04-hung-primary-no-fencing", "the replicas' watchdog on / off (no fencing)"],
  ["failover/03-hung-primary-watchdog-off", "failover/04-hung-primary-no-fencing", "fencing on / off (no watchdog)"],
];

/** The pair a scenario belongs to, with the other one's id, or null. */
export function pairOf(id: string): { readonly left: string; readonly right: string; readonly what: string } | null {
  const p = PAIRS.find(([l, r]) => l === id || r === id);
  return p === undefined ? null : { left: p[0], right: p[1], what: p[2] };
}
