/**
 * The compare page (?compare=A,B): two scenario runs side by side, each in its own store
 * with its own worker, driven by one clock (compareClock.ts: the same explicit seek to
 * both, every frame). Each side shows its cluster ring, what its storage and its checker
 * saw, and its expectations ticking.
 */
import { useEffect, useId, useMemo, useSyncExternalStore } from "react";
import type { Scenario } from "../../core/scenario/schema";
import { formatInstant } from "../../core/sim/time";
import { SPEEDS } from "../../worker/protocol";
import { Ring } from "../ring/Ring";
import { connectSimulation } from "../simLink";
import { createLabStore, LabProvider, type LabStore, useLab } from "../store";
import { speedWords } from "../Toolbar";
import { pairOf } from "./pairs";
import { Checklist } from "./Checklist";
import { CompareClock } from "./compareClock";
import { librarySettings, scenarioSearch } from "./open";
import "./library.css";

/** The speed the pair starts at: a 10 s run in 20 real seconds. */
const COMPARE_SPEED = 0.5;

type Side = readonly [id: string, scenario: Scenario];

export function ComparePage({ left, right }: { readonly left: Side; readonly right: Side }) {
  const stores = useMemo(() => [createLabStore(), createLabStore()] as const, []);
  const duration = Math.max(left[1].duration, right[1].duration);
  const clock = useMemo(
    () =>
      new CompareClock(
        stores.map((s) => ({ end: () => s.getState().view?.timeline.end ?? 0, send: (m) => s.getState().send(m) })),
        duration,
        COMPARE_SPEED,
      ),
    [stores, duration],
  );
  useEffect(() => {
    const stops = [left, right].map(([, sc], i) => connectSimulation(stores[i] as LabStore, librarySettings(sc, COMPARE_SPEED), [], sc));
    return () => {
      for (const stop of stops) stop();
    };
  }, [stores, left, right]);
  useEffect(() => {
    let handle = 0;
    const loop = (ms: number): void => {
      clock.frame(ms);
      handle = requestAnimationFrame(loop);
    };
    handle = requestAnimationFrame(loop);
    return () => cancelAnimationFrame(handle);
  }, [clock]);
  const pair = pairOf(left[0]);
  return (
    <div className="app compare-page">
      <header className="top">
        <h1>Lease Lab: compare</h1>
        <p className="compare-what">
          The same run twice{pair !== null ? `, ${pair.what}` : ""}: one clock drives both, so each moment is the same virtual time on
          both sides. <a href={`${window.location.pathname}${scenarioSearch(left[0])}`}>Back to the lab</a>
        </p>
      </header>
      <CompareControls clock={clock} stores={stores} />
      <main className="compare-board">
        {[left, right].map(([id, sc], i) => (
          <LabProvider key={id} store={stores[i] as LabStore}>
            <CompareSide id={id} scenario={sc} side={i === 0 ? "left" : "right"} />
          </LabProvider>
        ))}
      </main>
    </div>
  );
}

/** The clock's state, and how far both runs can be shown (it grows as the workers explore them). */
function useClock(clock: CompareClock, stores: readonly LabStore[]): { now: number; playing: boolean; speed: number; limit: number } {
  const key = useSyncExternalStore(
    (fn) => {
      const offs = [clock.subscribe(fn), ...stores.map((s) => s.subscribe(fn))];
      return () => {
        for (const off of offs) off();
      };
    },
    () => `${clock.now}|${clock.isPlaying}|${clock.currentSpeed}|${clock.limit()}`,
  );
  const [now, playing, speed, limit] = key.split("|");
  return { now: Number(now), playing: playing === "true", speed: Number(speed), limit: Number(limit) };
}

/** The one play / pause / speed / time control of both runs. */
function CompareControls({ clock, stores }: { readonly clock: CompareClock; readonly stores: readonly LabStore[] }) {
  const { now, playing, speed, limit } = useClock(clock, stores);
  const timeId = useId();
  const speedId = useId();
  return (
    <section className="toolbar compare-controls" aria-label="Controls of both runs">
      <div className="toolbar-group">
        {playing ? (
          <button type="button" className="primary" onClick={() => clock.pause()}>
            Pause both
          </button>
        ) : (
          <button type="button" className="primary" onClick={() => clock.play()} disabled={limit === 0}>
            Play both
          </button>
        )}
        <button type="button" onClick={() => clock.seek(0)}>
          Back to 0
        </button>
      </div>
      <div className="toolbar-group speed">
        <label htmlFor={speedId}>Speed</label>
        <select id={speedId} value={speed} onChange={(e) => clock.setSpeed(Number(e.target.value))}>
          {SPEEDS.map((s) => (
            <option key={s} value={s}>
              {s}× ({speedWords(s)})
            </option>
          ))}
        </select>
      </div>
      <div className="toolbar-group compare-time">
        <label htmlFor={timeId}>Time of both runs</label>
        <input
          id={timeId}
          type="range"
          min={0}
          max={Math.max(1, Math.floor(limit / 1000))}
          step={10}
          value={Math.floor(now / 1000)}
          aria-valuetext={formatInstant(now)}
          onChange={(e) => {
            clock.pause();
            clock.seek(Number(e.target.value) * 1000);
          }}
        />
        <output htmlFor={timeId} className="clock-value" data-testid="compare-time">
          {formatInstant(now)}
        </output>
      </div>
    </section>
  );
}

/** One run of the pair: the time it shows, its ring, its storage and checker, its expectations. */
function CompareSide({ id, scenario, side }: { readonly id: string; readonly scenario: Scenario; readonly side: string }) {
  const view = useLab((s) => s.view);
  const titleId = `compare-${side}-title`;
  return (
    <section className="compare-side" aria-labelledby={titleId} data-testid={`compare-${side}`}>
      <h2 id={titleId}>{scenario.name}</h2>
      <p className="library-file">{id}</p>
      {view === null ? (
        <p role="status">Starting the simulation…</p>
      ) : (
        <>
          <p className="compare-shown">
            Showing <strong data-testid="side-time">{formatInstant(view.now)}</strong>
          </p>
          {/* What differs first (it must be seen without scrolling), then the cluster. */}
          <Outcome />
          <h3>What must be true</h3>
          <Checklist items={view.scenario?.expectations ?? []} label={`Expectations of ${scenario.name}`} />
          <Ring />
        </>
      )}
    </section>
  );
}

/** What the storage did with the writes, and what the checker reported, as of the cursor. */
function Outcome() {
  const storage = useLab((s) => s.view?.storage ?? null);
  const violations = useLab((s) => s.view?.violations ?? 0);
  const first = useLab((s) => s.view?.recentViolations[0] ?? null);
  const rejected = storage?.writes.find((w) => !w.accepted) ?? null;
  return (
    <div className="compare-outcome">
      <p>
        Storage ({storage?.fencing ? "fencing on: it checks tokens" : "fencing off: it checks nothing"}): accepted{" "}
        <strong data-testid="side-accepted">{storage?.accepted ?? 0}</strong>, rejected{" "}
        <strong data-testid="side-rejected">{storage?.rejected ?? 0}</strong>.
        {rejected !== null && (
          <span data-testid="side-rejection">
            {" "}
            {rejected.holder}'s write with token {rejected.token} was rejected at <strong>{formatInstant(rejected.t)}</strong>
            {rejected.reason !== null ? `: ${rejected.reason}` : ""}.
          </span>
        )}
      </p>
      <p className={violations > 0 ? "compare-bad" : ""}>
        Checker: <strong data-testid="side-violations">{violations}</strong> violation{violations === 1 ? "" : "s"}.
        {first !== null && (
          <span data-testid="side-violation">
            {" "}
            At <strong>{formatInstant(first.timeUs)}</strong>: {first.explanation}
          </span>
        )}
      </p>
    </div>
  );
}
