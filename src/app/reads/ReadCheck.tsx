/**
 * "Check the reads": a small panel with the button, and the dialog with the answer. The
 * worker checks the key-value clients' history of the current branch up to the cursor
 * (worker/readCheck.ts); the page only shows what it says: all linearizable, undecided
 * within the budget, or the read that no order explains, drawn (readsDrawing.ts).
 */
import { useEffect, useId, useRef } from "react";
import { formatInstant } from "../../core/sim/time";
import type { ReadCheckResult, ReadViolationView } from "../../worker/readCheckTypes";
import { Modal } from "../Modal";
import { type LabState, useLab } from "../store";
import { useUi } from "../ui";
import { createReadsDrawing, type ReadsDrawing } from "./readsDrawing";
import { ReadFigures } from "./ReadFigures";
import { ReadLeasesNow } from "./ReadLeasesNow";
import { opWords } from "./readsLayout";
import "./reads.css";

const selectCheckReads = (s: LabState): LabState["checkReads"] => s.checkReads;
const selectReadCheck = (s: LabState): LabState["readCheck"] => s.readCheck;
// Clients that only do what a scenario tells them (workload "none") are clients too.
const selectClients = (s: LabState): number => (s.view === null ? 0 : s.view.settings.clients.count);
const selectCloseReadCheck = (s: LabState): LabState["closeReadCheck"] => s.closeReadCheck;

/** The panel beside the invariants: what the check does, and its button. */
export function ReadCheckPanel() {
  const check = useLab(selectCheckReads);
  const clients = useLab(selectClients);
  return (
    <section className="panel read-check-panel" aria-labelledby="read-check-title">
      <h2 id="read-check-title">Reads</h2>
      <p>Did every read return the latest value? Check the reads and writes the key-value clients made, from the start up to now.</p>
      {clients === 0 && <p className="read-check-hint">This run has no key-value clients: add some in Settings (Key-value clients).</p>}
      <button type="button" onClick={check}>
        Check the reads
      </button>
      <ReadLeasesNow />
      <ReadFigures />
    </section>
  );
}

/** The dialog with the answer, open while the store holds a check. */
export function ReadCheckDialog() {
  const state = useLab(selectReadCheck);
  const close = useLab(selectCloseReadCheck);
  const again = useLab(selectCheckReads);
  const openSettings = useUi((u) => u.openSettings);
  const closeRef = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const open = state !== null;
  useEffect(() => {
    if (!open) return;
    const back = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    closeRef.current?.focus();
    return () => back?.focus();
  }, [open]);
  if (state === null) return null;
  return (
    <Modal className={state.result?.kind === "violation" ? "read-check-dialog wide" : "read-check-dialog"} labelledBy={titleId} onClose={close}>
      <ReadCheckBody titleId={titleId} result={state.result} />
      <div className="actions dialog-actions">
        {state.result?.kind === "no-reads" && (
          <button
            type="button"
            onClick={() => {
              close();
              openSettings();
            }}
          >
            Open Settings…
          </button>
        )}
        <button type="button" onClick={again} disabled={state.result === null}>
          Check again
        </button>
        <button ref={closeRef} type="button" className="primary" onClick={close}>
          Close
        </button>
      </div>
    </Modal>
  );
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The words for each answer (exported for tests: server rendering, no store needed). */
export function ReadCheckBody({ titleId, result }: { readonly titleId: string; readonly result: ReadCheckResult | null }) {
  if (result === null) {
    return (
      <>
        <h2 id={titleId}>Checking the reads…</h2>
        <p role="status">The simulation replays this run from the start and checks every read; the run waits meanwhile.</p>
      </>
    );
  }
  const upTo = `from 0 s up to ${formatInstant(result.untilUs)}`;
  switch (result.kind) {
    case "error":
      return (
        <>
          <h2 id={titleId}>The check could not run</h2>
          <p role="alert">{result.message}</p>
        </>
      );
    case "no-reads":
      return (
        <>
          <h2 id={titleId}>No reads to check</h2>
          <p>
            This run's clients did not read any keys ({upTo}). Turn on the key-value clients in Settings (Key-value clients: 1 or more), play
            the run for a few seconds, and check again.
          </p>
        </>
      );
    case "ok":
      return (
        <>
          <h2 id={titleId} className="read-check-verdict ok">
            ✓ All {plural(result.reads, "read")} and {plural(result.writes, "write")} on {plural(result.keys, "key")} are linearizable
          </h2>
          <p>
            That means the store behaved like one single copy of the data: every read returned the value of the latest write that had
            finished before it, or of one still running. Checked {upTo}.
          </p>
        </>
      );
    case "unknown":
      return (
        <>
          <h2 id={titleId} className="read-check-verdict unknown">
            Could not decide within the step budget
          </h2>
          <p>
            The checker tried {result.maxSteps.toLocaleString("en")} orderings per key and ran out on {result.undecided.join(", ")}. This is
            no verdict either way. Checked {upTo} ({plural(result.reads, "read")}, {plural(result.writes, "write")}); an earlier moment has a
            shorter history.
          </p>
        </>
      );
    case "violation":
      return <ViolationBody titleId={titleId} result={result} upTo={upTo} />;
  }
}

function ViolationBody({
  titleId,
  result,
  upTo,
}: {
  readonly titleId: string;
  readonly result: Extract<ReadCheckResult, { kind: "violation" }>;
  readonly upTo: string;
}) {
  const v = result.violation;
  const stuck = v.ops[v.stuck];
  const others = result.badKeys.filter((k) => k !== v.key);
  return (
    <>
      <h2 id={titleId} className="read-check-verdict bad">
        ✗ Not linearizable: {stuck?.operation === "get" ? "a read returned an old value" : "an answer no order explains"}
      </h2>
      <p className="read-check-sentence">{v.sentence}</p>
      <ReadsTimeline violation={v} />
      <ul className="read-check-legend" aria-hidden="true">
        <li className="stuck">✗ cannot be placed</li>
        <li className="missed">should have been seen</li>
        <li className="open">no answer came</li>
      </ul>
      <p className="small-print">
        One row per client; each bar runs from the request to its answer. Showing {v.ops.length} of the {v.onKey} operations on key {v.key},{" "}
        {upTo}.{others.length > 0 && ` Other keys with a violation: ${others.join(", ")}.`}
      </p>
    </>
  );
}

/** The drawing (d3 owns the <svg>), with the same operations as a list for screen readers. */
export function ReadsTimeline({ violation }: { readonly violation: ReadViolationView }) {
  const svgRef = useRef<SVGSVGElement>(null);
  const drawingRef = useRef<ReadsDrawing | null>(null);
  const hatchId = useId().replace(/:/g, "");
  useEffect(() => {
    const svg = svgRef.current;
    if (svg === null) return;
    const drawing = createReadsDrawing(svg, `hatch-${hatchId}`);
    drawingRef.current = drawing;
    return () => {
      drawing.destroy();
      drawingRef.current = null;
    };
  }, [hatchId]);
  useEffect(() => {
    drawingRef.current?.update(violation);
  }, [violation]);
  return (
    <figure className="read-check-figure">
      <svg ref={svgRef} className="reads-timeline" aria-hidden="true" data-testid="reads-timeline" />
      <figcaption className="sr-only">
        <ul>
          {violation.ops.map((op, i) => (
            <li key={`${op.session}#${op.seq}#${op.operation}`}>
              {i === violation.stuck ? "Cannot be placed: " : i === violation.missed ? "Should have been seen: " : ""}
              {opWords(op)}
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}
