import { localTime, newClock, withDrift, withJump } from "../../src/core/sim/clock";
import { createElement } from "react";
import { describe, expect, it } from "vitest";
import {
  BREAK_AT,
  circlePositions,
  computeLayout,
  displayNow,
  driftText,
  dropOpacity,
  dropT,
  holderLabel,
  holderStateWord,
  LABEL_ALL_BELOW,
  LANE_OFFSET,
  LEAD_MS,
  labelledMessages,
  linkSegment,
  messageProgress,
  messageTravel,
  networkCaption,
  type Place,
  pausedText,
  pointAt,
  QUEUE_SPACING,
  queuedPosition,
  queueIndexes,
  ringRadius,
  storageLabel,
  timerFraction,
} from "../../src/app/ring/geometry";
import { RingPanel } from "../../src/app/ring/Ring";
import type { HolderView, MessageView, NodeView } from "../../src/worker/protocol";
import { nodeFixture, holderFixture } from "../support/views";
import { renderWithLab } from "../support/lab";

const S = 1_000_000;

function msg(id: number, from: string, to: string, o: Partial<MessageView> = {}): MessageView {
  return { id, from, to, sentAt: 0, deliverAt: 1000, label: "append", detail: "", fate: "ok", dup: false, queued: false, ...o };
}

function node(o: Partial<NodeView> = {}): NodeView {
  return nodeFixture({ id: "n1", term: 4, electionTimerAt: 2 * S, electionTimerFrom: 1 * S, ...o });
}

function holder(o: Partial<HolderView> = {}): HolderView {
  return holderFixture({ id: "h2", token: 33, ...o });
}

const ids = (prefix: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`);

function place(x: number, y: number, radius: number, queueDir = { x: 1, y: 0 }): Place {
  return { x, y, radius, kind: "node", queueDir };
}

describe("node positions on the ring", () => {
  for (const n of [3, 5, 7]) {
    it(`${n} nodes: evenly spaced on the circle, first at the top, clockwise`, () => {
      const c = { x: 300, y: 200 };
      const R = 120;
      const ps = circlePositions(n, c, R);
      expect(ps).toHaveLength(n);
      for (const p of ps) expect(Math.hypot(p.x - c.x, p.y - c.y)).toBeCloseTo(R, 6);
      expect(ps[0]?.x).toBeCloseTo(300, 6);
      expect(ps[0]?.y).toBeCloseTo(80, 6);
      // Clockwise on screen (y grows down): the second node is to the right of the first.
      expect(ps[1]?.x).toBeGreaterThan(300);
      // Equal gaps between neighbours.
      const chord = 2 * R * Math.sin(Math.PI / n);
      for (let i = 0; i < n; i++) {
        const a = ps[i] as { x: number; y: number };
        const b = ps[(i + 1) % n] as { x: number; y: number };
        expect(Math.hypot(a.x - b.x, a.y - b.y)).toBeCloseTo(chord, 6);
      }
    });
  }

  it("the layout puts nodes on the ring with room between neighbours, holders below, storage to the right", () => {
    for (const [n, h] of [
      [3, 0],
      [5, 3],
      [7, 10],
      [9, 20],
      [5, 50],
    ] as const) {
      const L = computeLayout(ids("n", n), ids("h", h), h > 0 ? "s1" : null, ids("c", 2));
      const nodes = ids("n", n).map((id) => L.places.get(id) as Place);
      for (const p of nodes) expect(Math.hypot(p.x - L.center.x, p.y - L.center.y)).toBeCloseTo(ringRadius(n), 6);
      // Neighbouring nodes (with their timer arcs) never touch.
      const a = nodes[0] as Place;
      const b = nodes[1] as Place;
      expect(Math.hypot(a.x - b.x, a.y - b.y)).toBeGreaterThan(2 * (L.nodeRadius + 8));
      const lowestNode = Math.max(...nodes.map((p) => p.y + L.nodeRadius));
      const holders = ids("h", h).map((id) => L.places.get(id) as Place);
      for (const p of holders) {
        // Below the nodes and their clock lines, inside the viewBox.
        expect(p.y - L.holderSize.h / 2).toBeGreaterThan(lowestNode + 50);
        expect(p.y + L.holderSize.h / 2).toBeLessThanOrEqual(L.height);
        expect(p.x - L.holderSize.w / 2).toBeGreaterThanOrEqual(0);
        expect(p.x + L.holderSize.w / 2).toBeLessThanOrEqual(L.width);
      }
      // Holder boxes do not overlap.
      for (let i = 0; i < holders.length; i++) {
        for (let j = i + 1; j < holders.length; j++) {
          const p = holders[i] as Place;
          const q = holders[j] as Place;
          const apart = Math.abs(p.x - q.x) >= L.holderSize.w || Math.abs(p.y - q.y) >= L.holderSize.h;
          expect(apart).toBe(true);
        }
      }
      const s = L.places.get("s1");
      if (h > 0) {
        expect(s).toBeDefined();
        const st = s as Place;
        expect(st.x - 36).toBeGreaterThan(Math.max(...nodes.map((p) => p.x + L.nodeRadius)));
        expect(st.x + 36).toBeLessThanOrEqual(L.width);
      } else {
        expect(s).toBeUndefined();
      }
      // Clients sit left of the ring.
      for (const c of ids("c", 2))
        expect((L.places.get(c) as Place).x).toBeLessThan(Math.min(...nodes.map((p) => p.x - L.nodeRadius)) - 20);
    }
  });
});

describe("holder rows", () => {
  it("rows hold at most 10 and are balanced; boxes stay wide while a row holds at most 7", () => {
    const rows = (n: number) => {
      const L = computeLayout(ids("n", 5), ids("h", n), "s1", []);
      const byRow = new Map<number, number>();
      for (const id of ids("h", n)) {
        const y = Math.round((L.places.get(id) as Place).y);
        byRow.set(y, (byRow.get(y) ?? 0) + 1);
      }
      return { counts: [...byRow.values()], compact: L.compactHolders };
    };
    expect(rows(3)).toEqual({ counts: [3], compact: false });
    expect(rows(7)).toEqual({ counts: [7], compact: false });
    expect(rows(8)).toEqual({ counts: [8], compact: true });
    expect(rows(12)).toEqual({ counts: [6, 6], compact: false });
    expect(rows(20)).toEqual({ counts: [10, 10], compact: true });
    expect(rows(21)).toEqual({ counts: [7, 7, 7], compact: false });
  });
});

describe("message positions", () => {
  it("progress is 0 at send, 0.5 halfway, 1 at delivery, clamped outside", () => {
    expect(messageProgress(1000, 3000, 1000)).toBe(0);
    expect(messageProgress(1000, 3000, 2000)).toBe(0.5);
    expect(messageProgress(1000, 3000, 3000)).toBe(1);
    expect(messageProgress(1000, 3000, 500)).toBe(0);
    expect(messageProgress(1000, 3000, 9000)).toBe(1);
    // Zero latency: not there before, there at delivery.
    expect(messageProgress(1000, 1000, 999)).toBe(0);
    expect(messageProgress(1000, 1000, 1000)).toBe(1);
  });

  it("an ok message goes from the sender's edge to the receiver's edge, in its own lane", () => {
    const a = place(0, 0, 30);
    const b = place(200, 0, 30);
    const s = linkSegment(a, b);
    const m = msg(1, "n1", "n2", { sentAt: 0, deliverAt: 100 });
    const at = (t: number) => pointAt(s, messageTravel(m, t).t);
    // Travelling along +x, "left" of the direction of travel is -y on screen.
    expect(at(0)).toEqual({ x: 30, y: -LANE_OFFSET });
    expect(at(50)).toEqual({ x: 100, y: -LANE_OFFSET });
    expect(at(100)).toEqual({ x: 170, y: -LANE_OFFSET });
    expect(at(500)).toEqual({ x: 170, y: -LANE_OFFSET });
    // The reply rides the other lane, so the two never overlap.
    const back = linkSegment(b, a);
    expect(pointAt(back, 0.5).y).toBe(LANE_OFFSET);
  });

  it("partitioned and cut messages stop in the middle of the link and show the break", () => {
    for (const fate of ["partition", "cut"] as const) {
      const m = msg(1, "n1", "n2", { sentAt: 0, deliverAt: 100, fate });
      expect(messageTravel(m, 25)).toEqual({ t: 0.25, stopped: false, opacity: 1 });
      expect(messageTravel(m, 50)).toEqual({ t: BREAK_AT, stopped: true, opacity: 1 });
      expect(messageTravel(m, 90)).toEqual({ t: BREAK_AT, stopped: true, opacity: 1 });
    }
  });

  it("a lost message travels the whole way but fades out near the end", () => {
    const m = msg(1, "n1", "n2", { sentAt: 0, deliverAt: 100, fate: "loss" });
    expect(messageTravel(m, 50).opacity).toBe(1);
    expect(messageTravel(m, 100).t).toBe(1);
    expect(messageTravel(m, 100).opacity).toBeLessThan(0.2);
    expect(messageTravel(m, 90).opacity).toBeLessThan(messageTravel(m, 80).opacity);
    expect(messageTravel(msg(2, "a", "b"), 1000).opacity).toBe(1);
  });

  it("queued messages stack next to their receiver in arrival order", () => {
    const ms = [
      msg(5, "n2", "n3", { queued: true, deliverAt: 300 }),
      msg(6, "n1", "n3", { queued: true, deliverAt: 100 }),
      msg(7, "n1", "n4", { queued: true, deliverAt: 200 }),
      msg(8, "n1", "n3", { queued: false, deliverAt: 50 }),
      msg(9, "n4", "n3", { queued: true, deliverAt: 300 }),
    ];
    const qi = queueIndexes(ms);
    expect(qi.get(6)).toBe(0);
    expect(qi.get(5)).toBe(1);
    expect(qi.get(9)).toBe(2); // same arrival as 5: by id
    expect(qi.get(7)).toBe(0); // its own stack at n4
    expect(qi.has(8)).toBe(false);
    const rightSide = place(400, 100, 30, { x: 1, y: 0 });
    const p0 = queuedPosition(rightSide, 0);
    const p2 = queuedPosition(rightSide, 2);
    expect(p0.y).toBe(100);
    expect(p0.x).toBeGreaterThan(400 + 30); // clear of the node
    expect(p2.x - p0.x).toBe(2 * QUEUE_SPACING);
    const leftSide = place(100, 100, 30, { x: -1, y: 0 });
    expect(queuedPosition(leftSide, 1).x).toBeLessThan(100 - 30 - QUEUE_SPACING);
  });

  it("nodes on the left of the ring stack waiting messages to the left, on the right to the right", () => {
    const L = computeLayout(ids("n", 5), [], null, []);
    for (const id of ids("n", 5)) {
      const p = L.places.get(id) as Place;
      expect(p.queueDir.x).toBe(p.x < L.center.x - 1 ? -1 : 1);
    }
  });

  it("labels every message when few are in flight, else only the newest per direction of each link", () => {
    const few = Array.from({ length: LABEL_ALL_BELOW }, (_, i) => msg(i + 1, "n1", "n2", { sentAt: i }));
    expect(labelledMessages(few).size).toBe(LABEL_ALL_BELOW);
    const many = [
      ...Array.from({ length: 30 }, (_, i) => msg(i + 1, "n1", "n2", { sentAt: i })),
      msg(100, "n2", "n1", { sentAt: 3 }),
      msg(101, "n2", "n1", { sentAt: 7 }),
    ];
    expect([...labelledMessages(many)].sort((a, b) => a - b)).toEqual([30, 101]);
  });

  it("drops sit at the break for a partition, near the end for a loss, and fade over one real second", () => {
    expect(dropT("partition")).toBe(BREAK_AT);
    expect(dropT("cut")).toBe(BREAK_AT);
    expect(dropT("loss")).toBeGreaterThan(0.8);
    expect(dropT("down")).toBeLessThan(1);
    // At 0.05× a real second is 50 ms of virtual time.
    expect(dropOpacity(1000, 1000, 0.05)).toBe(1);
    expect(dropOpacity(1000, 1000 + 25_000, 0.05)).toBeCloseTo(0.5, 6);
    expect(dropOpacity(1000, 1000 + 50_000, 0.05)).toBe(0);
    expect(dropOpacity(1000, 1000 + 500_000, 1)).toBeCloseTo(0.5, 6);
  });
});

describe("display time", () => {
  const view = { now: 5 * S, speed: 0.1, playing: true };

  it("paused: exactly the view's time, however long ago it arrived", () => {
    expect(displayNow({ ...view, playing: false }, 1000, 1000)).toBe(5 * S);
    expect(displayNow({ ...view, playing: false }, 1000, 99_000)).toBe(5 * S);
  });

  it("playing: runs on at the view's speed, at most a quarter second of real time ahead", () => {
    expect(displayNow(view, 1000, 1000)).toBe(5 * S);
    // 100 ms real at 0.1× = 10 ms virtual = 10,000 µs.
    expect(displayNow(view, 1000, 1100)).toBeCloseTo(5 * S + 10_000, 6);
    expect(displayNow(view, 1000, 1000 + LEAD_MS)).toBeCloseTo(5 * S + 25_000, 6);
    expect(displayNow(view, 1000, 60_000)).toBeCloseTo(5 * S + 25_000, 6);
    // A clock that went backwards never draws the past.
    expect(displayNow(view, 1000, 900)).toBe(5 * S);
  });

  it("the election timer arc empties from the timer's start to its deadline; none for leaders or down nodes", () => {
    const n = node({ electionTimerFrom: 1 * S, electionTimerAt: 2 * S });
    expect(timerFraction(n, 1 * S)).toBe(1);
    expect(timerFraction(n, 1.5 * S)).toBe(0.5);
    expect(timerFraction(n, 2 * S)).toBe(0);
    expect(timerFraction(n, 3 * S)).toBe(0);
    expect(timerFraction(node({ role: "leader", electionTimerAt: null, electionTimerFrom: null }), 1 * S)).toBeNull();
    expect(timerFraction(node({ status: "down", role: null }), 1 * S)).toBeNull();
    expect(timerFraction(node({ role: "candidate" }), 1.25 * S)).toBe(0.75);
  });

  it("clocks run on between views at their drift (the clock module's conversion)", () => {
    const jumped = withJump(newClock(), 0, 5 * S);
    expect(localTime(jumped, 5 * S + 1000)).toBe(10 * S + 1000);
    expect(localTime(withDrift(newClock(), 0, 200), 6 * S)).toBe(6 * S + 1200);
  });
});

describe("words and accessible names", () => {
  it("holders: id, top-level state in words, token", () => {
    expect(holderLabel(holder())).toBe("holder h2, holding, token 33");
    expect(holderLabel(holder({ state: "jeopardy.renewing" }))).toBe("holder h2, jeopardy, token 33");
    expect(holderLabel(holder({ state: "requesting.sending", token: null }))).toBe("holder h2, requesting");
    expect(holderLabel(holder({ status: "paused" }))).toBe("holder h2, holding, paused, token 33");
    expect(holderLabel(holder({ status: "down", state: "down", token: null }))).toBe("holder h2, down");
    // Down wins over whatever state the statechart last had.
    expect(holderLabel(holder({ status: "down", state: "holding.waiting" }))).toBe("holder h2, down");
    expect(holderStateWord(holder({ state: "grace" }))).toBe("grace");
    expect(holderStateWord(holder({ state: "released" }))).toBe("released");
  });

  it("storage: id and fencing", () => {
    expect(storageLabel({ id: "s1", status: "up", fencing: true })).toBe("storage s1, fencing on");
    expect(storageLabel({ id: "s1", status: "up", fencing: false })).toBe("storage s1, fencing off");
    expect(storageLabel({ id: "s1", status: "down", fencing: true })).toBe("storage s1, down, fencing on");
  });

  it("captions: network faults, drift, pauses", () => {
    expect(networkCaption({ dropRate: 0, duplicateRate: 0 })).toBe("");
    expect(networkCaption({ dropRate: 0.1, duplicateRate: 0.05 })).toBe("loss 10%, duplicates 5%");
    expect(networkCaption({ dropRate: 0, duplicateRate: 0.25 })).toBe("duplicates 25%");
    expect(driftText(0)).toBe("");
    expect(driftText(200)).toBe("0.02 % fast");
    expect(driftText(400_000)).toBe("40 % fast");
    expect(driftText(-100_000)).toBe("10 % slow");
    expect(pausedText(3 * S, 1.75 * S)).toBe("‖ paused 1.25 s");
    expect(pausedText(3 * S, 4 * S)).toBe("‖ paused 0 s");
    expect(pausedText(null, 0)).toBe("‖ paused");
  });
});

describe("the panel", () => {
  it("is a labelled section with a heading, an svg group (not an image: it holds buttons) and a legend", () => {
    const html = renderWithLab(createElement(RingPanel));
    expect(html).toMatch(/^<section class="panel ring-panel" aria-labelledby="ring-title">/);
    expect(html).toContain('<h2 id="ring-title">Cluster</h2>');
    expect(html).toMatch(/<svg[^>]*role="group"[^>]*aria-label="Cluster ring"/);
    expect(html).not.toContain('role="img"');
    // The legend names every role in words, not only by colour.
    for (const word of ["leader", "candidate", "pre-candidate", "follower", "down", "paused", "partition group", "vote"]) {
      expect(html).toContain(word);
    }
  });
});
