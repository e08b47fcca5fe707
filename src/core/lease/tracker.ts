/**
 * The leader's lease tracker (Patterns of Distributed Systems, "Lease"): only the
 * leader times leases, on its own local monotonic clock, which drifts in the
 * simulator. Refreshes reset a lease's clock here and are never replicated.
 * When a lease runs out the tracker proposes an Expire command, so every node
 * agrees on the expiry through the log. All of this is volatile: a new leader
 * rebuilds it from its applied state and gives every lease a fresh TTL (or, with
 * checkpointing, what the last checkpoint left).
 */
import type { LocalUs } from "../sim/time";
import type { LeaseEffect } from "./table";
import type { LeaseInfo, LeaseRefreshDenial, LeaseServerSettings, SystemOp } from "./types";

interface Tracked {
  token: number;
  /** The grant the holding dates from (the Expire names it: compare-and-expire). */
  grantIndex: number;
  holder: string;
  ttlUs: number;
  /** When the lease's TTL runs out on this leader's clock (what a checkpoint records). */
  endsAt: LocalUs;
  /** When the leader will expire it: endsAt plus the Consul-style slack. */
  expiresAt: LocalUs;
  /** An Expire has been proposed: no more refreshes. */
  expiring: boolean;
}

export interface TrackerEvent {
  readonly op: "timed" | "refresh" | "refresh-denied" | "expiring" | "extended";
  readonly name: string;
  readonly holder: string | null;
  readonly token: number;
  readonly expiresAtUs?: number;
  readonly ttlMs?: number;
  readonly reason?: string;
}

export type RefreshOutcome = { readonly ok: true; readonly ttlMs: number } | { readonly ok: false; readonly reason: LeaseRefreshDenial };

const US_PER_MS = 1000;

export class LeaseTracker {
  private constructor(
    private readonly s: LeaseServerSettings,
    private leases: Record<string, Tracked>,
    /** Names in lock-delay, and when (local time) the tracker will propose freeing them. */
    private freeAt: Record<string, number>,
    private nextCheckAt: LocalUs,
    private nextCheckpointAt: LocalUs,
    /**
     * How many names `leases` and `freeAt` hold between them, kept as they change: nextDeadline
     * runs on every timer re-arm, and a `for…in` over objects that had keys deleted walks them all.
     */
    private names = 0,
    /**
     * No lease that is not yet expiring expires before this (a lower bound, exact after each
     * scan; a grant or refresh can only lower it). The check every expiryCheckIntervalMs scans
     * the leases only once this has passed: about once a TTL instead of ten times a second,
     * whatever the number of leases.
     */
    private earliest = Number.POSITIVE_INFINITY,
    /** How many names are in their lock-delay (`freeAt`'s keys). */
    private delayed = 0,
  ) {}

  /**
   * A node just became leader at local time `now`. Every held lease gets a fresh
   * lease period, extended by the time an old leader could still be answering
   * refreshes (etcd adds an election timeout for the same reason).
   */
  static promote(s: LeaseServerSettings, now: LocalUs, applied: readonly LeaseInfo[], events: TrackerEvent[]): LeaseTracker {
    const t = new LeaseTracker(s, {}, {}, now + s.expiryCheckIntervalMs * US_PER_MS, now + s.checkpointIntervalMs * US_PER_MS);
    for (const l of applied) {
      if (l.state === "delayed") {
        t.delay(l.name, now + s.lockDelayMs * US_PER_MS);
        continue;
      }
      if (l.state !== "held" || l.holder === null) continue;
      const remainingMs = s.checkpoint && l.checkpointRemainingMs !== null ? l.checkpointRemainingMs : l.ttlMs;
      const tr = t.track(l.name, l.holder, l.token, l.grantIndex, l.ttlMs, now + (s.leaderChangeExtensionMs + remainingMs) * US_PER_MS);
      events.push({ op: "extended", name: l.name, holder: l.holder, token: l.token, expiresAtUs: tr.expiresAt, ttlMs: l.ttlMs });
    }
    return t;
  }

  clone(): LeaseTracker {
    const leases: Record<string, Tracked> = {};
    for (const k in this.leases) leases[k] = { ...(this.leases[k] as Tracked) };
    return new LeaseTracker(
      this.s,
      leases,
      { ...this.freeAt },
      this.nextCheckAt,
      this.nextCheckpointAt,
      this.names,
      this.earliest,
      this.delayed,
    );
  }

  /** The leader's view of a lease's time left (ms), or null if it does not track it. */
  remainingMs(now: LocalUs, name: string): number | null {
    const t = this.leases[name];
    return t === undefined ? null : Math.max(0, Math.floor((t.endsAt - now) / US_PER_MS));
  }

  /** When (leader's local µs) the lease it times for `name` expires; null if it does not time it. */
  expiresAt(name: string): number | null {
    return this.leases[name]?.expiresAt ?? null;
  }

  /** Follows what the log did: a grant starts the lease's clock; revoke and expire stop it. */
  onApplied(now: LocalUs, effect: LeaseEffect, events: TrackerEvent[]): void {
    const e = effect.event;
    if (e === null) return;
    switch (e.op) {
      case "grant": {
        if (e.holder === null || e.ttlMs === undefined || e.grantIndex === undefined) return;
        // A first grant starts the lease's clock. A repeated grant of the same lease (a retried
        // or restarted holder's request) was answered with a full TTL, so it restarts the clock,
        // even if an Expire is on its way: that Expire names the older grant and will be skipped.
        const t = this.track(e.name, e.holder, e.token, e.grantIndex, e.ttlMs, now + e.ttlMs * US_PER_MS);
        events.push({ op: "timed", name: e.name, holder: e.holder, token: e.token, expiresAtUs: t.expiresAt, ttlMs: e.ttlMs });
        return;
      }
      case "revoke":
        this.untrack(e.name);
        return;
      case "expire":
        this.untrack(e.name);
        if (this.s.lockDelayMs > 0) this.delay(e.name, now + this.s.lockDelayMs * US_PER_MS);
        return;
      case "free":
        this.undelay(e.name);
        return;
      // Nothing to time: a denial, a checkpoint (this leader's own), a skipped expiry.
      case "deny":
      case "checkpoint":
      case "expire-skipped":
        return;
      default: {
        const unhandled: never = e.op;
        throw new Error(`tracker: unhandled lease effect ${unhandled as string}`);
      }
    }
  }

  /** A holder's refresh: only for the current grant, and not once its expiry is on its way to the log. */
  refresh(now: LocalUs, name: string, holder: string, token: number, poolFull: boolean, events: TrackerEvent[]): RefreshOutcome {
    const t = this.leases[name];
    let reason: LeaseRefreshDenial | null = null;
    if (t === undefined || t.holder !== holder || t.token !== token) reason = "unknown-lease";
    else if (t.expiring || now >= t.expiresAt) reason = "expired";
    else if (poolFull && this.s.poolDenyRenewalsWhenFull) reason = "pool-short";
    if (t === undefined || reason !== null) {
      events.push({ op: "refresh-denied", name, holder, token, reason: reason ?? "unknown-lease" });
      return { ok: false, reason: reason ?? "unknown-lease" };
    }
    const after = this.track(name, holder, token, t.grantIndex, t.ttlUs / US_PER_MS, now + t.ttlUs);
    // A refresh extends only the holding it names: the same lease, holder, token and grant.
    const tracked = this.leases[name];
    if (tracked !== after || after.holder !== holder || after.token !== token || after.grantIndex !== t.grantIndex || after.expiring) {
      throw new Error(`lease tracker: a refresh of "${name}" by ${holder} (token ${token}) did not leave that holding tracked`);
    }
    events.push({ op: "refresh", name, holder, token, expiresAtUs: after.expiresAt, ttlMs: t.ttlUs / US_PER_MS });
    return { ok: true, ttlMs: t.ttlUs / US_PER_MS };
  }

  /**
   * What the leader should propose now. Nothing at all unless it has heard from a
   * majority recently: a leader that lost its quorum must not expire anything (etcd
   * issue 15247), and its proposals could not commit anyway.
   */
  due(now: LocalUs, hasQuorum: boolean, events: TrackerEvent[]): SystemOp[] {
    const ops: SystemOp[] = [];
    if (now >= this.nextCheckAt) {
      this.nextCheckAt = now + this.s.expiryCheckIntervalMs * US_PER_MS;
      if (hasQuorum) {
        const due: string[] = [];
        if (now >= this.earliest) {
          let earliest = Number.POSITIVE_INFINITY;
          for (const name in this.leases) {
            const t = this.leases[name] as Tracked;
            if (t.expiring) continue;
            if (now >= t.expiresAt) due.push(name);
            else earliest = Math.min(earliest, t.expiresAt);
          }
          this.earliest = earliest;
        }
        for (const name of due.sort()) {
          const t = this.leases[name] as Tracked;
          t.expiring = true;
          events.push({ op: "expiring", name, holder: t.holder, token: t.token, expiresAtUs: t.expiresAt });
          ops.push({ type: "expire", name, token: t.token, grantIndex: t.grantIndex });
        }
        for (const name of this.delayed === 0 ? [] : Object.keys(this.freeAt).sort()) {
          if (now >= (this.freeAt[name] as number)) {
            this.undelay(name);
            ops.push({ type: "free", name });
          }
        }
      }
    }
    if (this.s.checkpoint && now >= this.nextCheckpointAt) {
      this.nextCheckpointAt = now + this.s.checkpointIntervalMs * US_PER_MS;
      const leases = Object.keys(this.leases)
        .sort()
        .filter((name) => !(this.leases[name] as Tracked).expiring)
        .map((name) => {
          const t = this.leases[name] as Tracked;
          return { name, token: t.token, grantIndex: t.grantIndex, remainingMs: Math.max(0, Math.floor((t.endsAt - now) / US_PER_MS)) };
        });
      if (hasQuorum && leases.length > 0) ops.push({ type: "checkpoint", leases });
    }
    return ops;
  }

  /** The next local time at which due() may have work (none while nothing is tracked). */
  nextDeadline(): number {
    if (this.names === 0) return Number.POSITIVE_INFINITY;
    return this.s.checkpoint ? Math.min(this.nextCheckAt, this.nextCheckpointAt) : this.nextCheckAt;
  }

  private track(name: string, holder: string, token: number, grantIndex: number, ttlMs: number, endsAt: LocalUs): Tracked {
    const ttlUs = ttlMs * US_PER_MS;
    const t: Tracked = {
      token,
      grantIndex,
      holder,
      ttlUs,
      endsAt,
      expiresAt: endsAt + Math.round(ttlUs * (this.s.expirySlackFactor - 1)),
      expiring: false,
    };
    if (this.leases[name] === undefined) this.names++;
    this.leases[name] = t;
    if (t.expiresAt < this.earliest) this.earliest = t.expiresAt;
    return t;
  }

  private untrack(name: string): void {
    if (this.leases[name] === undefined) return;
    delete this.leases[name];
    this.names--;
  }

  /** `name` is in its lock-delay until local time `until`. */
  private delay(name: string, until: number): void {
    if (this.freeAt[name] === undefined) {
      this.names++;
      this.delayed++;
    }
    this.freeAt[name] = until;
  }

  private undelay(name: string): void {
    if (this.freeAt[name] === undefined) return;
    delete this.freeAt[name];
    this.names--;
    this.delayed--;
  }
}
