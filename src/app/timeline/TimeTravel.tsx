/**
 * Time travel: a slider over everything explored on the current branch, with the
 * moments worth seeing (elections, expiries, rejected writes, violations, your actions)
 * as ticks on its track; previous / next marker and a "Jump to" list for the keyboard;
 * the branch list (acting in the past starts a new branch and keeps the old future);
 * and the current branch's actions. Dragging shows the position at once and sends at
 * most one seek per animation frame (see cursor.ts).
 */
import { formatInstant } from "../../core/sim/time";
import { memo, type RefCallback, useCallback, useEffect, useId, useMemo, useState, useSyncExternalStore } from "react";
import { useShallow } from "zustand/react/shallow";
import type { BranchView, ScriptView, TimelineMarkerKind, SimView, TimedActionView, TimelineMarker, TimelineView, ToWorker } from "../../worker/protocol";
import { selectCursor, selectSend, useLab } from "../store";
import { textOn } from "../theme";
import type { TimeCursor } from "./cursor";
import {
  clamp,
  clusterMarkers,
  clusterTitle,
  countByKind,
  cursorWords,
  filterMarkers,
  isPast,
  keyTarget,
  MARKER_KINDS,
  MARKER_STYLE,
  type MarkerCluster,
  nextMarker,
  previousMarker,
  secondsText,
  timeToFraction,
} from "./timeMath";
import { useTimelineUi } from "./timelineUi";
import "./TimeTravel.css";

/** Ticks closer than this (px) are merged into one. */
export const TICK_GAP_PX = 22;
/** The track's width before it has been measured. */
const DEFAULT_TRACK_PX = 640;
/** If the worker never answers a seek, the slider follows it again after this long (ms). */
const OVERRIDE_TIMEOUT_MS = 3000;

const pct = (f: number): string => `${Math.round(f * 100_000) / 1000}%`;

export function TimeTravel() {
  const view = useLab(
    useShallow((s) =>
      s.view === null
        ? null
        : { runId: s.view.runId, epoch: s.view.epoch, now: s.view.now, playing: s.view.playing, timeline: s.view.timeline },
    ),
  );
  const send = useLab(selectSend);
  const cursor = useLab(selectCursor);
  const kinds = useTimelineUi((u) => u.kinds);
  const toggleKind = useTimelineUi((u) => u.toggleKind);
  const noteDismissed = useTimelineUi((u) => u.branchNoteDismissed);
  const dismissNote = useTimelineUi((u) => u.dismissBranchNote);
  if (view === null) return null;
  return (
    <TimeTravelView
      view={view}
      send={send}
      cursor={cursor}
      kinds={kinds}
      toggleKind={toggleKind}
      branchNoteDismissed={noteDismissed}
      dismissBranchNote={dismissNote}
    />
  );
}

export interface TimeTravelProps {
  readonly view: Pick<SimView, "runId" | "epoch" | "now" | "playing" | "timeline">;
  readonly send: (msg: ToWorker) => void;
  readonly cursor: TimeCursor;
  readonly kinds: ReadonlySet<TimelineMarkerKind>;
  readonly toggleKind: (k: TimelineMarkerKind) => void;
  readonly branchNoteDismissed: boolean;
  readonly dismissBranchNote: () => void;
}

/** The panel itself, from props (TimeTravel feeds it from the stores). */
export function TimeTravelView({ view, send, cursor, kinds, toggleKind, branchNoteDismissed, dismissBranchNote }: TimeTravelProps) {
  const { runId, epoch, now, playing, timeline } = view;
  const override = useSyncExternalStore(cursor.subscribe, cursor.getOverride, cursor.getOverride);
  useEffect(() => cursor.observe({ runId, epoch, now }), [cursor, runId, epoch, now]);
  useEffect(() => {
    if (override === null) return;
    const id = setTimeout(() => {
      if (!cursor.isDragging) cursor.cancel();
    }, OVERRIDE_TIMEOUT_MS);
    return () => clearTimeout(id);
  }, [cursor, override]);

  const end = Math.max(timeline.end, now);
  const shown = clamp(override ?? now, 0, end);
  const past = isPast(shown, timeline.end);
  const timeText = useCallback((us: number) => secondsText(us, end), [end]);
  const seek = useCallback((t: number) => cursor.jump(t), [cursor]);
  const markers = useMemo(() => filterMarkers(timeline.markers, kinds), [timeline.markers, kinds]);
  const [trackRef, width] = useTrackWidth();
  const clusters = useMemo(() => clusterMarkers(markers, end, width, TICK_GAP_PX), [markers, end, width]);
  const counts = useMemo(() => countByKind(timeline.markers), [timeline.markers]);
  const prev = previousMarker(markers, shown);
  const next = nextMarker(markers, shown);
  const current = timeline.branches.find((b) => b.id === timeline.branch);
  const sliderId = useId();
  const statusId = useId();

  useEffect(() => {
    // A drag that ends outside the slider still ends.
    const up = (): void => cursor.release();
    window.addEventListener("pointerup", up);
    window.addEventListener("pointercancel", up);
    return () => {
      window.removeEventListener("pointerup", up);
      window.removeEventListener("pointercancel", up);
    };
  }, [cursor]);

  return (
    <section className="panel time-travel" aria-labelledby="tt-title">
      <div className="panel-head">
        <h2 id="tt-title">Time travel</h2>
        <p className="tt-status" id={statusId}>
          <strong className="tt-now" data-testid="cursor-time">
            {secondsText(shown, end)}
          </strong>{" "}
          of {secondsText(end, end)}
          {current !== undefined && timeline.branches.length > 1 && <span className="tt-branch-badge"> on {current.name}</span>}
        </p>
      </div>
      <PastNote past={past} playing={playing} />
      <BranchNote timeline={timeline} timeText={timeText} dismissed={branchNoteDismissed} dismiss={dismissBranchNote} />
      <div className="tt-slider-row">
        <label htmlFor={sliderId} className="tt-slider-label">
          Time
        </label>
        <div className="tt-track">
          <input
            id={sliderId}
            className="tt-slider"
            type="range"
            min={0}
            max={end}
            step="any"
            value={shown}
            aria-valuetext={cursorWords(shown, timeline.end)}
            aria-describedby={statusId}
            onPointerDown={() => cursor.begin()}
            onPointerUp={() => cursor.release()}
            onBlur={() => cursor.release()}
            onChange={(e) => cursor.update(clamp(Math.round(Number(e.target.value)), 0, end))}
            onKeyDown={(e) => {
              const to = keyTarget(e.key, shown, end);
              if (to === null) return;
              e.preventDefault();
              cursor.update(to);
            }}
          />
          <div className="tt-under">
            <div className="tt-strip" ref={trackRef}>
              {past && <div className="tt-future" style={{ left: pct(timeToFraction(shown, end)) }} title="The recorded future" />}
              <MarkerTicks clusters={clusters} timeText={formatInstant} seek={seek} at={shown} />
            </div>
            <div className="tt-axis" aria-hidden="true">
              <span>0 s</span>
              <span>{secondsText(end, end)}</span>
            </div>
            {current !== undefined && current.parent !== null && current.forkedAt > 0 && (
              <ForkMark branch={current} parent={timeline.branches.find((b) => b.id === current.parent)} end={end} timeText={timeText} />
            )}
          </div>
        </div>
      </div>
      <div className="tt-controls">
        <button
          type="button"
          onClick={() => prev !== null && seek(prev.t)}
          disabled={prev === null}
          aria-keyshortcuts="["
          title={prev === null ? "No earlier marker" : `Go to ${prev.label} at ${formatInstant(prev.t)} ([)`}
        >
          <span aria-hidden="true">◀</span>Previous marker
        </button>
        <button
          type="button"
          onClick={() => next !== null && seek(next.t)}
          disabled={next === null}
          aria-keyshortcuts="]"
          title={next === null ? "No later marker" : `Go to ${next.label} at ${formatInstant(next.t)} (])`}
        >
          Next marker<span aria-hidden="true">▶</span>
        </button>
        <JumpTo markers={markers} seek={seek} />
        <KindFilter kinds={kinds} counts={counts} toggle={toggleKind} />
      </div>
      {timeline.markersDropped > 0 && (
        <p className="tt-small">
          {timeline.markersDropped} older marker{timeline.markersDropped === 1 ? " is" : "s are"} left out to keep the slider fast.
        </p>
      )}
      <div className="tt-lists">
        <BranchList timeline={timeline} send={send} timeText={timeText} />
        <ActionList actions={timeline.actions} seek={seek} at={shown} />
      </div>
      {timeline.script !== null && <KeepScript script={timeline.script} send={send} />}
    </section>
  );
}

/** Measures the marker strip (ticks are merged by pixels). */
function useTrackWidth(): [RefCallback<HTMLDivElement>, number] {
  const [width, setWidth] = useState(DEFAULT_TRACK_PX);
  const ref = useCallback<RefCallback<HTMLDivElement>>((el) => {
    if (el === null || typeof ResizeObserver === "undefined") return;
    const ro = new ResizeObserver((entries) => {
      const w = entries[0]?.contentRect.width;
      if (w !== undefined && w > 0) setWidth(Math.round(w));
    });
    ro.observe(el);
    // React 19: a ref callback may return its cleanup.
    return () => ro.disconnect();
  }, []);
  return [ref, width];
}

/** Where the cursor stands relative to what has been explored, in words. */
export function PastNote({ past, playing }: { past: boolean; playing: boolean }) {
  if (!past) {
    return (
      <p className="tt-state tt-live">
        <span aria-hidden="true">● </span>
        {playing ? "Live: new time is being explored." : "At the newest point explored: Play or Step explore further."}
      </p>
    );
  }
  return (
    <p className="tt-state tt-past" role="status">
      <span aria-hidden="true">↶ </span>
      {playing ? (
        <>
          <strong>Replaying the recorded future.</strong> Act now to start a new branch from this moment.
        </>
      ) : (
        <>
          <strong>Viewing the past</strong> — press Play to replay the recorded future, or act to branch.
        </>
      )}
    </p>
  );
}

export interface MarkerTicksProps {
  readonly clusters: readonly MarkerCluster[];
  readonly timeText: (us: number) => string;
  readonly seek: (t: number) => void;
  /** The cursor: a tick holding a marker at exactly this time is drawn as current. */
  readonly at: number;
}

/**
 * The ticks on the track, one per cluster, with a glyph and colour per kind. They are
 * for the pointer (tabindex -1): the keyboard has previous / next and Jump to.
 */
export const MarkerTicks = memo(function MarkerTicks({ clusters, timeText, seek, at }: MarkerTicksProps) {
  return (
    <div className="tt-ticks">
      {clusters.map((c) => {
        const st = MARKER_STYLE[c.kind];
        const title = clusterTitle(c, timeText);
        const here = c.markers.some((m) => m.t === at);
        const first = c.markers[0] as TimelineMarker;
        return (
          <button
            key={first.n}
            type="button"
            tabIndex={-1}
            className={`tt-tick tt-${c.kind}${here ? " here" : ""}${c.markers.length > 1 ? " many" : ""}`}
            style={{ left: pct(c.fraction), backgroundColor: st.color, color: textOn(st.color) }}
            title={title}
            aria-label={title}
            data-t={c.t}
            onClick={() => seek(c.t)}
          >
            <span aria-hidden="true">{st.glyph}</span>
            {c.markers.length > 1 && (
              <span className="tt-count" aria-hidden="true">
                {c.markers.length > 99 ? "99+" : c.markers.length}
              </span>
            )}
          </button>
        );
      })}
    </div>
  );
});

function ForkMark({
  branch,
  parent,
  end,
  timeText,
}: {
  branch: BranchView;
  parent: BranchView | undefined;
  end: number;
  timeText: (us: number) => string;
}) {
  const title = `${branch.name} left ${parent?.name ?? "its parent"} here, at ${timeText(branch.forkedAt)}`;
  return (
    <span className="tt-fork" style={{ left: pct(timeToFraction(branch.forkedAt, end)) }} title={title}>
      <span className="tt-fork-glyph" aria-hidden="true">
        ⎇ {branch.name}
      </span>
    </span>
  );
}

/** "Jump to…": every marker of the kinds shown, oldest first, for the keyboard. */
export const JumpTo = memo(function JumpTo({ markers, seek }: { markers: readonly TimelineMarker[]; seek: (t: number) => void }) {
  const id = useId();
  // The marker last jumped to stays selected (by its trace position, which new markers do not shift),
  // so arrow keys on the closed list walk from it to the next one instead of back to the first.
  const [chosen, setChosen] = useState("");
  const value = markers.some((m) => String(m.n) === chosen) ? chosen : "";
  return (
    <span className="tt-jump">
      <label htmlFor={id}>Jump to</label>
      <select
        id={id}
        value={value}
        disabled={markers.length === 0}
        onChange={(e) => {
          setChosen(e.target.value);
          const m = markers.find((x) => String(x.n) === e.target.value);
          if (m !== undefined) seek(m.t);
        }}
      >
        <option value="">{markers.length === 0 ? "no markers yet" : `a marker (${markers.length})…`}</option>
        {markers.map((m) => (
          <option key={m.n} value={m.n}>
            {formatInstant(m.t)} {MARKER_STYLE[m.kind].glyph} {m.label}
          </option>
        ))}
      </select>
    </span>
  );
});

/** Which kinds of marker are shown: also the legend (glyph, colour, words, count). */
export function KindFilter({
  kinds,
  counts,
  toggle,
}: {
  kinds: ReadonlySet<TimelineMarkerKind>;
  counts: Record<TimelineMarkerKind, number>;
  toggle: (k: TimelineMarkerKind) => void;
}) {
  return (
    <fieldset className="tt-kinds">
      <legend>Markers shown</legend>
      {MARKER_KINDS.map((k) => {
        const st = MARKER_STYLE[k];
        const on = kinds.has(k);
        return (
          <button key={k} type="button" className="small tt-kind" aria-pressed={on} onClick={() => toggle(k)}>
            <span className="tt-swatch" style={{ backgroundColor: st.color, color: textOn(st.color) }} aria-hidden="true">
              {st.glyph}
            </span>
            {st.plural} ({counts[k]})
          </button>
        );
      })}
    </fieldset>
  );
}

/** The first time a branch appears: what happened, in words. */
export function BranchNote({
  timeline,
  timeText,
  dismissed,
  dismiss,
}: {
  timeline: TimelineView;
  timeText: (us: number) => string;
  dismissed: boolean;
  dismiss: () => void;
}) {
  if (dismissed || timeline.branches.length < 2) return null;
  const newest = timeline.branches.reduce((a, b) => (b.id > a.id ? b : a));
  const parent = timeline.branches.find((b) => b.id === newest.parent);
  return (
    <div className="tt-branch-note" role="status">
      <p>
        <strong>You changed the past:</strong> a new branch, “{newest.name}”, started at {timeText(newest.forkedAt)}
        {newest.firstAction !== null ? ` with “${newest.firstAction}”` : ""}. The old future is kept
        {parent !== undefined
          ? `: “${parent.name}” still runs to ${timeText(parent.end)}. Use “Return to ${parent.name}” below to go back to it.`
          : "."}
      </p>
      <button type="button" className="small" onClick={dismiss}>
        Got it
      </button>
    </div>
  );
}

/** The branches of this run; the current one is marked, each other one has a button to return to it. */
export function BranchList({
  timeline,
  send,
  timeText,
}: {
  timeline: TimelineView;
  send: (msg: ToWorker) => void;
  timeText: (us: number) => string;
}) {
  const byId = new Map(timeline.branches.map((b) => [b.id, b] as const));
  return (
    <div className="tt-branches">
      <h3>Branches</h3>
      <ul aria-label="Branches" className="tt-branch-list">
        {timeline.branches.map((b) => {
          const isCurrent = b.id === timeline.branch;
          const parent = b.parent === null ? undefined : byId.get(b.parent);
          return (
            <li key={b.id} aria-current={isCurrent ? "true" : undefined} className={isCurrent ? "current" : undefined}>
              <div className="tt-branch-head">
                <span className="tt-branch-name">{b.name}</span>
                {isCurrent && <span className="tt-current-tag">current</span>}
                {!isCurrent && (
                  <button type="button" className="small" onClick={() => send({ type: "switchBranch", branch: b.id })}>
                    Return to {b.name}
                  </button>
                )}
              </div>
              <div className="tt-branch-facts">
                {parent === undefined ? "from the start" : `forked from ${parent.name} at ${timeText(b.forkedAt)}`} · explored to{" "}
                {timeText(b.end)} · {b.actions} action{b.actions === 1 ? "" : "s"}
                {b.firstAction !== null && (
                  <>
                    {" "}
                    · first change: <q>{b.firstAction}</q>
                  </>
                )}
              </div>
            </li>
          );
        })}
      </ul>
    </div>
  );
}

/**
 * Whether acting in the past keeps the scenario's scripted actions (a file's or a share link's)
 * ahead on the new branch. On by default: they belong to the run, so "the same story, but with
 * fencing off" stays the same story.
 */
export function KeepScript({ script, send }: { script: ScriptView; send: (msg: ToWorker) => void }) {
  const id = useId();
  const n = script.actions;
  return (
    <div className="tt-keep-script">
      <input id={id} type="checkbox" checked={script.keep} onChange={(e) => send({ type: "keepScript", keep: e.target.checked })} />
      <label htmlFor={id}>
        Keep the scenario's {n === 1 ? "scripted action" : `${n} scripted actions`} when I act in the past
      </label>
      <p className="tt-small">
        {script.keep
          ? "A new branch replaces only your own later actions; what the scenario does later (marked “scripted”) still happens."
          : "A new branch drops everything ahead, the scenario's own actions too."}
      </p>
    </div>
  );
}

/** The current branch's actions (the user's, and the run's scripted ones); each one a button that moves the cursor there. */
export function ActionList({ actions, seek, at }: { actions: readonly TimedActionView[]; seek: (t: number) => void; at: number }) {
  const title = actions.some((a) => a.scripted) ? "Actions on this branch" : "Your actions on this branch";
  return (
    <div className="tt-actions">
      <h3>{title}</h3>
      {actions.length === 0 ? (
        <p className="tt-small">None yet. Kill a node, pause a holder or cut the network, and it is listed here.</p>
      ) : (
        <ol aria-label={title} className="tt-action-list">
          {actions.map((a, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: actions of a branch only grow, in order; two may share a time and text
            <li key={i} className={a.at > at ? "ahead" : undefined}>
              <button type="button" className="small" onClick={() => seek(a.at)} title={`Move the cursor to ${formatInstant(a.at)}`}>
                <span className="tt-action-time">{formatInstant(a.at)}</span> {a.text}
                {a.scripted && <span className="tt-scripted"> (scripted)</span>}
                {a.at > at && <span className="tt-ahead"> (ahead)</span>}
              </button>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
