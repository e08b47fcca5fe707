/**
 * The replicated lease table: what every node agrees on about each lease name,
 * changed only by applying committed log entries. Time never appears here: a
 * lease's TTL is data, and whether it has run out is decided by the leader's
 * tracker on its own clock, which then writes an Expire command to the log.
 */
import type { LeaseInfo, LeaseOp, LeaseResult, LeaseServerSettings, SystemOp } from "./types";

interface LeaseRecord {
  state: "held" | "delayed" | "free";
  holder: string | null;
  token: number;
  /**
   * Log index of the grant the current holding dates from: the first grant (the token) or
   * the holder's latest repeated grant. An Expire names it, and is applied only if it still matches.
   */
  grantIndex: number;
  ttlMs: number;
  transitions: number;
  keys: string[];
  checkpointRemainingMs: number | null;
}

/** One lease record in a snapshot of the table. */
export type LeaseRecordData = Readonly<LeaseRecord> & { readonly name: string };

/** What applying a command did, for the state machine (keys to delete) and the trace. */
export interface LeaseEffect {
  readonly result: LeaseResult | null;
  /** Keys attached to a lease that just ended: delete them in the same applied command. */
  readonly deleteKeys: readonly string[];
  /** For the trace: what happened. */
  readonly event: {
    readonly op: "grant" | "deny" | "revoke" | "expire" | "expire-skipped" | "free" | "checkpoint";
    readonly name: string;
    readonly holder: string | null;
    readonly token: number;
    /** Grant: the log index this holding now dates from (the token, or a repeated grant's index). */
    readonly grantIndex?: number;
    readonly ttlMs?: number;
    readonly transitions?: number;
    readonly reason?: string;
    /** Expire, revoke: the keys attached to the lease, deleted with it (absent when none were). */
    readonly keys?: readonly string[];
  } | null;
}

/** The trace's record of the keys a lease's end deleted (docs/history.md: the history records their removal). */
const endedKeys = (keys: readonly string[]): { keys?: readonly string[] } => (keys.length > 0 ? { keys: [...keys] } : {});

const NOTHING: LeaseEffect = { result: null, deleteKeys: [], event: null };

export class LeaseTable {
  private constructor(
    private readonly settings: LeaseServerSettings,
    private leases: Record<string, LeaseRecord>,
  ) {}

  static empty(settings: LeaseServerSettings): LeaseTable {
    return new LeaseTable(settings, {});
  }

  clone(): LeaseTable {
    const copy: Record<string, LeaseRecord> = {};
    for (const k in this.leases) {
      const r = this.leases[k] as LeaseRecord;
      copy[k] = { ...r, keys: r.keys.slice() };
    }
    return new LeaseTable(this.settings, copy);
  }

  /** Every record, by name in order, as plain data for a snapshot (the records are copies). */
  toSnapshot(): readonly LeaseRecordData[] {
    return Object.keys(this.leases)
      .sort()
      .map((name) => {
        const r = this.leases[name] as LeaseRecord;
        return { name, ...r, keys: r.keys.slice() };
      });
  }

  /** A table holding the records of toSnapshot() (copied: the snapshot stays untouched). */
  static fromSnapshot(settings: LeaseServerSettings, records: readonly LeaseRecordData[]): LeaseTable {
    const leases: Record<string, LeaseRecord> = {};
    for (const { name, ...r } of records) leases[name] = { ...r, keys: r.keys.slice() };
    return new LeaseTable(settings, leases);
  }

  /** Leases currently granted (the pool in use). */
  get heldCount(): number {
    let n = 0;
    for (const k in this.leases) if ((this.leases[k] as LeaseRecord).state === "held") n++;
    return n;
  }

  info(name: string): LeaseInfo | null {
    const r = this.leases[name];
    return r === undefined ? null : { name, ...r, keys: r.keys.slice() };
  }

  list(): LeaseInfo[] {
    return Object.keys(this.leases)
      .sort()
      .map((name) => this.info(name) as LeaseInfo);
  }

  isHeld(name: string): boolean {
    return this.leases[name]?.state === "held";
  }

  /** Grant and revoke: client commands. `index` is the log index, which becomes the fencing token. */
  applyClient(op: LeaseOp, index: number): LeaseEffect {
    return op.type === "grant" ? this.grant(op, index) : this.revoke(op);
  }

  applySystem(op: SystemOp): LeaseEffect {
    switch (op.type) {
      case "expire": {
        const r = this.leases[op.name];
        // Compare-and-expire: only the holding the leader decided to end. A lease ended,
        // re-granted, or granted again to its holder (a retried or restarted request,
        // answered with a full TTL) since the decision is not touched.
        const skip = (reason: string): LeaseEffect => ({
          result: null,
          deleteKeys: [],
          event: { op: "expire-skipped", name: op.name, holder: r?.holder ?? null, token: op.token, reason },
        });
        if (r === undefined || r.state !== "held") return skip("already-ended");
        if (r.token !== op.token) return skip("granted-to-another");
        if (r.grantIndex !== op.grantIndex) return skip("granted-again");
        const keys = r.keys;
        r.keys = [];
        r.state = this.settings.lockDelayMs > 0 ? "delayed" : "free";
        r.checkpointRemainingMs = null;
        return { result: null, deleteKeys: keys, event: { op: "expire", name: op.name, holder: r.holder, token: r.token, ...endedKeys(keys) } };
      }
      case "free": {
        const r = this.leases[op.name];
        if (r === undefined || r.state !== "delayed") return NOTHING;
        r.state = "free";
        return { result: null, deleteKeys: [], event: { op: "free", name: op.name, holder: r.holder, token: r.token } };
      }
      case "checkpoint": {
        for (const c of op.leases) {
          const r = this.leases[c.name];
          const same = r !== undefined && r.state === "held" && r.token === c.token && r.grantIndex === c.grantIndex;
          if (same) r.checkpointRemainingMs = c.remainingMs;
        }
        return { result: null, deleteKeys: [], event: { op: "checkpoint", name: "*", holder: null, token: 0 } };
      }
    }
  }

  /** Attaches a key to a held lease; false when the lease is not held. */
  attach(key: string, name: string): boolean {
    const r = this.leases[name];
    if (r === undefined || r.state !== "held") return false;
    if (!r.keys.includes(key)) r.keys.push(key);
    return true;
  }

  /** A key was overwritten without a lease or deleted: it no longer belongs to any lease. */
  detach(key: string): void {
    for (const k in this.leases) {
      const r = this.leases[k] as LeaseRecord;
      const i = r.keys.indexOf(key);
      if (i >= 0) r.keys.splice(i, 1);
    }
  }

  private grant(op: LeaseOp & { type: "grant" }, index: number): LeaseEffect {
    const s = this.settings;
    const r = this.leases[op.name];
    const deny = (reason: "held" | "lock-delay" | "pool-exhausted"): LeaseEffect => ({
      result: { kind: "denied", name: op.name, reason, holder: r?.state === "held" ? r.holder : null },
      deleteKeys: [],
      event: { op: "deny", name: op.name, holder: op.holder, token: r?.token ?? 0, reason },
    });
    if (r !== undefined && r.state === "held") {
      if (r.holder !== op.holder) return deny("held");
      // The holder asks again for what it already holds (its first answer was lost, or it
      // restarted): the same token, with a full TTL from now. The holding dates from here, so
      // an Expire decided before this entry no longer applies (see applySystem).
      r.grantIndex = index;
      // A checkpoint taken before this grant would hand a new leader a remaining TTL that is too short.
      r.checkpointRemainingMs = null;
      return {
        result: { kind: "granted", name: op.name, token: r.token, ttlMs: r.ttlMs, transitions: r.transitions },
        deleteKeys: [],
        event: {
          op: "grant",
          name: op.name,
          holder: op.holder,
          token: r.token,
          grantIndex: index,
          ttlMs: r.ttlMs,
          transitions: r.transitions,
        },
      };
    }
    if (r !== undefined && r.state === "delayed") return deny("lock-delay");
    const held = this.heldCount;
    if (s.poolSize > 0 && held >= s.poolSize) return deny("pool-exhausted");
    let ttlMs = Math.max(op.ttlMs, s.minTtlMs);
    if (s.poolSize > 0 && s.poolShortenAt > 0 && (held + 1) / s.poolSize >= s.poolShortenAt) {
      // The provider is running short: hand out shorter leases so resources come back sooner.
      ttlMs = Math.max(s.minTtlMs, Math.min(ttlMs, s.poolShortTtlMs));
    }
    const transitions = (r?.transitions ?? 0) + (r !== undefined && r.holder !== null && r.holder !== op.holder ? 1 : 0);
    // Paired with the checkers' fencing-token check: a fresh grant's token (its log index)
    // exceeds every token this name had before, or storage could not tell old holders from new.
    if (r !== undefined && index <= r.token) {
      throw new Error(
        `lease table: a fresh grant of "${op.name}" at index ${index} would not exceed its last token ${r.token}: fencing tokens only grow`,
      );
    }
    this.leases[op.name] = {
      state: "held",
      holder: op.holder,
      token: index,
      grantIndex: index,
      ttlMs,
      transitions,
      keys: [],
      checkpointRemainingMs: null,
    };
    return {
      result: { kind: "granted", name: op.name, token: index, ttlMs, transitions },
      deleteKeys: [],
      event: { op: "grant", name: op.name, holder: op.holder, token: index, grantIndex: index, ttlMs, transitions },
    };
  }

  private revoke(op: LeaseOp & { type: "revoke" }): LeaseEffect {
    const r = this.leases[op.name];
    if (r === undefined || r.state !== "held" || r.holder !== op.holder || r.token !== op.token) {
      return { result: { kind: "not-holder", name: op.name }, deleteKeys: [], event: null };
    }
    const keys = r.keys;
    r.keys = [];
    // A voluntary release frees the name at once: lock-delay only guards against holders that vanished.
    r.state = "free";
    r.checkpointRemainingMs = null;
    return {
      result: { kind: "revoked", name: op.name, token: r.token },
      deleteKeys: keys,
      event: { op: "revoke", name: op.name, holder: r.holder, token: r.token, ...endedKeys(keys) },
    };
  }
}
