/**
 * Reads (Raft dissertation 6.4): ReadIndex, the leader's lease, and read leases for followers
 * (the rules are in leases.ts, and in docs/reads.md). The layer between replication and the
 * node's public face: it numbers heartbeat rounds, counts their acknowledgements, grants and
 * times read leases, and keeps the visible index.
 */
import type { LocalUs } from "../sim/time";
import { lengthened, MAX_ASKS, shortened } from "./leases";
import { type LeaseAsk, type LeaseNews, ReplicatingNode } from "./replication";
import type { PendingRead } from "./state";
import type { AppendEntries, AppendEntriesResp, NodeId } from "./types";

export abstract class ReadingNode extends ReplicatingNode {
  /** A grant being sent (set only for the length of one sendNews call). */
  private outGrant: { readonly to: NodeId; readonly askId: number; readonly floor: number } | null = null;

  /** Reads use the leader's lease (cfg.reads). */
  get leaderLeases(): boolean {
    return this.cfg.reads === "leader-lease";
  }
  /** The leader grants read leases to followers. */
  get readLeases(): boolean {
    return (this.cfg.readLeaseFollowers ?? 0) > 0;
  }
  /** Heartbeat rounds are numbered and timed: either lease is on. */
  private get timedRounds(): boolean {
    return this.leaderLeases || this.readLeases;
  }
  private get driftPpm(): number {
    return this.cfg.leaseDriftBoundPpm ?? 0;
  }
  /** How long the leader's lease lasts after the send time of a confirmed round (local µs). */
  get leaderLeaseUs(): number {
    return shortened(this.cfg.electionTimeoutMinUs, this.driftPpm);
  }
  private get readLeaseUs(): number {
    return this.cfg.readLeaseUs ?? 0;
  }
  /** How long a holder's read lease lasts after its ask, on its clock (rule 3). */
  get heldLeaseUs(): number {
    return shortened(this.readLeaseUs, this.driftPpm);
  }
  /** How long a new leader waits before anything becomes visible (rule 4). */
  get newLeaderWaitUs(): number {
    return lengthened(this.readLeaseUs, this.driftPpm);
  }

  /**
   * ReadIndex (dissertation 6.4): remember the commit index, confirm leadership with a
   * heartbeat round, then the host serves the read once it has applied that far. With the
   * leader's lease holding, no round: the read is ready at once. Returns false when this node
   * is not the leader.
   */
  requestRead(ctx: number, now: LocalUs = this.st.lastNow): boolean {
    const s = this.st;
    if (s.role !== "leader") return false;
    if (this.termAt(s.commitIndex) !== s.term) {
      s.readsWaitingForCommit.push(ctx);
      return true;
    }
    if (this.leaderLeaseHolds(now)) {
      s.readStates.push({ ctx, index: s.commitIndex, lease: true });
      return true;
    }
    this.startRead(ctx);
    return true;
  }

  /**
   * Whether the leader's lease holds at `now` (leases.ts): a round sent at most leaderLeaseUs
   * ago, in this configuration, was acknowledged by a majority; this leader committed an entry
   * of its term; and no leadership transfer was started this term.
   */
  leaderLeaseHolds(now: LocalUs): boolean {
    const until = this.leaderLeaseUntil;
    return until !== null && now < until;
  }

  /** The local time the leader's lease ends (it may be past), or null when there is none. */
  get leaderLeaseUntil(): number | null {
    const s = this.st;
    const l = s.lease;
    if (!this.leaderLeases || s.role !== "leader" || s.transferee !== null || l.timeoutNowSent) return null;
    if (this.termAt(s.commitIndex) !== s.term) return null;
    const c = l.confirmed;
    return c === null || c.configIndex !== s.configIndex ? null : c.at + this.leaderLeaseUs;
  }

  /** Starts a heartbeat round for the read `ctx` at the commit index (at once with a quorum of one). */
  protected startRead(ctx: number): void {
    const s = this.st;
    if (this.quorum === 1) {
      s.readStates.push({ ctx, index: s.commitIndex });
      return;
    }
    s.readRound += 1;
    s.reads.push({ ctx, index: s.commitIndex, round: s.readRound, acks: [this.id] });
    this.broadcastHeartbeat();
  }

  /** With a lease on, every heartbeat is a numbered round whose send time is kept. */
  protected override broadcastHeartbeat(): void {
    const s = this.st;
    if (this.timedRounds && s.role === "leader") {
      s.readRound += 1;
      const rounds = s.lease.rounds;
      rounds.push({ round: s.readRound, at: s.lastNow, configIndex: s.configIndex });
      if (rounds.length > 64) rounds.shift();
      super.broadcastHeartbeat();
      this.confirmRounds();
      return;
    }
    super.broadcastHeartbeat();
  }

  /** `from` answered the heartbeat round `round`: every read of that round or earlier that has a quorum is ready. */
  protected ackRead(from: NodeId, round: number): void {
    const s = this.st;
    if (this.timedRounds && this.peers.includes(from) && (s.lease.acked[from] ?? 0) < round) {
      s.lease.acked[from] = round;
      this.confirmRounds();
    }
    let done = -1;
    for (let i = 0; i < s.reads.length; i++) {
      const r = s.reads[i] as PendingRead;
      if (r.round > round) break;
      if (!r.acks.includes(from) && (from === this.id || this.peers.includes(from))) r.acks.push(from);
      if (r.acks.length >= this.quorum) done = i;
    }
    if (done < 0) return;
    // A confirmed round also confirms every earlier one.
    for (const r of s.reads.splice(0, done + 1)) s.readStates.push({ ctx: r.ctx, index: r.index });
  }

  /** The latest round a majority (this leader counts for every round, if a member) acknowledged becomes the confirmed one. */
  private confirmRounds(): void {
    const l = this.st.lease;
    const acks = this.peers.map((p) => l.acked[p] ?? 0);
    if (this.member) acks.push(Number.POSITIVE_INFINITY);
    acks.sort((a, b) => b - a);
    const r = acks[this.quorum - 1] ?? 0;
    let found = null;
    while (l.rounds.length > 0 && (l.rounds[0] as { round: number }).round <= r) found = l.rounds.shift() ?? null;
    if (found === null) return;
    l.confirmed = found;
    if (this.readLeases) this.grantAsks(found.round);
  }

  // ---- read leases: the leader's side --------------------------------------------

  /** The followers that may hold read leases: the first readLeaseFollowers of the configuration (the leader skipped). */
  private eligible(p: NodeId): boolean {
    return this.peers.slice(0, this.cfg.readLeaseFollowers ?? 0).includes(p);
  }

  /** Rule 3: grant every ask whose round (the first that started after it arrived) is now confirmed. */
  private grantAsks(confirmed: number): void {
    const s = this.st;
    const l = s.lease;
    const now = s.lastNow;
    // Rule 5's floor is the commit index, which a new leader knows only once it has committed
    // an entry of its term (before that it may lag what was committed, even be 0 after a restart).
    if (this.termAt(s.commitIndex) !== s.term) return;
    for (const p of Object.keys(l.asks)) {
      const ask = l.asks[p] as { askId: number; round: number };
      if (ask.round > confirmed) continue;
      delete l.asks[p];
      if (!this.eligible(p) || s.role !== "leader") continue;
      const until = now + this.readLeaseUs;
      const before = l.holders[p];
      const renewal = before !== undefined && now < before.until;
      // A renewal keeps the old floor: until the new grant arrives, the holder serves under
      // the old one, so only what it has applied (or that old floor) counts.
      l.holders[p] = { until, floor: renewal ? before.floor : s.commitIndex, applied: before?.applied ?? 0 };
      if (!renewal) {
        s.events.push({ type: "readlease", phase: "granted", peer: p, untilLocal: until, reason: `${p} asked for a read lease` });
      }
      this.outGrant = { to: p, askId: ask.askId, floor: s.commitIndex };
      this.sendNews(p);
      this.outGrant = null;
    }
  }

  /**
   * Rules 1, 2 and 4: the highest index every current holder has applied (or will have before
   * it serves), capped at the commit index; 0 while a new leader waits out its predecessors'
   * grants. At a follower: the leader's, as last sent. Without read leases: the commit index.
   */
  visibleIndex(now: LocalUs): number {
    const s = this.st;
    if (!this.readLeases) return s.commitIndex;
    if (s.role !== "leader") return s.lease.visible;
    if (now < s.lease.wonAt + this.newLeaderWaitUs) return 0;
    let v = s.commitIndex;
    for (const h of Object.values(s.lease.holders)) if (now < h.until) v = Math.min(v, Math.max(h.applied, h.floor));
    return v;
  }

  /** The holders whose lease holds at `now`, with what they have applied (for views and the trace). */
  readLeaseHolders(now: LocalUs): { readonly peer: NodeId; readonly until: number; readonly applied: number }[] {
    const out = [];
    for (const [peer, h] of Object.entries(this.st.lease.holders)) if (now < h.until) out.push({ peer, until: h.until, applied: Math.max(h.applied, h.floor) });
    return out;
  }

  protected onLeaseAnswer(_now: LocalUs, from: NodeId, m: AppendEntriesResp): void {
    if (!this.readLeases) return;
    const s = this.st;
    const l = s.lease;
    const h = l.holders[from];
    if (h !== undefined && m.applied !== undefined && m.applied > h.applied) {
      const before = this.visibleIndex(s.lastNow);
      h.applied = m.applied;
      // The visible index moved: tell the holders at once, so the reads they hold go out sooner.
      if (this.visibleIndex(s.lastNow) > before) for (const p of Object.keys(l.holders)) if (s.lastNow < (l.holders[p]?.until ?? 0)) this.sendNews(p);
    }
    // The grant waits for the next round: one that starts after this ask arrived. A later ask
    // does not replace a waiting one (it would push the grant back with every answer).
    if (m.leaseAsk !== undefined && l.asks[from] === undefined && this.eligible(from)) {
      l.asks[from] = { askId: m.leaseAsk, round: this.st.readRound + 1 };
    }
  }

  protected leaseNews(to: NodeId): LeaseNews {
    if (!this.readLeases) return {};
    const visible = this.visibleIndex(this.st.lastNow);
    const g = this.outGrant;
    return g !== null && g.to === to ? { visible, grant: { askId: g.askId, floor: g.floor } } : { visible };
  }

  /** The leader tells holders of a new commit at once: they apply it sooner, so writes wait less. */
  protected override maybeCommit(): void {
    const s = this.st;
    const before = s.commitIndex;
    super.maybeCommit();
    if (!this.readLeases || s.role !== "leader" || s.commitIndex === before) return;
    for (const p of Object.keys(s.lease.holders)) if (s.lastNow < (s.lease.holders[p]?.until ?? 0)) this.sendNews(p);
  }

  // ---- read leases: the follower's side -------------------------------------------

  /** A follower asks for a read lease while it has none or it is past half its length. */
  protected leaseAsk(): LeaseAsk {
    const s = this.st;
    if (!this.readLeases || s.role !== "follower" || !this.member) return {};
    const l = s.lease;
    const applied = s.commitIndex;
    if (l.held !== null && l.held.until - s.lastNow > this.heldLeaseUs / 2) return { applied };
    // One ask per two heartbeat intervals is enough (the grant comes after the next round).
    const lastAsk = l.myAsks[l.myAsks.length - 1];
    if (lastAsk !== undefined && s.lastNow - lastAsk.at < 2 * this.cfg.heartbeatIntervalUs) return { applied };
    const id = l.nextAskId++;
    l.myAsks.push({ id, at: s.lastNow });
    if (l.myAsks.length > MAX_ASKS) l.myAsks.shift();
    return { leaseAsk: id, applied };
  }

  protected onLeaseNews(now: LocalUs, from: NodeId, m: AppendEntries): void {
    if (!this.readLeases) return;
    const s = this.st;
    const l = s.lease;
    if (m.visible !== undefined && m.visible > l.visible) l.visible = m.visible;
    const g = m.grant;
    if (g === undefined) return;
    const ask = l.myAsks.find((a) => a.id === g.askId);
    if (ask === undefined) return;
    // Rule 3: timed from the ask, on this clock, shortened by the drift bound.
    const until = ask.at + this.heldLeaseUs;
    if (until <= now) return;
    const fresh = l.held === null;
    l.held = { until, floor: g.floor, leader: from, term: s.term };
    if (fresh) s.events.push({ type: "readlease", phase: "held", peer: from, untilLocal: until, reason: `granted by ${from}` });
  }

  /**
   * Rule 5: the floor this follower must have applied to serve a read locally at `now`, or
   * null when it holds no valid read lease.
   */
  localReadFloor(now: LocalUs): number | null {
    const s = this.st;
    const h = s.lease.held;
    if (h === null || now >= h.until || s.role !== "follower" || s.leader !== h.leader || s.term !== h.term) return null;
    return h.floor;
  }

  /** The read lease this follower holds (for views), or null. */
  get heldReadLease(): { readonly until: number; readonly leader: NodeId; readonly floor: number } | null {
    return this.st.lease.held;
  }

  /** Ends leases whose time is up (the leader's record of a holder; a follower's own lease). */
  protected expireLeases(now: LocalUs): void {
    if (!this.readLeases) return;
    const s = this.st;
    const l = s.lease;
    if (l.held !== null && now >= l.held.until) {
      s.events.push({ type: "readlease", phase: "expired", peer: l.held.leader, untilLocal: l.held.until, reason: "its time is up" });
      l.held = null;
    }
    for (const p of Object.keys(l.holders)) {
      const h = l.holders[p] as { until: number };
      if (now < h.until) continue;
      delete l.holders[p];
      s.events.push({ type: "readlease", phase: "expired", peer: p, untilLocal: h.until, reason: `${p}'s read lease ran out on the leader's clock` });
    }
  }

  /** The next local time a lease ends or a new leader's wait is over (infinity: none). */
  protected leaseDeadline(): number {
    if (!this.readLeases) return Number.POSITIVE_INFINITY;
    const s = this.st;
    const l = s.lease;
    let d = l.held?.until ?? Number.POSITIVE_INFINITY;
    for (const h of Object.values(l.holders)) d = Math.min(d, h.until);
    if (s.role === "leader") {
      const waitEnd = l.wonAt + this.newLeaderWaitUs;
      if (waitEnd > s.lastNow) d = Math.min(d, waitEnd);
    }
    return d;
  }
}
