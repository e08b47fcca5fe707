/**
 * The ring's words and arc for a node's leases for reads (NodeView.reads, docs/reads.md): a
 * follower's read lease, the leader's own lease, and a write held back for a read-lease
 * holder. Pure, so the words are tested without a DOM.
 */
import { formatInstant } from "../../core/sim/time";
import type { NodeView, SimView } from "../../worker/protocol";

/** The lines under a node (at most three, each short), in plain words; none without leases for reads. */
export function readsLines(n: Pick<NodeView, "reads" | "role">): string[] {
  const r = n.reads;
  if (r === undefined) return [];
  const out: string[] = [];
  if (r.heldUntil !== null) out.push(`read lease until ${formatInstant(r.heldUntil, 1)}`);
  if (n.role === "leader") {
    if (r.leaderLeaseUntil !== null) out.push(`leader lease until ${formatInstant(r.leaderLeaseUntil, 1)}`);
    const w = r.waitingOn;
    if (w.length > 0) {
      // Two short lines: the ring's nodes sit close, and a long line would run into a neighbour's.
      const last = Math.max(...w.map((x) => x.until));
      out.push(`write waits for ${w.map((x) => x.node).join(", ")} to apply`);
      out.push(`or ${w.length === 1 ? "its lease" : "their leases"} to end: ${formatInstant(last, 1)}`);
    } else if (r.holders.length > 0 && r.leaderLeaseUntil === null) out.push(`lent ${r.holders.length} read ${r.holders.length === 1 ? "lease" : "leases"}`);
  }
  return out.slice(0, 3);
}

/** The lines of every node that has any. */
export function readsLinesOf(nodes: readonly NodeView[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const n of nodes) {
    const l = readsLines(n);
    if (l.length > 0) out.set(n.id, l);
  }
  return out;
}

/**
 * How much of the lease is left at `now` (0..1), for the arc that shrinks as it runs out: a
 * follower's read lease out of the read lease's length, the leader's own lease out of the
 * minimum election timeout. Null when the node holds neither.
 */
export function leaseLeft(n: Pick<NodeView, "reads">, settings: SimView["settings"], now: number): number | null {
  const r = n.reads;
  if (r === undefined) return null;
  const until = r.heldUntil ?? r.leaderLeaseUntil;
  if (until === null) return null;
  const length = (r.heldUntil !== null ? (settings.timing.readLeaseMs ?? 500) : settings.timing.electionTimeoutMinMs) * 1000;
  return Math.max(0, Math.min(1, (until - now) / length));
}

/** Whether a follower is answering a read from its own copy now: a reply of its is on the way to a client. */
export function servingLocally(n: Pick<NodeView, "id" | "role" | "reads">, messages: SimView["messages"], isClient: (id: string) => boolean): boolean {
  if (n.role === "leader" || n.reads?.heldUntil == null) return false;
  return messages.some((m) => m.from === n.id && m.label === "reply" && isClient(m.to));
}

/**
 * Where a node's reads lines sit: centred under it, except in the ring's lower half, where
 * neighbours sit side by side (the bottom two of five): there a node left of the centre has
 * them end at its right rim (running outwards, to the left), one to the right starts them at
 * its left rim. So two neighbours' lines never run into each other, and the upper nodes'
 * lines stay clear of the storage at the right.
 */
export function readsAnchor(node: { x: number; y: number }, center: { x: number; y: number }, r: number): { anchor: "start" | "middle" | "end"; x: number } {
  if (node.y <= center.y) return { anchor: "middle", x: 0 };
  if (node.x < center.x - r) return { anchor: "end", x: r };
  if (node.x > center.x + r) return { anchor: "start", x: -r };
  return { anchor: "middle", x: 0 };
}
