/**
 * Live runs made with the Node stand-in for the workers (liveHarness.ts), for the tests of
 * recording files and of the CLI's --replay.
 */
import { defaultConfig, mergeConfig, type SimConfig } from "../../src/core/sim/config";
import { LiveHarness } from "./liveHarness";

export const liveConfig = (seed: number, patch: Parameters<typeof mergeConfig>[1] = {}): SimConfig =>
  mergeConfig(defaultConfig(), { seed, holders: { count: 2 }, clients: { count: 1, workload: "random" }, ...patch });

/**
 * A live run with faults drawn from `seed`: kills and restarts, pauses, a GC pause, partitions,
 * drift (as in tests/core/live.test.ts); each thread's clock `skewUs` at most off the router's;
 * `verify`: every call checked (each report carries the state's digest after it).
 */
export function faultyRun(seed: number, endUs: number, { skewUs = 0, verify = false }: { skewUs?: number; verify?: boolean } = {}): LiveHarness {
  const h = new LiveHarness(liveConfig(seed, { network: { dropRate: 0.02, duplicateRate: 0.02 } }), seed * 7 + 1, undefined, skewUs);
  h.verify = verify;
  const ids = h.router.ids;
  let t = 0;
  let k = 0;
  while (t < endUs) {
    t += 150_000 + ((seed * 7919 + k * 104_729) % 400_000);
    h.runTo(Math.min(t, endUs));
    const id = ids[(seed + k * 3) % ids.length] as string;
    switch (k++ % 7) {
      case 0:
        h.crash(id);
        break;
      case 1:
        for (const x of ids) h.restart(x);
        break;
      case 2:
        h.pause(id, 700_000);
        break;
      case 3:
        h.net({ type: "partition", groups: [["n1", "n2"], ["others"]] });
        break;
      case 4:
        h.net({ type: "heal" });
        break;
      case 5:
        h.act(id, { type: "clock", proc: id, driftPpm: 20_000 });
        break;
      case 6:
        h.act("h1", { type: "gc-pause", holder: "h1", durationUs: 2_500_000 });
        break;
    }
  }
  h.runTo(endUs);
  return h;
}

/**
 * A live run where the storage's fencing is off and a holder stalls in a GC pause between its
 * lease check and its write: it writes after its lease went to the other holder, and the
 * storage takes the stale write (a safety violation the checkers find in the replay).
 */
export function unfencedRun(seed: number, endUs: number): LiveHarness {
  const h = new LiveHarness(liveConfig(seed, { clients: { count: 0 }, holders: { count: 2, ttlMs: 1000 } }), seed);
  h.runTo(100_000);
  h.act("s1", { type: "fencing", on: false });
  for (let t = 1_000_000; t < endUs; t += 1_500_000) {
    h.runTo(t);
    h.act("h1", { type: "gc-pause", holder: "h1", durationUs: 3_000_000 });
    h.act("h2", { type: "gc-pause", holder: "h2", durationUs: 3_000_000 });
  }
  h.runTo(endUs);
  return h;
}
