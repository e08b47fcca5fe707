/**
 * Time travel: the slider's maths, the merging of marker ticks, the seek coalescing
 * while dragging, and the panel's controls (marker ticks seek, the branch list marks
 * the current branch and "Return to" switches branch), plus the new shortcuts.
 */
import fc from "fast-check";
import { isValidElement, type ReactElement, type ReactNode } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { handleKey, SHORTCUTS } from "../../src/app/shortcuts";
import { createLabStore, type LabStore } from "../../src/app/store";
import { type FrameScheduler, SeekCoalescer, TimeCursor } from "../../src/app/timeline/cursor";
import { ActionList, BranchList, MarkerTicks, TimeTravelView } from "../../src/app/timeline/TimeTravel";
import {
  clusterMarkers,
  cursorText,
  cursorWords,
  filterMarkers,
  fractionToTime,
  keySteps,
  keyTarget,
  MARKER_KINDS,
  niceCeil,
  nextMarker,
  pixelToTime,
  previousMarker,
  secondsText,
  timeToFraction,
  timeToPixel,
} from "../../src/app/timeline/timeMath";
import { ALL_KINDS, useTimelineUi } from "../../src/app/timeline/timelineUi";
import type { TimelineMarkerKind, TimelineMarker, TimelineView, ToWorker } from "../../src/worker/protocol";
import { timelineFixture, viewFixture } from "../support/views";

const S = 1_000_000;

/** A frame clock the test advances by hand. */
class FakeFrames implements FrameScheduler {
  private next = 1;
  readonly waiting = new Map<number, () => void>();
  request(cb: () => void): number {
    const h = this.next++;
    this.waiting.set(h, cb);
    return h;
  }
  cancel(h: number): void {
    this.waiting.delete(h);
  }
  /** Runs every callback requested before this frame. */
  tick(): void {
    const cbs = [...this.waiting.values()];
    this.waiting.clear();
    for (const cb of cbs) cb();
  }
}

function marker(t: number, kind: TimelineMarkerKind = "election", n = t, label = `${kind} at ${t}`): TimelineMarker {
  return { t, n, kind, label };
}

const seeks = (send: ReturnType<typeof vi.fn>): number[] =>
  send.mock.calls.map((c) => c[0] as ToWorker).flatMap((m) => (m.type === "seek" ? [m.t] : []));

// ---- walking a rendered element tree without a DOM (for components without hooks) ----

function expand(node: ReactNode): ReactNode {
  if (Array.isArray(node)) return node.map(expand);
  if (!isValidElement(node)) return node;
  const el = node as ReactElement<Record<string, unknown>>;
  const t = el.type as unknown;
  if (typeof t === "function") return expand((t as (p: unknown) => ReactNode)(el.props));
  if (typeof t === "object" && t !== null && "type" in t && typeof (t as { type: unknown }).type === "function") {
    return expand((t as { type: (p: unknown) => ReactNode }).type(el.props));
  }
  return { ...el, props: { ...el.props, children: expand(el.props.children as ReactNode) } } as ReactNode;
}

function findAll(node: ReactNode, pred: (el: ReactElement<Record<string, unknown>>) => boolean): ReactElement<Record<string, unknown>>[] {
  const out: ReactElement<Record<string, unknown>>[] = [];
  const walk = (n: ReactNode): void => {
    if (Array.isArray(n)) {
      for (const c of n) walk(c);
      return;
    }
    if (!isValidElement(n)) return;
    const el = n as ReactElement<Record<string, unknown>>;
    if (pred(el)) out.push(el);
    walk(el.props.children as ReactNode);
  };
  walk(node);
  return out;
}

function textOf(node: ReactNode): string {
  if (node === null || node === undefined || typeof node === "boolean") return "";
  if (typeof node === "string" || typeof node === "number") return String(node);
  if (Array.isArray(node)) return node.map(textOf).join("");
  if (isValidElement(node)) return textOf((node.props as { children?: ReactNode }).children);
  return "";
}

function button(tree: ReactNode, name: string | RegExp): ReactElement<Record<string, unknown>> {
  const hits = findAll(tree, (el) => {
    if (el.type !== "button") return false;
    const label = (el.props["aria-label"] as string | undefined) ?? textOf(el);
    return typeof name === "string" ? label === name : name.test(label);
  });
  expect(hits, `one button named ${String(name)}`).toHaveLength(1);
  return hits[0] as ReactElement<Record<string, unknown>>;
}

const click = (el: ReactElement<Record<string, unknown>>): void => (el.props.onClick as () => void)();

/** The opening tag of the element carrying `attr`. */
function tagWith(html: string, attr: string): string {
  const i = html.indexOf(attr);
  if (i < 0) return "";
  return html.slice(html.lastIndexOf("<", i), html.indexOf(">", i) + 1);
}

// ---- maths ----

describe("time <-> position", () => {
  it("maps time onto the track and back, clamped to 0..end", () => {
    expect(timeToFraction(10 * S, 40 * S)).toBe(0.25);
    expect(timeToFraction(-5, 40 * S)).toBe(0);
    expect(timeToFraction(50 * S, 40 * S)).toBe(1);
    expect(timeToFraction(3, 0)).toBe(0);
    expect(fractionToTime(0.25, 40 * S)).toBe(10 * S);
    expect(fractionToTime(1.5, 40 * S)).toBe(40 * S);
    expect(fractionToTime(0.5, 0)).toBe(0);
    expect(timeToPixel(10 * S, 800, 40 * S)).toBe(200);
    expect(pixelToTime(200, 800, 40 * S)).toBe(10 * S);
    expect(pixelToTime(-20, 800, 40 * S)).toBe(0);
  });

  it("round-trips: time -> pixel -> time is off by at most one pixel's worth", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10 ** 10 }),
        fc.integer({ min: 1, max: 4000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (end, width, f) => {
          const t = fractionToTime(f, end);
          expect(t).toBeGreaterThanOrEqual(0);
          expect(t).toBeLessThanOrEqual(end);
          expect(Math.abs(pixelToTime(timeToPixel(t, width, end), width, end) - t)).toBeLessThanOrEqual(1);
        },
      ),
    );
  });

  it("keys move by a nice hundredth (arrows) or tenth (pages) of the run, Home / End to the ends", () => {
    expect(niceCeil(0.4 * S)).toBe(0.5 * S);
    expect(niceCeil(3 * S)).toBe(5 * S);
    expect(niceCeil(0.3 / 0.1)).toBe(5);
    expect(niceCeil(1000)).toBe(1000);
    expect(keySteps(40 * S)).toEqual({ small: 0.5 * S, large: 5 * S });
    expect(keySteps(0)).toEqual({ small: 1000, large: 1000 });
    const at = 12.4 * S;
    expect(keyTarget("ArrowRight", at, 40 * S)).toBe(12.9 * S);
    expect(keyTarget("ArrowUp", at, 40 * S)).toBe(12.9 * S);
    expect(keyTarget("ArrowLeft", at, 40 * S)).toBe(11.9 * S);
    expect(keyTarget("PageUp", at, 40 * S)).toBe(17.4 * S);
    expect(keyTarget("PageDown", at, 40 * S)).toBe(7.4 * S);
    expect(keyTarget("PageDown", 2 * S, 40 * S)).toBe(0);
    expect(keyTarget("ArrowRight", 39.9 * S, 40 * S)).toBe(40 * S);
    expect(keyTarget("Home", at, 40 * S)).toBe(0);
    expect(keyTarget("End", at, 40 * S)).toBe(40 * S);
    expect(keyTarget("a", at, 40 * S)).toBeNull();
  });

  it("says where the cursor is, in words", () => {
    expect(cursorText(12.4 * S, 40 * S)).toBe("12.4 s of 40.0 s");
    expect(cursorWords(12.4 * S, 40 * S)).toBe("cursor at 12.4 s of 40.0 s, viewing the past");
    expect(cursorWords(40 * S, 40 * S)).toBe("cursor at 40.0 s of 40.0 s");
    expect(secondsText(1_234_000, 4 * S)).toBe("1.23 s");
    expect(secondsText(123_456, 500_000)).toBe("0.123 s");
  });
});

describe("previous / next marker", () => {
  const ms = [marker(1 * S), marker(2 * S, "expiry"), marker(2 * S, "violation", 3), marker(5 * S)];

  it("finds the nearest marker strictly before or after the cursor", () => {
    expect(previousMarker(ms, 2 * S)?.t).toBe(1 * S);
    expect(previousMarker(ms, 2 * S + 1)?.n).toBe(3);
    expect(previousMarker(ms, 1 * S)).toBeNull();
    expect(nextMarker(ms, 2 * S)?.t).toBe(5 * S);
    expect(nextMarker(ms, 1 * S)?.t).toBe(2 * S);
    expect(nextMarker(ms, 5 * S)).toBeNull();
    expect(nextMarker([], 0)).toBeNull();
  });

  it("agrees with a linear scan", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 100 })), fc.integer({ min: -5, max: 105 }), (ts, t) => {
        const sorted = [...ts].sort((a, b) => a - b).map((x, i) => marker(x, "election", i));
        expect(previousMarker(sorted, t)).toBe(sorted.filter((m) => m.t < t).at(-1) ?? null);
        expect(nextMarker(sorted, t)).toBe(sorted.find((m) => m.t > t) ?? null);
      }),
    );
  });

  it("only the kinds shown count", () => {
    expect(filterMarkers(ms, ALL_KINDS)).toBe(ms);
    expect(filterMarkers(ms, new Set<TimelineMarkerKind>(["violation"])).map((m) => m.n)).toEqual([3]);
  });
});

describe("marker clustering", () => {
  it("keeps markers that are far apart as separate ticks, at their own positions", () => {
    const cs = clusterMarkers([marker(0), marker(10 * S, "expiry"), marker(20 * S)], 40 * S, 400, 20);
    expect(cs.map((c) => c.markers.length)).toEqual([1, 1, 1]);
    expect(cs.map((c) => c.fraction)).toEqual([0, 0.25, 0.5]);
    expect(cs[1]?.kind).toBe("expiry");
  });

  it("merges markers that would overlap; the tick shows the most serious kind and seeks to the first", () => {
    // 400 px for 40 s: 1 px is 0.1 s, so markers within 2 s of a tick's first marker join it.
    const cs = clusterMarkers(
      [marker(10 * S), marker(10.5 * S, "violation"), marker(11.9 * S, "expiry"), marker(12 * S, "action"), marker(13 * S)],
      40 * S,
      400,
      20,
    );
    expect(cs.map((c) => c.markers.map((m) => m.t))).toEqual([
      [10 * S, 10.5 * S, 11.9 * S],
      [12 * S, 13 * S],
    ]);
    expect(cs.map((c) => c.kind)).toEqual(["violation", "action"]);
    expect(cs[0]?.t).toBe(10 * S);
  });

  it("sorts markers given out of order", () => {
    const cs = clusterMarkers([marker(30 * S), marker(0)], 40 * S, 400, 20);
    expect(cs.map((c) => c.t)).toEqual([0, 30 * S]);
  });

  it("a dense run of 2000 markers gives at most one tick per gap", () => {
    const ms = Array.from({ length: 2000 }, (_, i) => marker(i * 20_000, MARKER_KINDS[i % 5] as TimelineMarkerKind, i));
    const cs = clusterMarkers(ms, 40 * S, 640, 20);
    expect(cs.length).toBeLessThanOrEqual(640 / 20 + 1);
    expect(cs.length).toBeGreaterThan(20);
    expect(cs.reduce((a, c) => a + c.markers.length, 0)).toBe(2000);
    // Every tick of a dense run holds a violation, the most serious kind.
    expect(cs.every((c) => c.kind === "violation")).toBe(true);
  });

  it("property: every marker in exactly one tick, in order; ticks never closer than the gap; members within the gap", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ t: fc.integer({ min: 0, max: 1000 }), k: fc.constantFrom(...MARKER_KINDS) }), { maxLength: 300 }),
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 50, max: 2000 }),
        fc.integer({ min: 1, max: 40 }),
        (raw, end, width, gap) => {
          const ms = raw.map((r, i) => marker(r.t, r.k, i)).sort((a, b) => a.t - b.t || a.n - b.n);
          const cs = clusterMarkers(ms, end, width, gap);
          expect(cs.flatMap((c) => c.markers)).toEqual(ms);
          for (let i = 1; i < cs.length; i++) {
            const a = cs[i - 1]!;
            const b = cs[i]!;
            expect((b.fraction - a.fraction) * width).toBeGreaterThanOrEqual(gap - 1e-9);
          }
          for (const c of cs) {
            expect(c.markers.length).toBeGreaterThan(0);
            for (const m of c.markers) expect(timeToPixel(m.t, width, end) - c.fraction * width).toBeLessThan(gap);
          }
          expect(cs.length).toBeLessThanOrEqual(Math.floor(width / gap) + 1);
        },
      ),
    );
  });
});

// ---- seeks while dragging ----

describe("seek coalescing", () => {
  it("sends at most one seek per frame, the newest position; the last one goes out when the drag ends", () => {
    const frames = new FakeFrames();
    const sent: number[] = [];
    const c = new SeekCoalescer((t) => sent.push(t), frames);
    c.begin();
    for (const t of [1, 2, 3, 4]) c.push(t);
    expect(sent).toEqual([]);
    expect(frames.waiting.size).toBe(1);
    frames.tick();
    expect(sent).toEqual([4]);
    frames.tick();
    expect(sent).toEqual([4]);
    c.push(5);
    c.push(6);
    frames.tick();
    c.push(7);
    c.push(8);
    c.finish();
    expect(sent).toEqual([4, 6, 8]);
    // The frame that was waiting is cancelled: nothing more goes out.
    expect(frames.waiting.size).toBe(0);
    frames.tick();
    expect(sent).toEqual([4, 6, 8]);
  });

  it("does not send the same position twice in one gesture, and sends nothing for a drag that goes nowhere", () => {
    const frames = new FakeFrames();
    const sent: number[] = [];
    const c = new SeekCoalescer((t) => sent.push(t), frames);
    c.begin();
    c.finish();
    expect(sent).toEqual([]);
    c.push(9);
    frames.tick();
    c.push(9);
    frames.tick();
    c.finish();
    expect(sent).toEqual([9]);
    // A new gesture may go back to the same place (the run may have moved meanwhile).
    c.begin();
    c.finish(9);
    expect(sent).toEqual([9, 9]);
  });

  it("a drag through the cursor: shown at once, one seek per frame, the last on release, then the worker's answer takes over", () => {
    const frames = new FakeFrames();
    const send = vi.fn();
    const cur = new TimeCursor(send, frames);
    const changes = vi.fn();
    cur.subscribe(changes);
    cur.observe({ runId: 1, epoch: 1, now: 30 * S });
    expect(cur.shown(30 * S)).toBe(30 * S);

    cur.begin();
    cur.update(20 * S);
    cur.update(15 * S);
    expect(cur.shown(30 * S)).toBe(15 * S);
    expect(changes).toHaveBeenCalled();
    expect(seeks(send)).toEqual([]);
    frames.tick();
    expect(seeks(send)).toEqual([15 * S]);
    // The worker answers the first seek while the drag goes on: the slider stays with the pointer.
    cur.observe({ runId: 1, epoch: 2, now: 15 * S });
    cur.update(12 * S);
    cur.update(11 * S);
    expect(cur.shown(15 * S)).toBe(11 * S);
    cur.release();
    expect(seeks(send)).toEqual([15 * S, 11 * S]);
    frames.tick();
    expect(send).toHaveBeenCalledTimes(2);
    // Until the answer arrives the slider shows where the user let go, not the old cursor.
    expect(cur.shown(15 * S)).toBe(11 * S);
    cur.observe({ runId: 1, epoch: 3, now: 11 * S });
    expect(cur.getOverride()).toBeNull();
    expect(cur.shown(11 * S)).toBe(11 * S);
  });

  it("keys move the cursor through the same coalescing; a jump (marker, action) is sent at once", () => {
    const frames = new FakeFrames();
    const send = vi.fn();
    const cur = new TimeCursor(send, frames);
    cur.observe({ runId: 1, epoch: 1, now: 10 * S });
    cur.update(10.5 * S);
    cur.update(11 * S);
    // A view arriving before the frame does not drop the position asked for.
    cur.observe({ runId: 1, epoch: 1, now: 10 * S });
    expect(cur.shown(10 * S)).toBe(11 * S);
    frames.tick();
    expect(seeks(send)).toEqual([11 * S]);
    cur.jump(3 * S);
    expect(seeks(send)).toEqual([11 * S, 3 * S]);
    expect(cur.shown(11 * S)).toBe(3 * S);
    cur.observe({ runId: 2, epoch: 1, now: 0 });
    expect(cur.getOverride()).toBeNull();
  });

  it("the same key twice, with the run moved in between, seeks twice (End, step back, End)", () => {
    const frames = new FakeFrames();
    const send = vi.fn();
    const cur = new TimeCursor(send, frames);
    cur.observe({ runId: 1, epoch: 1, now: 10 * S });
    cur.update(20 * S);
    frames.tick();
    cur.observe({ runId: 1, epoch: 2, now: 20 * S });
    // A step back happens (not through the cursor), then End again.
    cur.observe({ runId: 1, epoch: 3, now: 19.9 * S });
    cur.update(20 * S);
    frames.tick();
    expect(seeks(send)).toEqual([20 * S, 20 * S]);
  });
});

// ---- the panel ----

const BRANCHED: TimelineView = timelineFixture({
  branch: 1,
  end: 12 * S,
  branches: [
    { id: 0, name: "main", parent: null, forkedAt: 0, end: 40 * S, actions: 1, firstAction: null },
    { id: 1, name: "branch 2", parent: 0, forkedAt: 2.4 * S, end: 12 * S, actions: 2, firstAction: "crash n2" },
  ],
  markers: [
    marker(1 * S, "election", 10, "n3 leads term 2"),
    marker(2.4 * S, "action", 20, "crash n2"),
    marker(6 * S, "rejection", 30, "write by h1 (token 7) rejected"),
  ],
  actions: [
    { at: 2.4 * S, action: { type: "crash", proc: "n2" }, text: "crash n2", scripted: false },
    { at: 8 * S, action: { type: "heal" }, text: "heal", scripted: false },
  ],
  canStepBack: true,
});

describe("time travel panel", () => {
  function render(timeline: TimelineView, now: number, playing = false): string {
    const view = viewFixture({ timeline, now, playing });
    return renderToStaticMarkup(
      <TimeTravelView
        view={view}
        send={() => {}}
        cursor={new TimeCursor(() => {}, new FakeFrames())}
        kinds={ALL_KINDS}
        toggleKind={() => {}}
        branchNoteDismissed={false}
        dismissBranchNote={() => {}}
      />,
    );
  }

  it("has a slider named Time with the cursor in words, and says when the cursor is in the past", () => {
    const html = render(BRANCHED, 6.2 * S);
    const slider = tagWith(html, 'type="range"');
    expect(slider).toContain('aria-valuetext="cursor at 6.2 s of 12.0 s, viewing the past"');
    expect(slider).toContain('max="12000000"');
    expect(slider).toContain('value="6200000"');
    const id = /id="([^"]+)"/.exec(slider)?.[1];
    expect(html).toContain(`<label for="${id}" class="tt-slider-label">Time</label>`);
    expect(html).toContain("6.2 s</strong> of 12.0 s");
    expect(html).toContain("Viewing the past</strong> — press Play to replay the recorded future, or act to branch.");
    const live = render(BRANCHED, 12 * S, true);
    expect(live).not.toContain("Viewing the past");
    expect(live).toContain("Live: new time is being explored.");
  });

  it("draws one tick per marker with its glyph and words, previous / next marker buttons and a Jump to list", () => {
    const html = render(BRANCHED, 2.4 * S);
    expect(html).toContain('aria-label="n3 leads term 2 (election, 1.000 s)"');
    expect(tagWith(html, 'aria-label="write by h1 (token 7) rejected (rejected write, 6.000 s)"')).toContain("tt-tick tt-rejection");
    // The tick at the cursor is marked as current.
    expect(tagWith(html, 'aria-label="crash n2 (your action, 2.400 s)"')).toContain("here");
    expect(tagWith(html, ">Previous marker")).not.toContain("disabled");
    expect(html).toMatch(
      /<button[^>]*title="Go to n3 leads term 2 at 1.000 s \(\[\)"[^>]*><span aria-hidden="true">◀<\/span>Previous marker<\/button>/,
    );
    expect(html).toMatch(/title="Go to write by h1 \(token 7\) rejected at 6.000 s \(\]\)"[^>]*>Next marker/);
    expect(html).toContain('<option value="30">6.000 s ⊘ write by h1 (token 7) rejected</option>');
    expect(html).toContain("You changed the past:</strong> a new branch, “branch 2”, started at 2.4 s with “crash n2”.");
    // At the first marker there is nothing before it.
    expect(render(BRANCHED, 1 * S)).toMatch(/<button type="button" disabled=""[^>]*><span aria-hidden="true">◀<\/span>Previous marker/);
  });

  it("clicking a marker tick sends a seek to its time", () => {
    const send = vi.fn();
    const cur = new TimeCursor(send, new FakeFrames());
    const clusters = clusterMarkers(BRANCHED.markers, 12 * S, 600, 20);
    const tree = expand(<MarkerTicks clusters={clusters} timeText={(us) => `${us / S} s`} seek={(t) => cur.jump(t)} at={0} />);
    expect(findAll(tree, (el) => el.type === "button")).toHaveLength(3);
    click(button(tree, /^write by h1/));
    expect(send.mock.calls).toEqual([[{ type: "seek", t: 6 * S }]]);
    expect(cur.shown(0)).toBe(6 * S);
    // A merged tick (on a narrow track the election and the action overlap) seeks to its first marker.
    send.mockReset();
    const narrow = clusterMarkers(BRANCHED.markers, 12 * S, 60, 20);
    const merged = expand(<MarkerTicks clusters={narrow} timeText={(us) => `${us / S} s`} seek={(t) => cur.jump(t)} at={0} />);
    click(button(merged, /^2 markers from 1 s to 2.4 s: n3 leads term 2 \(election, 1 s\); crash n2 \(your action, 2.4 s\)$/));
    expect(send.mock.calls).toEqual([[{ type: "seek", t: 1 * S }]]);
  });

  it("clicking one of the branch's actions moves the cursor to it", () => {
    const sent: number[] = [];
    const tree = expand(<ActionList actions={BRANCHED.actions} seek={(t) => sent.push(t)} at={3 * S} />);
    click(button(tree, /heal/));
    expect(sent).toEqual([8 * S]);
    expect(textOf(tree)).toContain("8.000 s heal (ahead)");
  });

  it("the branch list marks the current branch; Return to switches to the other one", () => {
    const html = render(BRANCHED, 6 * S);
    const list = html.slice(html.indexOf('<ul aria-label="Branches"'), html.indexOf("</ul>", html.indexOf('<ul aria-label="Branches"')));
    expect(list).not.toBe("");
    const items = list.split("<li").slice(1);
    expect(items).toHaveLength(2);
    expect(items[0]).not.toContain("aria-current");
    expect(items[0]).toContain(">Return to main</button>");
    expect(items[1]).toContain('aria-current="true"');
    expect(items[1]).not.toContain("Return to");
    expect(items[1]).toContain("forked from main at 2.4 s · explored to 12.0 s · 2 actions · first change: <q>crash n2</q>");

    const send = vi.fn();
    const tree = expand(<BranchList timeline={BRANCHED} send={send} timeText={(us) => `${us / S} s`} />);
    expect(findAll(tree, (el) => el.type === "button")).toHaveLength(1);
    click(button(tree, "Return to main"));
    expect(send.mock.calls).toEqual([[{ type: "switchBranch", branch: 0 }]]);
  });
});

// ---- shortcuts ----

describe("time-travel shortcuts", () => {
  const send = vi.fn();
  let lab: LabStore;
  beforeEach(() => {
    send.mockReset();
    useTimelineUi.setState({ kinds: ALL_KINDS });
    lab = createLabStore();
    lab.setState({ send });
  });
  afterEach(() => {
    lab.getState().cursor.cancel();
  });

  it("are listed in the help", () => {
    const keys = SHORTCUTS.map((s) => s.keys);
    expect(keys).toEqual(expect.arrayContaining(["B", "[", "]", "S"]));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("B steps back when there is an earlier event; [ and ] go to the previous and next marker of the kinds shown", () => {
    const view = viewFixture({ now: 3 * S, timeline: BRANCHED });
    expect(handleKey(lab.getState(), "b", view)).toBe(true);
    expect(send.mock.calls).toEqual([[{ type: "stepBack" }]]);
    send.mockReset();
    expect(handleKey(lab.getState(), "b", viewFixture({ timeline: timelineFixture({ canStepBack: false }) }))).toBe(true);
    expect(send).not.toHaveBeenCalled();

    expect(handleKey(lab.getState(), "]", view)).toBe(true);
    expect(handleKey(lab.getState(), "[", view)).toBe(true);
    // "]" from 3 s goes to 6 s; "[" then starts from the 6 s the slider already shows, so goes to 2.4 s.
    expect(seeks(send)).toEqual([6 * S, 2.4 * S]);
    lab.getState().cursor.cancel();
    send.mockReset();
    useTimelineUi.getState().toggleKind("action");
    expect(handleKey(lab.getState(), "[", view)).toBe(true);
    expect(seeks(send)).toEqual([1 * S]);
  });
});
