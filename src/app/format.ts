/** Small formatting helpers shared by the panels (time as text is core/sim/time.ts: formatInstant, formatDuration). */
import type { NodeView } from "../worker/protocol";
import { type NodeState, ROLE_TEXT } from "./theme";

export function nodeState(n: NodeView): NodeState {
  return n.status === "down" || n.role === null ? "down" : n.role;
}

/** What a node is, in words: "leader", "follower, paused", "down". */
export function stateText(n: NodeView): string {
  const s = nodeState(n);
  const role = ROLE_TEXT[s];
  return n.status === "paused" ? `${role}, paused` : role;
}

/** The accessible name of a node, e.g. "n3, leader, term 4"; "n6, follower, not a member, term 2" outside the configuration. */
export function nodeLabel(n: NodeView): string {
  return `${n.id}, ${stateText(n)}${n.member ? "" : ", not a member"}, term ${n.term}`;
}
