/**
 * The fenced storage: the fencing switch, the highest token per resource, and the
 * write log with every accepted and rejected write.
 */
import { formatInstant } from "../../core/sim/time";
import { memo } from "react";
import type { StorageView, StorageWriteView } from "../../worker/protocol";
import { selectSelect, selectSend, selectStorage, useLab } from "../store";
import { fencingSentence, writeIsStale, writeResultText, writeRowLabel } from "./explain";
import "./panels.css";

export function StoragePanel() {
  // The storage part only: unchanged between writes, so the panel skips most views.
  const storage = useLab(selectStorage);
  const send = useLab(selectSend);
  const select = useLab(selectSelect);
  if (storage === undefined) return null;
  return (
    <StoragePanelView
      storage={storage}
      onFencing={(on) => send({ type: "act", action: { type: "fencing", on } })}
      onInspect={() => select({ kind: "storage" })}
    />
  );
}

export interface StoragePanelProps {
  readonly storage: StorageView | null;
  readonly onFencing: (on: boolean) => void;
  readonly onInspect: () => void;
}

/** Stable keys for writes (the view gives them no id): time, holder, token, resource, and a counter for exact repeats. */
export function writeKeys(writes: readonly StorageWriteView[]): string[] {
  const seen = new Map<string, number>();
  return writes.map((w) => {
    const base = `${w.t}:${w.holder}:${w.token}:${w.resource}`;
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    return n === 0 ? base : `${base}#${n}`;
  });
}

/** The panel itself, from props (StoragePanel feeds it from the store). */
export function StoragePanelView({ storage, onFencing, onInspect }: StoragePanelProps) {
  if (storage === null) {
    return (
      <section className="panel storage-panel" aria-labelledby="storage-title">
        <h2 id="storage-title">Storage</h2>
        <p className="muted">This run has no fenced storage.</p>
      </section>
    );
  }
  const keys = writeKeys(storage.writes);
  const rows: { w: StorageWriteView; key: string }[] = [];
  for (let i = storage.writes.length - 1; i >= 0; i--) rows.push({ w: storage.writes[i] as StorageWriteView, key: keys[i] as string });
  return (
    <section className="panel storage-panel" aria-labelledby="storage-title">
      <div className="panel-head">
        <h2 id="storage-title">Storage</h2>
        <button type="button" className="small" aria-label="Inspect storage" onClick={onInspect}>
          Inspect
        </button>
      </div>
      {storage.status !== "up" && (
        <p className="storage-status bad">
          <span aria-hidden="true">{storage.status === "down" ? "✕ " : "⏸ "}</span>
          Storage {storage.id} is {storage.status}: writes wait or fail until it is back.
        </p>
      )}
      <div className="fencing-row">
        <span id="fencing-label" className="fencing-name">
          Fencing tokens
        </span>
        <button
          type="button"
          role="switch"
          aria-checked={storage.fencing}
          aria-labelledby="fencing-label"
          className="fencing-switch"
          onClick={() => onFencing(!storage.fencing)}
        >
          <span className="track" aria-hidden="true">
            <span className="knob" />
          </span>
          <span className="state-word">{storage.fencing ? "on" : "off"}</span>
        </button>
        <span className="fencing-sentence">
          {storage.fencing ? "On: the storage " : "Off: the storage "}
          {fencingSentence(storage.fencing)}.
        </span>
      </div>

      {storage.resources.length > 0 && (
        <table className="storage-table">
          <caption className="sr-only">Highest token seen and last value per resource</caption>
          <thead>
            <tr>
              <th scope="col">Resource</th>
              <th scope="col">Highest token seen</th>
              <th scope="col">Last value</th>
            </tr>
          </thead>
          <tbody>
            {storage.resources.map((r) => (
              <tr key={r.resource}>
                <th scope="row">{r.resource}</th>
                <td className="num">{r.highest}</td>
                <td className="value">{r.value ?? "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      <p className="storage-totals">
        Writes so far: <span className="ok">✓ {storage.accepted} accepted</span> ·{" "}
        <span className={storage.rejected > 0 ? "bad" : ""}>✗ {storage.rejected} rejected</span>
      </p>

      {rows.length === 0 ? (
        <p className="muted">No writes yet.</p>
      ) : (
        <section
          className="writes-scroll"
          // biome-ignore lint/a11y/noNoninteractiveTabindex: it scrolls, so keyboard users must reach it (axe: scrollable-region-focusable)
          tabIndex={0}
          aria-label="Recent writes"
        >
          <table className="writes-table">
            <caption className="sr-only">Recent writes, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Holder</th>
                <th scope="col">Token</th>
                <th scope="col">Resource</th>
                <th scope="col">Result</th>
              </tr>
            </thead>
            <tbody>
              {rows.map(({ w, key }) => (
                <WriteRow
                  key={key}
                  t={w.t}
                  holder={w.holder}
                  token={w.token}
                  resource={w.resource}
                  accepted={w.accepted}
                  highestAfter={w.highestAfter}
                  fencing={w.fencing}
                  reason={w.reason}
                />
              ))}
            </tbody>
          </table>
        </section>
      )}
    </section>
  );
}

/** One write; its props are plain values, so an unchanged row is not re-rendered with each view. */
const WriteRow = memo(function WriteRow(w: StorageWriteView) {
  const stale = writeIsStale(w);
  const cls = !w.accepted ? "rejected" : stale ? "stale" : "accepted";
  return (
    <tr className={cls} aria-label={writeRowLabel(w)}>
      <td className="num">{formatInstant(w.t)}</td>
      <td>{w.holder}</td>
      <td className="num">{w.token}</td>
      <td>{w.resource}</td>
      <td className="result">{writeResultText(w)}</td>
    </tr>
  );
});
