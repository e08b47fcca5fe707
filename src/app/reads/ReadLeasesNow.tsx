/**
 * The Reads panel's "Leases for reads now": each node's read lease, leader's lease or waiting
 * write at the cursor, in the ring's words (ring/readsWords.ts). The lease timeline draws the
 * lease service's leases only (a row per lease name, from the journal's grant and expiry
 * events); leases for reads are the nodes' own, so they are listed here and on the ring.
 */
import type { NodeView } from "../../worker/protocol";
import { readsLines } from "../ring/readsWords";
import { type LabState, useLab } from "../store";

const selectNodes = (s: LabState): readonly NodeView[] | null => s.view?.nodes ?? null;

export function ReadLeasesNow() {
  const nodes = useLab(selectNodes);
  if (nodes === null || !nodes.some((n) => n.reads !== undefined)) return null;
  const rows = nodes
    .map((n) => ({ id: n.role === "leader" ? `${n.id} (leader)` : n.id, words: readsLines(n) }))
    .filter((r) => r.words.length > 0);
  return (
    <table className="read-figures-table read-leases-now" aria-label="Leases for reads now">
      <thead>
        <tr>
          <th scope="col">Node</th>
          <th scope="col">Leases for reads now</th>
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 && (
          <tr>
            <td colSpan={2}>none held right now</td>
          </tr>
        )}
        {rows.map((r) => (
          <tr key={r.id}>
            <th scope="row">{r.id}</th>
            <td>{r.words.join("; ")}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
