/**
 * The lease timeline's zoom and scroll: buttons (zoom in, zoom out, follow now), a scroll
 * bar over the whole retained history, and on the tracks ctrl/⌘-wheel to zoom, drag to
 * pan, and keys (+ − ← → Home End) when the timeline has focus.
 */
import { type KeyboardEvent, type PointerEvent, type ReactNode, useEffect, useId, useRef } from "react";
import { formatInstant } from "../../core/sim/time";
import {
  FOLLOW_NOW,
  PAN_STEP,
  panLeaseBy,
  panTo,
  scrollBounds,
  spanWords,
  type TimeWindow,
  ZOOM_STEP,
  type ZoomState,
  zoomBy,
} from "./timelineScale";

interface ZoomProps {
  readonly zoom: ZoomState;
  readonly setZoom: (z: ZoomState) => void;
  readonly w: TimeWindow;
  readonly earliest: number;
}

/** The buttons and the scroll bar above the axis. */
export function ZoomControls({ zoom, setZoom, w, earliest }: ZoomProps) {
  const len = w.to - w.from;
  const { lo, hi } = scrollBounds(len, w.now, earliest);
  const following = zoom.fromUs === null;
  const scrollId = useId();
  // The scroll bar works in milliseconds (µs would make its steps tiny).
  const ms = (us: number): number => Math.round(us / 1000);
  return (
    <div className="lt-zoom" role="toolbar" aria-label="Zoom and scroll the lease timeline">
      <button type="button" className="small" onClick={() => setZoom(zoomBy(zoom, ZOOM_STEP, w, w.now, earliest))} aria-label="Lease timeline: zoom in">
        + zoom in
      </button>
      <button type="button" className="small" onClick={() => setZoom(zoomBy(zoom, 1 / ZOOM_STEP, w, w.now, earliest))} aria-label="Lease timeline: zoom out">
        − zoom out
      </button>
      <button
        type="button"
        className="small"
        aria-label="Lease timeline: follow now"
        aria-pressed={following}
        onClick={() => setZoom({ ...FOLLOW_NOW, spanUs: zoom.spanUs })}
      >
        {following ? "✓ follow now" : "follow now"}
      </button>
      <span className="lt-zoom-span">{spanWords(w)}</span>
      <label className="lt-scroll" htmlFor={scrollId}>
        <span className="lt-scroll-word">past</span>
        <input
          id={scrollId}
          type="range"
          min={ms(lo)}
          max={ms(hi)}
          step={Math.max(1, ms(len * PAN_STEP) / 4)}
          value={ms(w.from)}
          disabled={hi - lo < 1000}
          aria-label="Scroll the lease chart through its past"
          aria-valuetext={`from ${formatInstant(Math.max(0, w.from))} to ${formatInstant(w.to)}${following ? ", following now" : ""}`}
          onChange={(e) => setZoom(panTo(zoom, Number(e.target.value) * 1000, w, earliest))}
        />
        <span className="lt-scroll-word">now</span>
      </label>
    </div>
  );
}

/** What the keys do when the tracks have focus. */
export function zoomKey(key: string, p: ZoomProps): ZoomState | null {
  const len = p.w.to - p.w.from;
  switch (key) {
    case "+":
    case "=":
      return zoomBy(p.zoom, ZOOM_STEP, p.w, p.w.now, p.earliest);
    case "-":
    case "_":
      return zoomBy(p.zoom, 1 / ZOOM_STEP, p.w, p.w.now, p.earliest);
    case "ArrowLeft":
      return panLeaseBy(p.zoom, -len * PAN_STEP, p.w, p.earliest);
    case "ArrowRight":
      return panLeaseBy(p.zoom, len * PAN_STEP, p.w, p.earliest);
    case "Home":
      return panTo(p.zoom, p.earliest - len, p.w, p.earliest);
    case "End":
      return { ...FOLLOW_NOW, spanUs: p.zoom.spanUs };
    default:
      return null;
  }
}

/** The tracks' area: focusable, ctrl/⌘-wheel zooms at the pointer, a drag pans. */
export function ZoomArea({ children, ...p }: ZoomProps & { children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  const latest = useRef(p);
  latest.current = p;
  const drag = useRef<{ x: number; from: number; width: number } | null>(null);
  useEffect(() => {
    const el = ref.current;
    if (el === null) return;
    // Not React's onWheel: it is passive, and the page must not zoom or scroll as well.
    const onWheel = (e: WheelEvent): void => {
      const q = latest.current;
      const track = trackBox(el);
      if (track === null) return;
      const len = q.w.to - q.w.from;
      if (e.ctrlKey || e.metaKey) {
        e.preventDefault();
        const share = Math.max(0, Math.min(1, (e.clientX - track.left) / track.width));
        q.setZoom(zoomBy(q.zoom, e.deltaY < 0 ? ZOOM_STEP : 1 / ZOOM_STEP, q.w, q.w.from + share * len, q.earliest));
      } else if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
        e.preventDefault();
        q.setZoom(panLeaseBy(q.zoom, (e.deltaX / track.width) * len, q.w, q.earliest));
      }
    };
    el.addEventListener("wheel", onWheel, { passive: false });
    return () => el.removeEventListener("wheel", onWheel);
  }, []);
  const onPointerDown = (e: PointerEvent<HTMLDivElement>): void => {
    const el = ref.current;
    if (el === null || !(e.target instanceof Element) || e.target.closest(".lt-track") === null) return;
    const track = trackBox(el);
    if (track === null) return;
    drag.current = { x: e.clientX, from: p.w.from, width: track.width };
    e.currentTarget.setPointerCapture?.(e.pointerId);
  };
  const onPointerMove = (e: PointerEvent<HTMLDivElement>): void => {
    const d = drag.current;
    if (d === null) return;
    const len = p.w.to - p.w.from;
    p.setZoom(panTo(p.zoom, d.from - ((e.clientX - d.x) / d.width) * len, p.w, p.earliest));
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    if (e.target !== e.currentTarget || e.altKey || e.ctrlKey || e.metaKey) return;
    const z = zoomKey(e.key, p);
    if (z === null) return;
    e.preventDefault();
    e.stopPropagation();
    p.setZoom(z);
  };
  const end = (): void => {
    drag.current = null;
  };
  return (
    // biome-ignore lint/a11y/useSemanticElements: a fieldset would put a form box around drawings
    <div
      ref={ref}
      className="lt-zoom-area"
      // biome-ignore lint/a11y/noNoninteractiveTabindex: the tracks take keys to zoom and scroll (the toolbar above offers the same)
      tabIndex={0}
      role="group"
      aria-label="Lease chart: + and − zoom, ← and → scroll, End follows now; drag to scroll, ctrl or ⌘ with the wheel to zoom"
      onKeyDown={onKeyDown}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={end}
      onPointerCancel={end}
    >
      {children}
    </div>
  );
}

function trackBox(el: HTMLElement): DOMRect | null {
  const t = el.querySelector(".lt-track");
  if (t === null) return null;
  const r = t.getBoundingClientRect();
  return r.width > 0 ? r : null;
}
