/**
 * Key moments of a lease story, derived from the trace: a stale write rejected by the
 * storage, a lease expiring, a lease granted to a new holder, a holder in jeopardy or in its
 * grace period, a renewal that saved it, a new leader, a database replica becoming the
 * primary (a failover) or taking itself offline, a broken invariant. Each is one
 * plain sentence a student understands, with the process it happened at.
 *
 * Pure: it reads trace events and nothing else (no simulator behaviour, no trace hash
 * changes). The journal feeds it and saves it in time-travel snapshots, so after a seek
 * the moments are those up to the cursor.
 */
import type { TraceEvent } from "../core/sim/trace";
import { topOfState } from "./holderWords";

export type MomentKind =
  | "write-rejected"
  | "lease-expired"
  | "lease-lost"
  | "lease-granted"
  | "jeopardy"
  | "grace"
  | "renewed-in-grace"
  | "leader-elected"
  | "new-primary"
  | "failover"
  | "self-fenced"
  | "violation";

/** The groups a user can ask the player to pause on (and "play to the next" stops at). */
export type PauseKind = "rejection" | "expiry" | "grant" | "jeopardy";

export const PAUSE_KINDS: readonly PauseKind[] = ["rejection", "expiry", "grant", "jeopardy"];

/** What each pause group is called in the page. */
export const PAUSE_WORDS: Record<PauseKind, string> = {
  rejection: "a rejected write",
  expiry: "a lease expiry",
  grant: "a new grant",
  jeopardy: "jeopardy or grace",
};

/** The pause group of each kind (null: never paused on). */
export const PAUSE_GROUP: Record<MomentKind, PauseKind | null> = {
  "write-rejected": "rejection",
  "lease-expired": "expiry",
  "lease-lost": "expiry",
  "lease-granted": "grant",
  jeopardy: "jeopardy",
  grace: "jeopardy",
  "renewed-in-grace": "jeopardy",
  "leader-elected": null,
  "new-primary": "grant",
  failover: "grant",
  "self-fenced": "jeopardy",
  // A broken invariant already pauses the player.
  violation: null,
};

/** One key moment. */
export interface Moment {
  /** Virtual time (µs) and trace position of the event that made it. */
  readonly t: number;
  readonly n: number;
  readonly kind: MomentKind;
  /** The processes involved, the one it happened at first. */
  readonly procs: readonly string[];
  /** Where the ring draws it. */
  readonly at: string;
  /** A few words for the ring: "token 4 < 34", "granted, token 35", "expired". */
  readonly short: string;
  /** One plain sentence. */
  readonly text: string;
}

/** Moments kept (the newest). */
export const MOMENT_LIMIT = 20;

interface MomentState {
  readonly recent: readonly Moment[];
  readonly count: number;
  /** Per lease: the highest token granted so far (a grant with a higher one is a new holding). */
  readonly granted: ReadonlyMap<string, number>;
  /** Per lease: the expiries already seen (every node applies the same one). */
  readonly expired: ReadonlyMap<string, number>;
  /** Per holder: its top-level state ("holding", "jeopardy", ...). */
  readonly holders: ReadonlyMap<string, string>;
  /** Per lease of database replicas: the last primary and its token. */
  readonly primaries: ReadonlyMap<string, { readonly holder: string; readonly token: number | null }>;
  /** The holders that are database replicas (their jeopardy is told as "offline: self-fenced"). */
  readonly replicas: ReadonlySet<string>;
}

/** Follows a trace and keeps its newest moments. */
export class MomentTracker {
  private recent: Moment[] = [];
  /** Moments seen since the run began (including those no longer kept). */
  count = 0;
  private granted = new Map<string, number>();
  private expired = new Map<string, number>();
  private holders = new Map<string, string>();
  private primaries = new Map<string, { readonly holder: string; readonly token: number | null }>();
  private replicas = new Set<string>();

  /** The newest moments, oldest first. */
  moments(): readonly Moment[] {
    return this.recent;
  }

  latest(): Moment | null {
    return this.recent[this.recent.length - 1] ?? null;
  }

  /** The moment the event makes, if any (and keeps it). */
  observe(e: TraceEvent): Moment | null {
    const m = this.momentOf(e);
    if (m === null) return null;
    this.recent.push(m);
    if (this.recent.length > MOMENT_LIMIT) this.recent.splice(0, this.recent.length - MOMENT_LIMIT);
    this.count++;
    return m;
  }

  save(): MomentState {
    return { recent: this.recent.slice(), count: this.count, granted: new Map(this.granted), expired: new Map(this.expired), holders: new Map(this.holders), primaries: new Map(this.primaries), replicas: new Set(this.replicas) };
  }

  load(s: MomentState): void {
    this.recent = s.recent.slice();
    this.count = s.count;
    this.granted = new Map(s.granted);
    this.expired = new Map(s.expired);
    this.holders = new Map(s.holders);
    this.primaries = new Map(s.primaries);
    this.replicas = new Set(s.replicas);
  }

  private momentOf(e: TraceEvent): Moment | null {
    switch (e.kind) {
      case "storage":
        if (e.accepted) return null;
        return {
          t: e.t,
          n: e.n,
          kind: "write-rejected",
          procs: [e.proc, e.holder],
          at: e.proc,
          short: `token ${e.token} < ${e.highest}`,
          text: `The storage rejected ${e.holder}'s write: its token ${e.token} is older than the ${e.highest} the storage has already seen.`,
        };
      case "lease":
        return this.leaseMoment(e);
      case "holder":
        return this.holderMoment(e);
      case "replica":
        return this.replicaMoment(e);
      case "crash":
        this.holders.delete(e.proc);
        return null;
      case "role":
        if (e.role !== "leader") return null;
        return {
          t: e.t,
          n: e.n,
          kind: "leader-elected",
          procs: [e.proc],
          at: e.proc,
          short: `leader, term ${e.term}`,
          text: `${e.proc} won the election: it leads term ${e.term}.`,
        };
      case "violation":
        return {
          t: e.t,
          n: e.n,
          kind: "violation",
          procs: e.nodes.slice(),
          at: e.nodes[0] ?? "",
          short: `${e.invariant} broken`,
          text: `A safety rule broke (${e.invariant}): ${e.detail}`,
        };
      default:
        return null;
    }
  }

  private leaseMoment(e: Extract<TraceEvent, { kind: "lease" }>): Moment | null {
    if (e.op === "grant") {
      // Every node applies the grant: the first copy with a new token is the moment.
      if (e.token <= (this.granted.get(e.name) ?? 0)) return null;
      this.granted.set(e.name, e.token);
      const who = e.holder ?? "a holder";
      return {
        t: e.t,
        n: e.n,
        kind: "lease-granted",
        procs: e.holder === null ? [e.proc] : [e.holder, e.proc],
        at: e.holder ?? e.proc,
        short: `granted, token ${e.token}`,
        text: `The lease service granted lease ${e.name} to ${who}, with token ${e.token}.`,
      };
    }
    if (e.op === "expire") {
      const key = e.index ?? e.token;
      if (this.expired.get(e.name) === key) return null;
      this.expired.set(e.name, key);
      const who = e.holder ?? "its holder";
      return {
        t: e.t,
        n: e.n,
        kind: "lease-expired",
        procs: e.holder === null ? [e.proc] : [e.proc, e.holder],
        at: e.proc,
        short: `${e.name} expired`,
        text: `Lease ${e.name} expired: ${who} did not renew it in time, so the lease service took it back (token ${e.token}).`,
      };
    }
    return null;
  }

  /** A database replica became the primary (the first, or a failover), or its watchdog took it offline. */
  private replicaMoment(e: Extract<TraceEvent, { kind: "replica" }>): Moment | null {
    const base = { t: e.t, n: e.n, procs: [e.proc], at: e.proc };
    this.replicas.add(e.proc);
    if (e.role === "offline") {
      return {
        ...base,
        kind: "self-fenced",
        short: "offline: self-fenced",
        text: `${e.proc}'s watchdog took it offline: it could not renew its lease in time, so it stops accepting writes before the cluster can hand the primary role to another replica.`,
      };
    }
    if (e.role !== "primary") return null;
    const before = this.primaries.get(e.leaseName);
    this.primaries.set(e.leaseName, { holder: e.proc, token: e.token });
    if (before === undefined) {
      return {
        ...base,
        kind: "new-primary",
        short: `primary, token ${e.token}`,
        text: `${e.proc} became the primary of ${e.leaseName} (token ${e.token}): it holds the lease and accepts the clients' writes.`,
      };
    }
    const old = before.holder === e.proc ? "it" : before.holder;
    return {
      ...base,
      procs: before.holder === e.proc ? [e.proc] : [e.proc, before.holder],
      kind: "failover",
      short: `new primary, token ${e.token}`,
      text: `Failover: ${e.proc} is the new primary of ${e.leaseName}, with a new lease and token ${e.token} (${old} had token ${before.token}). From now on ${e.proc} accepts the clients' writes.`,
    };
  }

  private holderMoment(e: Extract<TraceEvent, { kind: "holder" }>): Moment | null {
    const top = topOfState(e.state);
    const prev = this.holders.get(e.proc);
    this.holders.set(e.proc, top);
    if (prev === top) return null;
    const base = { t: e.t, n: e.n, procs: [e.proc], at: e.proc };
    const token = e.token === null ? "" : ` (token ${e.token})`;
    switch (top) {
      case "jeopardy":
        // A replica's jeopardy is its watchdog taking it offline: the replica event tells it.
        if (this.replicas.has(e.proc)) return null;
        return {
          ...base,
          kind: "jeopardy",
          short: "jeopardy: stops writing",
          text: `${e.proc} can no longer confirm its lease${token} in time: it is in jeopardy and stops writing.`,
        };
      case "grace":
        return {
          ...base,
          kind: "grace",
          short: "grace period",
          text: `${e.proc}'s lease${token} has run out by its own clock: its grace period begins, and it keeps trying to renew.`,
        };
      case "lost":
        return {
          ...base,
          kind: "lease-lost",
          short: "lost the lease",
          text: `${e.proc} gave up: its lease has run out by its own clock, so it must not write any more.`,
        };
      case "holding":
        if (prev !== "grace" && prev !== "jeopardy") return null;
        return {
          ...base,
          kind: "renewed-in-grace",
          short: prev === "grace" ? "renewed in grace" : "renewed in time",
          text:
            prev === "grace"
              ? `${e.proc} renewed its lease${token} during its grace period: it keeps the same lease and token.`
              : `${e.proc} renewed its lease${token} after all: it is out of jeopardy and writes again.`,
        };
      default:
        return null;
    }
  }
}

/** Every moment of a trace, in order (for tests and headless use). */
export function momentsOf(events: Iterable<TraceEvent>): Moment[] {
  const tracker = new MomentTracker();
  const out: Moment[] = [];
  for (const e of events) {
    const m = tracker.observe(e);
    if (m !== null) out.push(m);
  }
  return out;
}

/** Does the moment belong to one of these pause groups? */
export function momentMatches(m: Moment, kinds: ReadonlySet<PauseKind>): boolean {
  const g = PAUSE_GROUP[m.kind];
  return g !== null && kinds.has(g);
}
