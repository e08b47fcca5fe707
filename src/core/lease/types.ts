/**
 * The lease service's vocabulary: commands written to the Raft log, queries,
 * the refresh protocol (leader only, never replicated), results and settings.
 */

/** A holder's request, proposed to the log like any client command (deduplicated by (clientId, seq)). */
export type LeaseOp =
  | { readonly type: "grant"; readonly name: string; readonly holder: string; readonly ttlMs: number }
  | { readonly type: "revoke"; readonly name: string; readonly holder: string; readonly token: number };

/** Commands only the leader's tracker proposes. */
export type SystemOp =
  /**
   * The leader saw the lease run out on its own clock. A compare-and-expire: applied only if
   * the lease is still the holding the leader timed (same token, same grantIndex).
   */
  | { readonly type: "expire"; readonly name: string; readonly token: number; readonly grantIndex: number }
  /** The lock-delay after an expiry is over: the name may be granted again. */
  | { readonly type: "free"; readonly name: string }
  /**
   * etcd-style checkpoint: the remaining TTL of each lease, so a new leader does not reset it
   * to full. Like an Expire, each names the holding it measured (token and grantIndex): a
   * checkpoint of a holding granted again since is stale and is not recorded.
   */
  | {
      readonly type: "checkpoint";
      readonly leases: readonly {
        readonly name: string;
        readonly token: number;
        readonly grantIndex: number;
        readonly remainingMs: number;
      }[];
    };

export type LeaseQuery = { readonly type: "lease-ttl"; readonly name: string } | { readonly type: "lease-list" };

/** The committed state of one lease name. */
export interface LeaseInfo {
  readonly name: string;
  /** "held": granted and not yet expired or revoked; "delayed": expired, in its lock-delay; "free": grantable. */
  readonly state: "held" | "delayed" | "free";
  readonly holder: string | null;
  /** Fencing token of the current (or last) grant: the log index of the grant entry. Only grows. */
  readonly token: number;
  /** Log index of the grant the current holding dates from (the token, or the holder's latest repeated grant). */
  readonly grantIndex: number;
  readonly ttlMs: number;
  /** Kubernetes-style leaseTransitions: how many times the holder changed. */
  readonly transitions: number;
  /** Keys attached to the lease (deleted with it). */
  readonly keys: readonly string[];
  /** Remaining TTL written by the last checkpoint (ms), if any. */
  readonly checkpointRemainingMs: number | null;
}

/** Why a grant is denied (a closed set: the `refused` expectation lists them). */
export const LEASE_DENIALS = ["held", "lock-delay", "pool-exhausted"] as const;
export type LeaseDenial = (typeof LEASE_DENIALS)[number];

export type LeaseResult =
  | { readonly kind: "granted"; readonly name: string; readonly token: number; readonly ttlMs: number; readonly transitions: number }
  | { readonly kind: "denied"; readonly name: string; readonly reason: LeaseDenial; readonly holder: string | null }
  | { readonly kind: "revoked"; readonly name: string; readonly token: number }
  | { readonly kind: "not-holder"; readonly name: string }
  /** A query answer; remainingMs is the leader's view (null when not known). */
  | { readonly kind: "lease-info"; readonly lease: LeaseInfo | null; readonly remainingMs: number | null }
  | { readonly kind: "lease-list"; readonly leases: readonly LeaseInfo[] };

/** Holder -> leader: extend my lease (not replicated; timed on the leader's clock). */
export interface LeaseRefresh {
  readonly type: "LeaseRefresh";
  readonly name: string;
  readonly holder: string;
  readonly token: number;
  /** Echoed back so the holder can match the reply to the request it sent. */
  readonly reqId: number;
}

/** Why a refresh is refused (a closed set: the `refused` expectation lists them). */
export const REFRESH_DENIALS = ["not-leader", "unknown-lease", "expired", "pool-short"] as const;
export type LeaseRefreshDenial = (typeof REFRESH_DENIALS)[number];

export type LeaseRefreshReply =
  | { readonly type: "LeaseRefreshReply"; readonly reqId: number; readonly name: string; readonly ok: true; readonly ttlMs: number }
  | {
      readonly type: "LeaseRefreshReply";
      readonly reqId: number;
      readonly name: string;
      readonly ok: false;
      readonly reason: LeaseRefreshDenial;
      readonly leaderHint: string | null;
    };

export type LeaseMessage = LeaseRefresh | LeaseRefreshReply;

/** Server-side lease settings. They shape the replicated state machine, so every node has the same. */
export interface LeaseServerSettings {
  /** Granted TTL is at least this (etcd: 1.5 x election timeout). */
  readonly minTtlMs: number;
  /** How often the leader looks for expired leases (etcd: 500 ms). */
  readonly expiryCheckIntervalMs: number;
  /** Consul-style slack: the leader frees a lease only after ttl x this factor (1 = none, Consul 2). */
  readonly expirySlackFactor: number;
  /** Chubby-style lock-delay: after an expiry, the name cannot be granted to anyone for this long (0 = off). */
  readonly lockDelayMs: number;
  /** etcd-style checkpointing of remaining TTL (off: a new leader gives every lease a full TTL again). */
  readonly checkpoint: boolean;
  readonly checkpointIntervalMs: number;
  /** Extra time a new leader adds to every lease (etcd adds an election timeout), covering an old leader that may still answer. */
  readonly leaderChangeExtensionMs: number;
  /** A limited pool of leases (DHCP-style, seed 004): 0 = unlimited. */
  readonly poolSize: number;
  /** When at least this share of the pool is in use, new grants get shortTtlMs instead (0 = never shorten). */
  readonly poolShortenAt: number;
  readonly poolShortTtlMs: number;
  /** When the pool is full, refuse renewals so leases lapse and the pool refills. */
  readonly poolDenyRenewalsWhenFull: boolean;
}
