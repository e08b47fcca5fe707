/**
 * The space-time (Lamport) diagram as a framework-free d3 drawing: React owns the
 * <svg> element, this owns everything inside it (the ring's split, see ringDrawing.ts).
 *
 * One vertical line per process, time flowing downwards, the cursor at the bottom
 * while following. Messages are arrows from (sender, sent) to (receiver, arrived);
 * dropped ones end partway in a ✕; those in flight stop at the cursor. State changes
 * are glyphs on the lines (words beside them when there is room), with segments for
 * down (grey), paused (hatched), leading and holding the lease.
 *
 * Timed things live in one group that is only translated while the window slides
 * (layout.ts: timeScale), so an element is rewritten only when it enters, changes, or
 * the zoom changes. Only what overlaps the window is in the DOM; joins are keyed by
 * message id. The drawing keeps the zoom and scroll state (Viewport) and reports it
 * through `callbacks.viewport` for the buttons React draws.
 */
import * as d3 from "d3";
import type { DiagramMark, DiagramMessage } from "../../worker/protocol";
import { HOLDER_COLOR } from "../ring/holderLayer";
import { messageColor, OKABE_ITO, ROLE_COLOR } from "../theme";
import type { SpaceTimeData } from "./input";
import {
  type Arrow,
  arrowText,
  type Batch,
  batchArrows,
  DENSE_ABOVE,
  finishedArrow,
  nearestArrow,
  visibleArrows,
} from "./arrows";
import {
  ARROW_FONT,
  arrowLabelFits,
  type Box,
  fitText,
  MARK_FONT,
  placeLabels,
  textWidth,
} from "./labels";
import {
  DEFAULT_SPAN_US,
  DEFAULT_WIDTH,
  type Frame,
  frameOf,
  type Lane,
  type Lanes,
  laneLayout,
  latestEnd,
  localY,
  MAX_SPAN_US,
  MIN_SPAN_US,
  panBy,
  processOrder,
  stepSpan,
  summaryText,
  type TimeScale,
  type TimeWindow,
  tickLabel,
  ticks,
  timeScale,
  timeToY,
  type Viewport,
  windowOf,
  windowTime,
  yToTime,
  zoomTo,
} from "./layout";
import {
  clipSegment,
  laneSegments,
  markGlyph,
  markPriority,
  type Segment,
  visibleMarks,
} from "./marks";

export interface SpaceTimeCallbacks {
  /** Highlights a message in the ring and here (null: none). */
  readonly focus: (id: number | null) => void;
  /** Opens a message in flight in the inspector. */
  readonly inspect: (id: number) => void;
  /** The zoom and scroll state changed (for the buttons). */
  readonly viewport?: (state: ViewportState) => void;
}

export interface ViewportState {
  readonly spanUs: number;
  readonly following: boolean;
  readonly canZoomIn: boolean;
  readonly canZoomOut: boolean;
  readonly canPanEarlier: boolean;
  readonly canPanLater: boolean;
}

export interface SpaceTimeDrawing {
  update(data: SpaceTimeData): void;
  /** The available width in CSS pixels (the drawing keeps one user unit = one pixel). */
  resize(width: number): void;
  /** −1: zoom in (less time), +1: zoom out. */
  zoom(dir: -1 | 1): void;
  /** Scrolls by a third of the window: −1 earlier, +1 later. */
  pan(dir: -1 | 1): void;
  /** Follows the cursor again (true) or freezes the window where it is (false). */
  follow(on: boolean): void;
  viewport(): Viewport;
  /** What the picture shows, in words (also its accessible name). */
  summary(): string;
  destroy(): void;
}

/** Arrow labels are only tried while at most this many arrows are visible (beyond that they could not fit anyway). */
const LABEL_ARROWS_UP_TO = 400;
/** Words drawn at most (marks first, then arrows). */
const MAX_LABELS = 260;
/** How close (px) the pointer must be to an arrow or a mark to point at it. */
const HIT_PX = 7;
/** Pointer travel (px) that turns a press into a drag. */
const DRAG_PX = 4;

const SEGMENT_WIDTH: Record<Segment["kind"], number> = { leader: 7, holding: 7, paused: 11, down: 6 };
const SEGMENT_ORDER: Record<Segment["kind"], number> = { leader: 0, holding: 0, paused: 1, down: 2 };

/** Colours arrows can take (one arrowhead marker each). */
const ARROW_COLORS = [OKABE_ITO.orange, OKABE_ITO.blue, OKABE_ITO.green, OKABE_ITO.purple, "#555555"] as const;

let drawingCount = 0;

interface DrawnArrow {
  readonly a: Arrow;
  /** The finished message it was drawn from (null for one in flight): unchanged object, unchanged arrow. */
  readonly src: DiagramMessage | null;
  readonly color: string;
  /** Local coordinates (inside the translated group). */
  readonly x1: number;
  readonly y1: number;
  readonly x2: number;
  readonly y2: number;
}

interface DrawnMark {
  readonly key: string;
  readonly m: DiagramMark;
  readonly x: number;
  readonly y: number;
  readonly glyph: string;
  readonly color: string;
  readonly label: string;
}

interface DrawnSegment {
  readonly key: string;
  readonly s: Segment;
  readonly x: number;
  readonly y: number;
  readonly h: number;
}

function setText(el: Element, s: string): void {
  if (el.textContent !== s) el.textContent = s;
}

/** A horizontal line from x1 to x2 at y (a tick, a violation's rule). */
function setRule(line: Element | null, x1: number, x2: number, y: string): void {
  if (line === null) return;
  setAttr(line, "x1", String(x1));
  setAttr(line, "x2", String(x2));
  setAttr(line, "y1", y);
  setAttr(line, "y2", y);
}

function setAttr(el: Element, name: string, value: string): void {
  if (el.getAttribute(name) !== value) el.setAttribute(name, value);
}

const r1 = (v: number): string => (Math.round(v * 10) / 10).toString();

/** The colour of a mark's glyph. */
function markColor(m: DiagramMark): string {
  if (m.kind === "violation" || m.bad) return OKABE_ITO.vermillion;
  if (m.kind === "role") {
    const g = markGlyph(m);
    return g === "★" ? ROLE_COLOR.leader : g === "?" ? "#a66f00" : g === "…" ? "#8a7d00" : "#2b7bb0";
  }
  if (m.kind === "crash" || m.kind === "restart") return "#1a1a1a";
  if (m.kind === "pause" || m.kind === "resume") return "#7a2f5e";
  if (m.kind === "holder") return OKABE_ITO.green;
  if (m.kind === "storage") return "#006b4f";
  return "#444444";
}

function segmentFill(s: Segment, hatch: string): string {
  switch (s.kind) {
    case "down":
      return "#b0b0b0";
    case "paused":
      return `url(#${hatch})`;
    case "leader":
      return ROLE_COLOR.leader;
    case "holding":
      return HOLDER_COLOR[s.word] ?? OKABE_ITO.green;
  }
}

function segmentText(s: Segment): string {
  const span = Number.isFinite(s.from) ? `from ${(s.from / 1_000_000).toFixed(3)} s` : "since before the kept history";
  const until = s.open ? "until now" : `to ${(s.to / 1_000_000).toFixed(3)} s`;
  const what = s.kind === "down" ? "down" : s.kind === "paused" ? "paused" : s.kind === "leader" ? "leader" : s.word;
  return `${s.proc} ${what} ${span} ${until}`;
}

/** While playing, the diagram is redrawn at most this often (ms): about 8 times a second. */
export const PLAYING_REDRAW_MS = 120;

export function createSpaceTimeDrawing(svg: SVGSVGElement, callbacks: SpaceTimeCallbacks, initialWidth = DEFAULT_WIDTH): SpaceTimeDrawing {
  const uid = `st${++drawingCount}`;
  const root = d3.select(svg);
  root.selectAll("*").remove();
  root.attr("preserveAspectRatio", "xMinYMin meet");

  const titleEl = root.append("title").attr("class", "st-title").text("Space-time diagram");
  const defs = root.append("defs");
  const clipRect = defs.append("clipPath").attr("id", `${uid}-clip`).append("rect");
  const hatch = `${uid}-hatch`;
  const pattern = defs
    .append("pattern")
    .attr("id", hatch)
    .attr("patternUnits", "userSpaceOnUse")
    .attr("width", 6)
    .attr("height", 6)
    .attr("patternTransform", "rotate(45)");
  pattern.append("rect").attr("width", 6).attr("height", 6).attr("fill", "#f3e3ec");
  pattern.append("line").attr("x1", 0).attr("y1", 0).attr("x2", 0).attr("y2", 6).attr("stroke", OKABE_ITO.purple).attr("stroke-width", 3);
  const headId = (color: string): string => `${uid}-head-${ARROW_COLORS.indexOf(color as (typeof ARROW_COLORS)[number])}`;
  for (const c of ARROW_COLORS) {
    defs
      .append("marker")
      .attr("id", headId(c))
      .attr("viewBox", "0 0 10 10")
      .attr("refX", 10)
      .attr("refY", 5)
      .attr("markerUnits", "userSpaceOnUse")
      .attr("markerWidth", 9)
      .attr("markerHeight", 9)
      .attr("orient", "auto")
      .append("path")
      .attr("d", "M0,0 L10,5 L0,10 Z")
      .attr("fill", c);
  }

  const bg = root.append("rect").attr("class", "st-bg").attr("x", 0).attr("y", 0).attr("fill", "#ffffff");
  const gGrid = root.append("g").attr("class", "st-grid").attr("aria-hidden", "true");
  const gLanes = root.append("g").attr("class", "st-lanes").attr("aria-hidden", "true");
  const gClip = root.append("g").attr("class", "st-plot").attr("clip-path", `url(#${uid}-clip)`);
  const horizonRect = gClip.append("rect").attr("class", "st-horizon").attr("fill", "#eeeeee");
  const horizonText = gClip.append("text").attr("class", "st-horizon-text").attr("paint-order", "stroke");
  const gContent = gClip.append("g").attr("class", "st-content");
  const gSegments = gContent.append("g").attr("class", "st-segments");
  const gViolations = gContent.append("g").attr("class", "st-violations");
  const gDense = gContent.append("g").attr("class", "st-dense");
  const gMsgs = gContent.append("g").attr("class", "st-msgs");
  const gFlight = gContent.append("g").attr("class", "st-flight");
  const gDrops = gContent.append("g").attr("class", "st-drops");
  const gHeads = gContent.append("g").attr("class", "st-heads");
  const gMarks = gContent.append("g").attr("class", "st-marks");
  const gLabels = gContent.append("g").attr("class", "st-labels");
  const gFocus = gContent.append("g").attr("class", "st-focus");
  const focusHalo = gFocus.append("path").attr("class", "st-focus-halo");
  const focusLine = gFocus.append("path").attr("class", "st-focus-line");
  const focusLabel = gFocus.append("text").attr("class", "st-focus-label").attr("paint-order", "stroke");
  const futureRect = gClip.append("rect").attr("class", "st-future").attr("fill", "#f4f4f4");
  const gHeader = root.append("g").attr("class", "st-header");
  const headerBg = gHeader.append("rect").attr("class", "st-header-bg").attr("x", 0).attr("y", 0).attr("fill", "#ffffff");
  gHeader.append("text").attr("class", "st-axis-title").attr("x", 8).attr("y", 18).text("time ↓");
  const gNames = gHeader.append("g").attr("class", "st-names");
  const gCursor = root.append("g").attr("class", "st-cursor").attr("aria-hidden", "true");
  const cursorLine = gCursor.append("line").attr("class", "st-cursor-line");
  const cursorPill = gCursor.append("rect").attr("class", "st-cursor-pill").attr("rx", 4).attr("fill", "#1a1a1a");
  const cursorText = gCursor.append("text").attr("class", "st-cursor-text").attr("fill", "#ffffff");
  const gTip = root.append("g").attr("class", "st-tip").attr("aria-hidden", "true").attr("display", "none");
  const tipRect = gTip.append("rect").attr("class", "st-tip-bg").attr("rx", 5).attr("fill", "#ffffff");
  const tipText = gTip.append("text").attr("class", "st-tip-text");

  let frame: Frame = frameOf(initialWidth);
  let data: SpaceTimeData | null = null;
  let vp: Viewport = { spanUs: DEFAULT_SPAN_US, endUs: null };
  let scale: TimeScale | null = null;
  let lanesKey = "";
  let drawnArrows: DrawnArrow[] = [];
  let drawnMarks: DrawnMark[] = [];
  /** Arrows inside the window (for the summary). */
  let shownArrows = 0;
  let win: TimeWindow = { t0: 0, t1: DEFAULT_SPAN_US };
  let summary = "";
  let lastViewport = "";
  let runId: number | null = null;
  let wasPlaying = false;
  /** Clicked message: stays highlighted after the pointer leaves. */
  let pinned: number | null = null;
  /** Hovered message (this view's own hover, so leaving clears only what it set). */
  let hovered: number | null = null;
  let hoverMark: DrawnMark | null = null;
  let destroyed = false;
  /** What each element was last drawn from. */
  const drawnFrom = new WeakMap<Element, string>();
  const drawnArrowFrom = new WeakMap<Element, { src: DiagramMessage | null; geom: string }>();

  // ------------------------------------------------------------- frame and lanes

  function applyFrame(): void {
    const f = frame;
    root.attr("viewBox", `0 0 ${f.width} ${f.height}`).attr("width", f.width).attr("height", f.height);
    bg.attr("width", f.width).attr("height", f.height);
    clipRect
      .attr("x", f.plotLeft - 40)
      .attr("y", f.plotTop)
      .attr("width", f.plotRight - f.plotLeft + 40 + 10)
      .attr("height", f.plotBottom - f.plotTop);
    // Behind the names only: the first tick's label sits on the plot's top edge.
    headerBg.attr("width", f.width).attr("height", f.plotTop - 8);
    lanesKey = "";
    scale = null;
  }

  function drawLanes(d: SpaceTimeData): Lanes {
    const procs = processOrder(d.nodes, d.holders, d.storage);
    const key = `${frame.width}|${procs.map((p) => `${p.id}:${p.kind}`).join(",")}`;
    // Same places while the processes stay; statuses change with every view.
    const L = laneLayout(procs, frame);
    if (key !== lanesKey) {
      lanesKey = key;
      // Everything placed by x is redrawn.
      scale = null;
    }
    const hl = new Set(d.highlight);
    gLanes
      .selectAll<SVGLineElement, Lane>("line.st-lane")
      .data(L.lanes, (l) => l.id)
      .join((enter) => enter.append("line").attr("class", "st-lane"))
      .attr("x1", (l) => r1(l.x))
      .attr("x2", (l) => r1(l.x))
      .attr("y1", frame.plotTop)
      .attr("y2", frame.plotBottom)
      .attr("class", (l) => `st-lane st-lane-${l.kind}${hl.has(l.id) ? " is-highlighted" : ""}`);
    const nodeById = new Map(d.nodes.map((n) => [n.id, n]));
    gNames
      .selectAll<SVGGElement, Lane>("g.st-name")
      .data(L.lanes, (l) => l.id)
      .join((enter) => {
        const g = enter.append("g").attr("class", "st-name");
        g.append("rect").attr("class", "st-name-hl").attr("rx", 4);
        g.append("text").attr("class", "st-name-text");
        g.append("title");
        return g;
      })
      .attr("class", (l) => `st-name st-name-${l.kind}${hl.has(l.id) ? " is-highlighted" : ""}`)
      .attr("transform", (l) => `translate(${r1(l.x)},${l.nameY})`)
      .each(function (l) {
        const n = nodeById.get(l.id);
        const glyph = l.status === "down" ? " ✕" : l.status === "paused" ? " ‖" : n !== undefined && n.role === "leader" ? " ★" : "";
        const text = `${hl.has(l.id) ? "⚠ " : ""}${l.id}${glyph}`;
        const t = this.querySelector("text");
        if (t !== null) setText(t, text);
        const w = textWidth(text, 14) + 10;
        const rect = this.querySelector("rect");
        if (rect !== null) {
          setAttr(rect, "x", r1(-w / 2));
          setAttr(rect, "y", "-11");
          setAttr(rect, "width", r1(w));
          setAttr(rect, "height", "22");
        }
        const title = this.querySelector("title");
        const role = n === undefined ? "" : n.role === null ? "" : `, ${n.role}`;
        const kind = l.kind === "node" ? "node" : l.kind === "holder" ? "lease holder" : "storage";
        if (title !== null) setText(title, `${kind} ${l.id}${l.status === "up" ? "" : `, ${l.status}`}${role}`);
      });
    return L;
  }

  // ------------------------------------------------------------- the axis, the cursor, the shades

  function drawAxis(w: TimeWindow): void {
    const { step, times } = ticks(w, frame);
    const f = frame;
    gGrid
      .selectAll<SVGGElement, number>("g.st-tick")
      .data(times, (t) => String(t))
      .join((enter) => {
        const g = enter.append("g").attr("class", "st-tick");
        g.append("line").attr("class", "st-tick-line");
        g.append("text").attr("class", "st-tick-text");
        return g;
      })
      .each(function (t) {
        const y = r1(timeToY(t, w, f));
        setRule(this.querySelector("line"), f.plotLeft - 6, f.plotRight, y);
        const text = this.querySelector("text");
        if (text !== null) {
          setAttr(text, "x", String(f.plotLeft - 9));
          setAttr(text, "y", y);
          setText(text, tickLabel(t, step));
        }
      });
  }

  function drawCursor(d: SpaceTimeData, w: TimeWindow): void {
    const f = frame;
    const y = timeToY(d.now, w, f);
    const inside = d.now >= w.t0 && d.now <= w.t1 + 1e-6;
    gCursor.attr("display", inside ? null : "none");
    if (inside) {
      cursorLine.attr("x1", 4).attr("x2", f.plotRight).attr("y1", r1(y)).attr("y2", r1(y));
      const label = `now ${windowTime(d.now, w.t1 - w.t0)}`;
      const tw = textWidth(label, 12) + 10;
      const py = Math.min(y, f.plotBottom) - 9;
      cursorPill.attr("x", 2).attr("y", r1(py)).attr("width", r1(tw)).attr("height", 18);
      cursorText
        .attr("x", 7)
        .attr("y", r1(py + 9))
        .text(label);
    }
    // Below the cursor (early in a run): nothing has happened there yet.
    const fy = Math.max(f.plotTop, Math.min(f.plotBottom, y));
    futureRect
      .attr("x", f.plotLeft - 4)
      .attr("y", r1(fy))
      .attr("width", f.plotRight - f.plotLeft + 14)
      .attr("height", r1(Math.max(0, f.plotBottom - fy)));
    // Above the horizon, the bounded lists have forgotten what happened.
    const h = d.horizon;
    const hy = h === null || h <= w.t0 ? f.plotTop : Math.min(f.plotBottom, timeToY(h, w, f));
    horizonRect
      .attr("x", f.plotLeft - 4)
      .attr("y", f.plotTop)
      .attr("width", f.plotRight - f.plotLeft + 14)
      .attr("height", r1(hy - f.plotTop));
    horizonText
      .attr("x", f.plotLeft + 6)
      .attr("y", r1(hy - 10))
      .text(hy - f.plotTop > 24 ? "older history not kept" : "");
  }

  // ------------------------------------------------------------- timed things (local coordinates)

  function drawSegments(d: SpaceTimeData, L: Lanes, s: TimeScale, w: TimeWindow): void {
    const data: DrawnSegment[] = [];
    for (const x of laneSegments(d.marks, L.lanes, d.now)) {
      const lane = L.byId.get(x.proc);
      const c = clipSegment(x, w);
      if (lane === undefined || c === null) continue;
      const y = localY(c.from, s);
      // Keyed by where it really starts, so sliding the window does not make a new element.
      data.push({ key: `${x.proc}|${x.kind}|${x.word}|${x.from}`, s: x, x: lane.x, y, h: Math.max(2, localY(c.to, s) - y) });
    }
    data.sort((a, b) => SEGMENT_ORDER[a.s.kind] - SEGMENT_ORDER[b.s.kind]);
    gSegments
      .selectAll<SVGRectElement, DrawnSegment>("rect.st-seg")
      .data(data, (x) => x.key)
      .join((enter) => {
        const r = enter.append("rect");
        r.append("title");
        return r;
      })
      .attr("class", (x) => `st-seg st-seg-${x.s.kind}`)
      .attr("x", (x) => r1(x.x - SEGMENT_WIDTH[x.s.kind] / 2))
      .attr("width", (x) => SEGMENT_WIDTH[x.s.kind])
      .attr("y", (x) => r1(x.y))
      .attr("height", (x) => r1(x.h))
      .attr("fill", (x) => segmentFill(x.s, hatch))
      .each(function (x) {
        const t = this.querySelector("title");
        if (t !== null) setText(t, segmentText(x.s));
      });
  }

  function drawViolations(marks: readonly DiagramMark[], s: TimeScale): void {
    const seen = new Set<number>();
    const data: { t: number; label: string }[] = [];
    for (const m of marks) {
      if (m.kind !== "violation" || seen.has(m.t)) continue;
      seen.add(m.t);
      data.push({ t: m.t, label: m.label });
    }
    const f = frame;
    gViolations
      .selectAll<SVGGElement, { t: number; label: string }>("g.st-violation")
      .data(data, (x) => String(x.t))
      .join((enter) => {
        const g = enter.append("g").attr("class", "st-violation");
        g.append("line").attr("class", "st-violation-line");
        g.append("text").attr("class", "st-violation-text").attr("paint-order", "stroke");
        return g;
      })
      .each(function (x) {
        const y = r1(localY(x.t, s));
        setRule(this.querySelector("line"), f.plotLeft - 36, f.plotRight, y);
        const text = this.querySelector("text");
        if (text !== null) {
          setAttr(text, "x", String(f.plotLeft + 4));
          setAttr(text, "y", String(Number(y) - 9));
          setText(text, fitText(`✗ safety violated: ${x.label}`, 13, f.plotRight - f.plotLeft - 8));
        }
      });
  }

  /** What the finished arrows were last joined from: the list, the geometry, and the culling range. */
  let finishedFrom: { list: SpaceTimeData["finished"]; geom: string; c0: number; c1: number } | null = null;
  let finishedDrawn: DrawnArrow[] = [];
  let finishedIds = new Set<number>();

  /**
   * Finished messages: joined only when the list, the zoom or the culling range changes.
   * The range is the window plus a quarter of it on each side, in quarter steps, so a
   * sliding window rejoins four times per span instead of every view.
   */
  function drawFinished(d: SpaceTimeData, L: Lanes, s: TimeScale, w: TimeWindow, geomKey: string): void {
    const q = (w.t1 - w.t0) / 4;
    const c0 = Math.floor(w.t0 / q) * q - q;
    const c1 = Math.ceil(w.t1 / q) * q + q;
    const f = finishedFrom;
    if (f !== null && f.list === d.finished && f.geom === geomKey && f.c0 === c0 && f.c1 === c1) return;
    finishedFrom = { list: d.finished, geom: geomKey, c0, c1 };
    const list: DrawnArrow[] = [];
    for (const m of d.finished) {
      if (m.sentAt > c1 || m.endAt < c0) continue;
      const a = finishedArrow(m, L.byId);
      if (a === null) continue;
      list.push({ a, src: m, color: messageColor(a.label), x1: a.xFrom, y1: localY(a.tFrom, s), x2: a.xEnd, y2: localY(a.tEnd, s) });
    }
    finishedDrawn = list;
    finishedIds = new Set(finishedDrawn.map((x) => x.a.id));
    // Very many arrows: a few batched paths instead of an element each (painting thousands of elements is what costs).
    const dense = list.length > DENSE_ABOVE;
    const perMessage = dense ? [] : list;
    gContent.classed("is-dense", dense);
    gDense
      .selectAll<SVGPathElement, Batch>("path")
      .data(dense ? batchArrows(list.map((x) => ({ ...x, dropped: x.a.state === "dropped" }))) : [], (b) => b.key)
      .join((enter) => enter.append("path"))
      .attr("class", (b) => `st-batch st-batch-${b.kind}`)
      .attr("stroke", (b) => (b.kind === "line" || b.kind === "dropped" ? b.color : null))
      .attr("fill", (b) => (b.kind === "head" ? b.color : null))
      .attr("d", (b) => b.d);
    // Enter, update and exit without reordering: new messages come last in the list and are appended last.
    const upd = gMsgs.selectAll<SVGPathElement, DrawnArrow>("path.st-msg").data(perMessage, (x) => x.a.id);
    upd.exit().remove();
    upd
      .enter()
      .append("path")
      .merge(upd)
      .each(function (x) {
        paintArrow(this, x, geomKey);
      });
    // A ✕ where each dropped message died.
    const dropped = perMessage.filter((x) => x.a.state === "dropped");
    const drops = gDrops.selectAll<SVGPathElement, DrawnArrow>("path.st-drop").data(dropped, (x) => x.a.id);
    drops.exit().remove();
    drops
      .enter()
      .append("path")
      .attr("class", "st-drop")
      .merge(drops)
      .each(function (x) {
        setAttr(this, "d", `M${r1(x.x2 - 4.5)},${r1(x.y2 - 4.5)}l9,9m0,-9l-9,9`);
      });
  }

  /** Writes one arrow's attributes, unless it was last drawn from the same message with the same geometry. */
  function paintArrow(el: SVGPathElement, x: DrawnArrow, geomKey: string): void {
    const a = x.a;
    // A finished message is immutable: the same object with the same geometry draws the same arrow.
    const prev = drawnArrowFrom.get(el);
    if (x.src !== null && prev !== undefined && prev.src === x.src && prev.geom === geomKey) return;
    const sig = `${geomKey}|${a.id}|${a.state}|${a.label}|${a.xFrom}|${a.tFrom}|${a.xEnd}|${a.tEnd}|${a.reason}|${a.dup}`;
    drawnArrowFrom.set(el, { src: x.src, geom: geomKey });
    if (drawnFrom.get(el) === sig) return;
    drawnFrom.set(el, sig);
    const doomed = a.reason !== null && a.state === "flight";
    setAttr(el, "class", `st-msg is-${a.state}${doomed ? " is-doomed" : ""}${a.dup ? " is-dup" : ""}`);
    setAttr(el, "d", `M${r1(x.x1)},${r1(x.y1)}L${r1(x.x2)},${r1(x.y2)}`);
    setAttr(el, "stroke", x.color);
    setAttr(el, "data-id", String(a.id));
    if (a.state === "delivered" || a.state === "queued") setAttr(el, "marker-end", `url(#${headId(x.color)})`);
    else el.removeAttribute("marker-end");
  }

  /** Messages still on the wire (few): joined on every view, they end at the cursor. */
  function drawFlight(d: SpaceTimeData, L: Lanes, s: TimeScale, w: TimeWindow, geomKey: string): DrawnArrow[] {
    const flight = visibleArrows([], d.inFlight, L.byId, w, d.now)
      .filter((a) => !finishedIds.has(a.id))
      .map((a) => {
        const color = messageColor(a.label);
        return { a, src: null, color, x1: a.xFrom, y1: localY(a.tFrom, s), x2: a.xEnd, y2: localY(a.tEnd, s) };
      });
    gFlight
      .selectAll<SVGPathElement, DrawnArrow>("path.st-msg")
      .data(flight, (x) => x.a.id)
      .join((enter) => enter.append("path"))
      .each(function (x) {
        paintArrow(this, x, geomKey);
      });
    // A dot at the head of each message still on the wire.
    gHeads
      .selectAll<SVGCircleElement, DrawnArrow>("circle.st-head")
      .data(
        flight.filter((x) => x.a.state === "flight"),
        (x) => x.a.id,
      )
      .join((enter) => enter.append("circle").attr("class", "st-head").attr("r", 4.5))
      .each(function (x) {
        setAttr(this, "cx", r1(x.x2));
        setAttr(this, "cy", r1(x.y2));
        setAttr(this, "fill", x.color);
        setAttr(this, "class", `st-head${x.a.reason !== null ? " is-doomed" : ""}`);
      });
    return flight;
  }

  function drawArrows(d: SpaceTimeData, L: Lanes, s: TimeScale, w: TimeWindow, geomKey: string): void {
    drawFinished(d, L, s, w, geomKey);
    const flight = drawFlight(d, L, s, w, geomKey);
    drawnArrows = flight.length === 0 ? finishedDrawn : finishedDrawn.concat(flight);
    // The summary counts what the window shows (the DOM also holds a margin around it).
    let n = flight.length;
    for (const x of finishedDrawn) if (x.a.tFrom <= w.t1 && x.a.tEnd >= w.t0) n++;
    shownArrows = n;
  }

  function drawMarks(d: SpaceTimeData, L: Lanes, s: TimeScale, w: TimeWindow): void {
    const marks = visibleMarks(d.marks, L.byId, w);
    drawnMarks = marks.map((m) => {
      const lane = L.byId.get(m.proc) as Lane;
      return { key: `${m.n}|${m.proc}`, m, x: lane.x, y: localY(m.t, s), glyph: markGlyph(m), color: markColor(m), label: "" };
    });
    gMarks
      .selectAll<SVGGElement, DrawnMark>("g.st-mark")
      .data(drawnMarks, (x) => x.key)
      .join((enter) => {
        const g = enter.append("g");
        g.append("circle").attr("class", "st-mark-bg");
        g.append("text").attr("class", "st-mark-glyph");
        return g;
      })
      .each(function (x) {
        const sig = `${x.x},${x.y}|${x.m.kind}|${x.m.label}|${x.m.bad}`;
        if (drawnFrom.get(this) === sig) return;
        drawnFrom.set(this, sig);
        setAttr(this, "class", `st-mark st-mark-${x.m.kind}${x.m.bad ? " is-bad" : ""}`);
        setAttr(this, "transform", `translate(${r1(x.x)},${r1(x.y)})`);
        const c = this.querySelector("circle");
        if (c !== null) setAttr(c, "r", x.m.kind === "violation" ? "10" : "7");
        const t = this.querySelector("text");
        if (t !== null) {
          setText(t, x.glyph);
          setAttr(t, "fill", x.m.kind === "violation" ? "#ffffff" : x.color);
        }
      });
  }

  /** Words beside marks and along arrows, where they fit without covering each other. */
  function drawLabels(d: SpaceTimeData, L: Lanes): void {
    const cands: { key: string; box: Box; x: number; y: number; text: string; cls: string; anchor: "start" | "middle" | "end" }[] = [];
    const markMax = Math.max(40, 1.8 * L.pitch - 14);
    const sortedMarks = [...drawnMarks].sort((a, b) => markPriority(a.m) - markPriority(b.m) || b.m.t - a.m.t).slice(0, 400);
    for (const x of sortedMarks) {
      const text = fitText(x.m.label, MARK_FONT, markMax);
      if (text === "") continue;
      const w = textWidth(text, MARK_FONT);
      // Right of the line, unless that runs off the picture (the last line): then left of it.
      const left = x.x + 10 + w > frame.width - 2;
      cands.push({
        key: `m${x.key}`,
        box: { x: left ? x.x - 11 - w : x.x + 9, y: x.y - 8, w, h: 16 },
        x: left ? x.x - 10 : x.x + 10,
        y: x.y,
        text,
        cls: `st-mark-label${x.m.bad || x.m.kind === "violation" ? " is-bad" : ""}`,
        anchor: left ? "end" : "start",
      });
    }
    if (drawnArrows.length <= LABEL_ARROWS_UP_TO) {
      for (let i = drawnArrows.length - 1; i >= 0; i--) {
        const x = drawnArrows[i] as DrawnArrow;
        if (x.a.id === d.focus) continue;
        if (!arrowLabelFits(x.a.label, x.x1, x.y1, x.x2, x.y2)) continue;
        const w = textWidth(x.a.label, ARROW_FONT);
        const mx = (x.x1 + x.x2) / 2;
        const my = (x.y1 + x.y2) / 2;
        cands.push({
          key: `a${x.a.id}`,
          box: { x: mx - w / 2 - 2, y: my - 8, w: w + 4, h: 15 },
          x: mx,
          y: my,
          text: x.a.label,
          cls: "st-msg-label",
          anchor: "middle",
        });
      }
    }
    const kept = placeLabels(cands, MAX_LABELS);
    const shown = cands.filter((c) => kept.has(c.key));
    gLabels
      .selectAll<SVGTextElement, (typeof cands)[number]>("text")
      .data(shown, (c) => c.key)
      .join((enter) => enter.append("text").attr("paint-order", "stroke"))
      .each(function (c) {
        setAttr(this, "class", c.cls);
        setAttr(this, "x", r1(c.x));
        setAttr(this, "y", r1(c.y));
        setAttr(this, "text-anchor", c.anchor);
        setText(this, c.text);
      });
  }

  function drawFocus(d: SpaceTimeData): void {
    const x = d.focus === null ? undefined : drawnArrows.find((a) => a.a.id === d.focus);
    gFocus.attr("display", x === undefined ? "none" : null);
    if (x === undefined) return;
    const path = `M${r1(x.x1)},${r1(x.y1)}L${r1(x.x2)},${r1(x.y2)}`;
    focusHalo.attr("d", path);
    focusLine
      .attr("d", path)
      .attr("stroke", x.color)
      .attr("marker-end", x.a.state === "delivered" || x.a.state === "queued" ? `url(#${headId(x.color)})` : null)
      .attr("class", `st-focus-line is-${x.a.state}`);
    const mx = (x.x1 + x.x2) / 2;
    const my = (x.y1 + x.y2) / 2;
    focusLabel
      .attr("x", r1(mx))
      .attr("y", r1(my - 12))
      .text(x.a.label);
  }

  function drawTip(d: SpaceTimeData, s: TimeScale): void {
    let text = "";
    let ax = 0;
    let ay = 0;
    const x = d.focus === null ? undefined : drawnArrows.find((a) => a.a.id === d.focus);
    if (hoverMark !== null) {
      text = `${hoverMark.m.proc}: ${hoverMark.m.label} at ${(hoverMark.m.t / 1_000_000).toFixed(3)} s`;
      ax = hoverMark.x;
      ay = hoverMark.y + s.offset;
    } else if (x !== undefined && (hovered === x.a.id || pinned === x.a.id)) {
      text = arrowText(x.a) + (x.a.state === "flight" || x.a.state === "queued" ? " · click to inspect" : "");
      ax = (x.x1 + x.x2) / 2;
      ay = (x.y1 + x.y2) / 2 + s.offset;
    }
    if (text === "") {
      gTip.attr("display", "none");
      return;
    }
    const f = frame;
    const maxW = f.width - 16;
    const shown = fitText(text, 12.5, maxW - 12);
    const w = textWidth(shown, 12.5) + 12;
    const left = Math.max(4, Math.min(f.width - w - 4, ax - w / 2));
    const top = Math.max(f.plotTop + 2, Math.min(f.plotBottom - 26, ay + 14));
    gTip.attr("display", null);
    tipRect.attr("x", r1(left)).attr("y", r1(top)).attr("width", r1(w)).attr("height", 22);
    tipText
      .attr("x", r1(left + 6))
      .attr("y", r1(top + 11))
      .text(shown);
  }

  // ------------------------------------------------------------- one picture

  function emitViewport(): void {
    const now = data?.now ?? 0;
    const w = windowOf(vp, now);
    const state: ViewportState = {
      spanUs: vp.spanUs,
      following: vp.endUs === null,
      canZoomIn: vp.spanUs > MIN_SPAN_US,
      canZoomOut: vp.spanUs < MAX_SPAN_US,
      canPanEarlier: w.t0 > 0,
      canPanLater: w.t1 < latestEnd(vp.spanUs, now),
    };
    const key = JSON.stringify(state);
    if (key === lastViewport) return;
    lastViewport = key;
    callbacks.viewport?.(state);
  }

  /**
   * Views arrive 25 times a second while playing, and every redraw repaints the whole
   * plot (it slides). While playing the diagram is redrawn at most PLAYING_REDRAW_MS
   * apart, in an animation frame; paused, at the next frame. (At once where there are
   * no frames, as in tests.)
   */
  let frameRequested = false;
  let lastRenderMs = Number.NEGATIVE_INFINITY;
  function scheduleRender(): void {
    if (typeof requestAnimationFrame !== "function") {
      render();
      return;
    }
    if (frameRequested) return;
    frameRequested = true;
    const wait = data?.playing ? PLAYING_REDRAW_MS - (performance.now() - lastRenderMs) : 0;
    const go = (): void => {
      requestAnimationFrame(() => {
        frameRequested = false;
        lastRenderMs = performance.now();
        render();
      });
    };
    if (wait > 0) setTimeout(go, wait);
    else go();
  }

  function render(): void {
    if (destroyed || data === null) return;
    const d = data;
    const L = drawLanes(d);
    const w = windowOf(vp, d.now);
    win = w;
    const s = timeScale(w, frame, scale);
    const geomKey = `${s.origin}|${s.k}|${lanesKey}`;
    scale = s;
    gContent.attr("transform", `translate(0,${r1(s.offset)})`);
    drawAxis(w);
    drawSegments(d, L, s, w);
    drawViolations(visibleMarks(d.marks, L.byId, w), s);
    drawArrows(d, L, s, w, geomKey);
    drawMarks(d, L, s, w);
    drawLabels(d, L);
    drawFocus(d);
    drawCursor(d, w);
    drawTip(d, s);
    summary = summaryText(shownArrows, drawnMarks.length, L.lanes.length, w);
    root.attr("aria-label", `Space-time diagram: ${summary}`);
    titleEl.text(`Space-time diagram: ${summary}`);
    emitViewport();
  }

  // ------------------------------------------------------------- pointer: hover, click, drag, wheel

  function toSvg(e: { clientX: number; clientY: number }): { x: number; y: number } {
    const r = svg.getBoundingClientRect();
    const sx = r.width > 0 ? frame.width / r.width : 1;
    const sy = r.height > 0 ? frame.height / r.height : 1;
    return { x: (e.clientX - r.left) * sx, y: (e.clientY - r.top) * sy };
  }

  /** The arrow or mark under a point (screen coordinates of the SVG). */
  function pick(p: { x: number; y: number }): { arrow: DrawnArrow | null; mark: DrawnMark | null } {
    const s = scale;
    if (s === null || p.y < frame.plotTop || p.y > frame.plotBottom) return { arrow: null, mark: null };
    const ly = p.y - s.offset;
    let mark: DrawnMark | null = null;
    let best = HIT_PX + 2;
    for (const m of drawnMarks) {
      const dd = Math.hypot(m.x - p.x, m.y - ly);
      if (dd <= best) {
        best = dd;
        mark = m;
      }
    }
    if (mark !== null) return { arrow: null, mark };
    return { arrow: nearestArrow(drawnArrows, p.x, ly, HIT_PX), mark: null };
  }

  function setHover(arrow: DrawnArrow | null, mark: DrawnMark | null): void {
    const id = arrow === null ? null : arrow.a.id;
    svg.classList?.toggle("is-pointing", arrow !== null);
    const markChanged = hoverMark?.key !== mark?.key;
    hoverMark = mark;
    if (id !== hovered) {
      hovered = id;
      // The store's focus comes back through update(), which redraws.
      callbacks.focus(id ?? pinned);
    } else if (markChanged && data !== null && scale !== null) {
      drawTip(data, scale);
    }
  }

  let drag: { y0: number; end: number; moved: boolean; pointerId: number } | null = null;

  function onPointerDown(e: PointerEvent): void {
    if (e.button !== 0 || !e.isPrimary) return;
    const p = toSvg(e);
    drag = { y0: p.y, end: win.t1, moved: false, pointerId: e.pointerId };
    svg.setPointerCapture?.(e.pointerId);
  }

  function onPointerMove(e: PointerEvent): void {
    const p = toSvg(e);
    if (drag !== null && drag.pointerId === e.pointerId) {
      const dy = p.y - drag.y0;
      if (!drag.moved && Math.abs(dy) < DRAG_PX) return;
      if (!drag.moved) {
        drag.moved = true;
        svg.classList?.add("is-dragging");
        setHover(null, null);
      }
      // Dragging the picture down shows earlier times.
      const dt = (-dy / (frame.plotBottom - frame.plotTop)) * vp.spanUs;
      vp = panBy({ spanUs: vp.spanUs, endUs: drag.end }, dt, data?.now ?? 0).vp;
      render();
      return;
    }
    const hit = pick(p);
    setHover(hit.arrow, hit.mark);
  }

  function onPointerUp(e: PointerEvent): void {
    if (drag === null || drag.pointerId !== e.pointerId) return;
    const wasDrag = drag.moved;
    drag = null;
    svg.releasePointerCapture?.(e.pointerId);
    svg.classList?.remove("is-dragging");
    if (wasDrag) return;
    const hit = pick(toSvg(e));
    if (hit.arrow === null) {
      pinned = null;
      if (hit.mark === null) callbacks.focus(null);
      return;
    }
    const a = hit.arrow.a;
    pinned = a.id;
    hovered = a.id;
    callbacks.focus(a.id);
    if (a.state === "flight" || a.state === "queued") callbacks.inspect(a.id);
  }

  function onPointerLeave(): void {
    if (drag !== null) return;
    hoverMark = null;
    if (hovered !== null) {
      hovered = null;
      callbacks.focus(pinned);
    } else if (data !== null && scale !== null) {
      drawTip(data, scale);
    }
  }

  function onWheel(e: WheelEvent): void {
    const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? frame.height : 1;
    const now = data?.now ?? 0;
    if (e.ctrlKey || e.metaKey) {
      // Zoom around the time under the pointer (ctrl + wheel is also what a pinch sends).
      e.preventDefault();
      const p = toSvg(e);
      const frac = (Math.max(frame.plotTop, Math.min(frame.plotBottom, p.y)) - frame.plotTop) / (frame.plotBottom - frame.plotTop);
      const t = yToTime(frame.plotTop + frac * (frame.plotBottom - frame.plotTop), win, frame);
      vp = zoomTo(vp, vp.spanUs * Math.exp(e.deltaY * unit * 0.002), now, { t, frac });
      render();
      return;
    }
    // Scroll through time; at either end the page scrolls instead.
    const delta = (e.deltaY !== 0 ? e.deltaY : e.shiftKey ? e.deltaX : 0) * unit;
    if (delta === 0) return;
    const r = panBy(vp, (delta / (frame.plotBottom - frame.plotTop)) * vp.spanUs, now);
    if (!r.moved) return;
    e.preventDefault();
    vp = r.vp;
    render();
  }

  svg.addEventListener("pointerdown", onPointerDown);
  svg.addEventListener("pointermove", onPointerMove);
  svg.addEventListener("pointerup", onPointerUp);
  svg.addEventListener("pointercancel", onPointerUp);
  svg.addEventListener("pointerleave", onPointerLeave);
  svg.addEventListener("wheel", onWheel, { passive: false });

  applyFrame();

  return {
    update(d: SpaceTimeData): void {
      if (destroyed) return;
      if (runId !== d.runId) {
        // A new run: message ids start again, and so does the scroll position.
        runId = d.runId;
        vp = { spanUs: vp.spanUs, endUs: null };
        pinned = null;
        hovered = null;
        hoverMark = null;
      }
      // Pressing play returns to the cursor.
      if (d.playing && !wasPlaying) vp = { spanUs: vp.spanUs, endUs: null };
      wasPlaying = d.playing;
      if (pinned !== null && d.focus !== pinned && d.focus !== hovered) pinned = null;
      data = d;
      scheduleRender();
    },
    resize(width: number): void {
      const f = frameOf(width);
      if (f.width === frame.width) return;
      frame = f;
      applyFrame();
      render();
    },
    zoom(dir: -1 | 1): void {
      vp = zoomTo(vp, stepSpan(vp.spanUs, dir), data?.now ?? 0);
      render();
      emitViewport();
    },
    pan(dir: -1 | 1): void {
      vp = panBy(vp, (dir * vp.spanUs) / 3, data?.now ?? 0).vp;
      render();
      emitViewport();
    },
    follow(on: boolean): void {
      vp = on ? { spanUs: vp.spanUs, endUs: null } : { spanUs: vp.spanUs, endUs: win.t1 };
      render();
      emitViewport();
    },
    viewport: () => vp,
    summary: () => summary,
    destroy(): void {
      destroyed = true;
      svg.removeEventListener("pointerdown", onPointerDown);
      svg.removeEventListener("pointermove", onPointerMove);
      svg.removeEventListener("pointerup", onPointerUp);
      svg.removeEventListener("pointercancel", onPointerUp);
      svg.removeEventListener("pointerleave", onPointerLeave);
      svg.removeEventListener("wheel", onWheel);
      root.selectAll("*").remove();
    },
  };
}
