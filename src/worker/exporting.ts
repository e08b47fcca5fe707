/**
 * The current branch as a scenario file: the run's settings, the user's actions with
 * exact times, how far the branch has been run, and where the cursor stands. The CLI
 * runs the file to the same trace hash (`npm run sim -- --scenario FILE`), and a share
 * link is this same text, compressed.
 */
import type { Timeline } from "../core/replay/timeline";
import { scenarioActionsOf } from "../core/scenario/record";
import { formatExactDuration } from "../core/sim/time";
import type { Scenario } from "../core/scenario/schema";

/** A parsed scenario back to file form, without its actions (durations written exactly; defaults written out). */
function scenarioToInput(sc: Scenario): Record<string, unknown> {
  const d = formatExactDuration;
  const out: Record<string, unknown> = {
    version: 1,
    name: sc.name,
    description: sc.description,
    seed: sc.seed,
    duration: d(sc.duration),
    cluster: sc.cluster,
    network: sc.network,
    clients: sc.clients,
    lease: sc.lease,
    holders: sc.holders,
    storage: sc.storage,
  };
  if (sc.nemesis !== undefined) {
    const n = sc.nemesis;
    out.nemesis = {
      ...(n.faults === undefined ? {} : { faults: n.faults }),
      intervalMin: d(n.intervalMin),
      intervalMax: d(n.intervalMax),
      // Written out even when the file left it to its default (3/4 of the run): the export may be longer than the original.
      quietAfter: d(n.quietAfter ?? Math.floor(sc.duration * 0.75)),
      includeClients: n.includeClients,
    };
  }
  out.expect = sc.expect.map((e) => (e.at === undefined ? e : { ...e, at: d(e.at) }));
  return out;
}

export function exportScenarioText(base: Scenario, imported: boolean, tl: Timeline, speed: number): string {
  const input = scenarioToInput(base);
  // A file that was imported keeps its own length (its expectations may look that far); a run made here is as long as it has gone.
  const durationUs = imported ? Math.max(base.duration, tl.end) : tl.end;
  const branch = tl.branches().find((b) => b.id === tl.branchId);
  const { expect, ...settings } = input;
  const doc: Record<string, unknown> = {
    ...settings,
    ...(imported ? {} : { name: `Lease Lab run, seed ${base.seed}${branch && branch.id !== 0 ? `, ${branch.name}` : ""}` }),
    ...(imported ? {} : { description: "Recorded in the Lease Lab dashboard. Run it with: npm run sim -- --scenario <this file>" }),
    duration: formatExactDuration(durationUs),
    actions: tl.actions.flatMap(scenarioActionsOf),
    // A run made here has no expectations; a file's are kept (they may fail on a branch: that is worth knowing).
    ...(imported ? { expect } : {}),
    ui: { speed, at: formatExactDuration(tl.now) },
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}
