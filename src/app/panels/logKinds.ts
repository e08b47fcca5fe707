/**
 * What each kind of log entry looks like in the log grid: a letter, a colour and words, so
 * a grant, a checkpoint or an expiry is readable at a glance, not only in a tooltip.
 */
import type { EntryKind, EntryView } from "../../worker/protocol";

export interface KindLook {
  /** One letter (or a dash) drawn in the cell. */
  readonly glyph: string;
  /** The colour of the letter and its frame (readable on white, colour-blind safe). */
  readonly color: string;
  /** The legend's words. */
  readonly words: string;
}

export const ENTRY_KINDS: Record<EntryKind, KindLook> = {
  grant: { glyph: "G", color: "#00734f", words: "grant: G12 gave fencing token 12 (its index); a bare G is a request that gave no token" },
  revoke: { glyph: "R", color: "#8a4b00", words: "revoke: the holder gives the lease back" },
  expire: { glyph: "E", color: "#b3261e", words: "expire: the leader saw the lease run out" },
  free: { glyph: "F", color: "#6a3d9a", words: "free: the lock-delay after an expiry is over" },
  checkpoint: { glyph: "C", color: "#0b5cad", words: "checkpoint: the leader writes down each lease's time left" },
  put: { glyph: "P", color: "#444444", words: "put: a key-value client's write" },
  noop: { glyph: "—", color: "#555555", words: "no-op: a new leader's first entry" },
  config: { glyph: "M", color: "#7a2e5c", words: "membership: the set of voting servers changes" },
};

/** The order of the legend. */
export const KIND_ORDER: readonly EntryKind[] = ["grant", "checkpoint", "expire", "revoke", "free", "put", "noop", "config"];

/**
 * The text drawn in a cell's kind badge: "G12" for a grant that gave token 12 (its index),
 * a bare "G" for a grant request that gave no token (refused, or a holder's repeat), else
 * the kind's letter. `tokens`: the fencing tokens the leases are known to have had.
 */
export function kindBadge(e: Pick<EntryView, "index" | "kind">, tokens: ReadonlySet<number> = new Set()): string {
  const g = ENTRY_KINDS[e.kind].glyph;
  return e.kind === "grant" && tokens.has(e.index) ? `${g}${e.index}` : g;
}

/** The fencing tokens the leases have had (the current ones and those of the grants kept in their history). */
export function knownTokens(leases: readonly { token: number; leaderSpans: readonly { token: number }[]; holderSpans: readonly { token: number }[] }[]): Set<number> {
  const out = new Set<number>();
  for (const l of leases) {
    if (l.token > 0) out.add(l.token);
    for (const s of l.leaderSpans) out.add(s.token);
    for (const s of l.holderSpans) out.add(s.token);
  }
  return out;
}

/** Words for a cell's tooltip: "lease grant: fencing token 12". */
export function kindSentence(e: Pick<EntryView, "index" | "kind">, tokens: ReadonlySet<number> = new Set()): string {
  switch (e.kind) {
    case "grant":
      return tokens.has(e.index)
        ? `lease grant: fencing token ${e.index} (the entry's index)`
        : "lease request: no new token (refused while another holds it, a holder's repeat, or not applied yet)";
    case "checkpoint":
      return "checkpoint of the leases' remaining time";
    case "expire":
      return "the leader expires a lease";
    case "revoke":
      return "a holder releases its lease";
    case "free":
      return "lock-delay over: the lease may be granted again";
    case "put":
      return "key-value write";
    case "noop":
      return "no-op of a new leader";
    case "config":
      return "membership change";
  }
}
