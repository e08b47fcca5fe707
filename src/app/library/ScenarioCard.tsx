/**
 * The scenario card: while a run opened from a scenario (the library, a file or a link) is
 * on screen, its title, its story, its scripted actions (done or still ahead of the cursor)
 * and its expectations as a checklist that ticks as the run passes each moment. The worker
 * checks them (worker/expectations.ts); the card shows the statuses at the cursor.
 */
import { formatInstant } from "../../core/sim/time";
import type { ScenarioRunView } from "../../worker/protocol";
import { selectCursor, useLab } from "../store";
import { loadedScenarioLibrary } from "./catalog";
import { pairOf } from "./pairs";
import { Checklist } from "./Checklist";
import { useLibraryUi } from "./libraryUi";
import { goCompare } from "./open";
import "./library.css";

/** The library id of the scenario on screen, when the address names one. */
function currentId(): string | null {
  if (typeof window === "undefined") return null;
  return new URLSearchParams(window.location.search).get("scenario");
}

export function ScenarioCard() {
  const sv = useLab((s) => s.view?.scenario ?? null);
  const now = useLab((s) => s.view?.now ?? 0);
  if (sv === null) return null;
  return <ScenarioCardView sv={sv} now={now} />;
}

function ScenarioCardView({ sv, now }: { readonly sv: ScenarioRunView; readonly now: number }) {
  const cursor = useLab(selectCursor);
  const id = currentId();
  // The address names a library scenario only once the library is loaded (main.tsx, the library dialog).
  const pair = id !== null && loadedScenarioLibrary()?.byId.has(id) === true ? pairOf(id) : null;
  return (
    <section className="scenario-card" aria-labelledby="scenario-title" data-testid="scenario-card">
      <div className="scenario-head">
        <h2 id="scenario-title">{sv.name}</h2>
        <span className="scenario-kind">Scenario{id !== null ? ` · ${id}` : ""}</span>
      </div>
      {sv.description !== "" && <p className="scenario-story">{sv.description}</p>}
      {sv.scripted.length > 0 && (
        <>
          <h3>What happens</h3>
          <ul className="scripted" aria-label="Scripted actions">
            {sv.scripted.map((a, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: a file's actions are fixed for the run
              <li key={i} className={a.at <= now ? "scripted-done" : "scripted-ahead"}>
                <button type="button" className="link-like" onClick={() => cursor.jump(a.at)} title="Go to this moment">
                  {formatInstant(a.at)}
                </button>{" "}
                {a.text} <span className="scripted-when">{a.at <= now ? "(done)" : "(ahead)"}</span>
              </li>
            ))}
          </ul>
        </>
      )}
      <h3>What must be true</h3>
      <Checklist items={sv.expectations} label="Expectations" />
      <div className="scenario-actions">
        <button type="button" onClick={() => useLibraryUi.getState().setOpen(true)}>
          All scenarios…
        </button>
        {pair !== null && id !== null && (
          <button type="button" onClick={() => goCompare(id)} title={`The two runs side by side: ${pair.what}`}>
            Compare ({pair.what})
          </button>
        )}
      </div>
    </section>
  );
}
