/**
 * The journal's messages on the wire, by id: their send events, from the send to the delivery
 * or drop. Ids are handed out in order and most messages arrive within milliseconds, so a
 * ring indexed by the id's low bits holds them; one still on the wire when its slot comes
 * round again (a message held in a paused process's inbox) moves to a map. The same answers
 * as a Map, without a hash table's insert and delete for every message.
 */
import type { TraceEvent } from "../core/sim/trace";

/** A message's send event. */
export type Sent = Extract<TraceEvent, { kind: "send" }>;

const RING = 4096;
const MASK = RING - 1;

export class SentIndex {
  private readonly ring: (Sent | null)[] = new Array<Sent | null>(RING).fill(null);
  /** Messages whose slot was taken by a later one while they were still on the wire. */
  private readonly spill = new Map<number, Sent>();

  set(e: Sent): void {
    const k = e.id & MASK;
    const old = this.ring[k] as Sent | null;
    if (old !== null && old.id !== e.id) this.spill.set(old.id, old);
    this.ring[k] = e;
  }

  /** The send event of message `id`, forgotten as it is returned (undefined if not on the wire). */
  take(id: number): Sent | undefined {
    const k = id & MASK;
    const s = this.ring[k] as Sent | null;
    if (s !== null && s.id === id) {
      this.ring[k] = null;
      return s;
    }
    if (this.spill.size === 0) return undefined;
    const x = this.spill.get(id);
    if (x !== undefined) this.spill.delete(id);
    return x;
  }

  /** Every message on the wire, by id (for a saved copy). */
  toMap(): Map<number, Sent> {
    const out = new Map<number, Sent>(this.spill);
    for (const s of this.ring) if (s !== null) out.set(s.id, s);
    return out;
  }

  static fromMap(m: ReadonlyMap<number, Sent>): SentIndex {
    const out = new SentIndex();
    for (const s of m.values()) out.set(s);
    return out;
  }
}
