/** Settings of a lease holder (a client process that acquires, renews and uses a lease). */
export interface HolderSettings {
  readonly id: string;
  /** The Raft nodes, in order (the holder looks for the leader among them). */
  readonly servers: readonly string[];
  /** The fenced storage process. */
  readonly storage: string;
  /** The lease name it wants (holders wanting the same name contend for it). */
  readonly leaseName: string;
  /** The storage resource it writes to while holding the lease. */
  readonly resource: string;
  /** Requested TTL (the service may grant more, never less than its minimum). */
  readonly ttlMs: number;
  /** Renew when this fraction of the TTL has passed since the last successful request was sent (etcd 1/3, DHCP 1/2). */
  readonly renewFraction: number;
  /**
   * DHCP's T2 (rebinding): once this fraction of the TTL has passed without a renewal,
   * each refresh goes to every server at once instead of the believed leader (0 = off).
   */
  readonly rebindFraction: number;
  /** Renewal time is spread by up to this fraction of the renew interval (both ways). */
  readonly renewJitter: number;
  /** The holder's own deadline is shortened by this clock-drift bound (ppm of the TTL), so it ends no later than the leader's. */
  readonly driftMarginPpm: number;
  /** Chubby-style grace: after the lease's nominal end, keep trying this long before giving up (0 = off). */
  readonly gracePeriodMs: number;
  readonly requestTimeoutMs: number;
  /** Retry backoff: starts at min, doubles per failed try, capped at max (with jitter). */
  readonly retryBackoffMinMs: number;
  readonly retryBackoffMaxMs: number;
  /** After a denial (name held by someone else), try again after this long (Kubernetes RetryPeriod). */
  readonly acquireRetryMs: number;
  /** The work loop: every workIntervalMs check the lease is valid, then after workGapMs write to storage. */
  readonly workIntervalMs: number;
  readonly workGapMs: number;
  /** Release the lease after holding it this long (0 = keep it). */
  readonly holdForMs: number;
  /** Start acquiring this long after boot. */
  readonly startAfterMs: number;
  /** Write a key attached to the lease on acquiring (e.g. /holders/h1), deleted when the lease ends. */
  readonly registerKey: boolean;
  /** A database replica (the primary while it holds the lease, a secondary otherwise): it reports its role and writes only as primary. */
  readonly replicas: boolean;
  /** The self-fencing watchdog: at its own deadline it stops using the lease; off, it believes its lease until the service says it is gone. */
  readonly selfFence: boolean;
}
