/**
 * The space-time diagram's input handlers (the xyflow split: XYPanZoom apart from what
 * it moves): pointing at an arrow or a mark (hover, tooltip), clicking one (pin, inspect),
 * dragging and the wheel (scroll through time), ctrl + wheel or a pinch (zoom around the
 * pointer). They read and change the drawing only through its `PointerHost`.
 */
import type { DrawnArrow } from "./arrowLayer";
import { nearestArrow } from "./arrows";
import { type Frame, panBy, type TimeScale, type ViewWindow, type Viewport, yToTime, zoomTo } from "./layout";
import type { DrawnMark } from "./markLayer";

/** How close (px) the pointer must be to an arrow or a mark to point at it. */
const HIT_PX = 7;
/** Pointer travel (px) that turns a press into a drag. */
const DRAG_PX = 4;

/** What the pointer points at. */
export interface Hover {
  /** Clicked message: stays highlighted after the pointer leaves. */
  pinned: number | null;
  /** Hovered message (this view's own hover, so leaving clears only what it set). */
  hovered: number | null;
  mark: DrawnMark | null;
}

/** The drawing, as the handlers see it. */
export interface PointerHost {
  readonly hover: Hover;
  frame(): Frame;
  /** The scale of the last picture (null before the first). */
  scale(): TimeScale | null;
  window(): ViewWindow;
  viewport(): Viewport;
  /** The cursor's time. */
  now(): number;
  arrows(): readonly DrawnArrow[];
  marks(): readonly DrawnMark[];
  /** Shows another part of time (and redraws). */
  show(vp: Viewport): void;
  /** Redraws the tooltip (the mark pointed at changed). */
  redrawTip(): void;
  focus(id: number | null): void;
  inspect(id: number): void;
}

/** The arrow or mark under a point (screen coordinates of the SVG). */
function pick(host: PointerHost, p: { x: number; y: number }): { arrow: DrawnArrow | null; mark: DrawnMark | null } {
  const s = host.scale();
  const f = host.frame();
  if (s === null || p.y < f.plotTop || p.y > f.plotBottom) return { arrow: null, mark: null };
  const ly = p.y - s.offset;
  let mark: DrawnMark | null = null;
  let best = HIT_PX + 2;
  for (const m of host.marks()) {
    const dd = Math.hypot(m.x - p.x, m.y - ly);
    if (dd <= best) {
      best = dd;
      mark = m;
    }
  }
  if (mark !== null) return { arrow: null, mark };
  return { arrow: nearestArrow(host.arrows(), p.x, ly, HIT_PX), mark: null };
}

/** Listens to the pointer and the wheel on `svg`; returns what stops listening. */
export function attachPointer(svg: SVGSVGElement, host: PointerHost): () => void {
  const hover = host.hover;

  function toSvg(e: { clientX: number; clientY: number }): { x: number; y: number } {
    const r = svg.getBoundingClientRect();
    const f = host.frame();
    const sx = r.width > 0 ? f.width / r.width : 1;
    const sy = r.height > 0 ? f.height / r.height : 1;
    return { x: (e.clientX - r.left) * sx, y: (e.clientY - r.top) * sy };
  }

  function setHover(arrow: DrawnArrow | null, mark: DrawnMark | null): void {
    const id = arrow === null ? null : arrow.a.id;
    svg.classList?.toggle("is-pointing", arrow !== null);
    const markChanged = hover.mark?.key !== mark?.key;
    hover.mark = mark;
    if (id !== hover.hovered) {
      hover.hovered = id;
      // The store's focus comes back through update(), which redraws.
      host.focus(id ?? hover.pinned);
    } else if (markChanged) {
      host.redrawTip();
    }
  }

  let drag: { y0: number; end: number; moved: boolean; pointerId: number } | null = null;

  function onPointerDown(e: PointerEvent): void {
    if (e.button !== 0 || !e.isPrimary) return;
    const p = toSvg(e);
    drag = { y0: p.y, end: host.window().t1, moved: false, pointerId: e.pointerId };
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
      const f = host.frame();
      const vp = host.viewport();
      const dt = (-dy / (f.plotBottom - f.plotTop)) * vp.spanUs;
      host.show(panBy({ spanUs: vp.spanUs, endUs: drag.end }, dt, host.now()).vp);
      return;
    }
    const hit = pick(host, p);
    setHover(hit.arrow, hit.mark);
  }

  function onPointerUp(e: PointerEvent): void {
    if (drag === null || drag.pointerId !== e.pointerId) return;
    const wasDrag = drag.moved;
    drag = null;
    svg.releasePointerCapture?.(e.pointerId);
    svg.classList?.remove("is-dragging");
    if (wasDrag) return;
    const hit = pick(host, toSvg(e));
    if (hit.arrow === null) {
      hover.pinned = null;
      if (hit.mark === null) host.focus(null);
      return;
    }
    const a = hit.arrow.a;
    hover.pinned = a.id;
    hover.hovered = a.id;
    host.focus(a.id);
    if (a.state === "flight" || a.state === "queued") host.inspect(a.id);
  }

  function onPointerLeave(): void {
    if (drag !== null) return;
    hover.mark = null;
    if (hover.hovered !== null) {
      hover.hovered = null;
      host.focus(hover.pinned);
    } else {
      host.redrawTip();
    }
  }

  function onWheel(e: WheelEvent): void {
    const frame = host.frame();
    const vp = host.viewport();
    const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? frame.height : 1;
    const now = host.now();
    if (e.ctrlKey || e.metaKey) {
      // Zoom around the time under the pointer (ctrl + wheel is also what a pinch sends).
      e.preventDefault();
      const p = toSvg(e);
      const frac = (Math.max(frame.plotTop, Math.min(frame.plotBottom, p.y)) - frame.plotTop) / (frame.plotBottom - frame.plotTop);
      const t = yToTime(frame.plotTop + frac * (frame.plotBottom - frame.plotTop), host.window(), frame);
      host.show(zoomTo(vp, vp.spanUs * Math.exp(e.deltaY * unit * 0.002), now, { t, frac }));
      return;
    }
    // Scroll through time; at either end the page scrolls instead.
    const delta = (e.deltaY !== 0 ? e.deltaY : e.shiftKey ? e.deltaX : 0) * unit;
    if (delta === 0) return;
    const r = panBy(vp, (delta / (frame.plotBottom - frame.plotTop)) * vp.spanUs, now);
    if (!r.moved) return;
    e.preventDefault();
    host.show(r.vp);
  }

  svg.addEventListener("pointerdown", onPointerDown);
  svg.addEventListener("pointermove", onPointerMove);
  svg.addEventListener("pointerup", onPointerUp);
  svg.addEventListener("pointercancel", onPointerUp);
  svg.addEventListener("pointerleave", onPointerLeave);
  svg.addEventListener("wheel", onWheel, { passive: false });
  return () => {
    svg.removeEventListener("pointerdown", onPointerDown);
    svg.removeEventListener("pointermove", onPointerMove);
    svg.removeEventListener("pointerup", onPointerUp);
    svg.removeEventListener("pointercancel", onPointerUp);
    svg.removeEventListener("pointerleave", onPointerLeave);
    svg.removeEventListener("wheel", onWheel);
  };
}
