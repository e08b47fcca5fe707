import { useEffect } from "react";
import type { NodeView, SimView } from "../worker/protocol";
import { SPEEDS } from "../worker/protocol";
import { connectSimulation } from "./simLink";
import { selectDismissError, selectError, selectNotices, selectSend, selectView, useLab } from "./store";
import type { ParsedParams } from "./params";

const ROLE_TEXT: Record<string, string> = {
  leader: "leader",
  candidate: "candidate",
  precandidate: "pre-candidate",
  follower: "follower",
};

/** What a node is, in words: "leader", "follower, paused", "down". */
export function stateText(n: NodeView): string {
  if (n.status === "down" || n.role === null) return "down";
  const role = ROLE_TEXT[n.role] ?? n.role;
  return n.status === "paused" ? `${role}, paused` : role;
}

/** The accessible name of a node's row, e.g. "n3, leader, term 4". */
export function nodeLabel(n: NodeView): string {
  return `${n.id}, ${stateText(n)}, term ${n.term}`;
}

/** Virtual time as seconds with millisecond precision: "12.345 s". */
export function formatTime(us: number): string {
  return `${(us / 1_000_000).toFixed(3)} s`;
}

function formatSpeed(s: number): string {
  return `${s}×`;
}

export function App({ params }: { params: ParsedParams }) {
  useEffect(() => connectSimulation(params.settings, params.problems), [params]);
  return (
    <div className="app">
      <header className="top">
        <h1>Lease Lab</h1>
        <p className="tagline">A Raft cluster running in your browser. Break it and watch it recover.</p>
      </header>
      <Notices />
      <ErrorBanner />
      <main>
        <Body />
      </main>
    </div>
  );
}

function Notices() {
  const notices = useLab(selectNotices);
  if (notices.length === 0) return null;
  return (
    <div className="notice" role="alert">
      <strong>Some URL parameters were ignored.</strong>
      <ul>
        {notices.map((n) => (
          <li key={n}>{n}</li>
        ))}
      </ul>
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
      <button type="button" onClick={dismiss}>
        Dismiss
      </button>
    </div>
  );
}

function Body() {
  const view = useLab(selectView);
  if (view === null) {
    return (
      <p className="loading" role="status">
        Starting the simulation…
      </p>
    );
  }
  return (
    <>
      <Toolbar view={view} />
      <Summary view={view} />
      <NodeTable view={view} />
      <Violations view={view} />
    </>
  );
}

function Toolbar({ view }: { view: SimView }) {
  const send = useLab(selectSend);
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const t = e.target;
      if (t instanceof HTMLElement && t.closest("button, select, input, textarea, a, [contenteditable]")) return;
      if (e.key === " ") {
        e.preventDefault();
        send({ type: view.playing ? "pause" : "play" });
      } else if (e.key === "s" || e.key === "S") {
        send({ type: "step" });
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [send, view.playing]);

  const speeds = SPEEDS.includes(view.speed) ? SPEEDS : [...SPEEDS, view.speed].sort((a, b) => a - b);
  return (
    <section className="toolbar" aria-label="Controls">
      <button type="button" onClick={() => send({ type: "play" })} disabled={view.playing} aria-keyshortcuts="Space">
        <Icon d="M4 2 L14 8 L4 14 Z" />
        Play
      </button>
      <button type="button" onClick={() => send({ type: "pause" })} disabled={!view.playing} aria-keyshortcuts="Space">
        <Icon d="M3 2 H7 V14 H3 Z M9 2 H13 V14 H9 Z" />
        Pause
      </button>
      <button type="button" onClick={() => send({ type: "step" })} aria-keyshortcuts="S" title="Process the next event (pauses first)">
        <Icon d="M2 2 L10 8 L2 14 Z M11 2 H14 V14 H11 Z" />
        Step
      </button>
      <label className="speed">
        Speed
        <select value={view.speed} onChange={(e) => send({ type: "setSpeed", speed: Number(e.target.value) })}>
          {speeds.map((s) => (
            <option key={s} value={s}>
              {formatSpeed(s)}
            </option>
          ))}
        </select>
      </label>
      <span className="hint">Space: play / pause · S: step</span>
    </section>
  );
}

function Summary({ view }: { view: SimView }) {
  const leader = view.leader === null ? null : view.nodes.find((n) => n.id === view.leader);
  return (
    <section className="summary" aria-label="Summary">
      <div className="stat">
        <span className="stat-label">Virtual time</span>
        <span className="stat-value" data-testid="virtual-time">
          {formatTime(view.now)}
        </span>
        <span className="stat-sub">
          {view.playing ? `running at ${formatSpeed(view.speed)}` : `paused at ${view.now.toLocaleString("en-US")} µs`}
        </span>
      </div>
      <div className="stat">
        <span className="stat-label">Leader</span>
        <span className="stat-value" data-testid="leader">
          {leader ? leader.id : "none"}
        </span>
        <span className="stat-sub">{leader ? `term ${leader.term}` : "no leader right now"}</span>
      </div>
      <div className={view.violations > 0 ? "stat bad" : "stat"}>
        <span className="stat-label">Violations</span>
        <span className="stat-value" data-testid="violations">
          {view.violations}
        </span>
        <span className="stat-sub">{view.violations > 0 ? "safety broken: see below" : "all invariants hold"}</span>
      </div>
      <div className="stat">
        <span className="stat-label">Run</span>
        <span className="stat-value">seed {view.seed}</span>
        <span className="stat-sub">
          {view.nodes.length} nodes · <span data-testid="events">{view.eventsProcessed}</span> events
        </span>
      </div>
    </section>
  );
}

function NodeTable({ view }: { view: SimView }) {
  const send = useLab(selectSend);
  return (
    <section aria-labelledby="nodes-title">
      <h2 id="nodes-title">Nodes</h2>
      <table className="nodes">
        <thead>
          <tr>
            <th scope="col">Node</th>
            <th scope="col">State</th>
            <th scope="col">Term</th>
            <th scope="col">Commit index</th>
            <th scope="col">Last index</th>
            <th scope="col">Voted for</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {view.nodes.map((n) => {
            const state = n.status === "down" || n.role === null ? "down" : n.role;
            return (
              <tr key={n.id} aria-label={nodeLabel(n)} className={`node state-${state}${n.status === "paused" ? " paused" : ""}`}>
                <th scope="row">{n.id}</th>
                <td>
                  <span className={`badge badge-${state}`}>
                    <span aria-hidden="true" className="glyph">
                      {GLYPH[state] ?? ""}
                    </span>
                    {stateText(n)}
                  </span>
                </td>
                <td className="num">{n.term}</td>
                <td className="num">{n.commitIndex ?? "–"}</td>
                <td className="num">{n.lastIndex}</td>
                <td>{n.votedFor ?? "–"}</td>
                <td>
                  <div className="actions">
                    <button
                      type="button"
                      disabled={n.status === "down"}
                      onClick={() => send({ type: "act", action: { type: "crash", proc: n.id } })}
                    >
                      Kill {n.id}
                    </button>
                    <button
                      type="button"
                      disabled={n.status !== "down"}
                      onClick={() => send({ type: "act", action: { type: "restart", proc: n.id } })}
                    >
                      Restart {n.id}
                    </button>
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}

/** A 16×16 icon drawn with one path; hidden from assistive technology (the button's text names it). */
function Icon({ d }: { d: string }) {
  return (
    <svg className="icon" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" focusable="false">
      <path d={d} fill="currentColor" />
    </svg>
  );
}

const GLYPH: Record<string, string> = {
  leader: "★",
  candidate: "?",
  precandidate: "…",
  follower: "●",
  down: "✕",
};

function Violations({ view }: { view: SimView }) {
  if (view.violations === 0) return null;
  return (
    <section className="violations" aria-labelledby="violations-title">
      <h2 id="violations-title">Invariant violations ({view.violations})</h2>
      <p>The run paused at the first new violation. Seed {view.seed} reproduces it.</p>
      <ul>
        {view.recentViolations.map((v) => (
          <li key={`${v.timeUs}-${v.invariant}-${v.detail}`}>
            <strong>{v.invariant}</strong> at {formatTime(v.timeUs)} ({v.nodes.join(", ")}): {v.detail}
          </li>
        ))}
      </ul>
    </section>
  );
}
