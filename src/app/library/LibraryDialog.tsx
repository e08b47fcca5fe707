/**
 * The scenario library (toolbar: "Scenarios"): every shipped scenario, grouped by folder,
 * each with its name, its story and what to watch. "Open" starts it in the lab (the
 * address becomes ?scenario=ID); a scenario of a pair offers "Compare" too.
 */
import { useEffect, useRef } from "react";
import { useLabStore } from "../store";
import { type LibraryEntry, scenarioLibrary, whatToWatch } from "./catalog";
import { pairOf } from "./pairs";
import { useLibraryUi } from "./libraryUi";
import { goCompare, openLibraryScenario } from "./open";
import "./library.css";
import { Modal } from "../Modal";

export function LibraryDialog() {
  const open = useLibraryUi((u) => u.open);
  const setOpen = useLibraryUi((u) => u.setOpen);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (open) heading.current?.focus();
  }, [open]);
  if (!open) return null;
  const close = (): void => setOpen(false);
  return (
    <Modal className="library-dialog" labelledBy="library-title" onClose={close}>
      <h2 id="library-title" ref={heading} tabIndex={-1}>
        Scenarios
      </h2>
      <p className="library-intro">
        Each scenario is one reproducible run: the same seed and the same scripted faults every time, with what must be true at given
        moments. Open one to watch it in the lab: its card lists what must hold, and ticks each item as the run gets there.
      </p>
      <LibraryList onOpened={close} />
      <div className="actions dialog-actions">
        <button type="button" className="primary" onClick={close}>
          Close
        </button>
      </div>
    </Modal>
  );
}

function LibraryList({ onOpened }: { readonly onOpened: () => void }) {
  const lab = useLabStore();
  const lib = scenarioLibrary();
  return (
    <div className="library-groups">
      {lib.groups.map((g) => (
        <section key={g.folder} aria-labelledby={`library-${g.folder}`}>
          <h3 id={`library-${g.folder}`}>{g.title}</h3>
          <ul className="library-list">
            {g.entries.map((e) => (
              <LibraryItem
                key={e.id}
                entry={e}
                onOpen={() => {
                  if (e.scenario === null) return;
                  openLibraryScenario(lab, e.id, e.scenario);
                  onOpened();
                }}
              />
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}

function LibraryItem({ entry, onOpen }: { readonly entry: LibraryEntry; readonly onOpen: () => void }) {
  const sc = entry.scenario;
  const pair = pairOf(entry.id);
  if (sc === null) {
    return (
      <li className="library-item library-broken">
        <strong>{entry.id}</strong>: this file could not be used ({entry.errors.slice(0, 2).join("; ")}).
      </li>
    );
  }
  return (
    <li className="library-item" data-testid="library-item" data-id={entry.id}>
      <div className="library-item-head">
        <strong className="library-name">{sc.name}</strong>
        <span className="library-file">{entry.id}</span>
      </div>
      <p className="library-story">{sc.description}</p>
      <p className="library-watch">{whatToWatch(sc)}</p>
      <div className="library-buttons">
        <button type="button" className="primary" onClick={onOpen} aria-label={`Open ${sc.name}`}>
          Open
        </button>
        {pair !== null && (
          <button type="button" onClick={() => goCompare(entry.id)} aria-label={`Compare ${sc.name} side by side (${pair.what})`}>
            Compare ({pair.what})
          </button>
        )}
      </div>
    </li>
  );
}
