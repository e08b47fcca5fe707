/**
 * The mode switch (Simulated / Live) and, in live mode, the Live panel: one row per thread
 * (alive, paused, terminated), the messages waiting at the router, how late the timers go
 * off, where the disks are, and "Open in the simulator". After that, the replay's proof: each
 * process's state digest, live and replayed.
 */
import { divergenceDetail, isDivergence } from "../../core/live/diverged";
import { formatInstant } from "../../core/sim/time";
import { useLab, useLabStore } from "../store";
import { useRef } from "react";
import { downloadText } from "../sharing/download";
import { enterLive, type LabMode, leaveLive, openInSimulator, openRecordingFile, recordingFile, setVerify, useLiveMode } from "./liveMode";
import "./live.css";

const MODE_WORDS: Record<LabMode, string> = {
  simulated: "Simulated",
  live: "Live (real threads)",
  replay: "Replay of a live run",
};

export function LiveBar() {
  const lab = useLabStore();
  const mode = useLiveMode((m) => m.mode);
  const busy = useLiveMode((m) => m.busy);
  return (
    <section className={`live-bar live-${mode}`} aria-label="Mode">
      <fieldset className="live-switch">
        <legend className="visually-hidden">How the cluster runs</legend>
        <button
          type="button"
          aria-pressed={mode === "simulated"}
          disabled={busy !== null}
          onClick={() => mode !== "simulated" && leaveLive(lab)}
          title="One deterministic simulation: the same seed and clicks give the same run, with exact time travel"
        >
          Simulated
        </button>
        <button
          type="button"
          aria-pressed={mode === "live"}
          disabled={busy !== null}
          onClick={() => mode !== "live" && void enterLive(lab)}
          title="Every node, holder, client and the storage in a Web Worker of its own: real threads, real timers, real kills, disks and pauses"
        >
          Live (real threads)
        </button>
      </fieldset>
      {busy !== null && (
        <span className="live-busy" role="status">
          {busy}
        </span>
      )}
      {mode === "live" && busy === null && <LiveStatus />}
      {mode === "replay" && <ReplayStatus />}
      {mode !== "live" && <OpenRecording />}
    </section>
  );
}

function LiveStatus() {
  const lab = useLabStore();
  const s = useLiveMode((m) => m.state);
  const rebuilds = useLab((x) => x.liveRebuilds);
  const lost = useLab((x) => x.view?.recentViolations.find(isDivergence) ?? null);
  if (s === null) return null;
  const up = s.threads.filter((t) => t.status === "running" || t.status === "paused").length;
  return (
    <>
      <div className="live-summary" data-testid="live-summary">
        <p>
          <strong>Every process is a real thread:</strong> <strong data-testid="live-workers">{s.workers}</strong> Web Workers ({up} of{" "}
          {s.threads.length} processes, and the router that carries their messages). The dashboard replays what they record, a moment
          behind: Pause, Step and the time slider move the dashboard, while the threads run on.
        </p>
        <p className="live-facts">
          A pause{" "}
          {s.isolated ? "really stops the thread" : "holds the thread's inputs (no cross-origin isolation here, so it cannot stop it)"} ·{" "}
          <span title={s.diskNote ?? undefined}>
            disks{" "}
            {s.disk === "opfs"
              ? "on the browser's private file system"
              : s.disk === "memory"
                ? "kept by the page (no private file system)"
                : "opening"}
          </span>{" "}
          · timers up to {s.lateMs.toFixed(0)} ms late · {s.waiting} message{s.waiting === 1 ? "" : "s"} at the router · the threads are at{" "}
          {formatInstant(s.now)} ·{" "}
          <span title="When the recording is full, the run ends and opens in the simulator" data-testid="live-recorded">
            recorded {s.inputs.toLocaleString("en")} of {s.maxInputs.toLocaleString("en")} inputs
          </span>
          {rebuilds > 0 && (
            <span
              data-testid="live-rebuilds"
              title="A thread reported an input after the dashboard had already drawn past its time (a slow thread), so the dashboard went back to the moment before it and replayed from there"
            >
              {" "}
              · dashboard replayed again {rebuilds} time{rebuilds === 1 ? "" : "s"} (a thread reported late)
            </span>
          )}
        </p>
        {lost !== null && (
          <p className="live-lost" role="alert" data-testid="live-lost">
            The dashboard stopped following the live run at {formatInstant(lost.timeUs)}: {divergenceDetail(lost.detail)}. The threads run
            on; Save the recording (after Open in the simulator) and report it.
          </p>
        )}
      </div>
      <label
        className="live-verify"
        title="Each thread sends the digest of its whole state after every call, and the dashboard's replay compares its own there: a difference stops it at that very call. Costs a walk of the state per call, in each thread and in the dashboard: meant for 1×."
      >
        <input type="checkbox" checked={s.verify} onChange={(e) => setVerify(e.currentTarget.checked)} /> Check every call
      </label>
      <button
        type="button"
        className="primary"
        onClick={() => void openInSimulator(lab)}
        title="Stop the threads and replay the recording in the deterministic engine"
      >
        Open in the simulator
      </button>
      <ThreadTable />
    </>
  );
}

/** One chip per process: its thread's state, its worker, the messages the router holds for it. */
function ThreadTable() {
  const s = useLiveMode((m) => m.state);
  if (s === null) return null;
  return (
    <ul className="live-threads" aria-label="Threads: one Web Worker per process">
      {s.threads.map((t) => (
        <li key={t.id} className={`thread thread-${t.status}`} data-testid={`thread-${t.id}`} title={t.detail ?? undefined}>
          <span>
            <strong>{t.id}</strong> <span className="thread-kind">{t.kind}</span>
          </span>
          <span className="thread-status">{t.status === "paused" && !s.isolated ? "paused (inputs held)" : STATUS_WORDS[t.status]}</span>
          <span className="thread-more">
            {t.status === "terminated" ? "no worker" : `worker #${t.incarnation + 1}`} · {t.calls} calls
            {t.waiting > 0 ? ` · ${t.waiting} at the router` : ""}
          </span>
        </li>
      ))}
    </ul>
  );
}

/** Opens a saved recording (a file from "Save recording", or from anyone's live run) in the simulator. */
function OpenRecording() {
  const lab = useLabStore();
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <button type="button" onClick={() => input.current?.click()} title="Replay a live run's recording saved earlier">
        Open a recording…
      </button>
      <input
        ref={input}
        type="file"
        accept=".json,application/json"
        hidden
        aria-label="A live run's recording"
        onChange={(e) => {
          const file = e.target.files?.[0];
          e.target.value = "";
          if (file !== undefined) void openRecordingFile(lab, file);
        }}
      />
    </>
  );
}

const STATUS_WORDS = {
  starting: "starting",
  running: "running",
  paused: "paused (stopped)",
  terminated: "terminated (killed)",
  broken: "stopped on an error",
} as const;

function ReplayStatus() {
  const lab = useLabStore();
  const rec = useLiveMode((m) => m.recording);
  const check = useLab((s) => s.replayCheck);
  const same = check?.digests.filter((d) => d.same).length ?? 0;
  const save = async (): Promise<void> => {
    if (rec === null) return;
    const { name, text } = await recordingFile(rec);
    downloadText(text, name, "application/json");
  };
  return (
    <>
      <div className="live-summary">
        <p
          className={`replay-check ${check === null ? "" : same === check.digests.length && check.diverged === null ? "replay-same" : "replay-different"}`}
          data-testid="replay-check"
          aria-live="polite"
        >
          {check === null
            ? "Replaying the recording…"
            : check.diverged !== null
              ? `✗ The replay could not follow the recording: ${check.diverged}`
              : same === check.digests.length
                ? `✓ The replay is the same run: all ${same} processes end in exactly the state they ended in live (their digests match).`
                : `✗ ${check.digests.length - same} of ${check.digests.length} processes end differently from the live run: ${check.digests
                    .filter((d) => !d.same)
                    .map((d) => d.id)
                    .join(", ")}.`}
        </p>
        <p className="live-facts">
          {MODE_WORDS.replay}, in the deterministic engine: time travel, the diagram and the exports work on it; acting on it starts a
          what-if.
        </p>
      </div>
      <button type="button" onClick={() => void save()} disabled={rec === null}>
        Save recording
      </button>
      <button type="button" onClick={() => void enterLive(lab)}>
        New live run
      </button>
    </>
  );
}
