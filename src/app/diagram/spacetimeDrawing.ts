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
 *
 * Each layer draws its own part (laneLayer, axisLayer, segmentLayer, arrowLayer,
 * markLayer, labelLayer) into the elements scaffold.ts builds; pointer and wheel are
 * handled in spacetimePointer.ts; redraws come from the shared loop (draw/frames.ts).
 */
import { r1 } from "../draw/dom";
import { createFrames } from "../draw/frames";
import { type ArrowLayer, createArrowLayer, type DrawnArrow } from "./arrowLayer";
import { drawAxis, drawCursor } from "./axisLayer";
import type { SpaceTimeData } from "./input";
import { drawFocus, drawLabels, drawTip } from "./labelLayer";
import { drawLanes } from "./laneLayer";
import {
  DEFAULT_SPAN_US,
  DEFAULT_WIDTH,
  type Frame,
  frameOf,
  type Lanes,
  latestEnd,
  MAX_SPAN_US,
  MIN_SPAN_US,
  panBy,
  stepSpan,
  summaryText,
  type TimeScale,
  type ViewWindow,
  timeScale,
  type Viewport,
  windowOf,
  zoomTo,
} from "./layout";
import { type DrawnMark, drawMarks } from "./markLayer";
import { visibleMarks } from "./marks";
import { createParts, type Parts, sizeParts } from "./scaffold";
import { drawSegments, drawViolations } from "./segmentLayer";
import { attachPointer, type Hover } from "./spacetimePointer";

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

let drawingCount = 0;

/** One picture: the data, the lines, the scale, the window, the frame, and the key of the geometry. */
interface Picture {
  readonly d: SpaceTimeData;
  readonly L: Lanes;
  readonly s: TimeScale;
  readonly w: ViewWindow;
  readonly frame: Frame;
  readonly geomKey: string;
}

/** Draws every layer, back to front; returns what the pointer and the summary need. */
function drawLayers(p: Parts, arrowLayer: ArrowLayer, x: Picture, hover: Hover): { arrows: readonly DrawnArrow[]; marks: DrawnMark[]; summary: string } {
  const { d, L, s, w, frame } = x;
  p.content.attr("transform", `translate(0,${r1(s.offset)})`);
  drawAxis(p, w, frame);
  drawSegments(p, d, L, s, w);
  drawViolations(p, visibleMarks(d.marks, L.byId, w), s, frame);
  const arrows = arrowLayer.draw(d, L, s, w, x.geomKey);
  const marks = drawMarks(p, d, L, s, w);
  drawLabels(p, d, L, frame, marks, arrows.arrows);
  drawFocus(p, d, arrows.arrows);
  drawCursor(p, d, w, frame);
  drawTip(p, d, s, frame, hover, arrows.arrows);
  return { arrows: arrows.arrows, marks, summary: summaryText(arrows.shown, marks.length, L.lanes.length, w) };
}

/**
 * While playing, the diagram is redrawn at most this often (ms): about 8 times a second.
 * Views arrive 25 times a second while playing, and every redraw repaints the whole plot
 * (it slides). Paused, it is redrawn at the next frame. (At once where there are no
 * frames, as in tests.)
 */
export const PLAYING_REDRAW_MS = 120;

/** What the zoom and scroll buttons need to know. */
function viewportState(vp: Viewport, now: number): ViewportState {
  const w = windowOf(vp, now);
  return {
    spanUs: vp.spanUs,
    following: vp.endUs === null,
    canZoomIn: vp.spanUs > MIN_SPAN_US,
    canZoomOut: vp.spanUs < MAX_SPAN_US,
    canPanEarlier: w.t0 > 0,
    canPanLater: w.t1 < latestEnd(vp.spanUs, now),
  };
}

export function createSpaceTimeDrawing(svg: SVGSVGElement, callbacks: SpaceTimeCallbacks, initialWidth = DEFAULT_WIDTH): SpaceTimeDrawing {
  const p = createParts(svg, `st${++drawingCount}`);
  const arrowLayer = createArrowLayer(p);

  let frame: Frame = frameOf(initialWidth);
  let data: SpaceTimeData | null = null;
  let vp: Viewport = { spanUs: DEFAULT_SPAN_US, endUs: null };
  let scale: TimeScale | null = null;
  let lanesKey = "";
  let drawnArrows: readonly DrawnArrow[] = [];
  let drawnMarks: DrawnMark[] = [];
  let win: ViewWindow = { t0: 0, t1: DEFAULT_SPAN_US };
  let summary = "";
  let lastViewport = "";
  let runId: number | null = null;
  let wasPlaying = false;
  const hover: Hover = { pinned: null, hovered: null, mark: null };
  let destroyed = false;

  function applyFrame(): void {
    sizeParts(p, frame);
    lanesKey = "";
    scale = null;
  }

  function emitViewport(): void {
    const state = viewportState(vp, data?.now ?? 0);
    const key = JSON.stringify(state);
    if (key === lastViewport) return;
    lastViewport = key;
    callbacks.viewport?.(state);
  }

  function render(): void {
    if (destroyed || data === null) return;
    const d = data;
    const lanes = drawLanes(p, d, frame);
    const L = lanes.lanes;
    if (lanes.key !== lanesKey) {
      lanesKey = lanes.key;
      // Everything placed by x is redrawn.
      scale = null;
    }
    const w = windowOf(vp, d.now);
    win = w;
    const s = timeScale(w, frame, scale);
    const geomKey = `${s.origin}|${s.k}|${lanesKey}`;
    scale = s;
    const drawn = drawLayers(p, arrowLayer, { d, L, s, w, frame, geomKey }, hover);
    drawnArrows = drawn.arrows;
    drawnMarks = drawn.marks;
    summary = drawn.summary;
    p.root.attr("aria-label", `Space-time diagram: ${summary}`);
    p.title.text(`Space-time diagram: ${summary}`);
    emitViewport();
  }

  const frames = createFrames(() => render());

  const detachPointer = attachPointer(svg, {
    hover,
    frame: () => frame,
    scale: () => scale,
    window: () => win,
    viewport: () => vp,
    now: () => data?.now ?? 0,
    arrows: () => drawnArrows,
    marks: () => drawnMarks,
    show(next: Viewport): void {
      vp = next;
      render();
    },
    redrawTip(): void {
      if (data !== null && scale !== null) drawTip(p, data, scale, frame, hover, drawnArrows);
    },
    focus: (id) => callbacks.focus(id),
    inspect: (id) => callbacks.inspect(id),
  });

  applyFrame();

  return {
    update(d: SpaceTimeData): void {
      if (destroyed) return;
      if (runId !== d.runId) {
        // A new run: message ids start again, and so does the scroll position.
        runId = d.runId;
        vp = { spanUs: vp.spanUs, endUs: null };
        hover.pinned = null;
        hover.hovered = null;
        hover.mark = null;
      }
      // Pressing play returns to the cursor.
      if (d.playing && !wasPlaying) vp = { spanUs: vp.spanUs, endUs: null };
      wasPlaying = d.playing;
      if (hover.pinned !== null && d.focus !== hover.pinned && d.focus !== hover.hovered) hover.pinned = null;
      data = d;
      frames.after(d.playing ? PLAYING_REDRAW_MS : 0);
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
      frames.cancel();
      detachPointer();
      p.root.selectAll("*").remove();
    },
  };
}
