import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { type DrawnArrow, quarterBatches } from "../../src/app/diagram/arrowLayer";
import { diagramInput, historyHorizon, inFlightOf, type SpaceTimeData } from "../../src/app/diagram/input";
import {
  type Arrow,
  arrowText,
  batchArrows,
  DENSE_ABOVE,
  distanceToSegment,
  FINE_HEAD,
  dropFraction,
  finishedArrow,
  flightArrow,
  nearestArrow,
  visibleArrows,
} from "../../src/app/diagram/arrows";
import {
  arrowLabelFits,
  fitText,
  placeLabels,
  textWidth,
} from "../../src/app/diagram/labels";
import {
  DEFAULT_SPAN_US,
  frameOf,
  laneLayout,
  localY,
  MAX_SPAN_US,
  MIN_SPAN_US,
  panBy,
  processOrder,
  spanText,
  stepSpan,
  summaryText,
  tickLabel,
  axisTicks,
  timeScale,
  timeToY,
  windowOf,
  yToTime,
  zoomTo,
} from "../../src/app/diagram/layout";
import {
  laneSegments,
  markGlyph,
  roleOf,
  visibleMarks,
} from "../../src/app/diagram/marks";
import { SpaceTimeControls, SpaceTimePanel } from "../../src/app/diagram/SpaceTime";
import { createSpaceTimeDrawing, type ViewportState } from "../../src/app/diagram/spacetimeDrawing";
import type { LabState } from "../../src/app/store";
import {
  DIAGRAM_MESSAGE_LIMIT,
  type DiagramMark,
  type DiagramMessage,
  type HolderView,
  type MessageView,
  type NodeView,
  type StorageView,
} from "../../src/worker/protocol";
import { holderFixture, nodeFixture, viewFixture } from "../support/views";
import { renderWithLab } from "../support/lab";

const S = 1_000_000;
const MS = 1_000;

function done(id: number, from: string, to: string, sentAt: number, endAt: number, o: Partial<DiagramMessage> = {}): DiagramMessage {
  return { id, from, to, sentAt, endAt, label: "append", outcome: "delivered", reason: null, ...o };
}

function flying(id: number, from: string, to: string, sentAt: number, deliverAt: number, o: Partial<MessageView> = {}): MessageView {
  return { id, from, to, sentAt, deliverAt, label: "append", detail: "", fate: "ok", dup: false, queued: false, ...o };
}

function mark(n: number, proc: string, t: number, kind: DiagramMark["kind"], label: string, bad = false): DiagramMark {
  return { n, proc, t, kind, label, bad };
}

const NODES: NodeView[] = [nodeFixture({ id: "n1", role: "leader", term: 2 }), nodeFixture({ id: "n2" }), nodeFixture({ id: "n3" })];
const HOLDERS: HolderView[] = [holderFixture({ id: "h1", state: "idle" })];
const STORAGE: StorageView = { id: "s1", status: "up", fencing: true, resources: [], writes: [], accepted: 0, rejected: 0 };

// Width 720: plot from x 72 to 710, five lanes 127.6 apart; plot from y 50 to 456 (406 tall).
const F = frameOf(720);
const PROCS = processOrder(NODES, HOLDERS, STORAGE);
const L = laneLayout(PROCS, F);
const X = (id: string): number => (L.byId.get(id) as { x: number }).x;

describe("processes and lanes", () => {
  it("one line per process in order: nodes, holders, then the storage, evenly spaced", () => {
    expect(PROCS.map((p) => `${p.kind}:${p.id}`)).toEqual(["node:n1", "node:n2", "node:n3", "holder:h1", "storage:s1"]);
    expect(L.pitch).toBeCloseTo(127.6, 6);
    expect(L.lanes.map((l) => Math.round(l.x * 10) / 10)).toEqual([135.8, 263.4, 391, 518.6, 646.2]);
    expect(L.staggered).toBe(false);
    expect(processOrder(NODES, [], null).map((p) => p.id)).toEqual(["n1", "n2", "n3"]);
    // The leader is "active" (its line gets a leader band when no role mark is kept).
    expect(PROCS.map((p) => p.active)).toEqual([true, false, false, false, false]);
  });

  it("crowded lanes put the names on two rows", () => {
    const many = processOrder(
      Array.from({ length: 9 }, (_, i) => nodeFixture({ id: `n${i + 1}` })),
      Array.from({ length: 20 }, (_, i) => holderFixture({ id: `h${i + 1}` })),
      STORAGE,
    );
    const l = laneLayout(many, F);
    expect(l.lanes).toHaveLength(30);
    expect(l.staggered).toBe(true);
    expect(l.lanes.slice(0, 4).map((x) => x.nameY)).toEqual([18, 36, 18, 36]);
  });

  it("the frame never gets narrower than 360", () => {
    expect(frameOf(100).width).toBe(360);
    expect(frameOf(Number.NaN).width).toBe(720);
    expect(frameOf(1000)).toMatchObject({ plotLeft: 72, plotRight: 990, plotTop: 50, plotBottom: 456 });
  });
});

describe("the window: zoom, scroll, follow", () => {
  it("following, the cursor is the bottom edge; early in a run the window starts at 0", () => {
    expect(windowOf({ spanUs: S, endUs: null }, 5 * S)).toEqual({ t0: 4 * S, t1: 5 * S });
    expect(windowOf({ spanUs: 50 * MS, endUs: null }, 5 * S)).toEqual({ t0: 4.95 * S, t1: 5 * S });
    expect(windowOf({ spanUs: S, endUs: null }, 0.3 * S)).toEqual({ t0: 0, t1: S });
  });

  it("scrolled back, the end is clamped to [span, cursor] (the cursor may have jumped back)", () => {
    expect(windowOf({ spanUs: S, endUs: 3 * S }, 5 * S)).toEqual({ t0: 2 * S, t1: 3 * S });
    expect(windowOf({ spanUs: S, endUs: 7 * S }, 5 * S)).toEqual({ t0: 4 * S, t1: 5 * S });
    expect(windowOf({ spanUs: S, endUs: 3 * S }, 2.5 * S)).toEqual({ t0: 1.5 * S, t1: 2.5 * S });
    expect(windowOf({ spanUs: S, endUs: 0.2 * S }, 5 * S)).toEqual({ t0: 0, t1: S });
  });

  it("panning moves the end, stops at both ends, and reaching the cursor follows again", () => {
    const back = panBy({ spanUs: S, endUs: null }, -0.5 * S, 5 * S);
    expect(back).toEqual({ vp: { spanUs: S, endUs: 4.5 * S }, moved: true });
    expect(panBy({ spanUs: S, endUs: null }, 0.5 * S, 5 * S)).toEqual({ vp: { spanUs: S, endUs: null }, moved: false });
    expect(panBy({ spanUs: S, endUs: 4.5 * S }, S, 5 * S)).toEqual({ vp: { spanUs: S, endUs: null }, moved: true });
    expect(panBy({ spanUs: S, endUs: S }, -0.2 * S, 5 * S)).toEqual({ vp: { spanUs: S, endUs: S }, moved: false });
    expect(panBy({ spanUs: S, endUs: 1.1 * S }, -0.5 * S, 5 * S).vp.endUs).toBe(S);
  });

  it("zoom steps go from 50 ms to 60 s and stay put at the ends", () => {
    expect(stepSpan(S, -1)).toBe(500 * MS);
    expect(stepSpan(S, 1)).toBe(2 * S);
    expect(stepSpan(1.5 * S, -1)).toBe(S);
    expect(stepSpan(1.5 * S, 1)).toBe(2 * S);
    expect(stepSpan(MIN_SPAN_US, -1)).toBe(MIN_SPAN_US);
    expect(stepSpan(MAX_SPAN_US, 1)).toBe(MAX_SPAN_US);
    expect(stepSpan(20 * S, 1)).toBe(30 * S);
    expect(spanText(50 * MS)).toBe("50 ms");
    expect(spanText(1.5 * S)).toBe("1.5 s");
    expect(spanText(60 * S)).toBe("1 min");
  });

  it("zooming keeps following at the cursor, or keeps the anchor time at the same height", () => {
    expect(zoomTo({ spanUs: S, endUs: null }, 200 * MS, 5 * S)).toEqual({ spanUs: 200 * MS, endUs: null });
    // Scrolled back to [2 s, 3 s]; zoom to 500 ms around 2.5 s (the middle): [2.25 s, 2.75 s].
    expect(zoomTo({ spanUs: S, endUs: 3 * S }, 500 * MS, 5 * S)).toEqual({ spanUs: 500 * MS, endUs: 2.75 * S });
    // Around 2.2 s at a fifth of the height: 2.2 s stays at a fifth.
    const z = zoomTo({ spanUs: S, endUs: 3 * S }, 2 * S, 5 * S, { t: 2.2 * S, frac: 0.2 });
    expect(z.endUs).toBeCloseTo(3.8 * S, 3);
    expect(zoomTo({ spanUs: S, endUs: 3 * S }, 1, 5 * S).spanUs).toBe(MIN_SPAN_US);
    expect(zoomTo({ spanUs: S, endUs: 3 * S }, 1e12, 5 * S).spanUs).toBe(MAX_SPAN_US);
  });
});

describe("time to y", () => {
  it("maps the window onto the plot, top to bottom, at every zoom level", () => {
    const w1 = { t0: 4 * S, t1: 5 * S };
    expect(timeToY(4 * S, w1, F)).toBe(50);
    expect(timeToY(4.5 * S, w1, F)).toBe(253);
    expect(timeToY(5 * S, w1, F)).toBe(456);
    const w2 = windowOf({ spanUs: 100 * MS, endUs: null }, 5 * S);
    expect(timeToY(4.95 * S, w2, F)).toBeCloseTo(253, 6);
    expect(timeToY(4.9 * S, w2, F)).toBeCloseTo(50, 6);
    const w3 = windowOf({ spanUs: 60 * S, endUs: null }, 90 * S);
    expect(timeToY(60 * S, w3, F)).toBeCloseTo(253, 6);
    expect(yToTime(253, w3, F)).toBeCloseTo(60 * S, 3);
  });

  it("the translated group: local y plus the offset is the screen y; the origin is kept while the window slides", () => {
    const w = { t0: 4 * S, t1: 5 * S };
    const s = timeScale(w, F, null);
    expect(s.origin).toBe(4 * S);
    expect(localY(4.5 * S, s) + s.offset).toBeCloseTo(253, 6);
    const w2 = { t0: 4.1 * S, t1: 5.1 * S };
    const s2 = timeScale(w2, F, s);
    expect(s2.origin).toBe(4 * S);
    expect(localY(4.5 * S, s2) + s2.offset).toBeCloseTo(timeToY(4.5 * S, w2, F), 6);
    // A new zoom or a far jump moves the origin.
    expect(timeScale({ t0: 4 * S, t1: 4.5 * S }, F, s).origin).toBe(4 * S);
    expect(timeScale({ t0: 900 * S, t1: 901 * S }, F, s).origin).toBe(900 * S);
  });

  it("ticks are at least 46 px apart and labelled to the step", () => {
    const t = axisTicks({ t0: 4 * S, t1: 5 * S }, F);
    expect(t.step).toBe(200 * MS);
    expect(t.times).toEqual([4 * S, 4.2 * S, 4.4 * S, 4.6 * S, 4.8 * S, 5 * S]);
    expect(tickLabel(4.2 * S, 200 * MS)).toBe("4.2 s");
    expect(tickLabel(4.95 * S, 10 * MS)).toBe("4.95 s");
    expect(tickLabel(4.955 * S, 5 * MS)).toBe("4.955 s");
    expect(tickLabel(40 * S, 10 * S)).toBe("40 s");
    expect(axisTicks({ t0: -0.5 * S, t1: 0.5 * S }, F).times[0]).toBe(0);
  });
});

describe("arrows", () => {
  const w = { t0: 4 * S, t1: 5 * S };

  it("culling keeps exactly the messages that overlap the window, between processes with a line", () => {
    const finished = [
      done(1, "n1", "n2", 3.5 * S, 3.9 * S), // before
      done(2, "n1", "n2", 3.9 * S, 4.1 * S), // crosses the top
      done(3, "n2", "n1", 4.2 * S, 4.3 * S), // inside
      done(4, "n1", "n3", 4 * S - 20, 4 * S), // ends exactly at the top
      done(5, "n1", "c1", 4.4 * S, 4.5 * S), // a client: no line
      done(6, "n3", "n1", 4.9 * S, 5 * S), // ends at the bottom
    ];
    const inFlight = [flying(7, "n1", "n2", 4.99 * S, 5.01 * S), flying(8, "h1", "n1", 3 * S, 3.5 * S, { queued: true })];
    const got = visibleArrows(finished, inFlight, L.byId, w, 5 * S);
    expect(got.map((a) => a.id)).toEqual([2, 3, 4, 6, 7]);
    // The same message in both lists (ended between two views) is drawn once, as finished.
    const twice = visibleArrows([done(9, "n1", "n2", 4.5 * S, 4.6 * S)], [flying(9, "n1", "n2", 4.5 * S, 4.6 * S)], L.byId, w, 5 * S);
    expect(twice).toHaveLength(1);
    expect(twice[0]?.state).toBe("delivered");
  });

  it("a delivered message goes from (sender, sent) to (receiver, arrived)", () => {
    const a = finishedArrow(done(1, "n1", "n3", 4.2 * S, 4.215 * S), L.byId) as Arrow;
    expect(a).toMatchObject({ state: "delivered", xFrom: X("n1"), tFrom: 4.2 * S, xEnd: X("n3"), tEnd: 4.215 * S });
    expect(finishedArrow(done(1, "n1", "c2", 0, 1), L.byId)).toBeNull();
  });

  it("a dropped message ends at its drop time, partway, by reason", () => {
    const part = finishedArrow(done(2, "n1", "n3", 4.2 * S, 4.25 * S, { outcome: "dropped", reason: "partition" }), L.byId) as Arrow;
    expect(part.state).toBe("dropped");
    expect(part.tEnd).toBe(4.25 * S);
    expect(part.xEnd).toBeCloseTo(X("n1") + 0.5 * (X("n3") - X("n1")), 6);
    const down = finishedArrow(done(3, "n1", "n2", 4.2 * S, 4.21 * S, { outcome: "dropped", reason: "n2 is down" }), L.byId) as Arrow;
    expect(down.xEnd).toBeCloseTo(X("n1") + 0.85 * (X("n2") - X("n1")), 6);
    expect(dropFraction("lost on the network")).toBe(0.65);
    expect(dropFraction(null)).toBe(0.65);
    expect(arrowText(part)).toBe("append n1 → n3: sent 4.200 s, dropped 4.250 s (partition)");
  });

  it("a message in flight stops at the cursor, where it is now", () => {
    const a = flightArrow(flying(7, "n1", "n3", 4.9 * S, 5.1 * S), L.byId, 5 * S) as Arrow;
    expect(a.state).toBe("flight");
    expect(a.tEnd).toBe(5 * S);
    expect(a.xEnd).toBeCloseTo((X("n1") + X("n3")) / 2, 6);
    expect(timeToY(a.tEnd, w, F)).toBe(F.plotBottom);
    // Waiting at a paused receiver: on its line, at its arrival.
    const q = flightArrow(flying(8, "n1", "h1", 4.5 * S, 4.6 * S, { queued: true }), L.byId, 5 * S) as Arrow;
    expect(q).toMatchObject({ state: "queued", xEnd: X("h1"), tEnd: 4.6 * S });
    // Doomed: still drawn to the cursor, with its fate.
    const lost = flightArrow(flying(9, "n2", "n1", 4.9 * S, 5.1 * S, { fate: "loss" }), L.byId, 5 * S) as Arrow;
    expect(lost.reason).toBe("loss");
    expect(arrowText(lost)).toBe("append n2 → n1: sent 4.900 s, in flight, due 5.100 s, will be lost");
  });

  it("labels fit along an arrow only when it is long enough; placement never overlaps", () => {
    // "append": 6 × 12 × 0.58 = 41.76 wide, plus 2 × 14 of padding.
    expect(textWidth("append", 12)).toBeCloseTo(41.76, 6);
    expect(arrowLabelFits("append", 0, 0, 70, 0)).toBe(true);
    expect(arrowLabelFits("append", 0, 0, 69, 0)).toBe(false);
    expect(arrowLabelFits("heartbeat", 0, 0, 127.6, 10)).toBe(true);
    const kept = placeLabels(
      [
        { key: "a", box: { x: 0, y: 0, w: 50, h: 15 } },
        { key: "b", box: { x: 40, y: 10, w: 50, h: 15 } },
        { key: "c", box: { x: 60, y: 0, w: 50, h: 10 } },
        { key: "d", box: { x: 200, y: 0, w: 10, h: 10 } },
      ],
      2,
    );
    expect([...kept]).toEqual(["a", "c"]);
    expect(fitText("holding (token 7)", 12, 60)).toBe("holding…");
    expect(fitText("ok", 12, 60)).toBe("ok");
    expect(fitText("holding", 12, 10)).toBe("");
  });

  it("the pointer picks the nearest arrow within reach", () => {
    expect(distanceToSegment(5, 5, 0, 0, 10, 0)).toBe(5);
    expect(distanceToSegment(-3, 4, 0, 0, 10, 0)).toBe(5);
    const arrows = [
      { id: 1, x1: 0, y1: 0, x2: 100, y2: 0 },
      { id: 2, x1: 0, y1: 10, x2: 100, y2: 10 },
    ];
    expect(nearestArrow(arrows, 50, 3, 7)?.id).toBe(1);
    expect(nearestArrow(arrows, 50, 8, 7)?.id).toBe(2);
    expect(nearestArrow(arrows, 50, 30, 7)).toBeNull();
  });
});

describe("dense arrows", () => {
  it("are batched into one path per colour and kind, with heads on delivered ones and ✕ on dropped ones", () => {
    const b = batchArrows([
      { x1: 0, y1: 0, x2: 100, y2: 0, color: "#0072B2", dropped: false },
      { x1: 0, y1: 10, x2: 100, y2: 10, color: "#0072B2", dropped: false },
      { x1: 100, y1: 20, x2: 50, y2: 30, color: "#E69F00", dropped: true },
    ]);
    expect(b.map((x) => x.key)).toEqual(["line|#0072B2", "head|#0072B2", "dropped|#E69F00", "x"]);
    expect(b[0]?.d).toBe("M0,0L100,0M0,10L100,10");
    // The head's tip is at the end, its base 8 back and 3.5 either side.
    expect(b[1]?.d).toBe("M100,0L92,3.5L92,-3.5ZM100,10L92,13.5L92,6.5Z");
    expect(b[3]?.d).toBe("M45.5,25.5l9,9m0,-9l-9,9");
    expect(DENSE_ABOVE).toBe(1500);
  });
});

describe("batches by quarter", () => {
  const arrow = (id: number, t: number): DrawnArrow => ({
    a: { id, tFrom: t, state: "delivered" } as DrawnArrow["a"],
    src: null,
    color: "#0072B2",
    x1: 0,
    y1: t / 1000,
    x2: 100,
    y2: t / 1000 + 5,
  });
  it("a quarter whose arrows did not change is not batched again; one that changed is", () => {
    const q = quarterBatches();
    const list = Array.from({ length: 40 }, (_, i) => arrow(i + 1, i * 100));
    const first = q.of(list, 1000, "g", FINE_HEAD);
    // Four quarters (0-1000, ..., 3000-4000), a line and a head path each.
    expect(first.map((b) => b.key)).toEqual(["0|line|#0072B2", "0|head|#0072B2", "1|line|#0072B2", "1|head|#0072B2", "2|line|#0072B2", "2|head|#0072B2", "3|line|#0072B2", "3|head|#0072B2"]);
    const second = q.of(list.concat([arrow(41, 3950)]), 1000, "g", FINE_HEAD);
    expect(second.slice(0, 6)).toEqual(first.slice(0, 6));
    for (let i = 0; i < 6; i++) expect(second[i]).toBe(first[i]);
    expect(second[6]).not.toBe(first[6]);
    expect(second[6]?.d.match(/M/g)).toHaveLength(11);
    // Another zoom (key) batches everything again.
    const third = q.of(list, 1000, "other", FINE_HEAD);
    expect(third[0]).not.toBe(first[0]);
  });
});

describe("marks and segments", () => {
  it("glyphs and roles from the marks' words", () => {
    expect(roleOf("leader T4")).toBe("leader");
    expect(roleOf("pre-candidate T5")).toBe("precandidate");
    expect(roleOf("follower T4")).toBe("follower");
    expect(markGlyph({ kind: "role", label: "leader T4", bad: false })).toBe("★");
    expect(markGlyph({ kind: "crash", label: "crashed", bad: false })).toBe("✕");
    expect(markGlyph({ kind: "storage", label: "rejected token 5", bad: true })).toBe("✗");
    expect(markGlyph({ kind: "storage", label: "accepted token 6", bad: false })).toBe("✓");
  });

  it("down, paused, leading and holding segments, closed by the next mark or open at the cursor", () => {
    const procs = processOrder(
      [nodeFixture({ id: "n1" }), nodeFixture({ id: "n2", status: "down", role: null }), nodeFixture({ id: "n3", status: "paused" })],
      [holderFixture({ id: "h1", state: "holding.waiting" })],
      null,
    );
    const marks = [
      mark(1, "n1", 1 * S, "role", "leader T2"),
      mark(2, "n1", 2 * S, "crash", "crashed"),
      mark(3, "n1", 3 * S, "restart", "restarted"),
      mark(4, "h1", 1.5 * S, "holder", "holding (token 7)"),
      mark(5, "h1", 2.5 * S, "holder", "lost", true),
      mark(6, "h1", 4 * S, "pause", "paused"),
    ];
    const segs = laneSegments(marks, procs, 5 * S).map((s) => [s.proc, s.kind, s.from, s.to, s.open]);
    expect(segs).toEqual([
      ["n1", "leader", 1 * S, 2 * S, false],
      ["n1", "down", 2 * S, 3 * S, false],
      // Down now with no mark kept: down since before the kept history.
      ["n2", "down", Number.NEGATIVE_INFINITY, 5 * S, true],
      ["n3", "paused", Number.NEGATIVE_INFINITY, 5 * S, true],
      ["h1", "holding", 1.5 * S, 2.5 * S, false],
      ["h1", "paused", 4 * S, 5 * S, true],
    ]);
  });

  it("marks are culled to the window and to processes with a line", () => {
    const marks = [
      mark(1, "n1", 3 * S, "timeout", "timeout"),
      mark(2, "n1", 4.5 * S, "role", "candidate T3"),
      mark(3, "c1", 4.5 * S, "clock", "x"),
    ];
    expect(visibleMarks(marks, L.byId, { t0: 4 * S, t1: 5 * S }).map((m) => m.n)).toEqual([2]);
  });

  it("the summary says what is shown", () => {
    expect(summaryText(12, 3, 9, { t0: 3.2 * S, t1: 5.2 * S })).toBe("12 messages between 3.2 s and 5.2 s, 3 state changes, 9 processes");
    expect(summaryText(1, 1, 1, { t0: 0, t1: 0.2 * S })).toBe("1 message between 0.00 s and 0.20 s, 1 state change, 1 process");
  });
});

describe("what the drawing is fed", () => {
  it("messages that ended between the live and the panel view are kept until the finished list brings them", () => {
    const live = [flying(2, "n1", "n2", 0, 10)];
    const panel = [flying(1, "n1", "n2", 0, 5), flying(2, "n1", "n2", 0, 10), flying(3, "n1", "n2", 0, 5, { fate: "loss" })];
    expect(inFlightOf(live, panel).map((m) => m.id)).toEqual([2, 1]);
    expect(inFlightOf(live, null)).toBe(live);
  });

  it("the history horizon is only set once a bounded list is full", () => {
    expect(historyHorizon([done(1, "n1", "n2", 0, 5)], [])).toBeNull();
    const full = Array.from({ length: DIAGRAM_MESSAGE_LIMIT }, (_, i) => done(i, "n1", "n2", i, i + 7));
    expect(historyHorizon(full, [])).toBe(7);
  });

  it("takes the cursor from the live view and the lists from the store", () => {
    const view = viewFixture({ now: 4 * S, nodes: NODES, messages: [flying(1, "n1", "n2", 0, 5)] });
    const liveView = viewFixture({ now: 4.04 * S, nodes: NODES, messages: [] });
    const st = {
      view,
      liveView,
      diagramMessages: [done(9, "n1", "n2", 1, 2)],
      diagramMarks: [],
      focusMessage: 9,
      hover: null,
      highlight: ["n2"],
    } as unknown as LabState;
    const d = diagramInput(st) as SpaceTimeData;
    expect(d.now).toBe(4.04 * S);
    expect(d.inFlight.map((m) => m.id)).toEqual([1]);
    expect(d.finished.map((m) => m.id)).toEqual([9]);
    expect(d.focus).toBe(9);
    expect(d.highlight).toEqual(["n2"]);
  });
});

describe("the panel", () => {
  it("is a labelled section with a heading, real buttons, and an svg image marked for export", () => {
    const html = renderWithLab(createElement(SpaceTimePanel));
    expect(html).toMatch(/^<section class="panel spacetime-panel" aria-labelledby="spacetime-title">/);
    expect(html).toContain('<h2 id="spacetime-title">Space-time diagram</h2>');
    expect(html).toMatch(/<svg[^>]*role="img"/);
    expect(html).toMatch(/<svg[^>]*data-export="spacetime"/);
    expect(html).toMatch(/<button[^>]*aria-label="Zoom in"[^>]*>\+<\/button>/);
    expect(html).toMatch(/<button[^>]*aria-label="Zoom out"[^>]*>−<\/button>/);
    expect(html).toMatch(/<button[^>]*aria-pressed="true"[^>]*>Follow now<\/button>/);
    expect(html).toContain("Ctrl/⌘ + wheel zooms");
    expect(html).toContain(">1 s<");
  });

  it("the buttons reflect the view state", () => {
    const vp: ViewportState = {
      spanUs: 50 * MS,
      following: false,
      canZoomIn: false,
      canZoomOut: true,
      canPanEarlier: true,
      canPanLater: false,
    };
    const html = renderToStaticMarkup(createElement(SpaceTimeControls, { vp, onZoom: () => {}, onPan: () => {}, onFollow: () => {} }));
    expect(html).toMatch(/<button[^>]*aria-label="Zoom in"[^>]*disabled=""/);
    expect(html).not.toMatch(/<button[^>]*aria-label="Zoom out"[^>]*disabled=""/);
    expect(html).toMatch(/<button[^>]*aria-pressed="false"[^>]*>Follow now<\/button>/);
    expect(html).toContain(">50 ms<");
    expect(html).toMatch(/<button[^>]*disabled=""[^>]*>Later ↓<\/button>/);
  });
});

// ---------------------------------------------------------------- the drawing, in a small DOM
//
// The repo's tests run in Node without jsdom or happy-dom, so the drawing is run against
// the few DOM features d3's selections and the drawing use: elements with attributes,
// children, text, simple "tag.class" selectors, document order and event listeners.

const SVG_NS = "http://www.w3.org/2000/svg";

class FakeText {
  readonly nodeType = 3;
  parentNode: FakeElement | null = null;
  constructor(public data: string) {}
  get textContent(): string {
    return this.data;
  }
}

type Listener = (e: unknown) => void;

class FakeElement {
  readonly nodeType = 1;
  parentNode: FakeElement | null = null;
  childNodes: (FakeElement | FakeText)[] = [];
  readonly attrs = new Map<string, string>();
  readonly listeners = new Map<string, Listener[]>();
  constructor(
    readonly ownerDocument: FakeDocument,
    readonly namespaceURI: string,
    readonly localName: string,
  ) {}
  get tagName(): string {
    return this.localName;
  }
  get children(): FakeElement[] {
    return this.childNodes.filter((c): c is FakeElement => c instanceof FakeElement);
  }
  getAttribute(n: string): string | null {
    return this.attrs.get(n) ?? null;
  }
  setAttribute(n: string, v: unknown): void {
    this.attrs.set(n, String(v));
  }
  removeAttribute(n: string): void {
    this.attrs.delete(n);
  }
  hasAttribute(n: string): boolean {
    return this.attrs.has(n);
  }
  appendChild<T extends FakeElement | FakeText>(c: T): T {
    return this.insertBefore(c, null);
  }
  insertBefore<T extends FakeElement | FakeText>(c: T, ref: FakeElement | FakeText | null): T {
    c.parentNode?.removeChild(c);
    const i = ref === null ? -1 : this.childNodes.indexOf(ref);
    if (i < 0) this.childNodes.push(c);
    else this.childNodes.splice(i, 0, c);
    c.parentNode = this;
    return c;
  }
  removeChild<T extends FakeElement | FakeText>(c: T): T {
    const i = this.childNodes.indexOf(c);
    if (i >= 0) this.childNodes.splice(i, 1);
    c.parentNode = null;
    return c;
  }
  get textContent(): string {
    return this.childNodes.map((c) => c.textContent).join("");
  }
  set textContent(v: string) {
    for (const c of this.childNodes) c.parentNode = null;
    this.childNodes = [];
    if (v === "" || v === null || v === undefined) return;
    const t = new FakeText(String(v));
    t.parentNode = this;
    this.childNodes.push(t);
  }
  get classes(): string[] {
    return (this.getAttribute("class") ?? "").split(/\s+/).filter((x) => x !== "");
  }
  matches(sel: string): boolean {
    return sel.split(",").some((one) => {
      const s = one.trim();
      if (s === "*") return true;
      const [tag, ...cls] = s.split(".");
      if (tag !== "" && tag !== this.localName) return false;
      const mine = this.classes;
      return cls.every((c) => mine.includes(c));
    });
  }
  querySelectorAll(sel: string): FakeElement[] {
    const out: FakeElement[] = [];
    const walk = (e: FakeElement): void => {
      for (const c of e.children) {
        if (c.matches(sel)) out.push(c);
        walk(c);
      }
    };
    walk(this);
    return out;
  }
  querySelector(sel: string): FakeElement | null {
    return this.querySelectorAll(sel)[0] ?? null;
  }
  /** 4 (following) when `other` comes after this element in document order, 2 (preceding) otherwise. */
  compareDocumentPosition(other: FakeElement): number {
    const path = (e: FakeElement): number[] => {
      const p: number[] = [];
      let x: FakeElement = e;
      while (x.parentNode !== null) {
        p.unshift(x.parentNode.childNodes.indexOf(x));
        x = x.parentNode;
      }
      return p;
    };
    const a = path(this);
    const b = path(other);
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return (a[i] as number) < (b[i] as number) ? 4 : 2;
    return a.length < b.length ? 4 : 2;
  }
  addEventListener(type: string, fn: Listener): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), fn]);
  }
  removeEventListener(type: string, fn: Listener): void {
    this.listeners.set(
      type,
      (this.listeners.get(type) ?? []).filter((f) => f !== fn),
    );
  }
  dispatch(type: string, init: Record<string, unknown> = {}): { prevented: boolean } {
    const ev = {
      type,
      prevented: false,
      button: 0,
      isPrimary: true,
      pointerId: 1,
      deltaMode: 0,
      deltaX: 0,
      deltaY: 0,
      ctrlKey: false,
      metaKey: false,
      shiftKey: false,
      ...init,
      preventDefault() {
        this.prevented = true;
      },
    };
    for (const f of this.listeners.get(type) ?? []) f.call(this, ev);
    return ev;
  }
  getBoundingClientRect(): { left: number; top: number; width: number; height: number } {
    return { left: 0, top: 0, width: Number(this.getAttribute("width") ?? 720), height: Number(this.getAttribute("height") ?? 470) };
  }
}

class FakeDocument {
  readonly documentElement = { namespaceURI: SVG_NS };
  createElementNS(ns: string, name: string): FakeElement {
    return new FakeElement(this, ns, name);
  }
  createElement(name: string): FakeElement {
    return new FakeElement(this, "http://www.w3.org/1999/xhtml", name);
  }
}

interface Calls {
  focus: (number | null)[];
  inspect: number[];
  viewport: ViewportState[];
}

function setup(width = 720) {
  const doc = new FakeDocument();
  const svg = doc.createElementNS(SVG_NS, "svg");
  const calls: Calls = { focus: [], inspect: [], viewport: [] };
  const drawing = createSpaceTimeDrawing(
    svg as unknown as SVGSVGElement,
    { focus: (id) => calls.focus.push(id), inspect: (id) => calls.inspect.push(id), viewport: (v) => calls.viewport.push(v) },
    width,
  );
  return { svg, drawing, calls };
}

function data(over: Partial<SpaceTimeData> = {}): SpaceTimeData {
  return {
    runId: 1,
    now: 5 * S,
    playing: false,
    nodes: NODES,
    holders: HOLDERS,
    storage: STORAGE,
    finished: [],
    inFlight: [],
    marks: [],
    horizon: null,
    focus: null,
    highlight: [],
    ...over,
  };
}

const msgs = (svg: FakeElement): FakeElement[] => svg.querySelectorAll("path.st-msg");
const ids = (svg: FakeElement): number[] => msgs(svg).map((e) => Number(e.getAttribute("data-id")));

/** Screen coordinates of a message path: its d plus the timed group's translation. */
function ends(svg: FakeElement, id: number): [number, number, number, number] {
  const p = msgs(svg).find((e) => e.getAttribute("data-id") === String(id));
  if (p === undefined) throw new Error(`no arrow ${id}`);
  const m = /^M([-\d.]+),([-\d.]+)L([-\d.]+),([-\d.]+)$/.exec(p.getAttribute("d") ?? "");
  const t = /translate\(0,([-\d.]+)\)/.exec(svg.querySelector("g.st-content")?.getAttribute("transform") ?? "");
  if (m === null || t === null) throw new Error("unexpected path");
  const dy = Number(t[1]);
  return [Number(m[1]), Number(m[2]) + dy, Number(m[3]), Number(m[4]) + dy];
}

describe("the drawing", () => {
  const finished = [
    done(1, "n1", "n2", 3.5 * S, 3.6 * S), // before the window [4 s, 5 s]
    done(2, "n1", "n2", 4.5 * S, 4.515 * S),
    done(3, "n2", "n3", 4.6 * S, 4.65 * S, { outcome: "dropped", reason: "partition", label: "vote" }),
    done(4, "h1", "s1", 4.7 * S, 4.72 * S, { label: "write" }),
  ];
  const inFlight = [flying(5, "n1", "n3", 4.9 * S, 5.1 * S, { label: "heartbeat" })];

  it("owns its svg: a title, one line and one name per process, in order", () => {
    const { svg, drawing } = setup();
    drawing.update(data());
    expect(svg.children[0]?.localName).toBe("title");
    expect(svg.querySelector("title")?.textContent).toBe(
      "Space-time diagram: 0 messages between 4.00 s and 5.00 s, 0 state changes, 5 processes",
    );
    expect(svg.getAttribute("viewBox")).toBe("0 0 720 470");
    const lanes = svg.querySelectorAll("line.st-lane");
    expect(lanes.map((l) => l.getAttribute("x1"))).toEqual(["135.8", "263.4", "391", "518.6", "646.2"]);
    expect(lanes.map((l) => [l.getAttribute("y1"), l.getAttribute("y2")])).toEqual(Array(5).fill(["50", "456"]));
    expect(svg.querySelectorAll("text.st-name-text").map((t) => t.textContent)).toEqual(["n1 ★", "n2", "n3", "h1", "s1"]);
  });

  it("draws arrows for the messages in the window: delivered with a head, dropped dashed with a ✕, in flight to the cursor", () => {
    const { svg, drawing } = setup();
    drawing.update(data({ finished, inFlight }));
    expect(ids(svg)).toEqual([2, 3, 4, 5]);
    expect(svg.getAttribute("aria-label")).toBe("Space-time diagram: 4 messages between 4.00 s and 5.00 s, 0 state changes, 5 processes");
    // Delivered: (n1, 4.5 s) -> (n2, 4.515 s).
    const [x1, y1, x2, y2] = ends(svg, 2);
    expect(x1).toBeCloseTo(135.8, 1);
    expect(y1).toBeCloseTo(253, 1);
    expect(x2).toBeCloseTo(263.4, 1);
    expect(y2).toBeCloseTo(259.09, 1);
    const el = (id: number) => msgs(svg).find((e) => e.getAttribute("data-id") === String(id)) as FakeElement;
    expect(el(2).classes).toContain("is-delivered");
    expect(el(2).getAttribute("marker-end")).toMatch(/^url\(#st\d+-head-1\)$/);
    expect(el(2).getAttribute("stroke")).toBe("#0072B2");
    // Dropped: halfway from n2 to n3 (a partition), at the drop time; a ✕ there, no arrowhead.
    expect(el(3).classes).toContain("is-dropped");
    expect(el(3).getAttribute("marker-end")).toBeNull();
    const [, , dx, dy] = ends(svg, 3);
    expect(dx).toBeCloseTo((263.4 + 391) / 2, 1);
    expect(dy).toBeCloseTo(50 + 0.65 * 406, 1);
    expect(svg.querySelectorAll("path.st-drop")).toHaveLength(1);
    // In flight: stops at the cursor (the bottom edge), halfway to n3, with a dot there.
    const [, , fx, fy] = ends(svg, 5);
    expect(fx).toBeCloseTo((135.8 + 391) / 2, 1);
    expect(fy).toBeCloseTo(456, 1);
    expect(el(5).classes).toContain("is-flight");
    const heads = svg.querySelectorAll("circle.st-head");
    expect(heads).toHaveLength(1);
    // Labels where they fit: the arrows here are long enough.
    const labels = svg.querySelectorAll("text.st-msg-label").map((t) => t.textContent);
    expect(labels.sort()).toEqual(["append", "heartbeat", "vote", "write"]);
  });

  it("reuses each message's element while the window slides, and culls what leaves it", () => {
    const { svg, drawing } = setup();
    drawing.update(data({ finished, inFlight }));
    const before = msgs(svg).find((e) => e.getAttribute("data-id") === "2");
    const d0 = before?.getAttribute("d");
    drawing.update(data({ finished, inFlight, now: 5.2 * S }));
    const after = msgs(svg).find((e) => e.getAttribute("data-id") === "2");
    expect(after).toBe(before);
    // Only the group moved: the path itself was not rewritten.
    expect(after?.getAttribute("d")).toBe(d0);
    expect(ends(svg, 2)[1]).toBeCloseTo(253 - 0.2 * 406, 1);
    // The DOM keeps a quarter of the window either side (so a sliding window rejoins rarely): [4.75 s, 6.25 s] at 6 s.
    drawing.update(data({ finished, inFlight, now: 5.9 * S }));
    expect(ids(svg)).toEqual([2, 3, 4, 5]);
    drawing.update(data({ finished, inFlight, now: 6 * S }));
    expect(ids(svg)).toEqual([5]);
    expect(svg.querySelectorAll("path.st-drop")).toHaveLength(0);
  });

  it("zooming in shows less time: 500 ms around the cursor", () => {
    const { svg, drawing, calls } = setup();
    drawing.update(data({ finished, inFlight }));
    drawing.zoom(-1);
    expect(drawing.viewport()).toEqual({ spanUs: 500 * MS, endUs: null });
    // [4.5 s, 5 s]: message 2 leaves at 4.5 s exactly, message 1 is gone.
    expect(ids(svg)).toEqual([2, 3, 4, 5]);
    expect(ends(svg, 4)[1]).toBeCloseTo(50 + (0.2 / 0.5) * 406, 1);
    expect(calls.viewport.at(-1)).toMatchObject({
      spanUs: 500 * MS,
      following: true,
      canZoomIn: true,
      canPanEarlier: true,
      canPanLater: false,
    });
    for (let i = 0; i < 12; i++) drawing.zoom(-1);
    expect(drawing.viewport().spanUs).toBe(MIN_SPAN_US);
    expect(calls.viewport.at(-1)?.canZoomIn).toBe(false);
  });

  it("scrolling back stops following; the cursor jumping back replaces what is drawn", () => {
    const { svg, drawing, calls } = setup();
    drawing.update(data({ finished, inFlight }));
    drawing.pan(-1);
    expect(drawing.viewport().endUs).toBeCloseTo(5 * S - S / 3, 3);
    expect(calls.viewport.at(-1)).toMatchObject({ following: false, canPanLater: true });
    drawing.follow(true);
    expect(drawing.viewport().endUs).toBeNull();
    // The user drags the time slider back to 4.55 s: the store replaces the lists with what is retained there.
    drawing.update(data({ now: 4.55 * S, finished: finished.slice(0, 1), inFlight: [flying(2, "n1", "n2", 4.5 * S, 4.6 * S)] }));
    expect(ids(svg)).toEqual([1, 2]);
    const [, , x2, y2] = ends(svg, 2);
    expect(x2).toBeCloseTo(135.8 + 0.5 * 127.6, 1);
    expect(y2).toBeCloseTo(456, 1);
    expect(svg.querySelectorAll("path.st-drop")).toHaveLength(0);
    expect(svg.querySelector("text.st-cursor-text")?.textContent).toBe("now 4.55 s");
  });

  it("marks: glyphs on the lines with words, grey while down, hatched while paused, violations across the plot", () => {
    const { svg, drawing } = setup();
    const marks = [
      mark(10, "n2", 4.2 * S, "crash", "crashed"),
      mark(11, "n2", 4.4 * S, "restart", "restarted"),
      mark(12, "h1", 4.6 * S, "pause", "paused"),
      mark(13, "s1", 4.7 * S, "storage", "rejected token 5", true),
      mark(14, "n3", 4.8 * S, "violation", "two leaders in term 3", true),
    ];
    drawing.update(
      data({
        marks,
        nodes: [NODES[0] as NodeView, NODES[1] as NodeView, nodeFixture({ id: "n3" })],
        holders: [holderFixture({ id: "h1", status: "paused" })],
      }),
    );
    const glyphs = svg.querySelectorAll("g.st-mark").map((g) => g.querySelector("text")?.textContent);
    expect(glyphs).toEqual(["✕", "↻", "‖", "✗", "✗"]);
    expect(svg.querySelectorAll("g.st-mark.is-bad")).toHaveLength(2);
    const labels = svg.querySelectorAll("text.st-mark-label").map((t) => t.textContent);
    expect(labels).toContain("crashed");
    expect(labels).toContain("rejected token 5");
    const down = svg.querySelectorAll("rect.st-seg-down");
    expect(down).toHaveLength(1);
    expect(Number(down[0]?.getAttribute("height"))).toBeCloseTo(0.2 * 406, 0);
    expect(Number(down[0]?.getAttribute("x"))).toBeCloseTo(263.4 - 3, 1);
    const paused = svg.querySelectorAll("rect.st-seg-paused");
    expect(paused).toHaveLength(1);
    expect(paused[0]?.getAttribute("fill")).toMatch(/^url\(#st\d+-hatch\)$/);
    // Paused until now: down to the cursor.
    expect(Number(paused[0]?.getAttribute("height"))).toBeCloseTo(0.4 * 406, 0);
    expect(svg.querySelectorAll("g.st-violation")).toHaveLength(1);
    expect(svg.querySelector("text.st-violation-text")?.textContent).toBe("✗ safety violated: two leaders in term 3");
    // The leader's band: n1 leads now and no role mark is kept.
    expect(svg.querySelectorAll("rect.st-seg-leader")).toHaveLength(1);
  });

  it("highlights the violation's processes", () => {
    const { svg, drawing } = setup();
    drawing.update(data({ highlight: ["n3"] }));
    expect(svg.querySelectorAll("line.st-lane.is-highlighted").map((l) => l.getAttribute("x1"))).toEqual(["391"]);
    expect(svg.querySelectorAll("text.st-name-text")[2]?.textContent).toBe("⚠ n3");
  });

  it("the focused message is drawn thick with its label; hovering and clicking focus, clicking one in flight inspects it", () => {
    const { svg, drawing, calls } = setup();
    drawing.update(data({ finished, inFlight, focus: 2 }));
    const focus = svg.querySelector("g.st-focus");
    expect(focus?.getAttribute("display")).toBeNull();
    expect(svg.querySelector("text.st-focus-label")?.textContent).toBe("append");
    expect(svg.querySelector("path.st-focus-line")?.getAttribute("d")).toBe(
      msgs(svg)
        .find((e) => e.getAttribute("data-id") === "2")
        ?.getAttribute("d"),
    );
    // Hover the middle of arrow 2: (199.6, 256).
    svg.dispatch("pointermove", { clientX: 199.6, clientY: 256 });
    expect(calls.focus).toEqual([2]);
    // Away from everything, then leaving: focus cleared.
    svg.dispatch("pointermove", { clientX: 700, clientY: 100 });
    expect(calls.focus).toEqual([2, null]);
    // Click on the message in flight (its middle): focus and inspect.
    const [x1, y1, x2, y2] = ends(svg, 5);
    svg.dispatch("pointerdown", { clientX: (x1 + x2) / 2, clientY: (y1 + y2) / 2 });
    svg.dispatch("pointerup", { clientX: (x1 + x2) / 2, clientY: (y1 + y2) / 2 });
    expect(calls.focus.at(-1)).toBe(5);
    expect(calls.inspect).toEqual([5]);
    drawing.update(data({ finished, inFlight, focus: null }));
    expect(svg.querySelector("g.st-focus")?.getAttribute("display")).toBe("none");
  });

  it("ctrl + wheel zooms, the wheel scrolls (and lets the page scroll at the end), dragging pans", () => {
    const { drawing, svg } = setup();
    drawing.update(data({ finished, inFlight }));
    const z = svg.dispatch("wheel", { ctrlKey: true, deltaY: -347, clientX: 300, clientY: 456 });
    expect(z.prevented).toBe(true);
    expect(drawing.viewport().spanUs).toBeCloseTo(S * Math.exp(-0.694), -1);
    expect(drawing.viewport().endUs).toBeNull();
    // Following, scrolling down cannot go later: the page scrolls.
    expect(svg.dispatch("wheel", { deltaY: 100 }).prevented).toBe(false);
    expect(svg.dispatch("wheel", { deltaY: -100 }).prevented).toBe(true);
    expect(drawing.viewport().endUs).not.toBeNull();
    drawing.follow(true);
    const span = drawing.viewport().spanUs;
    svg.dispatch("pointerdown", { clientX: 300, clientY: 200 });
    svg.dispatch("pointermove", { clientX: 300, clientY: 200 + 203 });
    svg.dispatch("pointerup", { clientX: 300, clientY: 403 });
    expect(drawing.viewport().endUs).toBeCloseTo(5 * S - span / 2, 0);
  });

  it("a new run starts following again", () => {
    const { drawing } = setup();
    drawing.update(data());
    drawing.pan(-1);
    expect(drawing.viewport().endUs).not.toBeNull();
    drawing.update(data({ runId: 2, now: 0.1 * S }));
    expect(drawing.viewport().endUs).toBeNull();
  });

  it("thousands of messages: only those in the window are in the DOM, batched when dense", () => {
    const { svg, drawing, calls } = setup();
    // 6000 messages, one every 10 ms from 0 to 60 s, each 15 ms long.
    const many = Array.from({ length: 6000 }, (_, i) =>
      done(i + 1, i % 2 === 0 ? "n1" : "n2", i % 2 === 0 ? "n2" : "n1", i * 10 * MS, i * 10 * MS + 15 * MS),
    );
    drawing.update(data({ finished: many, now: 60 * S }));
    // [59 s, 60 s]: sends from 58.99 s (ends 59.005 s) to 59.99 s overlap it: ids 5900..6000 (101 messages).
    expect(svg.getAttribute("aria-label")).toMatch(/^Space-time diagram: 101 messages between 59.00 s and 60.00 s/);
    // The DOM holds those and a quarter-window margin: from 58.75 s, ids 5875..6000.
    expect(ids(svg)).toHaveLength(126);
    expect(ids(svg)[0]).toBe(5875);
    expect(ids(svg).at(-1)).toBe(6000);
    // Too many for words at 60 s: none are tried, the arrows stay.
    drawing.zoom(1);
    for (let i = 0; i < 10; i++) drawing.zoom(1);
    expect(drawing.viewport().spanUs).toBe(60 * S);
    // Dense: no element per message; for each quarter of the window, one path of lines and one of arrowheads for the one colour.
    expect(msgs(svg)).toHaveLength(0);
    const batches = svg.querySelectorAll("path.st-batch");
    expect(new Set(batches.map((p) => p.getAttribute("class")))).toEqual(new Set(["st-batch st-batch-line", "st-batch st-batch-head"]));
    expect(batches.length).toBeLessThanOrEqual(2 * 5);
    const lines = batches.filter((p) => p.getAttribute("class") === "st-batch st-batch-line");
    expect(lines.reduce((n, p) => n + (p.getAttribute("d")?.match(/M/g)?.length ?? 0), 0)).toBe(6000);
    expect(svg.getAttribute("aria-label")).toMatch(/^Space-time diagram: 6000 messages between 0 s and 60 s/);
    expect(svg.querySelectorAll("text.st-msg-label")).toHaveLength(0);
    // Hovering still finds single messages (the pointer is tested against the arrows, not the elements).
    const t = (29.995 * S) / (60 * S);
    svg.dispatch("pointermove", { clientX: 200, clientY: 50 + t * 406 });
    expect(calls.focus.length).toBe(1);
    // Back to one second: an element per message again.
    for (let i = 0; i < 10; i++) drawing.zoom(-1);
    expect(svg.querySelectorAll("path.st-batch")).toHaveLength(0);
    expect(msgs(svg).length).toBeGreaterThan(0);
    const t0 = performance.now();
    for (let i = 0; i < 5; i++) drawing.update(data({ finished: many, now: 60 * S + i * 40 * MS }));
    // Generous: the point is that sliding re-uses elements instead of rebuilding 6000 paths.
    expect((performance.now() - t0) / 5).toBeLessThan(400);
  });

  it("a few hundred arrows: batched per quarter with the single arrows' look; a new view rewrites only the quarters that changed", () => {
    const { svg, drawing } = setup();
    // One message every 3 ms from 3.5 s to 5 s: about 420 near the one-second window.
    const list = Array.from({ length: 500 }, (_, i) => done(i + 1, "n1", "n2", 3.5 * S + i * 3 * MS, 3.5 * S + i * 3 * MS + 2 * MS));
    drawing.update(data({ finished: list, now: 5 * S }));
    expect(msgs(svg)).toHaveLength(0);
    const dense = svg.querySelector("g.st-dense");
    expect(dense?.getAttribute("class")).toContain("is-fine");
    const paths = (): FakeElement[] => svg.querySelectorAll("path.st-batch");
    const before = new Map(paths().map((p) => [p, p.getAttribute("d")]));
    expect(before.size).toBeGreaterThanOrEqual(4);
    // Count the writes from here on.
    let writes = 0;
    for (const p of paths()) {
      const set = p.setAttribute.bind(p);
      p.setAttribute = (n: string, v: unknown) => {
        writes++;
        set(n, v);
      };
    }
    // Ten more messages, at the end: only the last quarter changes.
    const more = list.concat(Array.from({ length: 10 }, (_, i) => done(501 + i, "n2", "n1", 5 * S + i * 2 * MS, 5 * S + i * 2 * MS + 2 * MS)));
    drawing.update(data({ finished: more, now: 5.03 * S }));
    const after = paths();
    const kept = after.filter((p) => before.has(p) && before.get(p) === p.getAttribute("d"));
    expect(kept.length).toBeGreaterThanOrEqual(after.length - 2 - 2);
    expect(writes).toBeLessThanOrEqual(2 * 5);
    const lines = after.filter((p) => p.getAttribute("class") === "st-batch st-batch-line");
    expect(lines.reduce((n, p) => n + (p.getAttribute("d")?.match(/M/g)?.length ?? 0), 0)).toBeGreaterThan(300);
  });

  it("destroy empties the svg and stops listening", () => {
    const { svg, drawing, calls } = setup();
    drawing.update(data({ finished }));
    drawing.destroy();
    expect(svg.childNodes).toHaveLength(0);
    svg.dispatch("pointermove", { clientX: 199.6, clientY: 256 });
    expect(calls.focus).toEqual([]);
  });
});

it("the default span is one second", () => {
  expect(DEFAULT_SPAN_US).toBe(S);
});
