/**
 * The dashboard's default run (5 nodes, 2 clients writing, 3 lease holders) played for a
 * simulated hour the way the worker plays it (the Timeline with its snapshots, the journal
 * taken every 200 ms of virtual time), and the simulation alone, with the simulated seconds
 * per wall second and per CPU second of each 10-minute stretch (on a shared machine wall time
 * counts other loads too). Target: >= 1,000 per wall s in every stretch, and flat: the last
 * stretch costs what the early ones do (issue 15).
 */
import { DEFAULT_SETTINGS } from "../src/app/params";
import { buildSimulation } from "../src/core/scenario/runner";
import { newRun } from "../src/worker/host";
import { scenarioFromSettings } from "../src/worker/settings";

const MIN = 60_000_000;

/** CPU seconds this process has used (user and system): wall time on a shared machine counts other loads too. */
function cpuS(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

export interface Stretches {
  /** Simulated seconds per CPU second of each 10-minute stretch. */
  readonly cpu: number[];
  /** The same per wall-clock second. */
  readonly wall: number[];
}

/**
 * Each 10-minute stretch of the first `minutes`: as the worker plays it (Timeline and
 * journal), or the simulation alone (`plain`).
 */
export function dashboardHour(minutes = 60, seed = 42, plain = false): Stretches {
  const scenario = scenarioFromSettings({ ...DEFAULT_SETTINGS, seed });
  const out: Stretches = { cpu: [], wall: [] };
  const sim = plain ? buildSimulation(scenario) : null;
  const run = plain ? null : newRun(scenario);
  for (let m = 10; m <= minutes; m += 10) {
    const c0 = cpuS();
    const w0 = performance.now();
    if (sim !== null) sim.advanceTo(m * MIN);
    else if (run !== null) {
      const tl = run.timeline;
      while (tl.now < m * MIN) {
        tl.advanceTo(Math.min(m * MIN, tl.now + 200_000));
        run.journal.takeLines();
        run.journal.takeDiagram();
      }
    }
    out.cpu.push((10 * 60) / (cpuS() - c0));
    out.wall.push((10 * 60) / ((performance.now() - w0) / 1000));
  }
  return out;
}

const fixed = (xs: number[]): string => xs.map((r) => r.toFixed(0)).join(", ");

/** Prints the stretches and the verdicts. */
export function printDashboardHour(): void {
  dashboardHour(10, 7); // warm the JIT
  console.log("\nthe dashboard's default run (5 nodes, 2 clients, 3 holders, seed 42) over a simulated hour");
  for (const plain of [false, true]) {
    const { cpu, wall } = dashboardHour(60, 42, plain);
    const low = Math.min(...wall);
    const lowCpu = Math.min(...cpu);
    // Flat: the last stretch against the second (the first also holds the election and the first snapshots).
    const ratio = (cpu.at(-1) as number) / (cpu[1] as number);
    console.log(`  ${plain ? "the simulation alone" : "as the worker plays it (timeline, snapshots, journal)"}, by 10-minute stretch:`);
    console.log(`    simulated s per wall s: ${fixed(wall)}; per CPU s: ${fixed(cpu)}`);
    console.log(`    slowest stretch per wall s: ${low.toFixed(0)} (target >= 1,000: ${low >= 1000 ? "meets" : "MISSES"})`);
    console.log(
      `    slowest stretch per CPU s:  ${lowCpu.toFixed(0)} (target >= 1,000: ${lowCpu >= 1000 ? "meets" : "MISSES"}; wall time on a shared machine also counts other loads)`,
    );
    console.log(`    flat: last / second stretch per CPU s ${ratio.toFixed(2)} (target >= 0.80: ${ratio >= 0.8 ? "meets" : "MISSES"})`);
  }
}

const direct = /dashboard\.m?[jt]s$/.test(process.argv[1] ?? "");
if (direct) printDashboardHour();
