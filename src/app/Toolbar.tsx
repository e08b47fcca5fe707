/** The top bar: play / pause / step back / step / reset, speed on a log scale, the run's seed, settings, course, help and classroom mode. */
import { formatInstant } from "../core/sim/time";
import { useId } from "react";
import type { SimView } from "../worker/protocol";
import { SPEEDS } from "../worker/protocol";
import { useShallow } from "zustand/react/shallow";
import { MomentControls, MomentStatus } from "./MomentControls";
import { requestReset } from "./reset";
import { selectSend, useLab, useLabStore } from "./store";
import { useUi } from "./ui";
import { useLibraryUi } from "./library/libraryUi";

export function speedWords(s: number): string {
  if (s === 1) return "real time";
  if (s < 1) return `${Math.round(1 / s)} times slower than real time`;
  return `${s} times faster than real time`;
}

/** Index of the offered speed nearest to `s` (on a log scale). */
export function nearestSpeedIndex(s: number): number {
  let best = 0;
  for (let i = 1; i < SPEEDS.length; i++) {
    if (Math.abs(Math.log(SPEEDS[i] as number) - Math.log(s)) < Math.abs(Math.log(SPEEDS[best] as number) - Math.log(s))) best = i;
  }
  return best;
}

export function Toolbar() {
  const view = useLab(
    useShallow((s) => {
      const v = s.view as SimView;
      return { now: v.now, speed: v.speed, playing: v.playing, halted: v.halted, seed: v.seed, canStepBack: v.timeline.canStepBack };
    }),
  );
  const send = useLab(selectSend);
  const lab = useLabStore();
  const openSettings = useUi((u) => u.openSettings);
  const openCourse = useUi((u) => u.openCourse);
  const toggleHelp = useUi((u) => u.toggleHelp);
  const classroom = useUi((u) => u.classroom);
  const toggleClassroom = useUi((u) => u.toggleClassroom);
  const speedId = useId();
  const idx = nearestSpeedIndex(view.speed);
  return (
    <section className="toolbar" aria-label="Controls">
      <div className="toolbar-group">
        {view.playing ? (
          <button type="button" className="primary" onClick={() => send({ type: "pause" })} aria-keyshortcuts="Space">
            <Icon d="M3 2 H7 V14 H3 Z M9 2 H13 V14 H9 Z" />
            Pause
          </button>
        ) : (
          <button type="button" className="primary" onClick={() => send({ type: "play" })} disabled={view.halted} aria-keyshortcuts="Space">
            <Icon d="M4 2 L14 8 L4 14 Z" />
            Play
          </button>
        )}
        <button
          type="button"
          onClick={() => send({ type: "stepBack" })}
          disabled={!view.canStepBack}
          aria-keyshortcuts="B"
          title="Go back exactly one event (pauses first)"
        >
          <Icon d="M14 2 L6 8 L14 14 Z M2 2 H5 V14 H2 Z" />
          Step back
        </button>
        <button type="button" onClick={() => send({ type: "step" })} aria-keyshortcuts="S" title="Process exactly one event (pauses first)">
          <Icon d="M2 2 L10 8 L2 14 Z M11 2 H14 V14 H11 Z" />
          Step
        </button>
        {/* The same run from the start (a file's or a link's own actions included), at the current speed. */}
        <button
          type="button"
          onClick={() => {
            const st = lab.getState();
            if (st.view !== null) requestReset(st, st.view);
          }}
          aria-keyshortcuts="R"
          title="Start this run again from time zero (same seed and settings; asks first if you would lose your actions or branches)"
        >
          <Icon d="M8 2 A6 6 0 1 1 2 8 H4 A4 4 0 1 0 8 4 V6 L4 3 L8 0 Z" />
          Reset
        </button>
        <MomentControls />
      </div>
      <div className="toolbar-group speed">
        <label htmlFor={speedId} title="Keys: - slower, = faster">
          Speed
        </label>
        <input
          id={speedId}
          type="range"
          min={0}
          max={SPEEDS.length - 1}
          step={1}
          value={idx}
          aria-valuetext={`${view.speed}×, ${speedWords(view.speed)}`}
          onChange={(e) => send({ type: "setSpeed", speed: SPEEDS[Number(e.target.value)] as number })}
        />
        <output htmlFor={speedId} className="speed-value">
          {view.speed}×
        </output>
      </div>
      <div className="toolbar-group clock" aria-live="off">
        <span className="clock-label">time</span>
        <span className="clock-value" data-testid="virtual-time">
          {formatInstant(view.now)}
        </span>
      </div>
      <div className="toolbar-group toolbar-more">
        <span className="seed">
          seed <strong data-testid="seed">{view.seed}</strong>
        </span>
        <button type="button" onClick={openSettings} title="Seed, cluster size, holders and timing">
          Settings…
        </button>
        <button type="button" onClick={() => openCourse("course")} title="Lessons that walk through leases step by step, and the glossary">
          Course
        </button>
        <button type="button" onClick={() => useLibraryUi.getState().setOpen(true)} title="Ready-made runs: a fault, what it does, and what must hold">
          Scenarios
        </button>
        <button type="button" onClick={toggleHelp} aria-keyshortcuts="?" title="Keyboard shortcuts">
          Help
        </button>
      </div>
      <div className="toolbar-group">
        <button
          type="button"
          onClick={toggleClassroom}
          aria-pressed={classroom}
          aria-keyshortcuts="C"
          title="The projector layout: the cluster fills the screen, big text, a caption of the latest event; “.” blanks the screen"
        >
          {classroom ? "Leave classroom" : "Classroom"}
        </button>
      </div>
      <MomentStatus />
    </section>
  );
}

/** A 16×16 icon drawn with one path; hidden from assistive technology (the button's text names it). */
export function Icon({ d }: { d: string }) {
  return (
    <svg className="icon" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" focusable="false">
      <path d={d} fill="currentColor" />
    </svg>
  );
}
