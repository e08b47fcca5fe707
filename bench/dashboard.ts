/**
 * The dashboard's default run (5 nodes, 2 clients writing, 3 lease holders) played for a
 * simulated hour the way the worker plays it (the Timeline with its snapshots, the journal
 * taken every 200 ms of virtual time), with the simulated seconds per wall second of each
 * 10-minute stretch (per CPU second: on a shared machine wall time counts other loads). Target: >= 1,000 in every stretch, and flat: the last stretch costs
 * what the first one does (issue 15).
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

/**
 * Simulated seconds per CPU second of each 10-minute stretch of the first `minutes`: as the
 * worker plays it (Timeline and journal), or the simulation alone (`plain`).
 */
export function dashboardHour(minutes = 60, seed = 42, plain = false): number[] {
  const scenario = scenarioFromSettings({ ...DEFAULT_SETTINGS, seed });
  const rates: number[] = [];
  if (plain) {
    const sim = buildSimulation(scenario);
    for (let m = 10; m <= minutes; m += 10) {
      const t0 = cpuS();
      sim.advanceTo(m * MIN);
      rates.push((10 * 60) / (cpuS() - t0));
    }
    return rates;
  }
  const { timeline: tl, journal } = newRun(scenario);
  for (let m = 10; m <= minutes; m += 10) {
    const t0 = cpuS();
    while (tl.now < m * MIN) {
      tl.advanceTo(Math.min(m * MIN, tl.now + 200_000));
      journal.takeLines();
      journal.takeDiagram();
    }
    rates.push((10 * 60) / (cpuS() - t0));
  }
  return rates;
}

/** Prints the stretches and the verdict. */
export function printDashboardHour(): void {
  dashboardHour(10, 7); // warm the JIT
  console.log("\nthe dashboard's default run (5 nodes, 2 clients, 3 holders, seed 42) over a simulated hour");
  for (const plain of [false, true]) {
    const rates = dashboardHour(60, 42, plain);
    const low = Math.min(...rates);
    const ratio = (rates.at(-1) as number) / (rates[0] as number);
    console.log(`  ${plain ? "the simulation alone" : "as the worker plays it (timeline, snapshots, journal)"}:`);
    console.log(`    simulated s per CPU s, by 10-minute stretch: ${rates.map((r) => r.toFixed(0)).join(", ")}`);
    console.log(
      `    slowest stretch ${low.toFixed(0)} (${low >= 1000 ? "meets" : "MISSES"} the 1,000 target); last / first ${ratio.toFixed(2)} (${ratio >= 0.8 ? "flat" : "NOT flat"})`,
    );
  }
}

const direct = /dashboard\.m?[jt]s$/.test(process.argv[1] ?? "");
if (direct) printDashboardHour();
