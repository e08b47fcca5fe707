/** The summary's LEASE card, in words: one lease as before ("h1", "token 4"); several, one short line each. */
import type { LeaseRowView } from "../worker/protocol";

export interface LeaseCardText {
  /** The big word: the holder of the one lease ("h1", "free"), or how many leases there are ("2 leases"). */
  readonly value: string;
  /** The small words: "token 4" for one lease; with several, one line per lease ("lock: h1 · token 4", "queue: free"). */
  readonly lines: readonly string[];
}

function leaseLine(l: LeaseRowView): string {
  if (l.holder !== null) return `${l.name}: ${l.holder} · token ${l.token}`;
  return l.state === "delayed" ? `${l.name}: in lock-delay` : `${l.name}: free`;
}

export function leaseCard(leases: readonly LeaseRowView[]): LeaseCardText {
  const only = leases[0];
  if (only === undefined) return { value: "free", lines: ["no holders"] };
  if (leases.length === 1) {
    if (only.holder !== null) return { value: only.holder, lines: [`token ${only.token}`] };
    return { value: "free", lines: [only.state === "delayed" ? "in lock-delay" : "nobody holds it"] };
  }
  const held = leases.filter((l) => l.holder !== null).length;
  return { value: `${leases.length} leases`, lines: [`${held} held`, ...leases.map(leaseLine)] };
}
