/** Reads a plain, cloneable view out of a running simulation. Read-only: no Raft logic here. */
import type { Simulation } from "../core/sim/sim";
import { MAX_RECENT_VIOLATIONS, type NodeView, type SimView } from "./protocol";

export function nodeView(sim: Simulation, id: string): NodeView {
  const status = sim.status(id);
  const node = sim.server(id).node;
  if (node !== null) {
    return {
      id,
      status,
      role: node.role,
      term: node.term,
      commitIndex: node.commitIndex,
      lastIndex: node.lastIndex,
      votedFor: node.votedFor,
    };
  }
  // Down: only the simulated disk is left.
  const disk = sim.diskOf(id);
  return {
    id,
    status,
    role: null,
    term: disk?.hard.term ?? 0,
    commitIndex: null,
    lastIndex: disk?.log.length ?? 0,
    votedFor: disk?.hard.votedFor ?? null,
  };
}

export function viewOf(sim: Simulation, playing: boolean, speed: number): SimView {
  const vs = sim.violations;
  return {
    seed: sim.seed,
    now: sim.now,
    playing,
    speed,
    nodes: sim.nodeIds.map((id) => nodeView(sim, id)),
    leader: sim.leader(),
    violations: vs.length,
    recentViolations: vs.slice(-MAX_RECENT_VIOLATIONS).map((v) => ({
      invariant: v.invariant,
      timeUs: v.time,
      nodes: v.nodes.slice(),
      detail: v.detail,
    })),
    traceHash: sim.traceHash,
    eventsProcessed: sim.eventsProcessed,
  };
}
