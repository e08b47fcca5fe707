/**
 * Benchmarks: simulated seconds per wall-clock second and events per second for
 * 3, 5 and 7 nodes, steady state and under the random nemesis, checkers on and off.
 * Prints a table; figures, not pass/fail (timed assertions flake on busy machines).
 * Target: >= 1,000 simulated s per wall s for 5 nodes, steady, checkers on.
 */
import { defaultConfig, mergeConfig } from "../src/core/sim/config";
import { ALL_FAULTS } from "../src/core/sim/nemesis";
import { Simulation } from "../src/core/sim/sim";
import { printDashboardHour } from "./dashboard";
import { printHolderFigures } from "./holders";
import { printReadFigures } from "./reads";

interface Row {
  nodes: number;
  mode: string;
  checkers: boolean;
  simPerWall: number;
  eventsPerSec: number;
}

const SIM_SECONDS = Number(process.env.BENCH_SIM_SECONDS ?? 60);
const REPEATS = 3;

function measure(nodes: number, mode: "steady" | "steady+clients" | "nemesis", checkers: boolean): Row {
  const results: { simPerWall: number; eventsPerSec: number }[] = [];
  for (let r = 0; r < REPEATS; r++) {
    const clients = mode === "steady" ? 0 : 3;
    const cfg = mergeConfig(defaultConfig(), {
      seed: 1000 + r,
      nodes,
      checkers,
      hashTrace: true,
      clients: { count: clients, workload: "random" },
    });
    const horizon = (SIM_SECONDS + 2) * 1e6;
    const sim =
      mode === "nemesis"
        ? new Simulation(cfg, {
            intervalMinUs: 200_000,
            intervalMaxUs: 1_000_000,
            faults: ALL_FAULTS,
            quietAfterUs: horizon,
            includeClients: true,
          })
        : new Simulation(cfg);
    sim.advanceTo(2_000_000); // elect a leader, warm the JIT
    const e0 = sim.eventsProcessed;
    const t0 = performance.now();
    sim.advanceTo(horizon);
    const wall = (performance.now() - t0) / 1000;
    results.push({ simPerWall: SIM_SECONDS / wall, eventsPerSec: (sim.eventsProcessed - e0) / wall });
  }
  results.sort((a, b) => a.simPerWall - b.simPerWall);
  const mid = results[Math.floor(results.length / 2)] as { simPerWall: number; eventsPerSec: number };
  return { nodes, mode, checkers, ...mid };
}

/** Cost of snapshot() and restore() after `minutes` of simulated time with 3 clients writing. */
function snapshotCost(minutes: number): { entries: number; snapshotUs: number; restoreUs: number } {
  const sim = new Simulation(mergeConfig(defaultConfig(), { seed: 7, nodes: 5, clients: { count: 3, workload: "random" } }));
  sim.advanceTo(minutes * 60_000_000);
  const leader = sim.leader();
  const entries = leader === null ? 0 : sim.server(leader).disk.log.length;
  const n = 50;
  let t0 = performance.now();
  let snap = sim.snapshot();
  for (let i = 1; i < n; i++) snap = sim.snapshot();
  const snapshotUs = ((performance.now() - t0) * 1000) / n;
  t0 = performance.now();
  for (let i = 0; i < n; i++) sim.restore(snap);
  const restoreUs = ((performance.now() - t0) * 1000) / n;
  return { entries, snapshotUs, restoreUs };
}

function main(): void {
  console.log(`Lease Lab core benchmark: ${SIM_SECONDS} simulated s per run, median of ${REPEATS} (node ${process.version})\n`);
  // Warm the JIT on every code path before timing anything.
  for (const mode of ["steady", "steady+clients", "nemesis"] as const) measure(5, mode, true);
  console.log("nodes  workload          checkers   sim s / wall s   trace events / s");
  const rows: Row[] = [];
  for (const nodes of [3, 5, 7]) {
    for (const mode of ["steady", "steady+clients", "nemesis"] as const) {
      for (const checkers of [true, false]) {
        const row = measure(nodes, mode, checkers);
        rows.push(row);
        console.log(
          `${String(nodes).padStart(5)}  ${mode.padEnd(16)}  ${(checkers ? "on" : "off").padEnd(8)}  ${row.simPerWall.toFixed(0).padStart(14)}   ${row.eventsPerSec.toFixed(0).padStart(16)}`,
        );
      }
    }
  }
  printHolderFigures();
  console.log("\nsnapshot / restore cost (5 nodes, 3 clients writing)");
  for (const minutes of [1, 10]) {
    const c = snapshotCost(minutes);
    console.log(
      `  after ${minutes} simulated min (${c.entries} log entries): snapshot ${c.snapshotUs.toFixed(0)} µs, restore ${c.restoreUs.toFixed(0)} µs`,
    );
  }
  const target = rows.find((r) => r.nodes === 5 && r.mode === "steady" && r.checkers);
  if (target) {
    const verdict = target.simPerWall >= 1000 ? "meets" : "MISSES";
    console.log(`\n5 nodes, steady, checkers on: ${target.simPerWall.toFixed(0)} simulated s per wall s (${verdict} the 1,000 target)`);
  }
  printReadFigures(SIM_SECONDS);
  printDashboardHour();
}

main();
