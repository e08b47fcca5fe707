/**
 * The space-time (Lamport) diagram panel. React renders the section, the heading, the
 * zoom and scroll buttons, an empty <svg> and the legend; everything inside the <svg>
 * belongs to the d3 drawing (spacetimeDrawing.ts), created once per mounted <svg> and
 * fed straight from the store (the component does not re-render on a new view).
 */
import { useEffect, useRef, useState } from "react";
import { type LabState, selectHasView, selectHighlight, useLab, useLabStore } from "../store";
import { type MessageKind, messageColor, OKABE_ITO, ROLE_COLOR } from "../theme";
import { diagramInput, withoutKinds } from "./input";
import { DEFAULT_SPAN_US, DEFAULT_WIDTH, MAX_SPAN_US, MIN_SPAN_US, spanText } from "./layout";
import { createSpaceTimeDrawing, type SpaceTimeDrawing, type ViewportState } from "./spacetimeDrawing";
import "./SpaceTime.css";

/** The space-time diagram panel; nothing until the first view arrives. */
export function SpaceTime() {
  const hasView = useLab(selectHasView);
  return hasView ? <SpaceTimePanel /> : null;
}

const INITIAL: ViewportState = {
  spanUs: DEFAULT_SPAN_US,
  following: true,
  canZoomIn: DEFAULT_SPAN_US > MIN_SPAN_US,
  canZoomOut: DEFAULT_SPAN_US < MAX_SPAN_US,
  canPanEarlier: false,
  canPanLater: false,
};

/** The panel itself (exported for tests: server rendering never runs the effect). */
export function SpaceTimePanel() {
  const svgRef = useRef<SVGSVGElement>(null);
  const wrapRef = useRef<HTMLDivElement>(null);
  const drawingRef = useRef<SpaceTimeDrawing | null>(null);
  const [vp, setVp] = useState<ViewportState>(INITIAL);
  /** Arrow kinds the user switched off in the legend (read by the drawing's feed). */
  const [hidden, setHidden] = useState<ReadonlySet<MessageKind>>(() => new Set());
  const hiddenRef = useRef(hidden);
  const redrawRef = useRef<() => void>(() => {});
  const lab = useLabStore();
  const toggle = (k: MessageKind): void => {
    const next = new Set(hiddenRef.current);
    if (next.has(k)) next.delete(k);
    else next.add(k);
    hiddenRef.current = next;
    setHidden(next);
    redrawRef.current();
  };

  useEffect(() => {
    const svg = svgRef.current;
    const wrap = wrapRef.current;
    if (svg === null) return;
    const drawing = createSpaceTimeDrawing(
      svg,
      {
        focus: (id) => lab.getState().setFocusMessage(id),
        inspect: (id) => lab.getState().select({ kind: "message", id }),
        viewport: setVp,
      },
      wrap?.clientWidth || DEFAULT_WIDTH,
    );
    drawingRef.current = drawing;
    // Off screen, the diagram is not drawn at all (it catches up when it comes into view).
    let onScreen = true;
    const draw = (s: LabState): void => {
      if (!onScreen) return;
      const d = diagramInput(s);
      if (d !== null) drawing.update(withoutKinds(d, hiddenRef.current));
    };
    redrawRef.current = () => draw(lab.getState());
    draw(lab.getState());
    const visibility =
      wrap === null || typeof IntersectionObserver === "undefined"
        ? null
        : new IntersectionObserver((entries) => {
            const seen = entries.some((e) => e.isIntersecting);
            if (seen === onScreen) return;
            onScreen = seen;
            if (seen) draw(lab.getState());
          });
    if (wrap !== null) visibility?.observe(wrap);
    const unsubscribe = lab.subscribe((s, p) => {
      if (
        s.liveView !== p.liveView ||
        s.view !== p.view ||
        s.diagramMessages !== p.diagramMessages ||
        s.diagramMarks !== p.diagramMarks ||
        s.focusMessage !== p.focusMessage ||
        selectHighlight(s) !== selectHighlight(p)
      )
        draw(s);
    });
    const observer =
      wrap === null || typeof ResizeObserver === "undefined"
        ? null
        : new ResizeObserver((entries) => {
            const w = entries[0]?.contentRect.width;
            if (w !== undefined && w > 0) drawing.resize(w);
          });
    if (wrap !== null) observer?.observe(wrap);
    return () => {
      unsubscribe();
      observer?.disconnect();
      visibility?.disconnect();
      drawing.destroy();
      drawingRef.current = null;
    };
  }, [lab]);

  return (
    <section className="panel spacetime-panel" aria-labelledby="spacetime-title">
      <div className="panel-head st-head">
        <h2 id="spacetime-title">Space-time diagram</h2>
        <SpaceTimeControls
          vp={vp}
          onZoom={(dir) => drawingRef.current?.zoom(dir)}
          onPan={(dir) => drawingRef.current?.pan(dir)}
          onFollow={(on) => drawingRef.current?.follow(on)}
        />
      </div>
      <p className="st-hint">
        Each process is a vertical line; time runs down. Ctrl/⌘ + wheel zooms, wheel or drag scrolls through time. Point at an arrow to
        highlight it here and in the ring; click one in flight to inspect it.
      </p>
      <div className="st-wrap" ref={wrapRef}>
        <svg ref={svgRef} className="st-svg" role="img" aria-label="Space-time diagram" data-export="spacetime" />
      </div>
      <SpaceTimeLegend hidden={hidden} onToggle={toggle} />
    </section>
  );
}

export interface SpaceTimeControlsProps {
  readonly vp: ViewportState;
  readonly onZoom: (dir: -1 | 1) => void;
  readonly onPan: (dir: -1 | 1) => void;
  readonly onFollow: (on: boolean) => void;
}

export function SpaceTimeControls({ vp, onZoom, onPan, onFollow }: SpaceTimeControlsProps) {
  return (
    // biome-ignore lint/a11y/useSemanticElements: a row of buttons, not a form field set.
    <div className="st-controls" role="group" aria-label="Space-time diagram view">
      <button
        type="button"
        className="small"
        aria-label="Zoom out"
        title="Zoom out: show more time"
        disabled={!vp.canZoomOut}
        onClick={() => onZoom(1)}
      >
        −
      </button>
      <span className="st-span" title="Time shown top to bottom">
        {spanText(vp.spanUs)}
      </span>
      <button
        type="button"
        className="small"
        aria-label="Zoom in"
        title="Zoom in: show less time"
        disabled={!vp.canZoomIn}
        onClick={() => onZoom(-1)}
      >
        +
      </button>
      <button type="button" className="small" disabled={!vp.canPanEarlier} onClick={() => onPan(-1)}>
        ↑ Earlier
      </button>
      <button type="button" className="small" disabled={!vp.canPanLater} onClick={() => onPan(1)}>
        Later ↓
      </button>
      <button
        type="button"
        className={vp.following ? "small st-follow is-on" : "small st-follow"}
        aria-pressed={vp.following}
        title={vp.following ? "The bottom edge follows the time cursor" : "Jump back to the time cursor and follow it"}
        onClick={() => onFollow(!vp.following)}
      >
        Follow now
      </button>
    </div>
  );
}

const ARROW_KINDS: readonly { kind: MessageKind; label: string; text: string }[] = [
  { kind: "vote", label: "vote", text: "vote" },
  { kind: "replication", label: "append", text: "append / heartbeat" },
  { kind: "snapshot", label: "snapshot", text: "snapshot (InstallSnapshot)" },
  { kind: "lease", label: "refresh", text: "lease grant / refresh" },
  { kind: "storage", label: "write", text: "storage write" },
  { kind: "other", label: "reply", text: "other" },
];

/** The legend; its arrow kinds are also switches (a busy run reads better without heartbeats). */
export function SpaceTimeLegend({ hidden, onToggle }: { hidden: ReadonlySet<MessageKind>; onToggle: (k: MessageKind) => void }) {
  return (
    <div className="st-legend">
      <ul aria-label="Arrows (press to hide or show a kind)">
        {ARROW_KINDS.map((k) => (
          <li key={k.text}>
            <button
              type="button"
              className={hidden.has(k.kind) ? "stl-toggle is-off" : "stl-toggle"}
              aria-pressed={!hidden.has(k.kind)}
              title={hidden.has(k.kind) ? `Show ${k.text} arrows` : `Hide ${k.text} arrows`}
              onClick={() => onToggle(k.kind)}
            >
              <span className="stl-arrow" style={{ background: messageColor(k.label) }} aria-hidden="true" />
              {k.text}
            </button>
          </li>
        ))}
        <li>
          <span className="stl-dropped" aria-hidden="true">
            ╌✕
          </span>
          dropped
        </li>
        <li>
          <span className="stl-flight" aria-hidden="true" />
          in flight (stops at now)
        </li>
      </ul>
      <ul aria-label="Marks on the lines">
        <li>
          <span className="stl-seg" style={{ background: ROLE_COLOR.leader }} aria-hidden="true" />★ leader
        </li>
        <li>
          <span className="stl-seg" style={{ background: OKABE_ITO.green }} aria-hidden="true" />◆ holds the lease
        </li>
        <li>
          <span className="stl-seg stl-down" aria-hidden="true" />✕ down
        </li>
        <li>
          <span className="stl-seg stl-paused" aria-hidden="true" />‖ paused
        </li>
        <li>
          <span className="stl-bad" aria-hidden="true">
            ✗
          </span>
          rejected write / safety violation
        </li>
      </ul>
    </div>
  );
}
