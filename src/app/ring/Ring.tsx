/**
 * The cluster ring panel. React renders the section, the heading, an empty <svg> and
 * the legend; everything inside the <svg> belongs to the d3 drawing (ringDrawing.ts),
 * created once per mounted <svg> and fed every live view straight from the store.
 */
import { useEffect, useRef } from "react";
import { type LabState, OFF_SCREEN_INTERVAL_MS, selectHasView, selectHighlight, useLab, useLabStore } from "../store";
import { messageColor, OKABE_ITO, ROLE_COLOR, ROLE_GLYPH, ROLE_TEXT, textOn } from "../theme";
import { useUi } from "../ui";
import { RingViewSwitch } from "./RingViewSwitch";
import { createRingDrawing } from "./ringDrawing";
import { ReadsLegend } from "./ReadsLegend";
import "./Ring.css";

/** The cluster ring panel; nothing until the first view arrives. */
export function Ring() {
  const hasView = useLab(selectHasView);
  return hasView ? <RingPanel /> : null;
}

/** The panel itself (exported for tests: server rendering never sees the store's updates). */
export function RingPanel() {
  return (
    <section className="panel ring-panel" aria-labelledby="ring-title">
      <div className="panel-head ring-head">
        <h2 id="ring-title">Cluster</h2>
        <RingViewSwitch />
      </div>
      <RingCanvas />
      <RingLegend />
    </section>
  );
}

/**
 * The <svg> the drawing owns. The component never re-renders on a new view: it
 * subscribes to the store and hands each new view (with the real time it arrived, for
 * smooth motion between views) and the selection/highlight to the drawing.
 */
function RingCanvas() {
  const ref = useRef<SVGSVGElement>(null);
  const lab = useLabStore();
  useEffect(() => {
    const svg = ref.current;
    if (svg === null) return;
    const drawing = createRingDrawing(svg, {
      select: (t) => lab.getState().select(t),
      // Hovering a message highlights it here and in the space-time diagram.
      focus: (id) => lab.getState().setFocusMessage(id),
    });
    let receivedAt = performance.now();
    // Off screen while a run plays, the ring is redrawn only once a second (it catches up when it comes into view).
    let onScreen = true;
    let drawnAt = Number.NEGATIVE_INFINITY;
    const draw = (s: LabState): void => {
      const t = performance.now();
      if (!onScreen && s.liveView?.playing === true && t - drawnAt < OFF_SCREEN_INTERVAL_MS) return;
      drawnAt = t;
      const leaseStory = useUi.getState().ringView === "lease";
      if (s.liveView !== null)
        drawing.update(s.liveView, receivedAt, { selected: s.selected, highlight: selectHighlight(s), focus: s.focusMessage, leaseStory });
    };
    const unsubscribeUi = useUi.subscribe((u, prev) => {
      if (u.ringView !== prev.ringView) draw(lab.getState());
    });
    draw(lab.getState());
    const unsubscribe = lab.subscribe((s, prev) => {
      if (s.liveView !== prev.liveView) receivedAt = performance.now();
      if (
        s.liveView !== prev.liveView ||
        s.selected !== prev.selected ||
        s.focusMessage !== prev.focusMessage ||
        selectHighlight(s) !== selectHighlight(prev)
      )
        draw(s);
    });
    const visibility =
      typeof IntersectionObserver === "undefined"
        ? null
        : new IntersectionObserver((entries) => {
            const seen = entries.some((e) => e.isIntersecting);
            if (seen === onScreen) return;
            onScreen = seen;
            drawing.setOnScreen(seen);
            if (seen) draw(lab.getState());
          });
    visibility?.observe(svg);
    return () => {
      visibility?.disconnect();
      unsubscribe();
      unsubscribeUi();
      drawing.destroy();
    };
  }, [lab]);
  // role="group", not "img": the drawing has buttons inside (nodes, holders, storage).
  // biome-ignore lint/a11y/useSemanticElements: an <svg> cannot be a <fieldset>; role="group" is the right role for it.
  return <svg ref={ref} className="ring-svg" role="group" aria-label="Cluster ring" viewBox="0 0 620 520" data-export="ring" />;
}

const ROLES = ["leader", "candidate", "precandidate", "follower", "down"] as const;

const MESSAGE_KINDS: readonly { label: string; text: string }[] = [
  { label: "vote", text: "vote" },
  { label: "append", text: "append / heartbeat" },
  { label: "refresh", text: "lease grant / refresh" },
  { label: "write", text: "storage write" },
  { label: "reply", text: "other" },
];

function RingLegend() {
  return (
    <div className="ring-legend">
      <ul aria-label="Node roles">
        {ROLES.map((r) => (
          <li key={r}>
            <span className="rl-node" style={{ background: ROLE_COLOR[r], color: textOn(ROLE_COLOR[r]) }} aria-hidden="true">
              {ROLE_GLYPH[r]}
            </span>
            {ROLE_TEXT[r]}
          </li>
        ))}
      </ul>
      <ul aria-label="Messages">
        {MESSAGE_KINDS.map((k) => (
          <li key={k.text}>
            <span className="rl-dot" style={{ background: messageColor(k.label) }} aria-hidden="true" />
            {k.text}
          </li>
        ))}
      </ul>
      <ul aria-label="Symbols">
        <li>
          <strong className="rl-term">T4</strong> inside a node: its term is 4
        </li>
        <li>
          <span className="rl-sym rl-timer" aria-hidden="true" />
          election timer (empties, then an election)
        </li>
        <li>
          <span className="rl-sym rl-vote" aria-hidden="true" style={{ background: OKABE_ITO.green }} />
          vote received
        </li>
        <li>
          <span className="rl-sym rl-paused" aria-hidden="true">
            ‖
          </span>
          paused (frozen)
        </li>
        <li>
          <span className="rl-sym rl-cut" aria-hidden="true">
            ✕
          </span>
          link cut / message dropped
        </li>
        <li>
          <span className="rl-sym rl-group" aria-hidden="true" />
          partition group (holders and the storage wear its letter)
        </li>
        <li>
          <span className="rl-sym rl-outside" aria-hidden="true" />
          pale, dashed: not a member (a spare or removed server)
        </li>
        <ReadsLegend />
      </ul>
    </div>
  );
}
