import { renderToStaticMarkup } from "react-dom/server";
import { emptyColumns } from "../../src/worker/messageColumns";
import { describe, expect, it } from "vitest";
import { CheckerPanelView } from "../../src/app/panels/CheckerPanel";
import { EventLogView } from "../../src/app/panels/EventLog";
import {
  checkerStatusText,
  countByCategory,
  DEFAULT_EVENT_CATEGORIES,
  EVENT_CATEGORIES,
  filterEvents,
  groupCheckers,
  holderRowLabel,
  holderStateWords,
  timeLeftText,
  writeResultText,
  writeRowLabel,
} from "../../src/app/panels/explain";
import { DOWN_BOX, HolderPanelView, occupancy } from "../../src/app/panels/Statechart";
import { StoragePanelView, writeKeys } from "../../src/app/panels/StoragePanel";
import { holderChartLayout } from "../../src/app/panels/statechartLayout";
import type {
  CheckerView,
  EventCategory,
  EventLine,
  HolderView,
  SimView,
  StorageView,
  StorageWriteView,
  ViolationView,
} from "../../src/worker/protocol";
import { holderFixture, timelineFixture } from "../support/views";

const NOW = 12_345_678;

function holder(id: string, state: string, over: Partial<HolderView> = {}): HolderView {
  return holderFixture({ id, state, ...over });
}

function simView(holders: HolderView[], over: Partial<SimView> = {}): SimView {
  return {
    runId: 1,
    epoch: 1,
    opened: false,
    timeline: timelineFixture(),
    config: [],
    newMessages: emptyColumns(),
    newMarks: [],
    seed: 7,
    settings: {
      seed: 7,
      nodes: 3,
      spares: 0,
      clients: { count: 0, workload: "none" },
      holders: holders.length,
      speed: 0.05,
      autoplay: true,
      timing: {
        electionTimeoutMinMs: 150,
        electionTimeoutMaxMs: 300,
        heartbeatIntervalMs: 50,
        latencyMinMs: 1,
        latencyMaxMs: 5,
        leaseTtlMs: 2000,
        renewFraction: 1 / 3,
        gracePeriodMs: 0,
        checkpoint: false,
        checkpointIntervalMs: 1000,
        lockDelayMs: 0,
        driftMarginPpm: 20_000,
        expirySlackFactor: 1,
        poolSize: 0,
      },
    },
    now: NOW,
    playing: true,
    speed: 0.05,
    halted: false,
    nodes: [],
    logWindow: { from: 1, to: 0 },
    leader: "n1",
    holders,
    clients: [],
    leases: [],
    storage: null,
    messages: [],
    drops: [],
    network: { groups: [], cuts: [],
      slow: [],
      isolated: [], dropRate: 0, duplicateRate: 0, latencyMinUs: 1000, latencyMaxUs: 5000 },
    checkers: [],
    violations: 0,
    recentViolations: [],
    newEvents: [],
    traceHash: "x",
    eventsProcessed: 0,
    eventsHandled: 0,
    lastStep: [],
    lastStepBack: false,
    ...over,
  };
}

/** The opening tag of the element carrying `attr` (e.g. `aria-label="holder h2, ..."`). */
function tagWith(html: string, attr: string): string {
  const i = html.indexOf(attr);
  if (i < 0) return "";
  return html.slice(html.lastIndexOf("<", i), html.indexOf(">", i) + 1);
}

/** The markup of the SVG group for one state box. */
function boxGroup(html: string, state: string): string {
  const start = html.indexOf(`data-state="${state}"`);
  if (start < 0) return "";
  const open = html.lastIndexOf("<g", start);
  return html.slice(open, html.indexOf("</g>", start) + 4);
}

describe("holders panel", () => {
  const holders = [
    holder("h1", "holding.waiting", { token: 34, deadlineAt: NOW + 1_234_000, writesAccepted: 12 }),
    holder("h2", "requesting.denied", { writesAccepted: 3, writesRejected: 1 }),
    holder("h3", "jeopardy.renewing", { token: 33, deadlineAt: NOW - 300_000, status: "paused", pausedUntil: NOW + 2_000_000 }),
    holder("h4", "down", { status: "down" }),
  ];
  const html = renderToStaticMarkup(<HolderPanelView view={simView(holders)} select={() => {}} selected="h1" highlight={[]} />);

  it("is a titled section", () => {
    expect(html).toMatch(/^<section class="panel holders-panel" aria-labelledby="holders-title">/);
    expect(html).toContain('<h2 id="holders-title">Lease holders</h2>');
  });

  it("lights the states holders are in (and their parents), with each holder's badge on its state", () => {
    const waiting = boxGroup(html, "holding.waiting");
    expect(waiting).toContain("sc-box lit");
    const renewing = boxGroup(html, "holding.renewing");
    expect(renewing).not.toContain("lit");
    expect(boxGroup(html, "holding")).toContain("sc-box lit compound");
    expect(boxGroup(html, "lost")).not.toContain("lit");
    // Badges: h1 in waiting, paused h3 with ⏸, the down holder in the down box.
    const layout = holderChartLayout();
    const occ = occupancy(layout, holders);
    expect(occ.get("holding.waiting")?.map((h) => h.id)).toEqual(["h1"]);
    expect(occ.get("requesting.denied")?.map((h) => h.id)).toEqual(["h2"]);
    expect(occ.get("jeopardy.renewing")?.map((h) => h.id)).toEqual(["h3"]);
    expect(occ.get(DOWN_BOX)?.map((h) => h.id)).toEqual(["h4"]);
    expect(html).toContain(">h3 ⏸</text>");
    expect(html).toContain('class="sc-box sc-down lit"');
    // The chart says who is where, in words.
    expect(html).toContain(
      'aria-label="Holder statechart. h1 holding.waiting; h2 requesting.denied; h3 jeopardy.renewing (paused); h4 down."',
    );
  });

  it("has a row per holder with its accessible name and an Inspect button", () => {
    expect(html).toContain('aria-label="holder h1, holding.waiting, token 34"');
    expect(html).toContain('aria-label="holder h2, requesting.denied, no token"');
    expect(html).toContain('aria-label="holder h3, jeopardy.renewing, paused, token 33"');
    expect(html).toContain('aria-label="holder h4, down, no token"');
    const button = tagWith(html, 'aria-label="Inspect holder h1"');
    expect(button).toMatch(/^<button type="button"/);
    expect(button).toContain('aria-current="true"');
    expect(tagWith(html, 'aria-label="Inspect holder h2"')).not.toContain("aria-current");
  });

  it("shows each holder's own time left, status and writes", () => {
    expect(html).toContain("1.2 s left");
    expect(html).toContain("300 ms past deadline");
    expect(html).toContain("paused until 14.346 s");
    expect(html).toContain("✕ down (crashed)");
    expect(html).toContain('✓3</span> <span class="bad">✗1');
  });

  it("words states and times", () => {
    expect(holderStateWords("requesting.denied")).toBe("denied, will retry");
    expect(holderStateWords("jeopardy.backoff")).toBe("jeopardy: must not write, renewal failed");
    expect(holderStateWords("grace.renewing")).toBe("grace: lease ran out, renewing");
    expect(holderStateWords("lost")).toBe("lost the lease");
    expect(timeLeftText(null, NOW)).toBe("—");
    expect(timeLeftText(NOW + 1_250_000, NOW)).toBe("1.3 s left");
    expect(holderRowLabel(holder("h5", "holding.renewing", { token: 40 }))).toBe("holder h5, holding.renewing, token 40");
  });

  it("says so when the run has no holders", () => {
    const empty = renderToStaticMarkup(<HolderPanelView view={simView([])} select={() => {}} selected={null} highlight={[]} />);
    expect(empty).toContain("No lease holders in this run. Add some in Settings.");
    expect(empty).not.toContain("<svg");
  });
});

function write(t: number, h: string, token: number, highestAfter: number, accepted: boolean, fencing = true): StorageWriteView {
  return { t, holder: h, resource: "account", token, accepted, reason: accepted ? null : "stale", highestAfter, fencing };
}

function storage(over: Partial<StorageView> = {}): StorageView {
  return {
    id: "s1",
    status: "up",
    fencing: true,
    resources: [{ resource: "account", highest: 34, value: "h1#12" }],
    writes: [write(10_000_000, "h2", 21, 21, true), write(11_000_000, "h1", 34, 34, true), write(11_500_000, "h2", 33, 34, false)],
    accepted: 2,
    rejected: 1,
    ...over,
  };
}

describe("storage panel", () => {
  it("words accepted, rejected and stale-but-accepted writes from token and highest seen", () => {
    expect(writeResultText(write(1, "h1", 34, 34, true))).toBe("✓ accepted");
    expect(writeResultText(write(1, "h2", 33, 34, false))).toBe("✗ rejected: token 33 < 34 already seen");
    expect(writeResultText(write(1, "h3", 33, 34, true, false))).toBe("✓ accepted, but stale: token 33 < 34 already seen (fencing off)");
    expect(writeRowLabel(write(11_500_000, "h2", 33, 34, false))).toBe("rejected: h2 wrote token 33 to account at 11.500 s");
    expect(writeRowLabel(write(1_000, "h1", 34, 34, true))).toBe("accepted: h1 wrote token 34 to account at 0.001 s");
  });

  it("lists writes newest first, rejected rows marked by class, glyph and word", () => {
    const html = renderToStaticMarkup(<StoragePanelView storage={storage()} onFencing={() => {}} onInspect={() => {}} />);
    const rejected = html.indexOf('aria-label="rejected: h2 wrote token 33');
    const accepted = html.indexOf('aria-label="accepted: h1 wrote token 34');
    const oldest = html.indexOf('aria-label="accepted: h2 wrote token 21');
    expect(rejected).toBeGreaterThan(0);
    expect(rejected).toBeLessThan(accepted);
    expect(accepted).toBeLessThan(oldest);
    expect(tagWith(html, 'aria-label="rejected: h2 wrote token 33')).toContain('class="rejected"');
    expect(html).toContain("✗ rejected: token 33 &lt; 34 already seen");
    expect(html).toContain("✓ 2 accepted");
    expect(html).toContain("✗ 1 rejected");
    expect(html).toContain('<h2 id="storage-title">Storage</h2>');
  });

  it("has a fencing switch named Fencing tokens, with its state and what it means", () => {
    const on = renderToStaticMarkup(<StoragePanelView storage={storage()} onFencing={() => {}} onInspect={() => {}} />);
    const sw = tagWith(on, 'role="switch"');
    expect(sw).toContain('aria-checked="true"');
    expect(sw).toContain('aria-labelledby="fencing-label"');
    expect(on).toContain('<span id="fencing-label" class="fencing-name">Fencing tokens</span>');
    expect(on).toContain("rejects any write with a token lower than the highest it has seen");
    const off = renderToStaticMarkup(<StoragePanelView storage={storage({ fencing: false })} onFencing={() => {}} onInspect={() => {}} />);
    expect(tagWith(off, 'role="switch"')).toContain('aria-checked="false"');
    expect(off).toContain("accepts every write (an efficiency lock only)");
    expect(off).toContain('<span class="state-word">off</span>');
  });

  it("keys identical writes apart", () => {
    const w = write(5, "h1", 3, 3, true);
    const keys = writeKeys([w, w, write(6, "h1", 3, 3, true)]);
    expect(new Set(keys).size).toBe(3);
  });

  it("says so when the run has no storage", () => {
    const html = renderToStaticMarkup(<StoragePanelView storage={null} onFencing={() => {}} onInspect={() => {}} />);
    expect(html).toContain("no fenced storage");
    expect(html).not.toContain('role="switch"');
  });
});

const checker = (invariant: string, violations = 0, firstAt: number | null = null): CheckerView => ({
  invariant,
  rule: `rule of ${invariant}`,
  violations,
  firstAt,
});

describe("checker panel", () => {
  const checkers = [
    checker("election-safety"),
    checker("lease-exclusive"),
    checker("assertion"),
    checker("storage-corruption", 2, 12_000_000),
    checker("renewed-lease-kept"),
  ];

  it("groups lease checkers apart from Raft ones and words their status", () => {
    const { raft, lease } = groupCheckers(checkers);
    expect(raft.map((c) => c.invariant)).toEqual(["election-safety", "assertion"]);
    expect(lease.map((c) => c.invariant)).toEqual(["lease-exclusive", "storage-corruption", "renewed-lease-kept"]);
    expect(checkerStatusText(checkers[0] as CheckerView)).toBe("✓ holds");
    expect(checkerStatusText(checkers[3] as CheckerView)).toBe("✗ violated (2)");
  });

  it("shows no alert while everything holds", () => {
    const html = renderToStaticMarkup(
      <CheckerPanelView
        view={{ checkers: [checker("election-safety")], violations: 0, recentViolations: [], seed: 7 }}
        setHighlight={() => {}}
      />,
    );
    expect(html).toContain('data-testid="checker-panel"');
    expect(html).toContain('<h2 id="checker-title">Invariants</h2>');
    expect(html).not.toContain('role="alert"');
    expect(html).toContain("✓ All 1 invariants hold.");
  });

  it("puts a prominent alert first when safety is violated, with explanations and Highlight buttons", () => {
    const v: ViolationView = {
      invariant: "storage-corruption",
      timeUs: 12_000_000,
      nodes: ["h3", "s1"],
      detail: "s1 accepted token 33 after 34",
      explanation: "With fencing off, the storage accepted a stale write.",
    };
    const html = renderToStaticMarkup(
      <CheckerPanelView view={{ checkers, violations: 2, recentViolations: [v], seed: 7 }} setHighlight={() => {}} />,
    );
    const alert = html.indexOf('role="alert"');
    expect(alert).toBeGreaterThan(0);
    expect(alert).toBeLessThan(html.indexOf("checker-table"));
    expect(html).toContain("Safety violated: the run paused when it happened");
    expect(html).toContain("With fencing off, the storage accepted a stale write.");
    expect(html).toContain("s1 accepted token 33 after 34");
    expect(html).toContain("at 12.000 s");
    expect(tagWith(html, 'aria-label="Highlight h3, s1 (storage-corruption at 12.000 s)"')).toMatch(/^<button/);
    expect(html).toContain(">Clear highlight</button>");
    // The violated checker's row says so, with the first time.
    expect(html).toContain("✗ violated (2)");
    expect(html).toContain("first at 12.000 s");
    // Lease group before Raft group.
    expect(html.indexOf("Leases and storage")).toBeLessThan(html.indexOf(">Raft<"));
  });
});

function events(n: number): EventLine[] {
  return Array.from({ length: n }, (_, i) => ({
    n: i,
    t: i * 1000,
    category: EVENT_CATEGORIES[i % EVENT_CATEGORIES.length] as EventCategory,
    text: `${EVENT_CATEGORIES[i % EVENT_CATEGORIES.length]} line ${i}`,
    procs: [`n${(i % 3) + 1}`],
  }));
}

describe("event log", () => {
  it("hides messages by default and shows the newest lines first", () => {
    const all = events(30);
    const shown = filterEvents(all, DEFAULT_EVENT_CATEGORIES, "");
    expect(shown.some((e) => e.category === "message")).toBe(false);
    expect(shown.length).toBe(30 - all.filter((e) => e.category === "message").length);
    expect(shown[0]?.n).toBe(29);
    for (let i = 1; i < shown.length; i++) expect((shown[i] as EventLine).n).toBeLessThan((shown[i - 1] as EventLine).n);
  });

  it("filters by category and by text or process id (every word must match)", () => {
    const all = events(90);
    const onlyLease = filterEvents(all, new Set<EventCategory>(["lease"]), "");
    expect(onlyLease.every((e) => e.category === "lease")).toBe(true);
    expect(onlyLease.length).toBe(10);
    const n2 = filterEvents(all, new Set(EVENT_CATEGORIES), "N2");
    expect(n2.length).toBe(30);
    expect(n2.every((e) => e.procs.includes("n2"))).toBe(true);
    const both = filterEvents(all, new Set(EVENT_CATEGORIES), "election n1");
    expect(both.every((e) => e.category === "election" && e.procs.includes("n1"))).toBe(true);
    expect(both.length).toBeGreaterThan(0);
    expect(filterEvents(all, new Set(EVENT_CATEGORIES), "line 42").map((e) => e.n)).toEqual([42]);
  });

  it("shows at most 200 lines", () => {
    expect(filterEvents(events(1000), new Set(EVENT_CATEGORIES), "").length).toBe(200);
    expect(filterEvents(events(1000), new Set(EVENT_CATEGORIES), "", 5).map((e) => e.n)).toEqual([999, 998, 997, 996, 995]);
  });

  it("counts lines per category", () => {
    const c = countByCategory(events(20));
    expect(c.election).toBe(3);
    expect(c.note).toBe(2);
    expect(Object.values(c).reduce((a, b) => a + b, 0)).toBe(20);
  });

  it("renders checkboxes with counts (message unchecked), a filter box, and tagged lines", () => {
    const html = renderToStaticMarkup(<EventLogView events={events(30)} setHighlight={() => {}} />);
    expect(html).toContain('<h2 id="events-title">Event log</h2>');
    expect(html).toMatch(
      /<input type="checkbox" checked=""\/><span class="swatch"[^>]*><\/span>election <span class="count">\(4\)<\/span>/,
    );
    expect(html).toMatch(/<input type="checkbox"\/><span class="swatch"[^>]*><\/span>message <span class="count">\(3\)<\/span>/);
    expect(tagWith(html, 'aria-label="Filter events"')).toMatch(/^<input type="search"/);
    const lines = html.match(/<li[ >]/g) ?? [];
    expect(lines.length).toBe(27);
    // Newest first; the category is written as a word; one tab stop (the first line).
    expect(html.indexOf("note line 26")).toBeLessThan(html.indexOf("note line 17"));
    expect(html).toContain('<span class="cat" style="border-color:#D55E00">⚠ violation</span>');
    expect((html.match(/tabindex="0"/g) ?? []).length).toBe(1);
    expect(html).toContain('<li class="violation"');
  });

  it("applies an initial text filter and says when nothing matches", () => {
    const html = renderToStaticMarkup(<EventLogView events={events(30)} setHighlight={() => {}} initialQuery="zzz" />);
    expect(html).toContain("No event matches the filters.");
    const empty = renderToStaticMarkup(<EventLogView events={[]} setHighlight={() => {}} />);
    expect(empty).toContain("Nothing has happened yet.");
  });
});
