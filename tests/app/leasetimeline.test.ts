import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { LeaseTimelineView } from "../../src/app/panels/LeaseTimeline";
import {
  barOf,
  clipToWindow,
  DEFAULT_TTL_MS,
  holderColor,
  holderLanes,
  holderLaneSummary,
  holderSpanEnd,
  laneHolders,
  leaderBars,
  leaderCountdown,
  leaderDeadline,
  leaderMarks,
  leaderSpanEnd,
  leaseDetails,
  leaseSummary,
  maxTtlMs,
  ticks,
  timeWindow,
  windowSpan,
  xPct,
  slideOf,
} from "../../src/app/panels/timelineScale";
import type { HolderView, LeaseRowView, LeaseSpan, SimView } from "../../src/worker/protocol";
import { renderWithLab } from "../support/lab";
import { holderFixture, viewFixture } from "../support/views";

const S = 1_000_000;

function lease(over: Partial<LeaseRowView> = {}): LeaseRowView {
  return {
    name: "lock",
    state: "held",
    holder: "h2",
    token: 33,
    ttlMs: 2000,
    transitions: 5,
    keys: ["k1", "k2"],
    leaderExpiresAt: null,
    leaderId: "n1",
    leaderSpans: [],
    holderSpans: [],
    marks: [],
    ...over,
  };
}

function holder(id: string, over: Partial<HolderView> = {}): HolderView {
  return holderFixture({ id, ...over });
}

const span = (holder: string, token: number, from: number, to: number | null, end: string | null = null): LeaseSpan => ({
  holder,
  token,
  from,
  to,
  end,
});

describe("the window", () => {
  it("takes the largest TTL, or 2 s when there is no lease", () => {
    expect(maxTtlMs([])).toBe(DEFAULT_TTL_MS);
    expect(maxTtlMs([lease({ ttlMs: 1500 }), lease({ name: "b", ttlMs: 4000 })])).toBe(4000);
  });

  it("reaches 3 TTLs back and 1 TTL ahead, with now at 75%", () => {
    const w = timeWindow(10 * S, windowSpan(2000));
    expect(w.from).toBe(4 * S);
    expect(w.to).toBe(12 * S);
    expect(xPct(10 * S, w)).toBe(75);
    expect(xPct(4 * S, w)).toBe(0);
    expect(xPct(8 * S, w)).toBe(50);
    // Clamped to the track.
    expect(xPct(0, w)).toBe(0);
    expect(xPct(20 * S, w)).toBe(100);
  });

  it("ticks in seconds of virtual time, positioned on the track", () => {
    const w = timeWindow(10 * S, windowSpan(2000));
    const t = ticks(w);
    expect(t.map((x) => x.label)).toContain("10 s");
    const ten = t.find((x) => x.label === "10 s");
    expect(ten?.x).toBeCloseTo(75);
    for (const x of t) expect(x.x).toBeGreaterThanOrEqual(0);
    // A short TTL gets fractional ticks.
    const small = ticks(timeWindow(1 * S, windowSpan(200)));
    expect(small.some((x) => /\.\d s$/.test(x.label))).toBe(true);
  });
});

describe("spans", () => {
  const w = timeWindow(10 * S, windowSpan(2000)); // 4 s .. 12 s

  it("clamps spans to the window, and drops those outside it", () => {
    expect(clipToWindow(2 * S, 6 * S, w)).toEqual({ from: 4 * S, to: 6 * S });
    expect(clipToWindow(11 * S, 15 * S, w)).toEqual({ from: 11 * S, to: 12 * S });
    expect(clipToWindow(1 * S, 3 * S, w)).toBeNull();
    expect(clipToWindow(13 * S, 14 * S, w)).toBeNull();
  });

  it("ends an open leader span at the leader's expiry when set, else now", () => {
    expect(leaderSpanEnd(span("h2", 33, 8 * S, null), 11 * S, 10 * S)).toBe(11 * S);
    expect(leaderSpanEnd(span("h2", 33, 8 * S, null), null, 10 * S)).toBe(10 * S);
    expect(leaderSpanEnd(span("h2", 33, 8 * S, 9 * S, "expire"), 11 * S, 10 * S)).toBe(9 * S);
    expect(holderSpanEnd(span("h2", 33, 8 * S, null), 10 * S)).toBe(10 * S);
  });

  it("splits a bar at now into a solid past and a lighter future", () => {
    const b = barOf("k", "h2", 33, 8 * S, 11 * S, true, null, w);
    expect(b).not.toBeNull();
    expect(b?.x).toBe(50);
    expect(b?.solid).toBe(25);
    expect(b?.future).toBeCloseTo(12.5);
    // Entirely in the past: no future part.
    const past = barOf("k", "h1", 32, 5 * S, 7 * S, false, "expire", w);
    expect(past?.future).toBe(0);
    expect(past?.solid).toBe(25);
    // Started before the window: clipped on the left.
    expect(barOf("k", "h1", 31, 1 * S, 6 * S, false, "expire", w)?.clippedLeft).toBe(true);
  });

  it("draws the leader's view: closed spans as they were, the open one to the expiry deadline", () => {
    const row = lease({
      leaderExpiresAt: 11 * S,
      leaderSpans: [span("h1", 32, 2 * S, 7 * S, "expire"), span("h2", 33, 7.5 * S, null), span("h0", 30, 1 * S, 2 * S, "expire")],
      marks: [
        { t: 7.5 * S, kind: "grant", holder: "h2", token: 33 },
        { t: 9 * S, kind: "refresh", holder: "h2", token: 33 },
        { t: 7 * S, kind: "expire", holder: "h1", token: 32 },
        { t: 8 * S, kind: "jeopardy", holder: "h1", token: 32 },
        { t: 1 * S, kind: "grant", holder: "h0", token: 30 },
      ],
    });
    const bars = leaderBars(row, w);
    expect(bars.map((b) => `${b.holder}#${b.token}`)).toEqual(["h1#32", "h2#33"]);
    const open = bars[1];
    expect(open?.x).toBeCloseTo(43.75);
    expect(open && open.x + open.solid + open.future).toBeCloseTo(87.5);
    expect(leaderDeadline(row, w)).toBeCloseTo(87.5);
    // Holder-side marks (jeopardy) and marks out of the window are not on the leader's lane.
    expect(leaderMarks(row, w).map((m) => m.kind)).toEqual(["grant", "refresh", "expire"]);
    expect(leaderMarks(row, w)[0]?.glyph).toBe("▲");
  });

  it("has no expiry deadline without an open span", () => {
    const row = lease({ leaderExpiresAt: 11 * S, leaderSpans: [span("h1", 32, 2 * S, 7 * S, "expire")] });
    expect(leaderDeadline(row, w)).toBeNull();
  });
});

describe("holder lanes", () => {
  const w = timeWindow(10 * S, windowSpan(2000));

  it("has one lane per holder in the spans plus current holders of this lease, in numeric order", () => {
    const row = lease({ holderSpans: [span("h10", 31, 3 * S, 5 * S, "lost"), span("h2", 33, 7.6 * S, null)] });
    const hs = [holder("h3", { token: 34 }), holder("h4", { token: 9, leaseName: "other" }), holder("h5")];
    expect(laneHolders(row, hs)).toEqual(["h2", "h3", "h10"]);
  });

  it("shows a paused holder still believing while the leader has moved on", () => {
    // h1 was granted at 5 s and paused; the leader expired it at 7 s and granted h2. h1's span is still open.
    const row = lease({
      holder: "h2",
      leaderExpiresAt: 11 * S,
      leaderSpans: [span("h1", 32, 5 * S, 7 * S, "expire"), span("h2", 33, 7.5 * S, null)],
      holderSpans: [span("h1", 32, 5 * S, null), span("h2", 33, 7.6 * S, null)],
      marks: [{ t: 6.5 * S, kind: "jeopardy", holder: "h1", token: 32 }],
    });
    const hs = [
      holder("h1", { status: "paused", token: 32, deadlineAt: 6.5 * S, nominalEndAt: 7 * S, graceEndAt: 7.5 * S, pausedUntil: 12 * S }),
      holder("h2", { token: 33, deadlineAt: 11.2 * S, nominalEndAt: 11.6 * S }),
    ];
    const lanes = holderLanes(row, hs, w);
    const h1 = lanes[0];
    expect(h1?.id).toBe("h1");
    // Its bar runs to now (75%) although the leader's ended at 7 s (37.5%).
    expect(h1 && (h1.bars[0]?.x ?? 0) + (h1.bars[0]?.solid ?? 0)).toBeCloseTo(75);
    expect(leaderBars(row, w)[0]?.solid).toBeCloseTo(25);
    expect(h1?.ahead).toBeNull(); // its deadline has passed
    expect(h1?.grace?.x).toBeCloseTo(37.5);
    expect(h1?.grace?.width).toBeCloseTo(6.25);
    expect(h1?.deadline).toBeCloseTo(31.25);
    expect(h1?.marks.map((m) => m.kind)).toEqual(["jeopardy"]);
    const h2 = lanes[1];
    expect(h2?.ahead?.x).toBeCloseTo(75);
    expect(h2?.ahead?.width).toBeCloseTo(15);
    expect(h2?.grace).toBeNull();
  });

  it("gives each holder a stable colour", () => {
    expect(holderColor("h1")).toBe(holderColor("h1"));
    expect(holderColor("h1")).not.toBe(holderColor("h2"));
  });
});

describe("text", () => {
  it("summarises a lease in one line with the leader's countdown", () => {
    const row = lease({ leaderExpiresAt: 11.23 * S });
    expect(leaseSummary(row, 10 * S)).toBe("lease lock, held by h2, token 33, leader: 1.23 s left");
    expect(leaseSummary(lease({ state: "delayed", holder: null }), 10 * S)).toBe(
      "lease lock, in lock-delay, token 33, leader: nobody is timing it",
    );
    expect(leaseSummary(lease({ state: "free", holder: null, token: 0 }), 10 * S)).toBe("lease lock, free, leader: nobody holds it, nothing to time");
    expect(leaderCountdown(lease({ leaderExpiresAt: 9.5 * S }), 10 * S)).toBe("leader: expired 500 ms ago, expiry not yet committed");
    expect(leaseDetails(lease())).toBe("5 transitions · keys k1, k2");
    expect(leaseDetails(lease({ transitions: 1, keys: [] }))).toBe("1 transition · no keys attached");
  });
});

function view(over: Partial<SimView>): SimView {
  return viewFixture({ now: 10 * S, leader: "n1", ...over });
}

describe("LeaseTimelineView markup", () => {
  it("says so when there are no leases", () => {
    const html = renderWithLab(createElement(LeaseTimelineView, { view: view({}) }));
    expect(html).toContain("No lease holders in this run. Add some in Settings.");
    expect(html).not.toContain("<svg");
  });

  it("writes each lease's state in text, names the row, and titles the SVG", () => {
    const row = lease({
      leaderExpiresAt: 11.23 * S,
      leaderSpans: [span("h1", 32, 5 * S, 7 * S, "expire"), span("h2", 33, 7.5 * S, null)],
      holderSpans: [span("h1", 32, 5 * S, null), span("h2", 33, 7.6 * S, null)],
    });
    const hs = [holder("h1", { status: "paused", token: 32, deadlineAt: 6.5 * S }), holder("h2", { token: 33, deadlineAt: 11.2 * S })];
    const html = renderWithLab(createElement(LeaseTimelineView, { view: view({ leases: [row], holders: hs }) }));
    expect(html).toContain('aria-label="lease lock, held by h2, token 33, leader: 1.23 s left"');
    expect(html).toContain("held by h2");
    expect(html).toContain("token 33");
    expect(html).toContain("leader: 1.23 s left");
    expect(html).toContain("5 transitions · keys k1, k2");
    expect(html).toMatch(/<svg class="lt-track"[^>]*role="img"[^>]*aria-labelledby="([^"]+)"[^>]*><title id="\1">Timeline of lease lock\./);
    // One lane per holder, each with an inspect button; the paused one says so.
    expect(html).toContain('aria-label="Inspect holder h1"');
    expect(html).toContain('aria-label="Inspect holder h2"');
    expect(html).toContain('aria-label="Inspect leader n1"');
    expect(html).toContain("❚❚ paused");
    expect(html).toContain("h1&#x27;s view of lock, holding, paused, believes it holds token 32, own deadline passed 3.5 s ago");
    // The now line sits at 75%.
    expect(html).toContain('x1="75%"');
  });
});

describe("review fixes", () => {
  it("the axis has no ticks before time zero early in a run", () => {
    const t = ticks(timeWindow(0.5 * S, windowSpan(2000)));
    expect(t.length).toBeGreaterThan(0);
    for (const x of t) expect(x.label.startsWith("-")).toBe(false);
  });

  it("mark keys stay the same when older marks drop off the front", () => {
    const w = timeWindow(10 * S, windowSpan(2000));
    const marks = [4, 5, 6, 7].map((s) => ({ t: s * S, kind: "refresh" as const, holder: "h1", token: 3 }));
    const before = leaderMarks(lease({ marks }), w).map((m) => m.key);
    const after = leaderMarks(lease({ marks: marks.slice(1) }), w).map((m) => m.key);
    expect(after).toEqual(before.slice(1));
  });

  it("a holder's lane mentions grace only once it is past its own deadline", () => {
    const holding = holderFixture({ id: "h1", token: 3, state: "holding.waiting", deadlineAt: 11 * S, nominalEndAt: 12 * S, graceEndAt: 13 * S });
    const lane = (h: HolderView) => holderLanes(lease({ holderSpans: [span("h1", 3, 9 * S, null)] }), [h], timeWindow(10 * S, windowSpan(2000)))[0];
    const l1 = lane(holding);
    expect(l1 && holderLaneSummary(l1, "lock", 10 * S)).not.toContain("grace");
    const inGrace = { ...holding, state: "grace.renewing" };
    const l2 = lane(inGrace);
    expect(l2 && holderLaneSummary(l2, "lock", 14 * S)).toContain("grace ended 1 s ago");
  });
});

describe("the sliding track", () => {
  it("a mark keeps its x inside the sliding group while the window slides; only the group's shift changes", () => {
    const at = (t: number, from: number): { shift: number; x: number } => {
      const w = { from, to: from + 40 * S, now: from + 30 * S };
      const s = slideOf(w);
      return { shift: s.shift, x: s.at(((t - w.from) / (w.to - w.from)) * 100) };
    };
    const a = at(100 * S, 81 * S);
    const b = at(100 * S, 85 * S);
    // The same time, two windows: the same place inside the group (to rounding), another shift.
    expect(b.x).toBeCloseTo(a.x, 9);
    expect(b.shift).not.toBeCloseTo(a.shift, 3);
    // On the track: the shift plus the place inside is where the window puts it.
    expect(b.shift + b.x).toBeCloseTo(((100 - 85) / 40) * 100, 9);
    expect(a.shift).toBeLessThanOrEqual(0);
    expect(a.shift).toBeGreaterThan(-100);
  });
});
