import { formatInstant } from "../core/sim/time";
import { type ReactNode, useEffect, useState } from "react";
import type { SimView } from "../worker/protocol";
import { Inspector } from "./Inspector";
import type { ParsedParams } from "./params";
// The styles of panels that load after the first frame stay in the first stylesheet, in their old places.
import "./panels/panels.css";
import { LeaseTimeline } from "./panels/LeaseTimeline";
import "./panels/LogGrid.css";
import { Ring } from "./ring/Ring";
// The lazily loaded parts' styles stay in the first stylesheet, in their old order: no flash, same cascade.
import "./diagram/SpaceTime.css";
import { ShareMenu } from "./sharing/ShareButton";
import { TimeTravel } from "./timeline/TimeTravel";
import { leaseCard } from "./leaseCard";
import { handleKey, SHORTCUTS } from "./shortcuts";
import { connectSimulation } from "./simLink";
import { useShallow } from "zustand/react/shallow";
import {
  selectDismissError,
  selectDismissNotices,
  selectError,
  selectHasView,
  selectNotices,
  selectSetHighlight,
  useLab,
  useLabStore,
} from "./store";
import { Toolbar } from "./Toolbar";
import { useUi } from "./ui";
import type { LessonBoot } from "./lesson/boot";
import "./lesson/lesson.css";
import { type PanelId, panelsNeeded } from "./lesson/panels";
import type { Lesson } from "../core/lesson/schema";
import "./course/course.css";
import "./library/library.css";
import { Blank } from "./classroom/Blank";
import {
  LazyClassroomBoard,
  LazyDialogs,
  LazyHolderPanel,
  LazyLessonCard,
  LazyLogGrid,
  LazyReadCheckDialog,
  LazyScenarioCard,
  LazySpaceTime,
  LazyWidePanels,
} from "./lazyParts";
import { Modal } from "./Modal";
import "./reads/reads.css";
import { OnScreen } from "./draw/OnScreen";
import { EmbedBody } from "./embed/Embed";
import { embedded } from "./embed/embedMode";
import { LiveBar } from "./live/LiveBar";
import { type LabMode, useLiveMode } from "./live/liveMode";

/** The page. It needs the store from a LabProvider above it (main.tsx). With `lesson` (?lesson=ID), the lesson's card is on top and the worker plays it. */
export function App({ params, lesson }: { params: ParsedParams; lesson?: LessonBoot }) {
  const lab = useLabStore();
  useEffect(() => {
    const first =
      lesson === undefined
        ? undefined
        : ({ type: "lesson-start", settings: params.settings, lesson: lesson.lesson, step: lesson.step } as const);
    return connectSimulation(lab, params.settings, params.problems, params.run, first, params.at);
  }, [lab, params, lesson]);
  return (
    <div className="app">
      <Notices />
      <ErrorBanner />
      <Body lesson={lesson?.lesson} />
      <HelpOverlay />
      <LazyDialogs />
      <LazyReadCheckDialog />
      <Blank />
    </div>
  );
}

function Notices() {
  const notices = useLab(selectNotices);
  const dismiss = useLab(selectDismissNotices);
  if (notices.length === 0) return null;
  return (
    <div className="notice" role="alert">
      <div>
        <strong>Part of the link could not be used.</strong>
        <ul>
          {notices.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      </div>
      <button type="button" className="small" onClick={dismiss}>
        Dismiss
      </button>
    </div>
  );
}

function ErrorBanner() {
  const error = useLab(selectError);
  const dismiss = useLab(selectDismissError);
  if (error === null) return null;
  return (
    <div className="error" role="alert">
      <span>{error}</span>
      <button type="button" className="small" onClick={dismiss}>
        Dismiss
      </button>
    </div>
  );
}

/** A modal dialog is open (settings, help, share & export, the course), by the page's state or on the page. */
function dialogOpen(): boolean {
  const ui = useUi.getState();
  if (ui.settingsOpen || ui.helpOpen || ui.shareOpen || ui.resetOpen || ui.courseView !== null) return true;
  return document.querySelector('[role="dialog"][aria-modal="true"]') !== null;
}

function Keys() {
  const lab = useLabStore();
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      // A blanked screen comes back on any key (the key does nothing else).
      if (useUi.getState().blank) {
        useUi.getState().toggleBlank();
        e.preventDefault();
        e.stopImmediatePropagation();
        return;
      }
      const t = e.target;
      const key = e.key.length === 1 ? e.key.toLowerCase() : e.key.toLowerCase();
      // Fields keep their keys; a slider (the time slider) keeps only its arrows, Home, End and Page keys: letters and Space are shortcuts.
      if (t instanceof HTMLElement && t.closest("input:not([type=range]), select, textarea, [contenteditable]")) return;
      // Buttons keep Space and Enter for themselves.
      if (t instanceof HTMLElement && t.closest("button, [role=button], a, summary") && (key === " " || key === "enter")) return;
      // While a dialog is open the run behind it is out of reach: only Escape (which closes the dialog) and ? (help) act.
      if (dialogOpen() && key !== "escape" && !(key === "?" && useUi.getState().helpOpen)) return;
      const state = lab.getState();
      if (state.view !== null && handleKey(state, key, state.view)) e.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [lab]);
  return null;
}

/** The page: each part subscribes to what it draws, so a new view re-renders only what changed. In a lesson, only the panels it has needed so far. */
function Body({ lesson: full }: { lesson?: Lesson }) {
  const lesson = full?.lesson;
  const hasView = useLab(selectHasView);
  const step = useLab((s) => s.view?.lesson?.index ?? 0);
  const exploring = useLab((s) => (s.view?.lesson?.exploringFrom ?? null) !== null);
  const [all, setAll] = useState(false);
  const classroom = useUi((u) => u.classroom);
  // Exploring from a lesson is the free lab: every panel.
  const shown = lesson === undefined || all || exploring ? null : panelsNeeded(lesson, step);
  // Each panel is redrawn only while on screen (while a run plays): see OnScreen.
  const show = (id: PanelId, panel: ReactNode): ReactNode => (shown === null || shown.has(id) ? <OnScreen>{panel}</OnScreen> : null);
  if (!hasView) {
    return (
      <p className="loading" role="status">
        Starting the simulation…
      </p>
    );
  }
  // ?embed=1: the cluster and its controls only, for a slide's iframe.
  if (embedded())
    return (
      <>
        <Keys />
        <EmbedBody />
      </>
    );
  return (
    <>
      <Keys />
      <header className="top">
        <h1>Lease Lab</h1>
        <Toolbar />
        <ShareMenu />
      </header>
      <LiveBar />
      <Summary />
      <ViolationBanner />
      <LastStep />
      {classroom ? <LazyClassroomBoard {...(full === undefined ? {} : { lesson: full })} /> : null}
      {!classroom && lesson !== undefined && !exploring && (
        <p className="lesson-panels-note">
          {all ? "Every panel is shown. " : "Only the panels this lesson has needed so far are shown; more appear when a step needs them. "}
          <button type="button" className="small" aria-pressed={all} onClick={() => setAll(!all)}>
            {all ? "Show the lesson's panels only" : "Show all panels"}
          </button>
        </p>
      )}
      {!classroom && (
        <main className="board">
          <div className="col-main">
            <Ring />
            {show("time-travel", <TimeTravel />)}
            {show("space-time", <LazySpaceTime />)}
            {show("log", <LazyLogGrid />)}
          </div>
          <div className="col-side">
            {/* A lesson's card beside the cluster, so a projector shows the words and the drawing together. */}
            {full !== undefined && <LazyLessonCard lesson={full} />}
            {/* A run opened from a scenario (library, file, link): its story and its expectations ticking. */}
            {full === undefined && <LazyScenarioCard />}
            <OnScreen>
              <Inspector />
            </OnScreen>
            {show("lease-timeline", <LeaseTimeline />)}
            {show("holders", <LazyHolderPanel />)}
          </div>
          <div className="col-wide">
            <LazyWidePanels shown={shown} />
          </div>
        </main>
      )}
    </>
  );
}

/** The run's state in a word; in live mode, the dashboard's (the threads run on whatever it does). */
function runWords(playing: boolean, halted: boolean, mode: LabMode): string {
  if (mode === "live") return playing ? "live" : "live, dashboard paused";
  return playing ? "running" : halted ? "stopped" : "paused";
}

function Summary() {
  const liveMode = useLiveMode((m) => m.mode);
  const view = useLab(
    useShallow((s) => {
      const v = s.view as SimView;
      return {
        leader: v.leader,
        nodes: v.nodes,
        leases: v.leases,
        violations: v.violations,
        playing: v.playing,
        halted: v.halted,
        eventsHandled: v.eventsHandled,
        holders: v.holders.length,
      };
    }),
  );
  const leader = view.leader === null ? null : view.nodes.find((n) => n.id === view.leader);
  const lease = leaseCard(view.leases);
  return (
    <section className="summary" aria-label="Summary">
      <div className="stat">
        <span className="stat-label">Leader</span>
        <span className="stat-value" data-testid="leader">
          {leader ? leader.id : "none"}
        </span>
        <span className="stat-sub">{leader ? `term ${leader.term}` : "no leader right now"}</span>
      </div>
      <div className={lease.lines.length > 1 ? "stat stat-leases" : "stat"} data-testid="lease-summary">
        <span className="stat-label">{view.leases.length > 1 ? "Leases" : "Lease"}</span>
        <span className="stat-value">{lease.value}</span>
        <span className="stat-sub">{lease.lines[0]}</span>
        {lease.lines.length > 1 && (
          <span className="stat-lines">
            {lease.lines.slice(1).map((l) => (
              <span key={l} className="stat-sub">
                {l}
              </span>
            ))}
          </span>
        )}
      </div>
      <div className={view.violations > 0 ? "stat bad" : "stat"}>
        <span className="stat-label">Violations</span>
        <span className="stat-value" data-testid="violations">
          {view.violations}
        </span>
        <span className="stat-sub">{view.violations > 0 ? "safety broken: see Invariants" : "all invariants hold"}</span>
      </div>
      <div className="stat">
        <span className="stat-label">Run</span>
        <span className="stat-value">{runWords(view.playing, view.halted, liveMode)}</span>
        <span className="stat-sub">
          <span data-testid="events">{view.eventsHandled}</span> events · {view.nodes.length} nodes · {view.holders} holders
        </span>
      </div>
    </section>
  );
}

/**
 * The newest violation, at the top where it cannot be missed: what broke, in plain
 * words. Its processes are highlighted everywhere as it arrives.
 */
function ViolationBanner() {
  const latest = useLab((s) => s.view?.recentViolations.at(-1) ?? null);
  const total = useLab((s) => s.view?.violations ?? 0);
  const setHighlight = useLab(selectSetHighlight);
  useEffect(() => {
    if (latest !== null) setHighlight(latest.nodes);
  }, [latest, setHighlight]);
  if (latest === null) return null;
  return (
    <section className="violation-banner" aria-label="Safety violated">
      <strong>
        ✗ Safety violated{total > 1 ? ` (${total} violations)` : ""}: {latest.invariant}
      </strong>{" "}
      at {formatInstant(latest.timeUs)}, involving {latest.nodes.join(", ")}. {latest.explanation}{" "}
      <button
        type="button"
        className="small"
        onClick={() => document.getElementById("checker-title")?.scrollIntoView({ behavior: "smooth" })}
      >
        Show details
      </button>
    </section>
  );
}

/** After a Step: what that one event did, in words; after a Step back: what it undid. */
function LastStep() {
  const view = useLab(
    useShallow((s) => {
      const v = s.view as SimView;
      return { lastStep: v.lastStep, back: v.lastStepBack, eventsHandled: v.eventsHandled, now: v.now };
    }),
  );
  if (view.lastStep.length === 0) return null;
  return (
    <section className="last-step" aria-label="Last step" aria-live="polite">
      {view.back ? (
        <>
          <strong>Stepped back</strong> to {formatInstant(view.now)} (event {view.eventsHandled}). Undid:
        </>
      ) : (
        <>
          <strong>Step {view.eventsHandled}</strong> at {formatInstant(view.now)}:
        </>
      )}
      <ul>
        {view.lastStep.slice(0, 8).map((l, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: lines of one step are fixed and may repeat
          <li key={i}>{l}</li>
        ))}
        {view.lastStep.length > 8 && <li>… and {view.lastStep.length - 8} more</li>}
      </ul>
    </section>
  );
}

function HelpOverlay() {
  const open = useUi((u) => u.helpOpen);
  const close = useUi((u) => u.closeHelp);
  if (!open) return null;
  return (
    <Modal labelledBy="help-title" onClose={close}>
      <h2 id="help-title">Keyboard shortcuts</h2>
      <table className="shortcuts">
        <tbody>
          {SHORTCUTS.map((s) => (
            <tr key={s.keys}>
              <th scope="row">
                <kbd>{s.keys}</kbd>
              </th>
              <td>{s.does}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="small-print">
        Everything you see is a deterministic simulation: virtual time, one seeded random generator. The same seed and the same clicks give
        the same run. Times are virtual ({formatInstant(1_000_000)} = one simulated second).
      </p>
      <div className="actions dialog-actions">
        <button type="button" className="primary" onClick={close}>
          Close
        </button>
      </div>
    </Modal>
  );
}
