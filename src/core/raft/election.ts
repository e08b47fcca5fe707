/**
 * Elections (Raft paper, section 5.2; dissertation 9.6 for the pre-vote, 3.10 for a
 * leadership transfer's election): the election timer, campaigning, voting, and the role
 * changes (follower, pre-candidate, candidate, leader).
 */
import type { LocalUs } from "../sim/time";
import { NodeCore } from "./core";
import { resetLeaderSide } from "./leases";
import { freshProgress } from "./progress";
import type { NodeId, RequestVote, RequestVoteResp } from "./types";

export abstract class ElectionNode extends NodeCore {
  /** Replication (replication.ts): send `to` what its progress allows; returns whether an append went out. */
  protected abstract sendAppend(to: NodeId): boolean;
  /** Replication (replication.ts): commit what a quorum holds, if of this leader's term. */
  protected abstract maybeCommit(): void;

  /** The election timer fired (or was forced): campaign, after a pre-vote if the cluster uses one. */
  protected campaign(now: LocalUs, why: string): void {
    if (this.cfg.preVote) this.becomePreCandidate(now, why);
    else this.becomeCandidate(now, why);
  }

  private becomePreCandidate(now: LocalUs, why: string): void {
    this.startRound(now, "precandidate", why);
    if (this.quorum === 1) this.becomeCandidate(now, "won pre-vote");
    else this.requestVotes(this.st.term + 1, true);
  }

  /** `transfer`: the leader asked us to take over (TimeoutNow), so no pre-vote, and voters may not ignore us. */
  private becomeCandidate(now: LocalUs, why: string, transfer = false): void {
    const s = this.st;
    s.term += 1;
    s.votedFor = this.id;
    s.hardDirty = true;
    this.startRound(now, "candidate", why);
    if (this.quorum === 1) this.becomeLeader(now);
    else this.requestVotes(s.term, false, transfer);
  }

  /** Starts a (pre-)election round: vote for itself, forget any leader, restart the timer. */
  private startRound(now: LocalUs, role: "precandidate" | "candidate", why: string): void {
    const s = this.st;
    s.role = role;
    s.leader = null;
    s.votes = { [this.id]: true };
    this.dropHeldLease(`${this.id} stands for election`);
    this.clearLeaderState();
    this.resetElectionTimer(now);
    s.events.push({ type: "role", role, term: s.term, leader: null, reason: why });
  }

  /** A pre-vote asks about the term it would campaign in (term + 1) without moving to it. */
  private requestVotes(term: number, preVote: boolean, transfer = false): void {
    for (const p of this.peers) {
      const m: RequestVote = { type: "RequestVote", term, lastLogIndex: this.lastIndex, lastLogTerm: this.lastTerm(), preVote };
      this.send(p, transfer ? { ...m, transfer } : m);
    }
  }

  private becomeLeader(now: LocalUs): void {
    const s = this.st;
    s.role = "leader";
    s.leader = this.id;
    s.leaderContactAt = now;
    resetLeaderSide(s.lease, now);
    s.progress = {};
    for (const p of this.peers) {
      // A granted vote is contact: the voters acknowledged this leader just now.
      s.progress[p] = freshProgress(this.lastIndex + 1, false, s.votes[p] === true ? now : Number.NEGATIVE_INFINITY);
    }
    s.heartbeatDeadline = now + this.cfg.heartbeatIntervalUs;
    s.checkQuorumDeadline = now + this.cfg.electionTimeoutMinUs;
    s.events.push({ type: "role", role: "leader", term: s.term, leader: this.id, reason: "won the election" });
    // A no-op of the new term lets the leader commit (and learn the commit index) at once.
    this.appendLocal([{ index: this.lastIndex + 1, term: s.term, cmd: { type: "noop" } }]);
    for (const p of this.peers) this.sendAppend(p);
    this.maybeCommit();
  }

  /**
   * Figure 2 restarts the election timer only on an append from the current leader, on
   * starting an election and on granting a vote; so stepping down (a higher term seen in a
   * refused vote request or a reply, a lost election) keeps the timer that is running.
   * A leader has none running, so a deposed leader starts one. (etcd restarts it here
   * always; then candidates that cannot win keep pushing back the one that can.)
   */
  protected becomeFollower(now: LocalUs, term: number, leader: NodeId | null, why: string): void {
    const s = this.st;
    const changed = term !== s.term || s.role !== "follower" || leader !== s.leader;
    const wasLeader = s.role === "leader";
    if (term > s.term || leader !== s.leader) this.dropHeldLease(term > s.term ? `saw term ${term}` : `the leader is now ${leader ?? "unknown"}`);
    if (term > s.term) {
      s.term = term;
      s.votedFor = null;
      s.hardDirty = true;
    }
    s.role = "follower";
    s.leader = leader;
    if (leader !== null) s.leaderContactAt = now;
    s.votes = {};
    this.clearLeaderState();
    if (wasLeader) this.resetElectionTimer(now);
    if (changed) s.events.push({ type: "role", role: "follower", term: s.term, leader, reason: why });
  }

  private clearLeaderState(): void {
    const s = this.st;
    s.transferee = null;
    s.transferSent = false;
    s.progress = {};
    s.reads = [];
    s.readsWaitingForCommit = [];
    if (s.lease.rounds.length > 0 || s.lease.confirmed !== null || Object.keys(s.lease.holders).length > 0 || Object.keys(s.lease.asks).length > 0) {
      resetLeaderSide(s.lease, s.lastNow);
    }
  }

  /**
   * Rule 5 of read leases (leases.ts): a follower's read lease ends with the term and the
   * leader it came from; the visible index it knew goes with it.
   */
  protected dropHeldLease(why: string): void {
    const l = this.st.lease;
    l.visible = 0;
    const held = l.held;
    if (held === null) return;
    l.held = null;
    this.st.events.push({ type: "readlease", phase: "dropped", peer: held.leader, untilLocal: held.until, reason: why });
  }

  /**
   * Whether this server heard a leader within the minimum election timeout, so refuses to
   * help elect another (PreVote, CheckQuorum). With leader leases, a server that booted
   * within that time counts as having heard one: it may have acknowledged the leader's
   * lease round just before it crashed, and forgot it.
   */
  protected heardLeaderRecently(now: number): boolean {
    const s = this.st;
    if (s.leader !== null && now - s.leaderContactAt < this.cfg.electionTimeoutMinUs) return true;
    return this.cfg.reads === "leader-lease" && now - s.lease.bootAt < this.cfg.electionTimeoutMinUs;
  }

  protected resetElectionTimer(now: LocalUs): void {
    this.st.electionTimerFrom = now;
    this.st.electionDeadline = now + this.rng.int(this.cfg.electionTimeoutMinUs, this.cfg.electionTimeoutMaxUs);
  }

  protected onRequestVote(now: LocalUs, from: NodeId, m: RequestVote): void {
    const s = this.st;
    const lastTerm = this.lastTerm();
    // Section 5.4.1: grant only to a candidate whose log is at least as up-to-date.
    const upToDate = m.lastLogTerm > lastTerm || (m.lastLogTerm === lastTerm && m.lastLogIndex >= this.lastIndex);
    // Section 5.2: at most one vote per term, persisted before the reply is sent. A server
    // that knows the leader of its term votes for nobody else in it.
    const canVote = s.votedFor === from || (s.votedFor === null && s.leader === null);
    if (m.preVote) {
      // Dissertation 9.6: grant a pre-vote when the real vote for that term would be granted
      // (etcd's canVote): a later term, or this very term if we are free to vote in it
      // (step() lets an equal-term pre-vote through). Refuse while a leader is heard (within
      // the minimum election timeout), so a rejoining server cannot disrupt a working leader
      // even without CheckQuorum.
      const heardLeader = s.role === "leader" || this.heardLeaderRecently(now);
      const granted = (m.term > s.term || canVote) && upToDate && !heardLeader;
      this.send(from, { type: "RequestVoteResp", term: granted ? m.term : s.term, granted, preVote: true });
      return;
    }
    const granted = canVote && upToDate;
    if (granted) {
      if (s.votedFor !== from) {
        s.votedFor = from;
        s.hardDirty = true;
        s.events.push({ type: "vote", term: s.term, candidate: from });
      }
      this.resetElectionTimer(now);
    }
    this.send(from, { type: "RequestVoteResp", term: s.term, granted, preVote: false });
  }

  protected onVoteResp(now: LocalUs, from: NodeId, m: RequestVoteResp): void {
    const s = this.st;
    const expected = m.preVote ? "precandidate" : "candidate";
    if (s.role !== expected) return;
    s.votes[from] = m.granted;
    let yes = 0;
    let no = 0;
    for (const v of s.config) {
      const vote = s.votes[v];
      if (vote === true) yes++;
      else if (vote === false) no++;
    }
    if (yes >= this.quorum) {
      if (m.preVote) this.becomeCandidate(now, "won pre-vote");
      else this.becomeLeader(now);
    } else if (no >= this.quorum) {
      this.becomeFollower(now, s.term, null, m.preVote ? "lost pre-vote" : "lost election");
    }
  }

  /** The leader asks us to take over: campaign now, skipping the pre-vote (its leader is the one asking). */
  protected onTimeoutNow(now: LocalUs, from: NodeId): void {
    const s = this.st;
    if (s.role === "leader" || !this.member) return;
    this.becomeCandidate(now, `leadership transfer from ${from}`, true);
  }
}
