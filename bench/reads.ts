/**
 * What leases save on reads, in simulated time (deterministic: the same figures every run).
 * 1. The leader's lease against ReadIndex: reads per second and read latency.
 * 2. Read leases for 0, 2 and 4 followers: read latency (most reads answered where they are
 *    asked) against write latency (every write waits for every holder).
 * Five nodes, clients in a closed loop (each waits for its answer, thinks 5 to 20 ms), default
 * network (10 to 20 ms one way), no faults. The first 3 s (elections, a new leader's wait) are left out.
 */
import type { ConfigPatch } from "../src/core/sim/config";
import { defaultConfig, mergeConfig } from "../src/core/sim/config";
import { Simulation } from "../src/core/sim/sim";
import { HistoryRecorder } from "../src/core/scenario/history";
import { type LatencyFigures, readWriteFigures, type ReadWriteFigures } from "../src/core/scenario/readStats";

const WARM_US = 3_000_000;

interface Figures extends ReadWriteFigures {
  /** Reads answered by a follower under its read lease. */
  readonly local: LatencyFigures;
}

function run(simSeconds: number, raft: ConfigPatch["raft"], readFraction: number): Figures {
  const cfg = mergeConfig(defaultConfig(), {
    seed: 4242,
    nodes: 5,
    checkers: false,
    raft,
    clients: { count: 10, workload: "random", readFraction, thinkTimeMinMs: 5, thinkTimeMaxMs: 20 },
  });
  const rec = new HistoryRecorder();
  const local = new Set<string>();
  const sim = new Simulation(cfg, undefined, (e) => {
    rec.observe(e);
    // No client restarts here, so (client, seq) names one operation.
    if (e.kind === "lease-read" && e.via === "local") local.add(`${e.client}#${e.seq}`);
  });
  sim.advanceTo(WARM_US + simSeconds * 1e6);
  const ops = rec.finish(cfg.seed).operations;
  const localOps = ops.filter((o) => local.has(`${o.client}#${o.seq}`));
  return { ...readWriteFigures(ops, WARM_US), local: readWriteFigures(localOps, WARM_US).reads };
}

const ms = (us: number): string => `${(us / 1000).toFixed(1)} ms`.padStart(9);
const lat = (f: LatencyFigures): string => `mean ${ms(f.meanUs)}  p99 ${ms(f.p99Us)}`;

export function printReadFigures(simSeconds: number): void {
  console.log(`\nreads: 5 nodes, 10 clients in a closed loop, ${simSeconds} simulated s, no faults (simulated time: the same every run)`);
  console.log("  90% reads          reads/s   read latency                 writes/s   write latency");
  for (const reads of ["read-index", "leader-lease"] as const) {
    const f = run(simSeconds, { reads }, 0.9);
    console.log(
      `  ${reads.padEnd(16)} ${f.reads.perSecond.toFixed(0).padStart(8)}   ${lat(f.reads)}   ${f.writes.perSecond.toFixed(0).padStart(8)}   ${lat(f.writes)}`,
    );
  }
  console.log("\n  read leases (reads go to the client's own server first; ReadIndex at the leader)");
  console.log("  70% reads        local reads   latency of local reads     of all reads               of writes");
  for (const holders of [0, 2, 4]) {
    const f = run(simSeconds, { readLeaseFollowers: holders }, 0.7);
    const localLat = f.local.count === 0 ? "(none)".padEnd(25) : lat(f.local);
    console.log(
      `  ${`${holders} holder(s)`.padEnd(14)} ${`${f.local.count} of ${f.reads.count}`.padStart(13)}   ${localLat}  ${lat(f.reads)}  ${lat(f.writes)}`,
    );
  }
}
