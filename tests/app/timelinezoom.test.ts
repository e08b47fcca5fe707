/** The lease timeline's zoom and scroll: pure window math, and the keys. */
import { describe, expect, it } from "vitest";
import {
  FOLLOW_NOW,
  HOLDER_MARKS,
  historyStart,
  MARK_GLYPH,
  LEASE_MAX_SPAN_US,
  LEASE_MIN_SPAN_US,
  panLeaseBy,
  panTo,
  scrollBounds,
  windowSpan,
  zoomBy,
  zoomedWindow,
} from "../../src/app/panels/timelineScale";
import { zoomKey } from "../../src/app/panels/TimelineZoom";
import type { LeaseRowView } from "../../src/worker/protocol";

const S = 1_000_000;
const base = windowSpan(2000); // 6 s past, 2 s ahead
const NOW = 60 * S;

function row(over: Partial<LeaseRowView> = {}): LeaseRowView {
  return {
    name: "lock",
    state: "held",
    holder: "h1",
    token: 3,
    ttlMs: 2000,
    transitions: 1,
    keys: [],
    leaderExpiresAt: null,
    leaderId: "n1",
    leaderSpans: [{ holder: "h1", token: 3, from: 20 * S, to: null, end: null }],
    holderSpans: [{ holder: "h1", token: 3, from: 21 * S, to: null, end: null }],
    marks: [{ t: 12 * S, kind: "deny", holder: "h2", token: 0 }],
    ...over,
  };
}

describe("the timeline's window", () => {
  it("follows now by default: 3 TTLs back, 1 ahead", () => {
    expect(zoomedWindow(NOW, base, FOLLOW_NOW, 0)).toEqual({ from: 54 * S, to: 62 * S, now: NOW });
  });

  it("the history starts at the earliest span or mark kept, never before 0", () => {
    expect(historyStart([row()], NOW)).toBe(12 * S);
    expect(historyStart([], NOW)).toBe(NOW);
    expect(historyStart([row({ marks: [{ t: -5, kind: "grant", holder: "h1", token: 1 }] })], NOW)).toBe(0);
  });

  it("zooming in while following keeps now at its place and narrows the window", () => {
    const w = zoomedWindow(NOW, base, FOLLOW_NOW, 0);
    const z = zoomBy(FOLLOW_NOW, 2, w, NOW, 0);
    expect(z).toEqual({ spanUs: 4 * S, fromUs: null });
    expect(zoomedWindow(NOW, base, z, 0)).toEqual({ from: 57 * S, to: 61 * S, now: NOW });
  });

  it("zooming keeps the anchor time under the pointer when scrolled back", () => {
    const z0 = { spanUs: 8 * S, fromUs: 20 * S };
    const w = zoomedWindow(NOW, base, z0, 0);
    expect(w.from).toBe(20 * S);
    // The pointer at 22 s (a quarter in): after zooming in x2 it is still a quarter in.
    const z = zoomBy(z0, 2, w, 22 * S, 0);
    const w2 = zoomedWindow(NOW, base, z, 0);
    expect((22 * S - w2.from) / (w2.to - w2.from)).toBeCloseTo(0.25);
    expect(w2.to - w2.from).toBe(4 * S);
  });

  it("zoom stops at 0.2 s and at 10 minutes", () => {
    const w = zoomedWindow(NOW, base, FOLLOW_NOW, 0);
    expect(zoomBy(FOLLOW_NOW, 1000, w, NOW, 0).spanUs).toBe(LEASE_MIN_SPAN_US);
    expect(zoomBy(FOLLOW_NOW, 1 / 1000, w, NOW, 0).spanUs).toBe(LEASE_MAX_SPAN_US);
  });

  it("scrolls back over the whole history, not past its start, and scrolling to the present follows now again", () => {
    const w = zoomedWindow(NOW, base, FOLLOW_NOW, 10 * S);
    const back = panLeaseBy(FOLLOW_NOW, -20 * S, w, 10 * S);
    expect(back).toEqual({ spanUs: 8 * S, fromUs: 34 * S });
    // Far back: stops at the start of history.
    expect(panLeaseBy(back, -1000 * S, zoomedWindow(NOW, base, back, 10 * S), 10 * S).fromUs).toBe(10 * S);
    // Forward past the present: following again.
    expect(panLeaseBy(back, 100 * S, zoomedWindow(NOW, base, back, 10 * S), 10 * S).fromUs).toBeNull();
    expect(panTo(back, 54 * S, zoomedWindow(NOW, base, back, 10 * S), 10 * S).fromUs).toBeNull();
  });

  it("a scrolled-back window stays put while time goes on; following moves with now", () => {
    const z = { spanUs: 8 * S, fromUs: 30 * S };
    expect(zoomedWindow(NOW, base, z, 0).from).toBe(30 * S);
    expect(zoomedWindow(NOW + 5 * S, base, z, 0).from).toBe(30 * S);
    expect(zoomedWindow(NOW + 5 * S, base, FOLLOW_NOW, 0).from).toBe(59 * S);
  });

  it("the scroll bounds run from the history's start to the follow position", () => {
    expect(scrollBounds(8 * S, NOW, 10 * S)).toEqual({ lo: 10 * S, hi: 54 * S });
    // A history shorter than the window: nothing to scroll.
    expect(scrollBounds(8 * S, 2 * S, 0)).toEqual({ lo: -4 * S, hi: -4 * S });
  });
});

describe("the timeline's keys", () => {
  const w = zoomedWindow(NOW, base, FOLLOW_NOW, 0);
  const p = { zoom: FOLLOW_NOW, setZoom: () => {}, w, earliest: 0 };
  it("+ and − zoom, ← → scroll, Home goes to the start, End follows now", () => {
    expect(zoomKey("+", p)?.spanUs).toBeCloseTo(8 * S / 1.5);
    expect(zoomKey("-", p)?.spanUs).toBeCloseTo(8 * S * 1.5);
    expect(zoomKey("ArrowLeft", p)?.fromUs).toBeCloseTo(54 * S - 1.6 * S);
    expect(zoomKey("Home", p)?.fromUs).toBe(0);
    expect(zoomKey("End", { ...p, zoom: { spanUs: 2 * S, fromUs: 3 * S } })).toEqual({ spanUs: 2 * S, fromUs: null });
    expect(zoomKey("x", p)).toBeNull();
  });
});

describe("the holder's marks", () => {
  it("grant, jeopardy, grace and a renewal within grace each have their own glyph, on the right lanes", () => {
    const kinds = ["grant", "jeopardy", "grace", "grace-renewed", "lost"] as const;
    expect(new Set(kinds.map((k) => MARK_GLYPH[k])).size).toBe(kinds.length);
    expect(HOLDER_MARKS.has("grant")).toBe(false);
    for (const k of ["jeopardy", "grace", "grace-renewed", "lost"] as const) expect(HOLDER_MARKS.has(k)).toBe(true);
  });
});
