/**
 * Lease holders at speed: 5 nodes, checkers on, fenced storage, N holders each wanting
 * its own lease (and N holders contending for N/4 leases). Timed in CPU time
 * (process.cpuUsage(), user + system) so a busy shared machine skews it less than wall
 * time. Usage: node dist/bench/holders.mjs [holders...]  (default 20 100).
 * BENCH_SIM_SECONDS sets the simulated span (default 60), BENCH_REPEATS the runs (median).
 */
import { defaultConfig, mergeConfig } from "../src/core/sim/config";
import { Simulation } from "../src/core/sim/sim";

const SIM_SECONDS = Number(process.env.BENCH_SIM_SECONDS ?? 60);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);

function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/** Median simulated s per CPU s (and per wall s) of `holders` holders wanting `names` lease names. */
export function measureHolderRun(holders: number, names: number, seconds = SIM_SECONDS, repeats = REPEATS) {
  const rows: { perCpu: number; perWall: number; events: number }[] = [];
  for (let r = 0; r < repeats; r++) {
    const cfg = mergeConfig(defaultConfig(), {
      seed: 2000 + r,
      nodes: 5,
      holders: { count: holders, leaseNames: Array.from({ length: names }, (_, i) => `lease-${i}`) },
    });
    const sim = new Simulation(cfg);
    sim.advanceTo(3_000_000);
    const e0 = sim.eventsProcessed;
    const c0 = cpuSeconds();
    const w0 = performance.now();
    sim.advanceTo((seconds + 3) * 1e6);
    const cpu = cpuSeconds() - c0;
    const wall = (performance.now() - w0) / 1000;
    rows.push({ perCpu: seconds / cpu, perWall: seconds / wall, events: (sim.eventsProcessed - e0) / cpu });
  }
  rows.sort((a, b) => a.perCpu - b.perCpu);
  return rows[Math.floor(rows.length / 2)] as { perCpu: number; perWall: number; events: number };
}

function main(): void {
  const counts = process.argv.slice(2).map(Number);
  measureHolderRun(20, 20, 10, 1); // warm the JIT
  for (const n of counts.length > 0 ? counts : [20, 100]) {
    for (const names of [n, Math.max(1, n / 4)]) {
      const h = measureHolderRun(n, names);
      console.log(
        `${String(n).padStart(4)} holders, ${String(names).padStart(3)} leases: ${h.perCpu.toFixed(0).padStart(5)} sim s / CPU s, ${h.perWall.toFixed(0).padStart(5)} sim s / wall s, ${h.events.toFixed(0)} events / CPU s`,
      );
    }
  }
}

if (process.argv[1]?.endsWith("holders.mjs")) main();
