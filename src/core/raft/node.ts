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
import type { Rng } from "../sim/rng";
import type {
  AppendEntries,
  AppendEntriesResp,
  Command,
  Entry,
  HardState,
  InstallSnapshot,
  LogStart,
  NodeEvent,
  NodeId,
  Outgoing,
  RaftConfig,
  RaftMessage,
  ReadState,
  Ready,
  RequestVote,
  RequestVoteResp,
  Role,
  Snapshot,
} from "./types";

/** The shared empty list handed out by ready() when there is nothing (never mutated). */
const NONE: readonly never[] = Object.freeze([]);

/**
 * How many appends with entries may be unacknowledged at once to one follower (etcd's
 * MaxInflightMsgs). One: the simulated network, unlike etcd's TCP streams, reorders
 * messages between two nodes, and an append that overtakes an earlier one is refused for
 * the gap, which sends the follower back to probe and its entries a second time. With one
 * append at a time, entries proposed meanwhile go out together once it is acknowledged.
 */
export const MAX_INFLIGHT_APPENDS = 1;

/**
 * A follower in "snapshot" state gets the snapshot again after this many heartbeats without
 * an answer (the message or its answer may be lost; etcd learns that from its transport).
 */
export const SNAPSHOT_RESEND_HEARTBEATS = 4;

/** Where a log that was never compacted starts. */
export const UNCOMPACTED: LogStart = Object.freeze({ index: 0, term: 0, snapshot: null });

/**
 * What the leader knows of one follower's log, after etcd-io/raft's tracker.Progress.
 *
 * - "probe": the leader does not know where the follower's log matches its own. It sends
 *   one append from `next` and waits for the answer (`probeSent`); a heartbeat re-asks
 *   with an empty append at next - 1 if the answer is slow or lost.
 * - "replicate": the follower matches up to `match` and takes entries in order. The
 *   leader sends each entry once, advancing `next` as it sends, with at most
 *   MAX_INFLIGHT_APPENDS appends unacknowledged (`inflight`). A rejection falls back to
 *   probe; a lost append shows up when a heartbeat reply says match is still behind.
 * - "snapshot": the entries the follower needs are compacted away, so it was sent the
 *   snapshot (InstallSnapshot, section 7) at `pendingSnapshot`. No appends go to it until it
 *   answers with a match at or past that index (etcd's StateSnapshot).
 */
export interface Progress {
  state: "probe" | "replicate" | "snapshot";
  /** Next index to send. In replicate it moves when entries are sent; in probe, on answers. */
  next: number;
  /** Highest index known to be replicated on the peer. */
  match: number;
  /** Probe: an append is outstanding; wait for its answer (or the next heartbeat). */
  probeSent: boolean;
  /** The last index of each unacknowledged append with entries, ascending (in probe: the probe's). */
  inflight: number[];
  /** Replicate: a heartbeat went out after the latest append, so its answer should follow that append's. */
  heartbeatAfterAppend: boolean;
  /** Heard from the peer since the last CheckQuorum round. */
  active: boolean;
  /** Local time this leader last heard from the peer (its vote, or any reply). */
  lastHeardAt: number;
  /** Snapshot: the index of the snapshot sent (0 otherwise). */
  pendingSnapshot: number;
  /** Snapshot: heartbeats since the snapshot was sent (see SNAPSHOT_RESEND_HEARTBEATS). */
  snapshotHeartbeats: number;
}

interface PendingRead {
  ctx: number;
  index: number;
  round: number;
  acks: NodeId[];
}

/** Every field is plain data so a snapshot is a cheap, explicit copy. */
export interface RaftState {
  term: number;
  votedFor: NodeId | null;
  /** log[i - logStart - 1] is the entry with index i (the log starts after logStart). */
  log: Entry[];
  /** The index of the entry before the log's first (compacted away, or 0), and its term. */
  logStart: number;
  logStartTerm: number;
  /** The latest snapshot (covers at least up to logStart; null if the log was never compacted). */
  snapshot: Snapshot | null;
  role: Role;
  leader: NodeId | null;
  commitIndex: number;
  electionDeadline: number;
  /** Local time the election timer was last started (for drawing how much of it is left). */
  electionTimerFrom: number;
  heartbeatDeadline: number;
  checkQuorumDeadline: number;
  /** Local time we last heard from a leader (or, as leader, last confirmed a quorum). */
  leaderContactAt: number;
  votes: Record<NodeId, boolean>;
  progress: Record<NodeId, Progress>;
  /** ReadIndex requests waiting for a quorum round. */
  reads: PendingRead[];
  /** Read requests that arrived before this leader committed an entry of its term. */
  readsWaitingForCommit: number[];
  readRound: number;
  /** A leadership transfer in progress: the server leadership goes to (null: none). */
  transferee: NodeId | null;
  /** Local time at which the transfer is given up (an election timeout after it started). */
  transferDeadline: number;
  /** TimeoutNow has been sent to the transferee. */
  transferSent: boolean;
  /**
   * The configuration in use (dissertation 4.1): the voters of the latest config entry in the
   * log, else of the snapshot, else the first configuration. configIndex is that entry's index
   * (the snapshot's index for a snapshot's, 0 for the first): a change is pending while it is
   * past the commit index.
   */
  config: readonly NodeId[];
  configIndex: number;
  /** The local time of the latest input (a step, a timer): for decisions made inside others. */
  lastNow: number;
  // Unreported changes (the next Ready).
  hardDirty: boolean;
  truncateFrom: number | null;
  appendFrom: number | null;
  /** A snapshot installed from the leader, for the next Ready. */
  installed: Snapshot | null;
  outbox: Outgoing[];
  readStates: ReadState[];
  events: NodeEvent[];
}

export class RaftNode {
  readonly id: NodeId;
  /** A majority of the configuration in use. */
  private quorum = 1;
  /** The configuration's other members: whom a leader replicates to and counts. */
  private peers: readonly NodeId[] = [];
  /** Whether this node is in the configuration it uses (a leader may lead one that drops it). */
  private member = true;

  private constructor(
    readonly cfg: RaftConfig,
    private readonly rng: Rng,
    private st: RaftState,
  ) {
    if (cfg.voters.length === 0) throw new Error("the first configuration needs at least one voter");
    if (cfg.electionTimeoutMinUs <= 0 || cfg.electionTimeoutMaxUs < cfg.electionTimeoutMinUs) {
      throw new Error("election timeout range must be positive and ordered");
    }
    if (cfg.heartbeatIntervalUs <= 0) throw new Error("heartbeat interval must be positive");
    this.id = cfg.id;
    this.applyConfig();
  }

  /**
   * Boots (or reboots after a crash) from persisted state only: the log after `start`, and
   * the snapshot there (whatever a snapshot covers is committed).
   */
  static boot(cfg: RaftConfig, hard: HardState, log: readonly Entry[], rng: Rng, now: number, start: LogStart = UNCOMPACTED): RaftNode {
    for (let i = 0; i < log.length; i++) {
      if ((log[i] as Entry).index !== start.index + i + 1) throw new Error(`persisted log is not contiguous at ${start.index + i + 1}`);
    }
    if (start.index > 0 && (start.snapshot === null || start.snapshot.index < start.index)) {
      throw new Error(`persisted log starts after ${start.index} without a snapshot covering it`);
    }
    const st: RaftState = {
      term: hard.term,
      votedFor: hard.votedFor,
      log: log.slice(),
      logStart: start.index,
      logStartTerm: start.term,
      snapshot: start.snapshot,
      role: "follower",
      leader: null,
      commitIndex: start.snapshot?.index ?? 0,
      electionDeadline: 0,
      electionTimerFrom: 0,
      heartbeatDeadline: 0,
      checkQuorumDeadline: 0,
      leaderContactAt: Number.NEGATIVE_INFINITY,
      votes: {},
      progress: {},
      reads: [],
      readsWaitingForCommit: [],
      readRound: 0,
      transferee: null,
      transferDeadline: 0,
      transferSent: false,
      config: cfg.voters,
      configIndex: 0,
      lastNow: now,
      hardDirty: false,
      truncateFrom: null,
      appendFrom: null,
      installed: null,
      outbox: [],
      readStates: [],
      events: [],
    };
    const node = new RaftNode(cfg, rng, st);
    node.recomputeConfig(false);
    node.resetElectionTimer(now);
    return node;
  }

  /**
   * A deep copy of the volatile and persistent state (entries are shared: they are
   * immutable). Without `copyLog` the copy's log is empty (the caller keeps it another way).
   */
  snapshotState(copyLog = true): RaftState {
    const s = this.st;
    const progress: Record<NodeId, Progress> = {};
    for (const k in s.progress) {
      const pr = s.progress[k] as Progress;
      progress[k] = { ...pr, inflight: pr.inflight.slice() };
    }
    return {
      ...s,
      log: copyLog ? s.log.slice() : [],
      votes: { ...s.votes },
      progress,
      reads: s.reads.map((r) => ({ ...r, acks: r.acks.slice() })),
      readsWaitingForCommit: s.readsWaitingForCommit.slice(),
      outbox: s.outbox.slice(),
      readStates: s.readStates.slice(),
      events: s.events.slice(),
    };
  }

  static fromState(cfg: RaftConfig, rng: Rng, st: RaftState): RaftNode {
    return new RaftNode(cfg, rng, st);
  }

  // ---- read-only views -------------------------------------------------------

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
  get lastIndex(): number {
    return this.st.logStart + this.st.log.length;
  }
  /** The entries kept, from firstIndex on (those before were compacted into the snapshot). */
  get log(): readonly Entry[] {
    return this.st.log;
  }
  /** The index of the first entry kept in the log (1 unless compacted). */
  get firstIndex(): number {
    return this.st.logStart + 1;
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
  /** The term of the entry at `index`; -1 if this log does not have it (past the end, or compacted). */
  termAt(index: number): number {
    const s = this.st;
    if (index <= 0) return 0;
    if (index === s.logStart) return s.logStartTerm;
    if (index < s.logStart) return -1;
    const e = s.log[index - s.logStart - 1];
    return e === undefined ? -1 : e.term;
  }
  entryAt(index: number): Entry | undefined {
    const s = this.st;
    return index <= s.logStart ? undefined : s.log[index - s.logStart - 1];
  }
  lastTerm(): number {
    return this.termAt(this.lastIndex);
  }

  /**
   * As leader: has a majority (this node included) answered within the last minimum
   * election timeout? A leader that cannot say yes may already have been replaced, so
   * it must not act on time-based decisions such as expiring leases.
   */
  hasQuorumContact(now: number): boolean {
    const s = this.st;
    if (s.role !== "leader") return false;
    let heard = this.member ? 1 : 0;
    for (const p of this.peers) if (now - this.pr(p).lastHeardAt < this.cfg.electionTimeoutMinUs) heard++;
    return heard >= this.quorum;
  }

  /** The next local time at which onTimer() has work to do. */
  nextDeadline(): number {
    const s = this.st;
    if (s.role !== "leader") return s.electionDeadline;
    const d = this.cfg.checkQuorum ? Math.min(s.heartbeatDeadline, s.checkQuorumDeadline) : s.heartbeatDeadline;
    return s.transferee === null ? d : Math.min(d, s.transferDeadline);
  }

  // ---- inputs ----------------------------------------------------------------

  onTimer(now: number): void {
    const s = this.st;
    s.lastNow = now;
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
  forceElectionTimeout(now: number): void {
    if (this.st.role === "leader" || !this.member) return;
    this.campaign(now, "forced timeout");
  }

  /**
   * Leadership transfer (dissertation 3.10, etcd's MsgTransferLeader): stop taking
   * proposals, bring `to`'s log up to date, then tell it to campaign at once (TimeoutNow).
   * Given up after an election timeout. Returns why it cannot start, or null.
   */
  transferLeadership(now: number, to: NodeId): string | null {
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

  /**
   * ReadIndex (Raft dissertation 6.4): remember the commit index, confirm leadership
   * with a heartbeat round, then the host serves the read once it has applied that far.
   * Returns false when this node is not the leader.
   */
  requestRead(ctx: number): boolean {
    const s = this.st;
    if (s.role !== "leader") return false;
    if (this.termAt(s.commitIndex) !== s.term) {
      s.readsWaitingForCommit.push(ctx);
      return true;
    }
    this.startRead(ctx);
    return true;
  }

  step(now: number, from: NodeId, m: RaftMessage): void {
    const s = this.st;
    s.lastNow = now;
    // Any server may talk to any other (a new one hears the leader before it knows the
    // configuration); only members' votes and acknowledgements count.
    if (from === this.id) return;

    if (m.term > s.term) {
      if (m.type === "RequestVote") {
        const inLease = this.cfg.checkQuorum && s.leader !== null && now - s.leaderContactAt < this.cfg.electionTimeoutMinUs;
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
    }
  }

  /** Takes everything the host must act on, and clears it. */
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

  // ---- elections -------------------------------------------------------------

  private campaign(now: number, why: string): void {
    if (this.cfg.preVote) this.becomePreCandidate(now, why);
    else this.becomeCandidate(now, why);
  }

  private becomePreCandidate(now: number, why: string): void {
    this.startRound(now, "precandidate", why);
    if (this.quorum === 1) this.becomeCandidate(now, "won pre-vote");
    else this.requestVotes(this.st.term + 1, true);
  }

  /** `transfer`: the leader asked us to take over (TimeoutNow), so no pre-vote, and voters may not ignore us. */
  private becomeCandidate(now: number, why: string, transfer = false): void {
    const s = this.st;
    s.term += 1;
    s.votedFor = this.id;
    s.hardDirty = true;
    this.startRound(now, "candidate", why);
    if (this.quorum === 1) this.becomeLeader(now);
    else this.requestVotes(s.term, false, transfer);
  }

  /** Starts a (pre-)election round: vote for itself, forget any leader, restart the timer. */
  private startRound(now: number, role: "precandidate" | "candidate", why: string): void {
    const s = this.st;
    s.role = role;
    s.leader = null;
    s.votes = { [this.id]: true };
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

  private becomeLeader(now: number): void {
    const s = this.st;
    s.role = "leader";
    s.leader = this.id;
    s.leaderContactAt = now;
    s.progress = {};
    for (const p of this.peers) {
      // A granted vote is contact: the voters acknowledged this leader just now.
      s.progress[p] = this.freshProgress(false, s.votes[p] === true ? now : Number.NEGATIVE_INFINITY);
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
  private becomeFollower(now: number, term: number, leader: NodeId | null, why: string): void {
    const s = this.st;
    const changed = term !== s.term || s.role !== "follower" || leader !== s.leader;
    const wasLeader = s.role === "leader";
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
  }

  private resetElectionTimer(now: number): void {
    this.st.electionTimerFrom = now;
    this.st.electionDeadline = now + this.rng.int(this.cfg.electionTimeoutMinUs, this.cfg.electionTimeoutMaxUs);
  }

  private onRequestVote(now: number, from: NodeId, m: RequestVote): void {
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
      const heardLeader = s.role === "leader" || (s.leader !== null && now - s.leaderContactAt < this.cfg.electionTimeoutMinUs);
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

  private onVoteResp(now: number, from: NodeId, m: RequestVoteResp): void {
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

  // ---- leadership transfer -----------------------------------------------------

  private sendTimeoutNow(to: NodeId): void {
    const s = this.st;
    if (s.transferSent) return;
    s.transferSent = true;
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

  /** The leader asks us to take over: campaign now, skipping the pre-vote (its leader is the one asking). */
  private onTimeoutNow(now: number, from: NodeId): void {
    const s = this.st;
    if (s.role === "leader" || !this.member) return;
    this.becomeCandidate(now, `leadership transfer from ${from}`, true);
  }

  // ---- replication -----------------------------------------------------------

  private onAppend(now: number, from: NodeId, m: AppendEntries): void {
    const s = this.st;
    if (s.role !== "follower" || s.leader !== from) this.becomeFollower(now, s.term, from, `heard leader ${from}`);
    s.leaderContactAt = now;
    this.resetElectionTimer(now);

    const reject = (conflictIndex: number, conflictTerm: number): void =>
      this.refuseAppend(from, m.prevLogIndex, conflictIndex, conflictTerm, m.readCtx);

    if (m.prevLogIndex < s.logStart) {
      // Before our snapshot: everything up to the commit index matches the leader (etcd
      // answers such an append with its commit index the same way).
      this.acceptAppend(from, s.commitIndex, m.readCtx);
      return;
    }
    // Consistency check (section 5.3), with the fast back-up hint.
    if (m.prevLogIndex > this.lastIndex) {
      reject(this.lastIndex + 1, 0);
      return;
    }
    const localPrevTerm = this.termAt(m.prevLogIndex);
    if (localPrevTerm !== m.prevLogTerm) {
      let first = m.prevLogIndex;
      while (first > 1 && this.termAt(first - 1) === localPrevTerm) first--;
      reject(first, localPrevTerm);
      return;
    }

    for (const e of m.entries) {
      if (e.index <= this.lastIndex) {
        if (this.termAt(e.index) === e.term) continue;
        if (e.index <= s.commitIndex) {
          throw new Error(`${this.id}: leader ${from} would overwrite committed entry ${e.index}`);
        }
        this.truncateLocal(e.index);
      }
      this.appendLocal([e]);
    }

    const lastNew = m.prevLogIndex + m.entries.length;
    const commit = Math.min(m.leaderCommit, lastNew);
    if (commit > s.commitIndex) this.setCommit(commit);
    this.acceptAppend(from, lastNew, m.readCtx);
  }

  /** InstallSnapshot (section 7, Figure 13) from the leader of this term, answered like an append. */
  private onSnapshot(now: number, from: NodeId, m: InstallSnapshot): void {
    const s = this.st;
    if (s.role !== "follower" || s.leader !== from) this.becomeFollower(now, s.term, from, `heard leader ${from}`);
    s.leaderContactAt = now;
    this.resetElectionTimer(now);
    const snap = m.snapshot;
    // A snapshot at or below the commit index holds nothing new (a late or repeated one).
    if (snap.index > s.commitIndex) {
      if (this.termAt(snap.index) === snap.term) {
        // Step 6: the log holds the snapshot's last entry; keep the entries after it.
        s.log = s.log.slice(snap.index - s.logStart);
        if (s.appendFrom !== null && s.appendFrom <= snap.index) s.appendFrom = s.log.length > 0 ? snap.index + 1 : null;
        if (s.truncateFrom !== null && s.truncateFrom <= snap.index) s.truncateFrom = snap.index + 1;
      } else {
        // Step 7: discard the whole log.
        s.log = [];
        s.appendFrom = null;
        s.truncateFrom = null;
      }
      s.logStart = snap.index;
      s.logStartTerm = snap.term;
      s.snapshot = snap;
      s.installed = snap;
      this.recomputeConfig(true);
      this.setCommit(snap.index);
    }
    this.acceptAppend(from, s.commitIndex, 0);
  }

  /**
   * Log compaction (section 7): the host took `snapshot` of its state machine (everything
   * applied up to the snapshot's index). Forget the entries up to `upTo`, at most that index:
   * the host may keep a few before it for followers slightly behind (etcd keeps some too).
   * The host persists the same change itself (nothing goes into the Ready).
   */
  compact(snapshot: Snapshot, upTo: number): void {
    const s = this.st;
    if (snapshot.index > s.commitIndex) throw new Error(`${this.id}: snapshot at ${snapshot.index} past the commit index ${s.commitIndex}`);
    if (snapshot.index < s.logStart || this.termAt(snapshot.index) !== snapshot.term) {
      throw new Error(`${this.id}: snapshot at ${snapshot.index} (term ${snapshot.term}) does not match the log`);
    }
    if (upTo < s.logStart || upTo > snapshot.index) throw new Error(`${this.id}: compaction to ${upTo} outside ${s.logStart}..${snapshot.index}`);
    if (s.appendFrom !== null || s.truncateFrom !== null) throw new Error(`${this.id}: compaction with unpersisted log changes`);
    if (s.snapshot === null || snapshot.index >= s.snapshot.index) s.snapshot = snapshot;
    const term = this.termAt(upTo);
    s.log = s.log.slice(upTo - s.logStart);
    s.logStart = upTo;
    s.logStartTerm = term;
  }

  private onAppendResp(now: number, from: NodeId, m: AppendEntriesResp): void {
    const s = this.st;
    if (s.role !== "leader") return;
    // A server removed from the configuration may still answer an older append.
    const pr = s.progress[from];
    if (pr === undefined) return;
    pr.active = true;
    pr.lastHeardAt = now;
    if (m.success) {
      const advanced = m.matchIndex > pr.match;
      if (advanced) pr.match = m.matchIndex;
      // The snapshot (or anything at or past it) is in: go on as after an answered probe.
      if (pr.state === "snapshot" && pr.match >= pr.pendingSnapshot) this.becomeProbe(pr, pr.match + 1);
      if (pr.state === "probe") {
        // The answer to the probe (or to anything at or after it): the logs match up to
        // matchIndex, so stream from there. A heartbeat's answer (at an older match) is not.
        if (m.matchIndex >= pr.next - 1) this.becomeReplicate(pr);
      } else {
        while (pr.inflight.length > 0 && (pr.inflight[0] as number) <= m.matchIndex) pr.inflight.shift();
      }
      if (pr.next < pr.match + 1) pr.next = pr.match + 1;
      if (advanced) this.maybeCommit();
      // Committing its own removal ends this leadership (dissertation 4.2.2).
      if (s.role !== "leader") return;
      if (s.transferee === from && pr.match === this.lastIndex) this.sendTimeoutNow(from);
      const sent = this.sendAppend(from);
      // The answer to a heartbeat sent after the latest append says the follower is still
      // behind: that append (or its answer) may be lost. Ask at next - 1 with an empty append;
      // a follower that lacks the entries refuses, and the refusal sends us back to probe,
      // which sends them again (etcd does this on MsgHeartbeatResp).
      const heartbeatAnswer = m.matchIndex === pr.match && pr.heartbeatAfterAppend;
      if (!sent && pr.state === "replicate" && heartbeatAnswer && pr.match < this.lastIndex) {
        pr.heartbeatAfterAppend = false;
        this.sendEmptyAppend(from, pr.next - 1);
      }
    } else if (this.rejectionIsCurrent(pr, m.rejectIndex)) {
      let next = m.conflictIndex;
      if (m.conflictTerm > 0) {
        // Skip the follower's whole conflicting term, unless we have that term too.
        let i = Math.min(m.rejectIndex, this.lastIndex);
        while (i > 0 && this.termAt(i) > m.conflictTerm) i--;
        if (i > 0 && this.termAt(i) === m.conflictTerm) next = i + 1;
      }
      this.becomeProbe(pr, Math.max(pr.match + 1, Math.min(next, m.rejectIndex), 1));
      this.sendAppend(from);
    }
    if (m.readCtx > 0) this.ackRead(from, m.readCtx);
  }

  /**
   * Whether a refusal of an append at prevLogIndex `rejectIndex` is news: in probe, the
   * refusal of the outstanding probe (at next - 1); in replicate, of anything past match
   * that was sent (an older refusal, at or below match, is stale).
   */
  private rejectionIsCurrent(pr: Progress, rejectIndex: number): boolean {
    if (pr.state === "snapshot") return false;
    if (pr.state === "probe") return rejectIndex === pr.next - 1;
    return rejectIndex > pr.match && rejectIndex < pr.next;
  }

  private becomeProbe(pr: Progress, next: number): void {
    pr.state = "probe";
    pr.next = next;
    pr.probeSent = false;
    pr.inflight = [];
    pr.heartbeatAfterAppend = false;
    pr.pendingSnapshot = 0;
    pr.snapshotHeartbeats = 0;
  }

  /** Section 7: the entries `to` needs are compacted away; send it the snapshot, and wait for its answer. */
  private sendSnapshot(to: NodeId, pr: Progress): void {
    const snap = this.st.snapshot;
    if (snap === null) throw new Error(`${this.id}: entries before ${this.firstIndex} compacted without a snapshot`);
    pr.state = "snapshot";
    pr.pendingSnapshot = snap.index;
    pr.snapshotHeartbeats = 0;
    pr.probeSent = false;
    pr.inflight = [];
    pr.heartbeatAfterAppend = false;
    this.send(to, { type: "InstallSnapshot", term: this.st.term, snapshot: snap });
  }

  /** The probe's entries, if they are past match, stay in flight: they will be accepted when they arrive. */
  private becomeReplicate(pr: Progress): void {
    pr.state = "replicate";
    pr.probeSent = false;
    pr.inflight = pr.inflight.filter((last) => last > pr.match);
    pr.next = (pr.inflight.length > 0 ? (pr.inflight[pr.inflight.length - 1] as number) : pr.match) + 1;
  }

  /**
   * Sends `to` the entries from next, if its progress allows: in probe, one append at a
   * time; in replicate, while the window has room. Returns whether an append went out.
   */
  private sendAppend(to: NodeId): boolean {
    const s = this.st;
    const pr = this.pr(to);
    if (pr.state === "snapshot") return false;
    if (pr.next - 1 < s.logStart) {
      this.sendSnapshot(to, pr);
      return true;
    }
    if (pr.state === "probe") {
      if (pr.probeSent) return false;
      pr.probeSent = true;
      const last = this.sendEntries(to, pr.next - 1);
      pr.inflight = last > pr.next - 1 ? [last] : [];
      return true;
    }
    if (pr.next > this.lastIndex || pr.inflight.length >= MAX_INFLIGHT_APPENDS) return false;
    const last = this.sendEntries(to, pr.next - 1);
    pr.inflight.push(last);
    pr.next = last + 1;
    pr.heartbeatAfterAppend = false;
    return true;
  }

  /** An append of the entries after `prev` (as many as one append may carry). Returns the last index sent. */
  private sendEntries(to: NodeId, prev: number): number {
    const s = this.st;
    const at = prev - s.logStart;
    const entries = prev >= this.lastIndex ? NONE : s.log.slice(at, at + this.cfg.maxEntriesPerAppend);
    this.send(to, {
      type: "AppendEntries",
      term: s.term,
      prevLogIndex: prev,
      prevLogTerm: this.termAt(prev),
      entries,
      leaderCommit: s.commitIndex,
      readCtx: s.readRound,
    });
    return prev + entries.length;
  }

  /**
   * An append with no entries: a heartbeat, or a probe. The follower caps leaderCommit at
   * prev, so it learns at most min(commitIndex, prev) (etcd's heartbeat commit).
   */
  private sendEmptyAppend(to: NodeId, prev: number): void {
    const s = this.st;
    this.send(to, {
      type: "AppendEntries",
      term: s.term,
      prevLogIndex: prev,
      prevLogTerm: this.termAt(prev),
      entries: NONE,
      leaderCommit: s.commitIndex,
      readCtx: s.readRound,
    });
  }

  /**
   * Heartbeats (and ReadIndex rounds) carry no entries, so nothing in flight is sent twice.
   * In replicate a heartbeat asks at match, which the follower is known to hold, so it always
   * succeeds (and confirms a read); in probe it repeats the question of the probe (at
   * next - 1), or sends the probe if none is out.
   */
  private broadcastHeartbeat(): void {
    for (const p of this.peers) {
      const pr = this.pr(p);
      if (pr.state === "snapshot") {
        // Keep its election timer quiet; send the snapshot again if no answer came for a while.
        if (++pr.snapshotHeartbeats >= SNAPSHOT_RESEND_HEARTBEATS) this.sendSnapshot(p, pr);
        else this.sendEmptyAppend(p, this.st.logStart);
      } else if (pr.state === "replicate" && pr.next - 1 < this.st.logStart) {
        // The entries it needs next were compacted while it was behind: only the snapshot will do.
        this.sendSnapshot(p, pr);
      } else if (pr.state === "replicate") {
        if (pr.inflight.length > 0) pr.heartbeatAfterAppend = true;
        this.sendEmptyAppend(p, Math.max(pr.match, this.st.logStart));
      } else if (!this.sendAppend(p)) this.sendEmptyAppend(p, pr.next - 1);
    }
  }

  /** Figure 8: only entries of the current term are committed by counting replicas. */
  private maybeCommit(): void {
    const s = this.st;
    // A leader that is leaving the configuration does not count itself (dissertation 4.2.2).
    const matches = this.member ? [this.lastIndex] : [];
    for (const p of this.peers) matches.push(this.pr(p).match);
    matches.sort((a, b) => b - a);
    const n = matches[this.quorum - 1] as number;
    if (n > s.commitIndex && this.termAt(n) === s.term) this.setCommit(n);
  }

  private setCommit(index: number): void {
    const s = this.st;
    // Paired with the checkers' state-machine safety (and etcd's commitTo panic): every caller
    // moves the commit index strictly forward (an append, a snapshot past it, a counted quorum),
    // and never past this node's own log (a snapshot install resets the log to end at it or beyond).
    if (!(index > s.commitIndex && index <= this.lastIndex)) {
      throw new Error(
        `${this.id}: commit index would move from ${s.commitIndex} to ${index} with the log ending at ${this.lastIndex}: commit only moves forward, and never past the log`,
      );
    }
    s.commitIndex = index;
    s.events.push({ type: "commit", index });
    if (s.role === "leader" && !this.member && s.configIndex <= index) {
      // Dissertation 4.2.2: a leader removed from the configuration leads until the change is
      // committed, then steps down. Rather than leave the others to wait out an election
      // timeout, it hands over (3.10) to the member whose log goes furthest: that one holds
      // every committed entry, so it can win at once.
      let heir: NodeId | null = null;
      for (const p of this.peers) if (heir === null || this.pr(p).match > this.pr(heir).match) heir = p;
      if (heir !== null) this.send(heir, { type: "TimeoutNow", term: s.term });
      this.becomeFollower(s.lastNow, s.term, null, `removed from the cluster: the change is committed${heir === null ? "" : `; ${heir} takes over`}`);
      return;
    }
    if (s.role === "leader" && s.readsWaitingForCommit.length > 0 && this.termAt(index) === s.term) {
      const waiting = s.readsWaitingForCommit;
      s.readsWaitingForCommit = [];
      for (const ctx of waiting) this.startRead(ctx);
    }
  }

  private appendLocal(entries: readonly Entry[]): void {
    const s = this.st;
    for (const e of entries) {
      if (e.index !== this.lastIndex + 1) throw new Error(`${this.id}: append of ${e.index} after ${this.lastIndex}`);
      s.log.push(e);
      if (s.appendFrom === null || e.index < s.appendFrom) s.appendFrom = e.index;
      if (e.cmd.type === "config") this.setConfig(e.cmd.voters, e.index);
    }
  }

  private truncateLocal(from: number): void {
    const s = this.st;
    if (from <= s.logStart) throw new Error(`${this.id}: truncation at ${from} inside the snapshot (up to ${s.logStart})`);
    s.log.length = from - 1 - s.logStart;
    if (s.truncateFrom === null || from < s.truncateFrom) s.truncateFrom = from;
    if (s.appendFrom !== null && s.appendFrom >= from) s.appendFrom = null;
    // An uncommitted configuration change that is cut off is undone (dissertation 4.1).
    if (s.configIndex >= from) this.recomputeConfig(true);
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

  /** The configuration as of `index` (the latest config entry at or before it). */
  configAt(index: number): readonly NodeId[] {
    const s = this.st;
    for (let i = Math.min(index, this.lastIndex); i > s.logStart; i--) {
      const e = s.log[i - s.logStart - 1] as Entry;
      if (e.cmd.type === "config") return e.cmd.voters;
    }
    return s.snapshot?.voters ?? this.cfg.voters;
  }

  /** A config entry was appended: it takes effect at once, committed or not (dissertation 4.1). */
  private setConfig(voters: readonly NodeId[], index: number, report = true): void {
    const s = this.st;
    const changed = voters.length !== s.config.length || voters.some((v, i) => s.config[i] !== v);
    s.config = voters;
    s.configIndex = index;
    if (!changed) return;
    this.applyConfig();
    if (report) s.events.push({ type: "config", voters, index });
  }

  /** The configuration from the log, else the snapshot, else the first one. */
  private recomputeConfig(report: boolean): void {
    const s = this.st;
    for (let i = s.log.length - 1; i >= 0; i--) {
      const e = s.log[i] as Entry;
      if (e.cmd.type === "config") {
        this.setConfig(e.cmd.voters, e.index, report);
        return;
      }
    }
    const snap = s.snapshot;
    if (snap !== null && snap.index >= s.logStart) this.setConfig(snap.voters, snap.index, report);
    else this.setConfig(this.cfg.voters, 0, report);
  }

  /** Derives quorum, peers and membership from st.config; a leader follows with its progress. */
  private applyConfig(): void {
    const s = this.st;
    const config = s.config;
    this.member = config.includes(this.id);
    this.peers = config.filter((v) => v !== this.id);
    this.quorum = Math.floor(config.length / 2) + 1;
    if (s.role !== "leader") return;
    for (const p of Object.keys(s.progress)) if (!this.peers.includes(p)) delete s.progress[p];
    for (const p of this.peers) {
      if (s.progress[p] !== undefined) continue;
      // A server joining: probe it from our end; the answers walk back to where its log matches.
      s.progress[p] = this.freshProgress(true, s.lastNow);
    }
  }

  // ---- ReadIndex -------------------------------------------------------------

  private startRead(ctx: number): void {
    const s = this.st;
    if (this.quorum === 1) {
      s.readStates.push({ ctx, index: s.commitIndex });
      return;
    }
    s.readRound += 1;
    s.reads.push({ ctx, index: s.commitIndex, round: s.readRound, acks: [this.id] });
    this.broadcastHeartbeat();
  }

  private ackRead(from: NodeId, round: number): void {
    const s = this.st;
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

  // ---- helpers ---------------------------------------------------------------

  private pr(peer: NodeId): Progress {
    const pr = this.st.progress[peer];
    if (pr === undefined) throw new Error(`${this.id}: no progress for ${peer}`);
    return pr;
  }

  /** What a leader knows of a follower it starts with: nothing, so it probes from its own log's end. */
  private freshProgress(active: boolean, lastHeardAt: number): Progress {
    return {
      state: "probe",
      next: this.lastIndex + 1,
      match: 0,
      probeSent: false,
      inflight: [],
      heartbeatAfterAppend: false,
      active,
      lastHeardAt,
      pendingSnapshot: 0,
      snapshotHeartbeats: 0,
    };
  }

  /** An append (or a snapshot, answered the same way) matched: our log matches the leader's up to matchIndex. */
  private acceptAppend(to: NodeId, matchIndex: number, readCtx: number): void {
    this.send(to, {
      type: "AppendEntriesResp",
      term: this.st.term,
      success: true,
      matchIndex,
      rejectIndex: 0,
      conflictIndex: 0,
      conflictTerm: 0,
      readCtx,
    });
  }

  /** An append refused at prevLogIndex `rejectIndex`, with the fast back-up hint (section 5.3). */
  private refuseAppend(to: NodeId, rejectIndex: number, conflictIndex: number, conflictTerm: number, readCtx: number): void {
    this.send(to, {
      type: "AppendEntriesResp",
      term: this.st.term,
      success: false,
      matchIndex: 0,
      rejectIndex,
      conflictIndex,
      conflictTerm,
      readCtx,
    });
  }

  private send(to: NodeId, msg: RaftMessage): void {
    this.st.outbox.push({ to, msg });
  }
}
