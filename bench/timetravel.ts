/**
 * Time-travel benchmark: how long a seek takes (restore the nearest snapshot, replay to
 * the moment, build the view the page draws) at random points of a 10-minute run, and
 * how much memory the worker holds after an hour of simulated time.
 * The dashboard's default run: 5 nodes, 2 clients writing, 3 lease holders.
 * Targets: seek p95 under 100 ms, in the 10-minute run and in the hour-long one; memory bounded (snapshots are thinned to a count and a memory budget);
 * with log compaction, the live heap of a run without time travel flat after the first snapshot.
 * Figures, not pass/fail.
 */
import { DEFAULT_SETTINGS } from "../src/app/params";
import type { Timeline } from "../src/core/replay/timeline";
import { buildSimulation } from "../src/core/scenario/runner";
import { defaultConfig } from "../src/core/sim/config";
import { newRun, SNAPSHOT_BUDGET_BYTES } from "../src/worker/host";
import type { Journal } from "../src/worker/journal";
import { scenarioFromSettings } from "../src/worker/settings";
import { timelineView, viewOf } from "../src/worker/view";

const MIN = 60_000_000;

function build(): { tl: Timeline; journal: Journal } {
  // As the worker's host builds it.
  const { timeline, journal } = newRun(scenarioFromSettings({ ...DEFAULT_SETTINGS, seed: 42 }));
  return { tl: timeline, journal };
}

function view(tl: Timeline, journal: Journal): void {
  viewOf(tl.sim, {
    runId: 1,
    epoch: 2,
    opened: false,
    fresh: true,
    timeline: timelineView(tl),
    settings: DEFAULT_SETTINGS,
    playing: false,
    speed: 1,
    journal,
    lastStep: [],
  });
}

/** Played the way the page plays it: 40 ms ticks at 5× speed (200 ms of virtual time each). */
function play(tl: Timeline, journal: Journal, untilUs: number): void {
  while (tl.now < untilUs) {
    tl.advanceTo(Math.min(untilUs, tl.now + 200_000));
    journal.takeLines();
    journal.takeDiagram();
  }
}

/** Seeks timed in the hour-long run. */
const LATE_SEEKS = 100;

/** CPU milliseconds this process has used: on a shared machine, wall time counts other loads too. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))] as number;
}

function heapMb(): number {
  const g = (globalThis as { gc?: () => void }).gc;
  g?.();
  g?.();
  return process.memoryUsage().heapUsed / 1e6;
}

function main(): void {
  console.log(`Lease Lab time-travel benchmark (node ${process.version}; default dashboard run: 5 nodes, 2 clients, 3 holders)\n`);
  const base = heapMb();
  const { tl, journal } = build();
  let t0 = performance.now();
  play(tl, journal, 10 * MIN);
  const exploreMs = performance.now() - t0;
  console.log(`explored 10 simulated min in ${(exploreMs / 1000).toFixed(1)} s (snapshots kept: ${tl.snapshotCount})`);

  // Seeks to random points, from a fixed seed (an LCG) so runs compare.
  let x = 12345;
  const rnd = (): number => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return x / 2 ** 32;
  };
  for (let i = 0; i < 20; i++) {
    tl.seek(Math.floor(rnd() * tl.end));
    view(tl, journal);
  }
  const times: number[] = [];
  const cpuTimes: number[] = [];
  for (let i = 0; i < 300; i++) {
    const t = Math.floor(rnd() * tl.end);
    t0 = performance.now();
    const c0 = cpuMs();
    tl.seek(t);
    view(tl, journal);
    times.push(performance.now() - t0);
    cpuTimes.push(cpuMs() - c0);
  }
  times.sort((a, b) => a - b);
  cpuTimes.sort((a, b) => a - b);
  const p95 = pct(times, 0.95);
  const cpuP95 = pct(cpuTimes, 0.95);
  console.log(
    `seek to a random point of the 10-min run, view included (300 seeks): p50 ${pct(times, 0.5).toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, max ${(times.at(-1) as number).toFixed(1)} ms (target p95 <= 100 ms: ${p95 <= 100 ? "meets" : "MISSES"})`,
  );
  console.log(
    `  the same seeks in CPU time: p50 ${pct(cpuTimes, 0.5).toFixed(1)} ms, p95 ${cpuP95.toFixed(1)} ms (target p95 <= 100 ms: ${cpuP95 <= 100 ? "meets" : "MISSES"})`,
  );
  t0 = performance.now();
  for (let i = 0; i < 50; i++) {
    tl.seek(tl.end);
    tl.stepBack();
  }
  console.log(`step back at the end of the run: ${((performance.now() - t0) / 50).toFixed(1)} ms each (seek to the end, then one event back)`);

  tl.seek(tl.end);
  const at10 = heapMb() - base;
  const leader = tl.sim.leader();
  const log10 = leader === null ? 0 : tl.sim.server(leader).disk.log.length;
  play(tl, journal, 60 * MIN);
  const at60 = heapMb() - base;
  const leader60 = tl.sim.leader();
  const log60 = leader60 === null ? 0 : tl.sim.server(leader60).disk.log.length;
  const snapMemNote = (globalThis as { gc?: unknown }).gc === undefined ? " (run with --expose-gc for exact figures)" : "";
  console.log(
    `memory held by the run: ${at10.toFixed(0)} MB after 10 simulated min (${log10} log entries), ${at60.toFixed(0)} MB after 60 min (${log60} log entries)${snapMemNote} (target: bounded by the snapshot budget, ${(SNAPSHOT_BUDGET_BYTES / 1e6).toFixed(0)} MB: ${at60 <= SNAPSHOT_BUDGET_BYTES / 1e6 ? "meets" : "MISSES"})`,
  );
  console.log(
    `snapshots kept after 60 min: ${tl.snapshotCount}, ${(tl.end / 1e6 / Math.max(1, tl.snapshotCount - 1)).toFixed(0)} s apart on average, estimated ${(tl.snapshotBytesHeld / 1e6).toFixed(0)} MB (target: within the budget of ${(SNAPSHOT_BUDGET_BYTES / 1e6).toFixed(0)} MB: ${tl.snapshotBytesHeld <= SNAPSHOT_BUDGET_BYTES ? "meets" : "MISSES"}; the interval doubles as the run grows)`,
  );
  const late: number[] = [];
  const lateCpu: number[] = [];
  for (let i = 0; i < LATE_SEEKS; i++) {
    const t = Math.floor(rnd() * tl.end);
    const s0 = performance.now();
    const c0 = cpuMs();
    tl.seek(t);
    view(tl, journal);
    late.push(performance.now() - s0);
    lateCpu.push(cpuMs() - c0);
  }
  late.sort((a, b) => a - b);
  lateCpu.sort((a, b) => a - b);
  const lateP95 = pct(late, 0.95);
  const lateCpuP95 = pct(lateCpu, 0.95);
  console.log(
    `seek in the 60-min run (${LATE_SEEKS} seeks), view included: p50 ${pct(late, 0.5).toFixed(0)} ms, p95 ${lateP95.toFixed(0)} ms, max ${(late.at(-1) as number).toFixed(0)} ms (target p95 <= 100 ms: ${lateP95 <= 100 ? "meets" : "MISSES"})`,
  );
  console.log(
    `  the same seeks in CPU time (this process, GC threads included; wall time on a shared machine also counts other loads): p50 ${pct(lateCpu, 0.5).toFixed(0)} ms, p95 ${lateCpuP95.toFixed(0)} ms (target p95 <= 100 ms: ${lateCpuP95 <= 100 ? "meets" : "MISSES"})`,
  );
  // How much of that is the run itself: the same hour without time travel, with log
  // compaction (the default) and without it. With compaction the live heap should stay
  // flat once every node has taken its first snapshot.
  for (const every of [defaultConfig().raft.snapshotEveryEntries, 0]) {
    const plainBase = heapMb();
    const scenario = scenarioFromSettings({ ...DEFAULT_SETTINGS, seed: 42 });
    const plain = buildSimulation({ ...scenario, cluster: { ...scenario.cluster, snapshotEveryEntries: every } });
    const figures: string[] = [];
    for (const m of [10, 20, 40, 60]) {
      plain.advanceTo(m * MIN);
      const l = plain.leader();
      const logLen = l === null ? 0 : plain.server(l).disk.log.length;
      figures.push(`${m} min ${(heapMb() - plainBase).toFixed(0)} MB (leader's log ${logLen} entries)`);
    }
    const what = every > 0 ? `log compaction every ${every} entries` : "no log compaction";
    console.log(`the same hour with no time travel, ${what}: ${figures.join(", ")}`);
  }
}

main();
