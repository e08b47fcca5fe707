/** A scenario's expectations as a checklist at the cursor: ✓ held, ✗ failed, … not yet (or waiting). */
import { formatInstant } from "../../core/sim/time";
import type { ExpectationStatus, ExpectationView } from "../../worker/protocol";

const MARK: Readonly<Record<ExpectationStatus, string>> = { ok: "✓", failed: "✗", pending: "…", waiting: "⧗" };
const WORDS: Readonly<Record<ExpectationStatus, string>> = { ok: "held", failed: "failed", pending: "not yet", waiting: "waiting" };

export function Checklist({ items, label }: { readonly items: readonly ExpectationView[]; readonly label: string }) {
  if (items.length === 0) return <p className="scenario-none">This scenario checks nothing of its own: watch the invariants.</p>;
  const held = items.filter((e) => e.status === "ok").length;
  const failed = items.filter((e) => e.status === "failed").length;
  return (
    <>
      <p className="scenario-tally" data-testid="expect-tally">
        {held} of {items.length} held{failed > 0 ? `, ${failed} failed` : ""}
      </p>
      <ul className="checklist" aria-label={label}>
        {items.map((e) => (
          <li key={e.index} className={`check-${e.status}`} data-status={e.status} data-testid="expectation">
            <span className="check-mark" aria-hidden="true">
              {MARK[e.status]}
            </span>
            <span className="check-text">
              {e.text}{e.status !== "pending" && <span className="visually-hidden"> ({WORDS[e.status]})</span>}
              {e.status === "pending" && <span className="check-when"> pending</span>}
              {e.status === "failed" && <span className="check-detail"> — {e.detail}</span>}
              {e.status === "ok" && e.decidedAt !== null && e.decidedAt !== e.at && (
                <span className="check-when"> (held at {formatInstant(e.decidedAt)})</span>
              )}
            </span>
          </li>
        ))}
      </ul>
    </>
  );
}
