/**
 * Where a user's action goes in a live run, and the processes it names. Roles ("leader",
 * "follower", "any-node") are resolved on the page, from what the dashboard shows, before the
 * action leaves it: a worker knows only itself, and the router only the network.
 */
import type { ProcAction } from "../core/live/recording";
import type { Action } from "../core/sim/actions";
import { clusterIds } from "../core/sim/cluster";
import type { SimConfig } from "../core/sim/config";
import type { ProcId } from "../core/sim/trace";

/** The action with every process it names resolved to an id, or why one could not be. */
export function resolveRefs(a: Action, resolve: (ref: string) => ProcId | null): Action | string {
  let missing: string | null = null;
  const r = (ref: string): ProcId => {
    const id = resolve(ref);
    if (id === null) missing ??= `"${ref}": no such process now`;
    return id ?? ref;
  };
  let out: Action;
  switch (a.type) {
    case "partition":
      out = { ...a, groups: a.groups.map((g) => g.map((x) => (x === "others" ? x : r(x)))) };
      break;
    case "cut":
    case "slow-link":
      out = { ...a, from: r(a.from), to: r(a.to) };
      break;
    case "transfer":
      out = { ...a, to: r(a.to) };
      break;
    case "submit":
      out = { ...a, client: r(a.client) };
      break;
    case "release":
    case "gc-pause":
      out = { ...a, holder: r(a.holder) };
      break;
    default:
      out = "proc" in a ? ({ ...a, proc: r(a.proc) } as Action) : a;
  }
  return missing ?? out;
}

/** The process whose worker does a process action: the one it names, the storage, or the leader. */
export function targetOf(a: ProcAction, config: SimConfig, resolve: (ref: string) => ProcId | null): { id: ProcId; why: null } | { id: ""; why: string } {
  switch (a.type) {
    case "clock":
    case "timeout":
      return { id: a.proc, why: null };
    case "submit":
      return { id: a.client, why: null };
    case "release":
    case "gc-pause":
      return { id: a.holder, why: null };
    case "fencing": {
      const s = clusterIds(config).storageId;
      return s === null ? { id: "", why: "fencing: there is no storage (no holders in this run)" } : { id: s, why: null };
    }
    case "transfer":
    case "add-node":
    case "remove-node": {
      const leader = resolve("leader");
      return leader === null ? { id: "", why: `there is no leader to ${a.type === "transfer" ? "hand leadership over" : "change the configuration"}` } : { id: leader, why: null };
    }
  }
}
