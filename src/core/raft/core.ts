/**
 * What every part of a Raft node stands on: its settings, its state, the configuration in
 * use (dissertation 4.1) and its log (appends, truncations, compaction, an installed snapshot).
 *
 * The node is built in layers, each a file: NodeCore; the elections (election.ts); the
 * replication of the log (replication.ts); and RaftNode (node.ts), the public face: its
 * inputs, its Ready and its views. Each layer uses those below it; the few steps a lower
 * layer needs from a higher one are declared abstract where it needs them.
 */
import type { Rng } from "../sim/rng";
import { freshProgress, type Progress } from "./progress";
import type { RaftState } from "./state";
import type { Entry, NodeId, RaftConfig, RaftMessage, Snapshot } from "./types";

export abstract class NodeCore {
  readonly id: NodeId;
  /** A majority of the configuration in use. */
  protected quorum = 1;
  /** The configuration's other members: whom a leader replicates to and counts. */
  protected peers: readonly NodeId[] = [];
  /** Whether this node is in the configuration it uses (a leader may lead one that drops it). */
  protected member = true;

  protected constructor(
    readonly cfg: RaftConfig,
    protected readonly rng: Rng,
    protected readonly st: RaftState,
  ) {
    if (cfg.voters.length === 0) throw new Error("the first configuration needs at least one voter");
    if (cfg.electionTimeoutMinUs <= 0 || cfg.electionTimeoutMaxUs < cfg.electionTimeoutMinUs) {
      throw new Error("election timeout range must be positive and ordered");
    }
    if (cfg.heartbeatIntervalUs <= 0) throw new Error("heartbeat interval must be positive");
    this.id = cfg.id;
    this.applyConfig();
  }

  // ---- the log ---------------------------------------------------------------

  get lastIndex(): number {
    return this.st.logStart + this.st.log.length;
  }
  /** The index of the first entry kept in the log (1 unless compacted). */
  get firstIndex(): number {
    return this.st.logStart + 1;
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

  protected appendLocal(entries: readonly Entry[]): void {
    const s = this.st;
    for (const e of entries) {
      if (e.index !== this.lastIndex + 1) throw new Error(`${this.id}: append of ${e.index} after ${this.lastIndex}`);
      s.log.push(e);
      if (s.appendFrom === null || e.index < s.appendFrom) s.appendFrom = e.index;
      if (e.cmd.type === "config") this.setConfig(e.cmd.voters, e.index);
    }
  }

  protected truncateLocal(from: number): void {
    const s = this.st;
    if (from <= s.logStart) throw new Error(`${this.id}: truncation at ${from} inside the snapshot (up to ${s.logStart})`);
    s.log.length = from - 1 - s.logStart;
    if (s.truncateFrom === null || from < s.truncateFrom) s.truncateFrom = from;
    if (s.appendFrom !== null && s.appendFrom >= from) s.appendFrom = null;
    // An uncommitted configuration change that is cut off is undone (dissertation 4.1).
    if (s.configIndex >= from) this.recomputeConfig(true);
  }

  /**
   * InstallSnapshot (section 7, Figure 13): the leader's snapshot, past the commit index,
   * replaces the log up to its index, and its configuration may be the one in use. (The
   * caller moves the commit index to it.)
   */
  protected installSnapshot(snap: Snapshot): void {
    const s = this.st;
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

  // ---- the configuration in use (dissertation 4.1) -----------------------------

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
  protected setConfig(voters: readonly NodeId[], index: number, report = true): void {
    const s = this.st;
    const changed = voters.length !== s.config.length || voters.some((v, i) => s.config[i] !== v);
    s.config = voters;
    s.configIndex = index;
    if (!changed) return;
    this.applyConfig();
    if (report) s.events.push({ type: "config", voters, index });
  }

  /** The configuration from the log, else the snapshot, else the first one. */
  protected recomputeConfig(report: boolean): void {
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
  protected applyConfig(): void {
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
      s.progress[p] = freshProgress(this.lastIndex + 1, true, s.lastNow);
    }
  }

  // ---- helpers ---------------------------------------------------------------

  protected pr(peer: NodeId): Progress {
    const pr = this.st.progress[peer];
    if (pr === undefined) throw new Error(`${this.id}: no progress for ${peer}`);
    return pr;
  }

  protected send(to: NodeId, msg: RaftMessage): void {
    this.st.outbox.push({ to, msg });
  }
}
