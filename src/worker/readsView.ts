/**
 * A node's leases for reads as the page draws them (docs/reads.md): NodeView's optional
 * `reads` field, built by nodeReadsView in view.ts's nodeView.
 * Times are virtual µs, converted from the node's own clock.
 */
import type { RaftNode } from "../core/raft/node";
import { type ClockState, localTime, virtualAt } from "../core/sim/clock";

export interface NodeReadsView {
  /** A follower's read lease: until when it holds it, and from which leader (null: none). */
  readonly heldUntil: number | null;
  readonly heldFrom: string | null;
  /** On the leader: its read-lease holders, each with the end of its lease on the leader's clock and what it has applied. */
  readonly holders: readonly { readonly node: string; readonly until: number; readonly applied: number }[];
  /** On the leader with read leases: the visible index (every holder has applied up to it). */
  readonly visibleIndex: number | null;
  /** On the leader with leader leases: when its own lease ends (null: it holds none now). */
  readonly leaderLeaseUntil: number | null;
  /** On the leader: the holders its oldest held-back answer (a write's acknowledgement or a read) waits for, until they apply it or their leases run out. */
  readonly waitingOn: readonly { readonly node: string; readonly until: number }[];
}

/** The node's leases for reads at virtual time `nowUs`, or null when neither lease is on. */
export function nodeReadsView(node: RaftNode, clock: ClockState, nowUs: number, heldBack: readonly number[] = []): NodeReadsView | null {
  if (!node.readLeases && !node.leaderLeases) return null;
  const now = localTime(clock, nowUs);
  const toVirtual = (local: number): number => virtualAt(clock, local, Number.NEGATIVE_INFINITY);
  const leader = node.role === "leader";
  const held = leader ? null : node.heldReadLease;
  const valid = held !== null && now < held.until;
  const lease = node.leaderLeaseUntil;
  const holders = leader ? node.readLeaseHolders(now).map((h) => ({ node: h.peer, until: toVirtual(h.until), applied: h.applied })) : [];
  const oldest = heldBack.length === 0 ? null : Math.min(...heldBack);
  return {
    heldUntil: valid ? toVirtual(held.until) : null,
    heldFrom: valid ? held.leader : null,
    holders,
    waitingOn: oldest === null ? [] : holders.filter((h) => h.applied < oldest).map((h) => ({ node: h.node, until: h.until })),
    visibleIndex: leader && node.readLeases ? node.visibleIndex(now) : null,
    leaderLeaseUntil: lease === null || lease <= now ? null : toVirtual(lease),
  };
}
