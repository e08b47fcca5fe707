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
  grant: { glyph: "G", color: "#00734f", words: "grant: a holder gets a lease; the entry's index is its fencing token" },
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

/** The text drawn in a cell's kind badge: "G12" for a grant at index 12 (its token), else the kind's letter. */
export function kindBadge(e: Pick<EntryView, "index" | "kind">): string {
  const g = ENTRY_KINDS[e.kind].glyph;
  return e.kind === "grant" ? `${g}${e.index}` : g;
}

/** Words for a cell's tooltip: "lease grant, fencing token 12 (if granted afresh)". */
export function kindSentence(e: Pick<EntryView, "index" | "kind">): string {
  switch (e.kind) {
    case "grant":
      return `lease grant: fencing token ${e.index} if the lease is granted afresh (a repeat by the same holder keeps its token)`;
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
