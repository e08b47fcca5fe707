import { describe, expect, it } from "vitest";
import { leaseLeft, readsAnchor, readsLines, servingLocally } from "../../src/app/ring/readsWords";
import { DEFAULT_SETTINGS } from "../../src/app/params";
import type { NodeReadsView } from "../../src/worker/readsView";

const none: NodeReadsView = { heldUntil: null, heldFrom: null, holders: [], visibleIndex: null, leaderLeaseUntil: null, waitingOn: [] };

describe("the ring's words for leases for reads", () => {
  it("a follower's read lease, the leader's lease, and a write waiting for a holder, in plain words", () => {
    expect(readsLines({ role: "follower" })).toEqual([]);
    expect(readsLines({ role: "follower", reads: { ...none, heldUntil: 7_420_000, heldFrom: "n1" } })).toEqual(["read lease until 7.4 s"]);
    const leader = { ...none, leaderLeaseUntil: 3_250_000, holders: [{ node: "n2", until: 4_300_000, applied: 3 }], waitingOn: [{ node: "n2", until: 4_300_000 }] };
    expect(readsLines({ role: "leader", reads: leader })).toEqual(["leader lease until 3.3 s", "write waits for n2 to apply", "or its lease to end: 4.3 s"]);
    expect(readsLines({ role: "leader", reads: { ...leader, leaderLeaseUntil: null, waitingOn: [] } })).toEqual(["lent 1 read lease"]);
  });

  it("the arc shrinks from full to nothing as the lease runs out", () => {
    const s = { ...DEFAULT_SETTINGS, timing: { ...DEFAULT_SETTINGS.timing, readLeaseMs: 1000 } };
    const n = { reads: { ...none, heldUntil: 5_000_000 } };
    expect(leaseLeft(n, s, 4_000_000)).toBe(1);
    expect(leaseLeft(n, s, 4_750_000)).toBeCloseTo(0.25);
    expect(leaseLeft(n, s, 6_000_000)).toBe(0);
    expect(leaseLeft({ reads: none }, s, 0)).toBeNull();
  });

  it("a follower with a read lease flashes while its reply to a client is on the way", () => {
    const m = (from: string, to: string, label: string) => ({ id: 1, from, to, label, sentAt: 0, deliverAt: 1, detail: "", fate: "ok" as const, dup: false, queued: false });
    const f = { id: "n2", role: "follower" as const, reads: { ...none, heldUntil: 9 } };
    const client = (id: string) => id.startsWith("c");
    expect(servingLocally(f, [m("n2", "c1", "reply")], client)).toBe(true);
    expect(servingLocally(f, [m("n2", "n1", "append reply")], client)).toBe(false);
    expect(servingLocally({ ...f, reads: none }, [m("n2", "c1", "reply")], client)).toBe(false);
  });

  it("the lines run outwards from the ring's centre, so neighbours' lines do not meet", () => {
    const c = { x: 282, y: 250 };
    expect(readsAnchor({ x: 200, y: 400 }, c, 30)).toEqual({ anchor: "end", x: 30 });
    expect(readsAnchor({ x: 360, y: 400 }, c, 30)).toEqual({ anchor: "start", x: -30 });
    expect(readsAnchor({ x: 290, y: 400 }, c, 30)).toEqual({ anchor: "middle", x: 0 });
    // The upper half keeps them centred (the storage sits to the right of the upper-right node).
    expect(readsAnchor({ x: 420, y: 200 }, c, 30)).toEqual({ anchor: "middle", x: 0 });
  });
});
