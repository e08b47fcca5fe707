/**
 * Near Play (inside its group of the toolbar): "Next moment" (play until the next key moment and stop there), the "Pause on"
 * menu (which key moments playing stops at, and the automatic slow-down around them), and
 * the line that says why the run stopped.
 */
import { PAUSE_KINDS, PAUSE_WORDS } from "../worker/moments";
import type { PauseKind, SimView } from "../worker/protocol";
import { momentOptionsMessage, type MomentOptions, useMomentOptions } from "./pace";
import { selectSend, useLab } from "./store";
import "./MomentControls.css";

/** The menu's words for each group. */
const CHOICE_TEXT: Record<PauseKind, string> = {
  rejection: "a rejected write",
  expiry: "a lease expiry",
  grant: "a new grant",
  jeopardy: "jeopardy / grace",
};

export function MomentControls() {
  const send = useLab(selectSend);
  const halted = useLab((s) => (s.view as SimView).halted);
  const options = useMomentOptions();
  const change = (o: MomentOptions): void => {
    options.set(o);
    send(momentOptionsMessage(o));
  };
  const toggle = (k: PauseKind, on: boolean): void => {
    const pauseOn = PAUSE_KINDS.filter((x) => (x === k ? on : options.pauseOn.includes(x)));
    change({ pauseOn, autoSlow: options.autoSlow });
  };
  const which = options.pauseOn.length === 0 ? "any key moment" : options.pauseOn.map((k) => PAUSE_WORDS[k]).join(", ");
  return (
    <>
      <button
        type="button"
        onClick={() => send({ type: "play-to-next" })}
        disabled={halted}
        aria-keyshortcuts="N"
        title={`Play until the next key moment (${which}) and stop there`}
      >
        Next moment
      </button>
      <details className="pause-on">
        <summary title="Which key moments playing stops at, and the automatic slow-down">
          Pause on{options.pauseOn.length > 0 ? ` (${options.pauseOn.length})` : ""} ▾
        </summary>
        <fieldset className="pause-on-menu">
          <legend className="pause-on-title">Stop playing at:</legend>
          {PAUSE_KINDS.map((k) => (
            <label key={k}>
              <input type="checkbox" checked={options.pauseOn.includes(k)} onChange={(e) => toggle(k, e.target.checked)} />
              {CHOICE_TEXT[k]}
            </label>
          ))}
          <label className="auto-slow">
            <input type="checkbox" checked={options.autoSlow} onChange={(e) => change({ pauseOn: options.pauseOn, autoSlow: e.target.checked })} />
            Slow down around lease events (faster between them)
          </label>
        </fieldset>
      </details>
    </>
  );
}

/** Why the run stopped, when a key moment stopped it: one sentence. */
export function MomentStatus() {
  const m = useLab((s) => s.view?.pausedBy ?? null);
  return (
    <p className="moment-status" role="status" data-testid="moment-status">
      {m === null ? "" : `Paused: ${m.text}`}
    </p>
  );
}
