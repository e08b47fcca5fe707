/**
 * A run as the user made it: its scenario settings plus the actions taken, each at the
 * virtual time it was taken. This module turns simulator actions back into scenario
 * actions, so a run made by clicking in the browser can be saved as a scenario file
 * (or a share link) and run again, exactly, by the CLI, the tests or another browser.
 *
 * Times are written exactly: "1500ms" when whole milliseconds, "1500250us" otherwise.
 */
import type { Action } from "../sim/sim";

/** A user action and the virtual time (µs) it was taken at. */
export interface TimedAction {
  readonly at: number;
  readonly action: Action;
}

/** A scenario action as written in a file (the input side of the schema). */
export type ScenarioActionInput = { readonly at: string; readonly do: string } & Record<string, unknown>;

/** Exact, readable duration text for µs: "0ms", "1500ms", "2000417us". */
export function formatExactDuration(us: number): string {
  if (!Number.isSafeInteger(us)) throw new Error(`not a whole number of microseconds: ${us}`);
  return us % 1000 === 0 ? `${us / 1000}ms` : `${us}us`;
}

/**
 * A simulator action as scenario actions: one, or two for a clock change that both drifts
 * and jumps (the file has no such action; the two give the same clock, with one trace
 * event more, so the dashboard, which never makes one, does not either).
 */
export function scenarioActionsOf(t: TimedAction): ScenarioActionInput[] {
  const at = formatExactDuration(t.at);
  const a = t.action;
  switch (a.type) {
    case "crash":
    case "restart":
    case "resume":
    case "timeout":
      return [{ at, do: a.type, node: a.proc }];
    case "transfer":
      return [{ at, do: "transfer-leadership", to: a.to }];
    case "add-node":
    case "remove-node":
      return [{ at, do: a.type, node: a.proc }];
    case "pause":
      return [{ at, do: "pause", node: a.proc, for: formatExactDuration(a.durationUs) }];
    case "partition":
      return [{ at, do: "partition", groups: a.groups.map((g) => [...g]) }];
    case "heal":
      return [{ at, do: "heal" }];
    case "cut":
      return [{ at, do: "cut", from: a.from, to: a.to }];
    case "clock": {
      const out: ScenarioActionInput[] = [];
      if (a.driftPpm !== undefined) out.push({ at, do: "drift", node: a.proc, ppm: a.driftPpm });
      if (a.jumpUs !== undefined) out.push({ at, do: "clock-jump", node: a.proc, by: signedExact(a.jumpUs) });
      return out;
    }
    case "network": {
      const out: Record<string, unknown> = { at, do: "network" };
      if (a.dropRate !== undefined) out.dropRate = a.dropRate;
      if (a.duplicateRate !== undefined) out.duplicateRate = a.duplicateRate;
      if (a.latencyMinUs !== undefined) out.latencyMinMs = a.latencyMinUs / 1000;
      if (a.latencyMaxUs !== undefined) out.latencyMaxMs = a.latencyMaxUs / 1000;
      return [out as ScenarioActionInput];
    }
    case "submit": {
      const op = a.op;
      if ("write" in op) {
        const w = op.write;
        if (w.type === "delete") return [{ at, do: "propose", client: a.client, op: "delete", key: w.key }];
        if (w.type === "put" || w.type === "append") return [{ at, do: "propose", client: a.client, op: w.type, key: w.key, value: w.value }];
        throw new Error(`a ${w.type} request cannot be written in a scenario file`);
      }
      const r = op.read;
      if (r.type === "get") return [{ at, do: "read", client: a.client, key: r.key }];
      if (r.type === "lease-ttl") return [{ at, do: "lease-query", client: a.client, name: r.name }];
      if (r.type === "lease-list") return [{ at, do: "lease-query", client: a.client }];
      throw new Error(`a ${(r as { type: string }).type} query cannot be written in a scenario file`);
    }
    case "drop-message":
      return [{ at, do: "drop-message", id: a.id }];
    case "note":
      return [{ at, do: "note", text: a.text }];
    case "release":
      return [{ at, do: "release", holder: a.holder }];
    case "gc-pause":
      return [{ at, do: "gc-pause", holder: a.holder, for: formatExactDuration(a.durationUs) }];
    case "fencing":
      return [{ at, do: "fencing", on: a.on }];
  }
}

function signedExact(us: number): string {
  return us < 0 ? `-${formatExactDuration(-us)}` : formatExactDuration(us);
}
