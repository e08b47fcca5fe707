/**
 * Log replication (Raft paper, section 5.3; section 7 for snapshots). The leader's side: what
 * it sends each follower, as that follower's progress allows (progress.ts), what it makes of
 * the answers, and when entries are committed. The follower's side: the consistency check,
 * appends and truncations, an installed snapshot, and the answers.
 */
import type { LocalUs } from "../sim/time";
import { ElectionNode } from "./election";
import {
  becomeProbe,
  becomeReplicate,
  becomeSnapshot,
  MAX_INFLIGHT_APPENDS,
  type Progress,
  rejectionIsCurrent,
  SNAPSHOT_RESEND_HEARTBEATS,
} from "./progress";
import { NONE } from "./state";
import type { AppendEntries, AppendEntriesResp, InstallSnapshot, NodeId } from "./types";

/** What an append carries for read leases (leases.ts); empty while they are off. */
export type LeaseNews = Pick<AppendEntries, "visible" | "grant">;
/** What an append's answer carries for read leases; empty while they are off. */
export type LeaseAsk = Pick<AppendEntriesResp, "leaseAsk" | "applied">;

export abstract class ReplicatingNode extends ElectionNode {
  /** ReadIndex (node.ts): start a read's heartbeat round. */
  protected abstract startRead(ctx: number): void;
  /** ReadIndex (node.ts): `from` answered the heartbeat round `round` (or a later one). */
  protected abstract ackRead(from: NodeId, round: number): void;
  /** Leadership transfer (node.ts): the transferee is up to date; tell it to campaign. */
  protected abstract sendTimeoutNow(to: NodeId): void;
  /** Read leases (node.ts): what an append to `to` carries (the visible index, a grant). */
  protected abstract leaseNews(to: NodeId): LeaseNews;
  /** Read leases (node.ts): what an answer to the leader carries (an ask, the applied index). */
  protected abstract leaseAsk(): LeaseAsk;
  /** Read leases (node.ts): the leader reads an answer's ask and applied index. */
  protected abstract onLeaseAnswer(now: LocalUs, from: NodeId, m: AppendEntriesResp): void;
  /** Read leases (node.ts): the follower reads an append's visible index and grant. */
  protected abstract onLeaseNews(now: LocalUs, from: NodeId, m: AppendEntries): void;

  // ---- the leader's side -------------------------------------------------------

  /**
   * Sends `to` the entries from next, if its progress allows: in probe, one append at a
   * time; in replicate, while the window has room. Returns whether an append went out.
   */
  protected sendAppend(to: NodeId): boolean {
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

  /** Section 7: the entries `to` needs are compacted away; send it the snapshot, and wait for its answer. */
  private sendSnapshot(to: NodeId, pr: Progress): void {
    const snap = this.st.snapshot;
    if (snap === null) throw new Error(`${this.id}: entries before ${this.firstIndex} compacted without a snapshot`);
    becomeSnapshot(pr, snap.index);
    this.send(to, { type: "InstallSnapshot", term: this.st.term, snapshot: snap });
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
      ...this.leaseNews(to),
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
      ...this.leaseNews(to),
    });
  }

  /** An empty append to `to` now, to carry news (a commit, a grant), unless it waits for a snapshot. */
  protected sendNews(to: NodeId): void {
    const pr = this.st.progress[to];
    if (pr === undefined || pr.state === "snapshot") return;
    const prev = pr.state === "replicate" ? Math.max(pr.match, this.st.logStart) : pr.next - 1;
    if (prev < this.st.logStart) return;
    this.sendEmptyAppend(to, prev);
  }

  /**
   * Heartbeats (and ReadIndex rounds) carry no entries, so nothing in flight is sent twice.
   * In replicate a heartbeat asks at match, which the follower is known to hold, so it always
   * succeeds (and confirms a read); in probe it repeats the question of the probe (at
   * next - 1), or sends the probe if none is out.
   */
  protected broadcastHeartbeat(): void {
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

  protected onAppendResp(now: LocalUs, from: NodeId, m: AppendEntriesResp): void {
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
      if (pr.state === "snapshot" && pr.match >= pr.pendingSnapshot) becomeProbe(pr, pr.match + 1);
      if (pr.state === "probe") {
        // The answer to the probe (or to anything at or after it): the logs match up to
        // matchIndex, so stream from there. A heartbeat's answer (at an older match) is not.
        if (m.matchIndex >= pr.next - 1) becomeReplicate(pr);
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
    } else if (rejectionIsCurrent(pr, m.rejectIndex)) {
      let next = m.conflictIndex;
      if (m.conflictTerm > 0) {
        // Skip the follower's whole conflicting term, unless we have that term too.
        let i = Math.min(m.rejectIndex, this.lastIndex);
        while (i > 0 && this.termAt(i) > m.conflictTerm) i--;
        if (i > 0 && this.termAt(i) === m.conflictTerm) next = i + 1;
      }
      becomeProbe(pr, Math.max(pr.match + 1, Math.min(next, m.rejectIndex), 1));
      this.sendAppend(from);
    }
    if (m.readCtx > 0) this.ackRead(from, m.readCtx);
    if (s.role === "leader") this.onLeaseAnswer(now, from, m);
  }

  /** Figure 8: only entries of the current term are committed by counting replicas. */
  protected maybeCommit(): void {
    const s = this.st;
    // A leader that is leaving the configuration does not count itself (dissertation 4.2.2).
    const matches = MATCHES;
    matches.length = 0;
    if (this.member) matches.push(this.lastIndex);
    for (const p of this.peers) matches.push(this.pr(p).match);
    const n = kthLargest(matches, this.quorum);
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

  // ---- the follower's side -----------------------------------------------------

  protected onAppend(now: LocalUs, from: NodeId, m: AppendEntries): void {
    const s = this.st;
    if (s.role !== "follower" || s.leader !== from) this.becomeFollower(now, s.term, from, `heard leader ${from}`);
    s.leaderContactAt = now;
    this.resetElectionTimer(now);
    this.onLeaseNews(now, from, m);

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
  protected onSnapshot(now: LocalUs, from: NodeId, m: InstallSnapshot): void {
    const s = this.st;
    if (s.role !== "follower" || s.leader !== from) this.becomeFollower(now, s.term, from, `heard leader ${from}`);
    s.leaderContactAt = now;
    this.resetElectionTimer(now);
    const snap = m.snapshot;
    // A snapshot at or below the commit index holds nothing new (a late or repeated one).
    if (snap.index > s.commitIndex) {
      this.installSnapshot(snap);
      this.setCommit(snap.index);
    }
    this.acceptAppend(from, s.commitIndex, 0);
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
      ...this.leaseAsk(),
    });
  }

  /** An append refused at prevLogIndex `rejectIndex`, with the fast back-up hint (section 5.3). */
  protected refuseAppend(to: NodeId, rejectIndex: number, conflictIndex: number, conflictTerm: number, readCtx: number): void {
    this.send(to, {
      type: "AppendEntriesResp",
      term: this.st.term,
      success: false,
      matchIndex: 0,
      rejectIndex,
      conflictIndex,
      conflictTerm,
      readCtx,
      ...this.leaseAsk(),
    });
  }
}

/** Scratch space for maybeCommit's match indexes (filled and read within one call). */
const MATCHES: number[] = [];

/** The k-th largest of `a` (undefined when it has fewer), sorting it in place, descending, without allocating. */
function kthLargest(a: number[], k: number): number {
  for (let i = 1; i < a.length; i++) {
    const x = a[i] as number;
    let j = i - 1;
    while (j >= 0 && (a[j] as number) < x) {
      a[j + 1] = a[j] as number;
      j--;
    }
    a[j + 1] = x;
  }
  return a[k - 1] as number;
}
