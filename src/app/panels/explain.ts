/**
 * Plain-words helpers for the holder, storage, checker and event-log panels. Pure
 * functions of view data, so they can be tested without a DOM.
 */
import { formatDuration, formatInstant } from "../../core/sim/time";
import type { CheckerView, EventCategory, EventLine, HolderView, StorageWriteView } from "../../worker/protocol";

// ---------------------------------------------------------------------------------
// Holders

const TOP_WORDS: Record<string, string> = {
  idle: "not started yet",
  requesting: "asking for the lease",
  holding: "holding",
  jeopardy: "jeopardy: must not write",
  grace: "grace: lease ran out",
  lost: "lost the lease",
  releasing: "giving it back",
  released: "released",
  down: "down",
};

const SUB_WORDS: Record<string, string> = {
  "requesting.sending": "asking for the lease",
  "requesting.backoff": "asking, retry soon",
  "requesting.denied": "denied, will retry",
  "holding.waiting": "holding",
  "holding.renewing": "holding, renewing",
  "holding.backoff": "holding, renewal failed",
  "releasing.sending": "giving it back",
  "releasing.backoff": "giving it back, retry soon",
};

/** A holder's dotted state in a few words: "holding.renewing" -> "holding, renewing". */
export function holderStateWords(state: string): string {
  const exact = SUB_WORDS[state];
  if (exact !== undefined) return exact;
  const [head = state, sub] = state.split(".", 2);
  const top = TOP_WORDS[head] ?? head;
  if (sub === undefined) return top;
  if (sub === "renewing") return `${top}, renewing`;
  if (sub === "backoff") return `${top}, renewal failed`;
  return `${top}, ${sub}`;
}

/** What each top-level state means, one sentence (the table's tooltip). */
export const STATE_MEANING: Record<string, string> = {
  idle: "Not started: it waits a moment before asking for the lease.",
  requesting: "Asking the leader for the lease (retrying on silence, waiting when someone else holds it).",
  holding: "Holds the lease: it may write, and renews it before its own deadline.",
  jeopardy: "Its own safe deadline passed without a renewal: it must not write, but keeps trying to renew until the lease's nominal end.",
  grace: "The lease's nominal end passed: a grace period in which a late renewal can still save it (no writes).",
  lost: "The lease is gone: it will ask for a new one later.",
  releasing: "Giving the lease back (a revoke through the log).",
  released: "Gave the lease back: done.",
  down: "The holder process crashed.",
};


/** The holder's own view of its lease: "1.2 s left", "0.3 s past deadline", or "—". */
export function timeLeftText(deadlineAt: number | null, now: number): string {
  if (deadlineAt === null) return "—";
  const left = deadlineAt - now;
  return left >= 0 ? `${formatDuration(left, 1)} left` : `${formatDuration(-left, 1)} past deadline`;
}

/** The end of grace while the holder is in jeopardy or grace (a grace period is configured): "grace until 12.345 s", or null. */
export function graceText(h: HolderView): string | null {
  const top = h.state.split(".")[0];
  if (h.graceEndAt === null || (top !== "jeopardy" && top !== "grace")) return null;
  return `grace until ${formatInstant(h.graceEndAt)}`;
}

/** What is done to the holder process: "down", "paused until 12.345 s", "GC pause armed (300 ms)", "running". */
export function holderStatusText(h: HolderView): string {
  if (h.status === "down") return "down";
  if (h.status === "paused") return h.pausedUntil === null ? "paused" : `paused until ${formatInstant(h.pausedUntil)}`;
  if (h.gcPauseArmedUs !== null) return `GC pause armed (${Math.round(h.gcPauseArmedUs / 1000)} ms)`;
  return "running";
}

/** A database replica's role in words (docs/failover.md). */
export const ROLE_WORDS: Readonly<Record<"primary" | "secondary" | "offline", string>> = {
  primary: "primary: accepts the writes",
  secondary: "secondary: follows the primary",
  offline: "offline (self-fenced): accepts no writes",
};

/** The role line of a replica's row, or null for a plain lease holder (and while down). */
export function replicaRoleText(h: Pick<HolderView, "status" | "role">): string | null {
  return h.status === "down" || h.role === null ? null : ROLE_WORDS[h.role];
}

/** The accessible name of a holder's row: "holder h2, holding.waiting, token 33" ("replica h1, primary: accepts the writes, ..." for a replica). */
export function holderRowLabel(h: HolderView): string {
  const state = h.status === "down" ? "down" : h.state;
  const paused = h.status === "paused" ? ", paused" : "";
  const role = replicaRoleText(h);
  return `${role === null ? "holder" : "replica"} ${h.id}, ${role === null ? "" : `${role}, `}${state}${paused}, ${h.token === null ? "no token" : `token ${h.token}`}`;
}

/** The badge text on the statechart: "h2", or "h2 ⏸" while paused. */
export function holderBadgeText(h: HolderView): string {
  return h.status === "paused" ? `${h.id} ⏸` : h.id;
}

// ---------------------------------------------------------------------------------
// Storage

/** What the storage did with a write: "✓ accepted", "✗ rejected: token 33 < 34 already seen". */
export function writeResultText(w: StorageWriteView): string {
  if (!w.accepted) return `✗ rejected: token ${w.token} < ${w.highestAfter} already seen`;
  if (w.token < w.highestAfter) return `✓ accepted, but stale: token ${w.token} < ${w.highestAfter} already seen (fencing off)`;
  return "✓ accepted";
}

/** A write that carried an older token than the storage had seen (rejected, or let through with fencing off). */
export function writeIsStale(w: StorageWriteView): boolean {
  return w.token < w.highestAfter;
}

/** The accessible name of a write's row: "rejected: h1 wrote token 33 to account at 12.345 s". */
export function writeRowLabel(w: StorageWriteView): string {
  const verdict = w.accepted ? (writeIsStale(w) ? "accepted although stale" : "accepted") : "rejected";
  return `${verdict}: ${w.holder} wrote token ${w.token} to ${w.resource} at ${formatInstant(w.t)}`;
}

export function fencingSentence(on: boolean): string {
  return on ? "rejects any write with a token lower than the highest it has seen" : "accepts every write (an efficiency lock only)";
}

// ---------------------------------------------------------------------------------
// Checkers

/** The invariants about leases, tokens and storage; every other one is about Raft. */
export const LEASE_INVARIANTS: ReadonlySet<string> = new Set([
  "lease-exclusive",
  "token-monotonic",
  "fencing-monotonic",
  "storage-corruption",
  "lease-keys",
  "renewed-lease-kept",
  "lease-belief",
  "two-primaries",
]);

export function groupCheckers(checkers: readonly CheckerView[]): { raft: CheckerView[]; lease: CheckerView[] } {
  const raft: CheckerView[] = [];
  const lease: CheckerView[] = [];
  for (const c of checkers) (LEASE_INVARIANTS.has(c.invariant) ? lease : raft).push(c);
  return { raft, lease };
}

/** "✓ holds" or "✗ violated (2)". */
export function checkerStatusText(c: CheckerView): string {
  return c.violations === 0 ? "✓ holds" : `✗ violated (${c.violations})`;
}

// ---------------------------------------------------------------------------------
// Event log

export const EVENT_CATEGORIES: readonly EventCategory[] = [
  "election",
  "replication",
  "lease",
  "holder",
  "storage",
  "fault",
  "message",
  "violation",
  "note",
];

/** Every category but "message" (noisy) is shown at first. */
export const DEFAULT_EVENT_CATEGORIES: ReadonlySet<EventCategory> = new Set(EVENT_CATEGORIES.filter((c) => c !== "message"));

/** Lines shown at most. */
export const EVENT_LINES_SHOWN = 200;

export function countByCategory(events: readonly EventLine[]): Record<EventCategory, number> {
  const counts = Object.fromEntries(EVENT_CATEGORIES.map((c) => [c, 0])) as Record<EventCategory, number>;
  for (const e of events) counts[e.category] += 1;
  return counts;
}

/**
 * The lines to show, newest first: in an enabled category, and matching every word of
 * `query` (case-insensitive) in the text, the category or a process id.
 */
export function filterEvents(
  events: readonly EventLine[],
  enabled: ReadonlySet<EventCategory>,
  query: string,
  limit: number = EVENT_LINES_SHOWN,
): EventLine[] {
  const words = query
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w.length > 0);
  const out: EventLine[] = [];
  for (let i = events.length - 1; i >= 0 && out.length < limit; i--) {
    const e = events[i] as EventLine;
    if (!enabled.has(e.category)) continue;
    if (words.length > 0) {
      const text = e.text.toLowerCase();
      const ok = words.every((w) => text.includes(w) || e.category === w || e.procs.some((p) => p.toLowerCase() === w));
      if (!ok) continue;
    }
    out.push(e);
  }
  return out;
}
