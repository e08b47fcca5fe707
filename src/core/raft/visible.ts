/**
 * Answers held back until what they show is visible (read leases, rules 1 and 2 in leases.ts):
 * a write's acknowledgement, or a read's answer computed from the state at applied index
 * `index`, waits until every current read-lease holder has applied that index or lost its
 * lease. The host keeps them here and lets them go as the node's visible index moves.
 */
import type { ClientReply } from "../kv/messages";
import type { ProcId } from "../sim/trace";
import type { NodeId, Role } from "./types";

export interface HeldAnswer {
  readonly to: ProcId;
  readonly reply: ClientReply;
  /** The index the answer shows (a write's, or the state a read was answered from). */
  readonly index: number;
  /** The term and role it was computed in: if either changes, the answer is withdrawn. */
  readonly term: number;
  readonly role: Role;
}

/** What the node tells the host about visibility. */
export interface VisibilitySource {
  readonly term: number;
  readonly role: Role;
  readonly redirect: NodeId | null;
  visibleIndex(now: number): number;
}

/**
 * Sends every held answer whose index is visible now; withdraws (with "ask the leader") those
 * computed in another term or role. Returns those still held.
 */
export function releaseHeld(held: readonly HeldAnswer[], node: VisibilitySource, now: number, send: (to: ProcId, r: ClientReply) => void): HeldAnswer[] {
  if (held.length === 0) return held as HeldAnswer[];
  const visible = node.visibleIndex(now);
  const still: HeldAnswer[] = [];
  for (const h of held) {
    if (h.term !== node.term || h.role !== node.role) send(h.to, { type: "ClientReply", seq: h.reply.seq, ok: false, leaderHint: node.redirect });
    else if (h.index <= visible) send(h.to, h.reply);
    else still.push(h);
  }
  return still;
}
