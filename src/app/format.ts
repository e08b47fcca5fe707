/** Small formatting helpers shared by the panels. */
import type { NodeView } from "../worker/protocol";
import { type NodeState, ROLE_TEXT } from "./theme";

/** Virtual time as seconds with millisecond precision: "12.345 s". */
export function formatTime(us: number): string {
  return `${(us / 1_000_000).toFixed(3)} s`;
}

/** A duration in the unit that reads best: "850 ms", "2.4 s", "3 min 5 s". */
export function formatDuration(us: number): string {
  const a = Math.abs(us);
  const sign = us < 0 ? "−" : "";
  if (a < 1000) return `${sign}${Math.round(a)} µs`;
  if (a < 1_000_000) return `${sign}${Math.round(a / 1000)} ms`;
  if (a < 60_000_000) return `${sign}${(a / 1_000_000).toFixed(a < 10_000_000 ? 2 : 1)} s`;
  const m = Math.floor(a / 60_000_000);
  const s = Math.round((a - m * 60_000_000) / 1_000_000);
  return `${sign}${m} min ${s} s`;
}

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
