/**
 * The Reads panel's figures: reads per second, read and write time, and how many reads a
 * lease answered, for the run up to the cursor. The worker measures them on demand
 * (worker/readFigures.ts) by replaying the branch; "Compare" replays it once more with the
 * other way of reading, same seed and actions, for a second column. "Run again with …"
 * restarts the run on screen that other way.
 */
import { formatDuration, formatInstant } from "../../core/sim/time";
import type { ReadFiguresColumn, ReadsMode } from "../../worker/readCheckTypes";
import { type LabState, useLab } from "../store";

const selectFigures = (s: LabState): LabState["readFigures"] => s.readFigures;
const selectMeasure = (s: LabState): LabState["measureReads"] => s.measureReads;
const selectSend = (s: LabState): LabState["send"] => s.send;
const selectMode = (s: LabState): ReadsMode => s.view?.settings.timing.reads ?? "read-index";

/** The way of reading in words, for a column's heading and the buttons. */
export function modeName(mode: ReadsMode): string {
  return mode === "read-index" ? "ReadIndex" : "the leader's lease";
}

/** What the other way would cost or save, in one sentence (shown until "Compare" measures it). */
export function otherModeSentence(mode: ReadsMode): string {
  return mode === "read-index"
    ? "With the leader's lease, the leader would answer alone while its lease holds: no heartbeat round per read, so about one network round trip faster, but only as safe as the clocks."
    : "With ReadIndex, the leader would confirm with a majority before each read: one more heartbeat round per read (about one network round trip), safe whatever the clocks do.";
}

function ms(us: number, count: number): string {
  return count === 0 ? "–" : formatDuration(Math.round(us));
}

/** The table's rows: a label and how each column shows it. */
const ROWS: readonly { label: string; cell: (c: ReadFiguresColumn) => string }[] = [
  { label: "Reads answered", cell: (c) => String(c.reads.count) },
  // A rate needs a span: one read alone has none worth the name.
  { label: "Reads per second", cell: (c) => (c.reads.count < 2 ? "–" : c.reads.perSecond.toFixed(1)) },
  { label: "Read time, mean", cell: (c) => ms(c.reads.meanUs, c.reads.count) },
  { label: "Read time, slowest 1 %", cell: (c) => ms(c.reads.p99Us, c.reads.count) },
  { label: "Answered by a follower's read lease", cell: (c) => String(c.localReads) },
  { label: "Answered by the leader's lease alone", cell: (c) => String(c.leaderLeaseReads) },
  { label: "Confirmed by a heartbeat round", cell: (c) => String(Math.max(0, c.reads.count - c.localReads - c.leaderLeaseReads)) },
  { label: "Reads refused, or no answer yet", cell: (c) => String(c.unansweredReads) },
  { label: "Writes acknowledged", cell: (c) => String(c.writes.count) },
  { label: "Write time, mean", cell: (c) => ms(c.writes.meanUs, c.writes.count) },
  { label: "Writes held for read-lease holders", cell: (c) => String(c.writeWaits) },
];

/** A column's heading: the way of reading, or (when the columns differ in them) the read-lease followers. */
export function heading(c: ReadFiguresColumn, byHolders = false): string {
  const k = c.readLeaseFollowers;
  const which = c.current ? "This run" : "Same run";
  if (byHolders) return `${which}: ${k === 0 ? "no" : k} read-lease ${k === 1 ? "follower" : "followers"}`;
  return `${which}: ${modeName(c.mode)}${k > 0 ? `, ${k} read-lease ${k === 1 ? "follower" : "followers"}` : ""}`;
}

/** The figures part of the Reads panel. */
export function ReadFigures() {
  const figures = useLab(selectFigures);
  const measure = useLab(selectMeasure);
  const send = useLab(selectSend);
  const mode = useLab(selectMode);
  const other: ReadsMode = mode === "read-index" ? "leader-lease" : "read-index";
  const result = figures?.result ?? null;
  return (
    <div className="read-figures">
      <div className="actions">
        <button type="button" onClick={() => measure(false)}>
          Measure
        </button>
        <button type="button" onClick={() => measure(true)}>
          Compare with {modeName(other)}
        </button>
        <button type="button" onClick={() => measure(false, true)}>
          Compare 0, 2, 4 read-lease followers
        </button>
        <button type="button" onClick={() => send({ type: "restart", reads: other })}>
          Run again with {modeName(other)}
        </button>
      </div>
      {figures !== null && result === null && <p aria-live="polite">Measuring…</p>}
      {result?.kind === "error" && <p role="alert">Could not measure: {result.message}</p>}
      {result?.kind === "ok" && (
        <table className="read-figures-table" aria-label={`Reads and writes up to ${formatInstant(result.untilUs, 1)}`}>
          <thead>
            <tr>
              <th scope="col">From 0 to {formatInstant(result.untilUs, 1)}</th>
              {result.columns.map((c) => (
                <th scope="col" key={`${c.mode}-${c.current}`}>
                  {heading(c, new Set(result.columns.map((x) => x.readLeaseFollowers)).size > 1)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {ROWS.map((r) => (
              <tr key={r.label}>
                <th scope="row">{r.label}</th>
                {result.columns.map((c) => (
                  <td key={`${c.mode}-${c.current}`}>{r.cell(c)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {(result?.kind !== "ok" || result.columns.length < 2) && <p className="read-figures-other">{otherModeSentence(mode)}</p>}
    </div>
  );
}
