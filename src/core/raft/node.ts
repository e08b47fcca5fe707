/**
 * One Raft node as a sans-IO state machine (after etcd-io/raft's RawNode).
 *
 * The node never reads a clock, never sends, never writes a disk: the host passes
 * the node's local time into every call, and after each call takes a Ready
 * describing what to persist, what to send and what is committed. The host must
 * persist before it sends (Raft paper, Figure 2: "respond to RPCs only after
 * updating stable storage").
 *
 * Timeouts are deadlines in local time. The host asks nextDeadline() and calls
 * onTimer() when that moment comes; the simulator turns that into a queue event.
 */
import type { LocalUs } from "../sim/time";
import type { Rng } from "../sim/rng";
import type { Progress } from "./progress";
import { ReadingNode } from "./reads";
import { bootState, copyRaftState, NONE, type RaftState, UNCOMPACTED } from "./state";
import type { Command, Entry, HardState, LogStart, NodeId, RaftConfig, RaftMessage, Ready, Role, Snapshot } from "./types";

export { MAX_INFLIGHT_APPENDS, type Progress, SNAPSHOT_RESEND_HEARTBEATS } from "./progress";
export { type RaftState, UNCOMPACTED } from "./state";

/**
 * The node's public face: its inputs (timers, messages, proposals, reads, transfers,
 * configuration changes), its Ready, and read-only views for the host and the page. The
 * protocol lives in the layers below (core.ts, election.ts, replication.ts, reads.ts: ReadIndex
 * and leases); this layer adds leadership transfer and proposing a configuration change.
 */
export class RaftNode extends ReadingNode {
  private constructor(cfg: RaftConfig, rng: Rng, st: RaftState) {
    super(cfg, rng, st);
  }

  /**
   * Boots (or reboots after a crash) from persisted state only: the log after `start`, and
   * the snapshot there (whatever a snapshot covers is committed).
   */
  static boot(cfg: RaftConfig, hard: HardState, log: readonly Entry[], rng: Rng, now: LocalUs, start: LogStart = UNCOMPACTED): RaftNode {
    const node = new RaftNode(cfg, rng, bootState(cfg.voters, hard, log, start, now));
    node.recomputeConfig(false);
    node.resetElectionTimer(now);
    return node;
  }

  /**
   * A deep copy of the volatile and persistent state (entries are shared: they are
   * immutable). Without `copyLog` the copy's log is empty (the caller keeps it another way).
   */
  snapshotState(copyLog = true): RaftState {
    return copyRaftState(this.st, copyLog);
  }

  static fromState(cfg: RaftConfig, rng: Rng, st: RaftState): RaftNode {
    return new RaftNode(cfg, rng, st);
  }

  // ---- read-only views (the log's own, such as lastIndex and termAt, are in core.ts) ----

  get term(): number {
    return this.st.term;
  }
  get votedFor(): NodeId | null {
    return this.st.votedFor;
  }
  get role(): Role {
    return this.st.role;
  }
  get leader(): NodeId | null {
    return this.st.leader;
  }
  get commitIndex(): number {
    return this.st.commitIndex;
  }
  /** The entries kept, from firstIndex on (those before were compacted into the snapshot). */
  get log(): readonly Entry[] {
    return this.st.log;
  }
  /** The term of the entry before firstIndex (0 unless compacted). */
  get logStartTerm(): number {
    return this.st.logStartTerm;
  }
  get snapshot(): Snapshot | null {
    return this.st.snapshot;
  }
  get snapshotIndex(): number {
    return this.st.snapshot?.index ?? 0;
  }
  get snapshotTerm(): number {
    return this.st.snapshot?.term ?? 0;
  }
  get electionDeadline(): number {
    return this.st.electionDeadline;
  }
  /** The voters of the configuration in use. */
  get config(): readonly NodeId[] {
    return this.st.config;
  }
  /** Index of the entry that set the configuration in use (0: the first configuration). */
  get configIndex(): number {
    return this.st.configIndex;
  }
  /** Whether this node is a voter of the configuration it uses. */
  get isMember(): boolean {
    return this.member;
  }
  /**
   * Where to send a client that asked the wrong server: the leader it knows, or, from a
   * server outside the configuration (whose idea of the leader is stale), a member.
   */
  get redirect(): NodeId | null {
    if (this.member) return this.st.role === "leader" ? null : this.st.leader;
    return this.peers[0] ?? null;
  }
  get electionTimerFrom(): number {
    return this.st.electionTimerFrom;
  }
  get progress(): Readonly<Record<NodeId, Readonly<Progress>>> {
    return this.st.progress;
  }
  get votes(): Readonly<Record<NodeId, boolean>> {
    return this.st.votes;
  }

  /**
   * As leader: has a majority (this node included) answered within the last minimum
   * election timeout? A leader that cannot say yes may already have been replaced, so
   * it must not act on time-based decisions such as expiring leases.
   */
  hasQuorumContact(now: LocalUs): boolean {
    const s = this.st;
    if (s.role !== "leader") return false;
    let heard = this.member ? 1 : 0;
    for (const p of this.peers) if (now - this.pr(p).lastHeardAt < this.cfg.electionTimeoutMinUs) heard++;
    return heard >= this.quorum;
  }

  /** The next local time at which onTimer() has work to do. */
  nextDeadline(): number {
    const s = this.st;
    if (s.role !== "leader") return Math.min(s.electionDeadline, this.leaseDeadline());
    const d = this.cfg.checkQuorum ? Math.min(s.heartbeatDeadline, s.checkQuorumDeadline) : s.heartbeatDeadline;
    return Math.min(s.transferee === null ? d : Math.min(d, s.transferDeadline), this.leaseDeadline());
  }

  // ---- inputs ----------------------------------------------------------------

  onTimer(now: LocalUs): void {
    const s = this.st;
    s.lastNow = now;
    this.expireLeases(now);
    if (s.role === "leader") {
      if (s.transferee !== null && now >= s.transferDeadline) {
        this.abortTransfer(`${s.transferee} did not take over within an election timeout`);
      }
      if (this.cfg.checkQuorum && now >= s.checkQuorumDeadline) {
        s.checkQuorumDeadline = now + this.cfg.electionTimeoutMinUs;
        let active = this.member ? 1 : 0;
        for (const p of this.peers) {
          const pr = this.pr(p);
          if (pr.active) active++;
          pr.active = false;
        }
        if (active < this.quorum) {
          this.becomeFollower(now, s.term, null, `CheckQuorum: heard from ${active} of ${s.config.length}`);
          return;
        }
        s.leaderContactAt = now;
      }
      if (now >= s.heartbeatDeadline) {
        s.heartbeatDeadline = now + this.cfg.heartbeatIntervalUs;
        this.broadcastHeartbeat();
      }
      return;
    }
    if (now < s.electionDeadline) return;
    // Dissertation 4.2.3: a server outside the configuration starts no election (its term
    // would only disturb the cluster); it waits to be added, or learns it was removed.
    if (!this.member) this.resetElectionTimer(now);
    else this.campaign(now, "election timeout");
  }

  /** Starts an election now, as if the election timer had fired (the UI's "force timeout"). */
  forceElectionTimeout(now: LocalUs): void {
    if (this.st.role === "leader" || !this.member) return;
    this.campaign(now, "forced timeout");
  }

  /** Appends a command if this node is leader. Returns its index and term, or null. */
  propose(cmd: Command): { index: number; term: number } | null {
    const s = this.st;
    // A leader handing over takes no proposals (etcd drops them): the new leader will.
    if (s.role !== "leader" || s.transferee !== null) return null;
    const entry: Entry = { index: this.lastIndex + 1, term: s.term, cmd };
    this.appendLocal([entry]);
    for (const p of this.peers) this.sendAppend(p);
    this.maybeCommit();
    return { index: entry.index, term: entry.term };
  }

  step(now: LocalUs, from: NodeId, m: RaftMessage): void {
    const s = this.st;
    s.lastNow = now;
    // Any server may talk to any other (a new one hears the leader before it knows the
    // configuration); only members' votes and acknowledgements count.
    if (from === this.id) return;

    if (m.term > s.term) {
      if (m.type === "RequestVote") {
        const inLease = this.cfg.checkQuorum && this.heardLeaderRecently(now);
        // Dissertation 4.2.3: ignore disruptive candidates while a leader is heard, except the one
        // the leader itself asked to take over (3.10).
        if (inLease && m.transfer !== true) return;
        if (!m.preVote) this.becomeFollower(now, m.term, null, `saw term ${m.term} in a vote request from ${from}`);
      } else if (m.type === "RequestVoteResp" && m.preVote && m.granted) {
        // A granted pre-vote carries the term we would campaign in; do not adopt it.
      } else {
        const leader = m.type === "AppendEntries" || m.type === "InstallSnapshot" ? from : null;
        this.becomeFollower(now, m.term, leader, `saw term ${m.term} from ${from}`);
      }
    } else if (m.term < s.term) {
      // Stale sender: tell it our term so it steps down (etcd does this for appends and pre-votes).
      if (m.type === "AppendEntries" || m.type === "InstallSnapshot") {
        this.refuseAppend(from, m.type === "AppendEntries" ? m.prevLogIndex : m.snapshot.index, 0, 0, 0);
      } else if (m.type === "RequestVote") {
        this.send(from, { type: "RequestVoteResp", term: s.term, granted: false, preVote: m.preVote });
      }
      return;
    }

    switch (m.type) {
      case "RequestVote":
        this.onRequestVote(now, from, m);
        return;
      case "RequestVoteResp":
        this.onVoteResp(now, from, m);
        return;
      case "AppendEntries":
        this.onAppend(now, from, m);
        return;
      case "AppendEntriesResp":
        this.onAppendResp(now, from, m);
        return;
      case "TimeoutNow":
        this.onTimeoutNow(now, from);
        return;
      case "InstallSnapshot":
        this.onSnapshot(now, from, m);
        return;
      default: {
        const unhandled: never = m;
        throw new Error(`${this.id}: unhandled message ${(unhandled as RaftMessage).type}`);
      }
    }
  }

  /** Takes everything the host must act on, and clears it. */
  /** Whether ready() has anything to hand out but the commit index (most refreshes and replies leave nothing). */
  get hasReady(): boolean {
    const s = this.st;
    return (
      s.hardDirty ||
      s.truncateFrom !== null ||
      s.appendFrom !== null ||
      s.installed !== null ||
      s.outbox.length > 0 ||
      s.readStates.length > 0 ||
      s.events.length > 0
    );
  }

  ready(): Ready {
    const s = this.st;
    const rd: Ready = {
      hardState: s.hardDirty ? { term: s.term, votedFor: s.votedFor } : null,
      truncateFrom: s.truncateFrom,
      snapshot: s.installed,
      entries: s.appendFrom === null ? NONE : s.log.slice(s.appendFrom - s.logStart - 1),
      messages: s.outbox.length === 0 ? NONE : s.outbox,
      commitIndex: s.commitIndex,
      readStates: s.readStates.length === 0 ? NONE : s.readStates,
      events: s.events.length === 0 ? NONE : s.events,
    };
    // Fresh arrays only where the old ones were handed out (the hot path sends a message or two).
    s.hardDirty = false;
    s.truncateFrom = null;
    s.appendFrom = null;
    s.installed = null;
    if (s.outbox.length > 0) s.outbox = [];
    if (s.readStates.length > 0) s.readStates = [];
    if (s.events.length > 0) s.events = [];
    return rd;
  }

  // ---- leadership transfer (dissertation 3.10) ------------------------------------

  /**
   * Leadership transfer (dissertation 3.10, etcd's MsgTransferLeader): stop taking
   * proposals, bring `to`'s log up to date, then tell it to campaign at once (TimeoutNow).
   * Given up after an election timeout. Returns why it cannot start, or null.
   */
  transferLeadership(now: LocalUs, to: NodeId): string | null {
    const s = this.st;
    if (s.role !== "leader") return `${this.id} is not the leader`;
    if (to === this.id) return `${to} is already the leader`;
    if (!this.peers.includes(to)) return `${to} is not a voter`;
    if (s.transferee === to) return null;
    if (s.transferee !== null) this.abortTransfer(`leadership goes to ${to} instead`);
    s.transferee = to;
    s.transferSent = false;
    s.transferDeadline = now + this.cfg.electionTimeoutMinUs;
    s.events.push({ type: "transfer", to, phase: "started", reason: `catching ${to} up` });
    if (this.pr(to).match === this.lastIndex) this.sendTimeoutNow(to);
    else this.sendAppend(to);
    return null;
  }

  /** The server leadership is being handed to, or null. */
  get transferee(): NodeId | null {
    return this.st.transferee;
  }

  /** The transferee's log is up to date: tell it to campaign now (once per transfer). */
  protected sendTimeoutNow(to: NodeId): void {
    const s = this.st;
    if (s.transferSent) return;
    s.transferSent = true;
    // The transferee's election skips the voters' lease check: no lease reads for the rest of this term.
    s.lease.timeoutNowSent = true;
    s.events.push({ type: "transfer", to, phase: "timeout-now", reason: `${to}'s log is up to date` });
    this.send(to, { type: "TimeoutNow", term: s.term });
  }

  private abortTransfer(why: string): void {
    const s = this.st;
    const to = s.transferee;
    if (to === null) return;
    s.transferee = null;
    s.transferSent = false;
    s.events.push({ type: "transfer", to, phase: "aborted", reason: why });
  }

  // ---- membership (dissertation 4: single-server changes) ---------------------------

  /**
   * Proposes adding or removing one server (dissertation 4.1). Refused unless this leader has
   * committed an entry of its own term (the fix for the single-server change bug found in
   * 2015: a new leader's change could otherwise race an uncommitted one of an older term),
   * and unless the previous change is committed (one at a time). Returns why not, or null.
   */
  proposeConfigChange(change: { readonly add: NodeId } | { readonly remove: NodeId }): string | null {
    const s = this.st;
    if (s.role !== "leader") return `${this.id} is not the leader`;
    if (s.transferee !== null) return `${this.id} is handing leadership to ${s.transferee}`;
    if (this.termAt(s.commitIndex) !== s.term) {
      return `${this.id} has not yet committed an entry of its term ${s.term}: a change must wait for that`;
    }
    if (s.configIndex > s.commitIndex) return `the change at index ${s.configIndex} is not committed yet: one change at a time`;
    let voters: NodeId[];
    if ("add" in change) {
      if (s.config.includes(change.add)) return `${change.add} is already a member`;
      voters = [...s.config, change.add];
    } else {
      if (!s.config.includes(change.remove)) return `${change.remove} is not a member`;
      if (s.config.length === 1) return `${change.remove} is the only member`;
      voters = s.config.filter((v) => v !== change.remove);
    }
    const at = this.propose({ type: "config", voters });
    return at === null ? `${this.id} could not append the change` : null;
  }
}
