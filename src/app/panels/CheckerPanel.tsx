/**
 * The invariants the checkers watch, grouped into Raft and lease ones, with a
 * prominent alert listing the violations once safety is broken.
 */
import { formatInstant } from "../../core/sim/time";
import type { CheckerView, SimView, ViolationView } from "../../worker/protocol";
import { useShallow } from "zustand/react/shallow";
import { selectSetHighlight, useLab } from "../store";
import { checkerStatusText, groupCheckers } from "./explain";
import "./panels.css";

export function CheckerPanel() {
  // Only what this panel draws: with the store's structural sharing it re-renders only when a checker's status changes.
  const part = useLab(
    useShallow((s) =>
      s.view === null
        ? null
        : { checkers: s.view.checkers, violations: s.view.violations, recentViolations: s.view.recentViolations, seed: s.view.seed },
    ),
  );
  const setHighlight = useLab(selectSetHighlight);
  if (part === null) return null;
  return <CheckerPanelView view={part} setHighlight={setHighlight} />;
}

export interface CheckerPanelProps {
  readonly view: Pick<SimView, "checkers" | "violations" | "recentViolations" | "seed">;
  readonly setHighlight: (procs: readonly string[]) => void;
}

/** The panel itself, from props (CheckerPanel feeds it from the store). */
export function CheckerPanelView({ view, setHighlight }: CheckerPanelProps) {
  const { raft, lease } = groupCheckers(view.checkers);
  const broken = view.checkers.filter((c) => c.violations > 0).length;
  return (
    <section className="panel checker-panel" aria-labelledby="checker-title" data-testid="checker-panel">
      <h2 id="checker-title">Invariants</h2>
      {view.violations > 0 && (
        <ViolationAlert violations={view.recentViolations} total={view.violations} seed={view.seed} setHighlight={setHighlight} />
      )}
      <p className={broken > 0 ? "checker-summary bad" : "checker-summary ok"}>
        {broken === 0
          ? `✓ All ${view.checkers.length} invariants hold.`
          : `✗ ${broken} of ${view.checkers.length} invariants violated (${view.violations} violation${view.violations === 1 ? "" : "s"}).`}
      </p>
      <CheckerGroup title="Leases and storage" id="checker-lease" checkers={lease} />
      <CheckerGroup title="Raft" id="checker-raft" checkers={raft} />
    </section>
  );
}

/** Keys for violations (time, invariant, detail, and a counter for exact repeats). */
function violationKeys(vs: readonly ViolationView[]): string[] {
  const seen = new Map<string, number>();
  return vs.map((v) => {
    const base = `${v.timeUs}:${v.invariant}:${v.detail}`;
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    return `${base}#${n}`;
  });
}

function ViolationAlert({
  violations,
  total,
  seed,
  setHighlight,
}: {
  violations: readonly ViolationView[];
  total: number;
  seed: number;
  setHighlight: (procs: readonly string[]) => void;
}) {
  const newestFirst = [...violations].reverse();
  const keys = violationKeys(newestFirst);
  return (
    <div className="violation-alert" role="alert">
      <strong className="headline">
        <span aria-hidden="true">⚠ </span>Safety violated: the run paused when it happened
      </strong>
      <span className="sub">
        {total} violation{total === 1 ? "" : "s"} so far; seed {seed} reproduces {total === 1 ? "it" : "them"}.
      </span>
      <ul>
        {newestFirst.map((v, i) => (
          <li key={keys[i]}>
            <strong>{v.invariant}</strong> at {formatInstant(v.timeUs)}
            {v.nodes.length > 0 ? ` (${v.nodes.join(", ")})` : ""}: {v.explanation}
            <div className="detail">{v.detail}</div>
            {v.nodes.length > 0 && (
              <div className="violation-actions">
                <button
                  type="button"
                  className="small"
                  aria-label={`Highlight ${v.nodes.join(", ")} (${v.invariant} at ${formatInstant(v.timeUs)})`}
                  onClick={() => setHighlight(v.nodes)}
                >
                  Highlight
                </button>
              </div>
            )}
          </li>
        ))}
      </ul>
      <button type="button" className="small" onClick={() => setHighlight([])}>
        Clear highlight
      </button>
    </div>
  );
}

function CheckerGroup({ title, id, checkers }: { title: string; id: string; checkers: readonly CheckerView[] }) {
  if (checkers.length === 0) return null;
  return (
    <div className="checker-group">
      <h3 id={id}>{title}</h3>
      <table className="checker-table" aria-labelledby={id}>
        <thead>
          <tr>
            <th scope="col">Invariant</th>
            <th scope="col">Rule</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {checkers.map((c) => (
            <tr key={c.invariant} className={c.violations > 0 ? "violated" : "holds"}>
              <th scope="row" className="inv-name">
                {c.invariant}
              </th>
              <td className="rule">{c.rule}</td>
              <td className="status">
                {checkerStatusText(c)}
                {c.firstAt !== null && <div className="sub">first at {formatInstant(c.firstAt)}</div>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
