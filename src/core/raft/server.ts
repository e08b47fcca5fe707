/**
 * The host of one Raft node inside the simulator: it owns the node's simulated
 * disk, drives the sans-IO node (persist, then send, then apply), applies
 * committed entries to the Consistent Core's state machine (keys and leases),
 * answers clients, and, while leader, runs the lease tracker.
 */
import type { ClientRead, ClientReply, ClientWrite } from "../kv/messages";
import { type CoreSnapshotData, CoreStateMachine, snapshotDigest } from "../kv/statemachine";
import type { LeaseEffect } from "../lease/table";
import { LeaseTracker, type TrackerEvent } from "../lease/tracker";
import type { LeaseQuery, LeaseRefresh, LeaseRefreshReply, LeaseServerSettings } from "../lease/types";
import type { ProcessContext, ProcessLogic } from "../sim/process";
import { type Chunks, chunksOf, NO_CHUNKS, unchunk } from "../sim/cow";
import { Rng } from "../sim/rng";
import type { Payload, ProcId } from "../sim/trace";
import { RaftNode, UNCOMPACTED } from "./node";
import { NONE } from "./state";
import type { Entry, HardState, KvQuery, LogStart, NodeId, RaftConfig, RaftMessage, Ready, Snapshot } from "./types";
import { type HeldAnswer, releaseHeld } from "./visible";

/** What survives a crash: the hard state, the latest snapshot, and the log after it. */
export interface Disk {
  hard: HardState;
  /** Where the log starts (the entry before its first), and the snapshot covering up to there (Raft paper section 7). */
  start: LogStart;
  /** log[i - start.index - 1] is the entry with index i (use diskEntry). */
  log: Entry[];
}

/** A fresh, empty disk. */
export function emptyDisk(): Disk {
  return { hard: { term: 0, votedFor: null }, start: UNCOMPACTED, log: [] };
}

/** The persisted entry at `index`, if the disk holds it (not compacted, not past the end). */
export function diskEntry(d: Disk, index: number): Entry | undefined {
  return index <= d.start.index ? undefined : d.log[index - d.start.index - 1];
}

/** The index of the last persisted entry (the snapshot's, if the log after it is empty). */
export function diskLastIndex(d: Disk): number {
  return d.start.index + d.log.length;
}

function diskTermAt(d: Disk, index: number): number {
  return index === d.start.index ? d.start.term : (diskEntry(d, index)?.term ?? -1);
}

/**
 * Log compaction (Raft paper section 7, dissertation chapter 5): every node snapshots its
 * state machine on its own once it has applied `everyEntries` entries past its latest
 * snapshot (0: never), and keeps the last `keepEntries` entries before the snapshot's index
 * so followers just behind still get appends rather than the whole snapshot.
 */
export interface CompactionSettings {
  readonly everyEntries: number;
  readonly keepEntries: number;
}

const NO_COMPACTION: CompactionSettings = { everyEntries: 0, keepEntries: 0 };

interface PendingWrite {
  readonly client: ProcId;
  readonly clientId: string;
  readonly seq: number;
  readonly term: number;
}

interface PendingRead {
  readonly client: ProcId;
  readonly seq: number;
  readonly query: KvQuery | LeaseQuery;
  /** Set once the leadership round confirmed it: serve when applied this far. */
  index: number | null;
}

interface Volatile {
  node: RaftNode;
  sm: CoreStateMachine;
  /** The lease tracker: present exactly while this node is leader. */
  tracker: LeaseTracker | null;
  lastApplied: number;
  /** Proposed client writes by log index. */
  writes: Map<number, PendingWrite>;
  reads: Map<number, PendingRead>;
  nextReadCtx: number;
  /** Refresh answers held back until the checkpoint proposed for them (by log index) is applied. */
  refreshes: Map<number, { readonly to: ProcId; readonly reply: LeaseRefreshReply }>;
  /** Read leases: answers held until what they show is visible (visible.ts). */
  held: HeldAnswer[];
}

export function isRaftMessage(p: Payload): p is RaftMessage {
  return (
    p.type === "RequestVote" ||
    p.type === "RequestVoteResp" ||
    p.type === "AppendEntries" ||
    p.type === "AppendEntriesResp" ||
    p.type === "TimeoutNow" ||
    p.type === "InstallSnapshot"
  );
}

export interface ServerConfig {
  readonly raft: RaftConfig;
  readonly lease: LeaseServerSettings;
  /** Absent: no compaction. */
  readonly compaction?: CompactionSettings;
}

export class RaftServer implements ProcessLogic {
  readonly kind = "node" as const;

  readonly cfg: RaftConfig;

  constructor(
    readonly config: ServerConfig,
    private readonly rng: Rng,
    readonly disk: Disk = emptyDisk(),
    private v: Volatile | null = null,
  ) {
    this.cfg = config.raft;
  }

  get id(): NodeId {
    return this.cfg.id;
  }
  /** The running node, or null while crashed. */
  get node(): RaftNode | null {
    return this.v?.node ?? null;
  }
  get stateMachine(): CoreStateMachine | null {
    return this.v?.sm ?? null;
  }
  get lastApplied(): number {
    return this.v?.lastApplied ?? 0;
  }
  /** The indexes of the answers held back for read-lease holders (visible.ts), oldest first; read-only, for the views. */
  get heldIndexes(): readonly number[] {
    return this.v?.held.map((h) => h.index) ?? [];
  }
  /** The leader's lease tracker (null unless this node is a running leader). */
  get tracker(): LeaseTracker | null {
    return this.v?.tracker ?? null;
  }

  /** A deep copy, with its own copy of the node's random stream. (A frozen copy becomes a running one again.) */
  clone(): RaftServer {
    const fz = this.frozen;
    const out =
      fz === null ? this.copy(this.disk.log.slice(), "copy") : this.copy(unchunk(fz.disk), fz.node === null ? [] : unchunk(fz.node));
    // Its next frozen copy shares chunks with the one it came from.
    out.chunks = fz === null ? this.chunks : fz.disk;
    return out;
  }

  /** The first index of the disk log and of the node's log (chunksOf aligns chunks by index). */
  private get diskFirst(): number {
    return this.disk.start.index + 1;
  }
  private get nodeFirst(): number {
    return this.v === null ? 1 : this.v.node.firstIndex;
  }

  /**
   * A copy to keep in a snapshot: the logs (which only grow, and are the bulk of a
   * server) are kept in chunks (chunksOf), and a chunk whose entries are the same objects
   * as in this server's previous frozen copy is that very chunk. Snapshots
   * of a long run then share their logs instead of each holding two copies of them.
   * Only clone() may be called on it.
   */
  freeze(): RaftServer {
    // The snapshots (disk.start, the node's) are immutable: the copy shares them.
    const disk = chunksOf(this.disk.log, this.chunks, this.diskFirst);
    // The node's log holds the same entries as the disk's: its chunks are the disk's.
    const node = this.v === null ? null : chunksOf(this.v.node.log, disk, this.nodeFirst);
    this.chunks = disk;
    const out = this.copy([], []);
    out.frozen = { disk, node };
    return out;
  }

  /** Set on a frozen copy (freeze): its logs, in chunks. */
  private frozen: { readonly disk: Chunks<Entry>; readonly node: Chunks<Entry> | null } | null = null;
  /** The chunks of the last frozen copy in this server's line, to share with the next one. */
  private chunks: Chunks<Entry> = NO_CHUNKS;

  /** A copy with the given disk log, and the given node log (or a copy of the node's own). */
  private copy(diskLog: Entry[], nodeLog: Entry[] | "copy"): RaftServer {
    const rng = Rng.restore(this.rng.snapshot());
    const disk: Disk = { hard: this.disk.hard, start: this.disk.start, log: diskLog };
    const v = this.v;
    if (v === null) return new RaftServer(this.config, rng, disk, null);
    const reads = new Map<number, PendingRead>();
    for (const [k, r] of v.reads) reads.set(k, { ...r });
    return new RaftServer(this.config, rng, disk, {
      node: RaftNode.fromState(
        this.cfg,
        rng,
        nodeLog === "copy" ? v.node.snapshotState() : { ...v.node.snapshotState(false), log: nodeLog },
      ),
      sm: v.sm.clone(),
      tracker: v.tracker?.clone() ?? null,
      lastApplied: v.lastApplied,
      writes: new Map(v.writes),
      reads,
      nextReadCtx: v.nextReadCtx,
      refreshes: new Map(v.refreshes),
      held: v.held.slice(),
    });
  }

  start(ctx: ProcessContext): void {
    // Section 7: a restarted node starts from its snapshot, then applies the log after it.
    const snap = this.disk.start.snapshot;
    this.v = {
      node: RaftNode.boot(this.cfg, this.disk.hard, this.disk.log, this.rng, ctx.now, this.disk.start),
      sm: snap === null ? CoreStateMachine.empty(this.config.lease) : CoreStateMachine.fromSnapshot(this.config.lease, snap.data as CoreSnapshotData),
      tracker: null,
      lastApplied: snap?.index ?? 0,
      writes: new Map(),
      reads: new Map(),
      nextReadCtx: 1,
      refreshes: new Map(),
      held: [],
    };
    this.handleReady(ctx);
  }

  crash(): void {
    this.v = null;
  }

  nextDeadline(): number | null {
    const v = this.v;
    if (v === null) return null;
    const d = v.node.nextDeadline();
    return v.tracker === null ? d : Math.min(d, v.tracker.nextDeadline());
  }

  onTimer(ctx: ProcessContext): void {
    const v = this.v;
    if (v === null) return;
    v.node.onTimer(ctx.now);
    if (v.tracker !== null && v.node.role === "leader") {
      const events: TrackerEvent[] = [];
      // A leader handing over proposes nothing: it decides no expiry (the next leader will).
      const ops = v.tracker.due(ctx.now, v.node.hasQuorumContact(ctx.now) && v.node.transferee === null, events);
      this.emitTracker(ctx, events);
      for (const op of ops) v.node.propose({ type: "system", op });
    }
    this.handleReady(ctx);
  }

  /** Proposes a single-server configuration change (dissertation 4). Returns why it cannot, or null once proposed. */
  changeConfig(ctx: ProcessContext, change: { readonly add: NodeId } | { readonly remove: NodeId }): string | null {
    if (this.v === null) return `${this.id} is down`;
    const why = this.v.node.proposeConfigChange(change);
    this.handleReady(ctx);
    return why;
  }

  /** Hands leadership to `to` (dissertation 3.10). Returns why it cannot, or null once started. */
  transferLeadership(ctx: ProcessContext, to: NodeId): string | null {
    if (this.v === null) return `${this.id} is down`;
    const why = this.v.node.transferLeadership(ctx.now, to);
    this.handleReady(ctx);
    return why;
  }

  /** Starts an election at once (the UI's "force election timeout"). */
  forceTimeout(ctx: ProcessContext): void {
    if (this.v === null) return;
    this.v.node.forceElectionTimeout(ctx.now);
    this.handleReady(ctx);
  }

  onMessage(ctx: ProcessContext, from: ProcId, p: Payload): void {
    const v = this.v;
    if (v === null) return;
    if (isRaftMessage(p)) v.node.step(ctx.now, from, p);
    else if (p.type === "ClientWrite") this.onWrite(ctx, v, from, p);
    else if (p.type === "ClientRead") this.onRead(ctx, v, from, p);
    else if (p.type === "LeaseRefresh") this.onRefresh(ctx, v, from, p);
    this.handleReady(ctx);
  }

  /** Refreshes go to the leader only and are answered from its tracker: nothing is replicated. */
  private onRefresh(ctx: ProcessContext, v: Volatile, from: ProcId, m: LeaseRefresh): void {
    // Replies are built field by field, in one order: an object spread here cost a tenth of a
    // 100-holder run. (The field order is the one the spread gave: the trace is unchanged.)
    const type = "LeaseRefreshReply" as const;
    if (v.node.role !== "leader" || v.tracker === null) {
      ctx.send(from, { type, reqId: m.reqId, name: m.name, ok: false, reason: "not-leader", leaderHint: v.node.redirect });
      return;
    }
    if (v.node.termAt(v.lastApplied) !== v.node.term) {
      // A new leader that has not applied its own first entry may not know every lease yet:
      // "try again" rather than "unknown lease", which would make a healthy holder give up.
      ctx.send(from, { type, reqId: m.reqId, name: m.name, ok: false, reason: "not-leader", leaderHint: null });
      return;
    }
    const s = this.config.lease;
    const poolFull = s.poolSize > 0 && v.sm.leases.heldCount >= s.poolSize;
    const events: TrackerEvent[] = [];
    const out = v.tracker.refresh(ctx.now, m.name, m.holder, m.token, poolFull, events);
    this.emitTracker(ctx, events);
    if (!out.ok) {
      ctx.send(from, { type, reqId: m.reqId, name: m.name, ok: false, reason: out.reason, leaderHint: null });
      return;
    }
    const reply: LeaseRefreshReply = { type, reqId: m.reqId, name: m.name, ok: true, ttlMs: out.ttlMs };
    const held = s.checkpoint ? v.sm.leases.info(m.name) : null;
    if (held != null && held.checkpointRemainingMs !== null) {
      // etcd (lessor.Renew): a renewal of a checkpointed lease first replaces the checkpoint,
      // and is answered once that is applied. Otherwise a new leader would resume from the
      // stale checkpoint and expire the lease before the holder's renewed deadline.
      const op = { type: "checkpoint" as const, leases: [{ name: m.name, token: m.token, grantIndex: held.grantIndex, remainingMs: out.ttlMs }] };
      const at = v.node.propose({ type: "system", op });
      if (at !== null) v.refreshes.set(at.index, { to: from, reply });
      else ctx.send(from, { type, reqId: m.reqId, name: m.name, ok: false, reason: "not-leader", leaderHint: v.node.transferee });
      return;
    }
    ctx.send(from, reply);
  }

  private emitTracker(ctx: ProcessContext, events: readonly TrackerEvent[]): void {
    for (const e of events) ctx.emit({ kind: "lease", ...e });
  }

  private onWrite(ctx: ProcessContext, v: Volatile, from: ProcId, m: ClientWrite): void {
    if (v.node.role !== "leader") {
      this.reply(ctx, from, { type: "ClientReply", seq: m.seq, ok: false, leaderHint: v.node.redirect });
      return;
    }
    const cached = v.sm.cached(m.clientId, m.seq);
    if (cached !== null) {
      // Its index is at most what is applied: with read leases, answered once that is visible.
      if (cached.kind === "duplicate") this.answer(ctx, v, from, { type: "ClientReply", seq: m.seq, ok: true, result: cached.result }, v.lastApplied);
      return;
    }
    for (const w of v.writes.values()) {
      if (w.clientId === m.clientId && w.seq === m.seq) return; // already in the log, awaiting commit
    }
    const at = v.node.propose({ type: "client", clientId: m.clientId, seq: m.seq, op: m.op });
    if (at !== null) v.writes.set(at.index, { client: from, clientId: m.clientId, seq: m.seq, term: at.term });
    // Handing leadership over: point the client at the next leader.
    else this.reply(ctx, from, { type: "ClientReply", seq: m.seq, ok: false, leaderHint: v.node.transferee });
  }

  private onRead(ctx: ProcessContext, v: Volatile, from: ProcId, m: ClientRead): void {
    const floor = m.query.type === "get" ? v.node.localReadFloor(ctx.now) : null;
    if (floor !== null && v.lastApplied >= floor) {
      // A follower holding a read lease answers from its own state (rules 2 and 5, leases.ts).
      ctx.emit({ kind: "lease-read", via: "local", client: from, seq: m.seq, index: v.lastApplied });
      this.answer(ctx, v, from, { type: "ClientReply", seq: m.seq, ok: true, result: v.sm.query(m.query, () => null) }, v.lastApplied);
      return;
    }
    const readCtx = v.nextReadCtx++;
    if (!v.node.requestRead(readCtx, ctx.now)) {
      this.reply(ctx, from, { type: "ClientReply", seq: m.seq, ok: false, leaderHint: v.node.redirect });
      return;
    }
    v.reads.set(readCtx, { client: from, seq: m.seq, query: m.query, index: null });
  }

  private reply(ctx: ProcessContext, to: ProcId, r: ClientReply): void {
    ctx.send(to, r);
  }

  /** An answer showing the state at `index`: sent now, or with read leases held until that index is visible. */
  private answer(ctx: ProcessContext, v: Volatile, to: ProcId, r: ClientReply, index: number, write = false): void {
    const node = v.node;
    if (!node.readLeases || index <= node.visibleIndex(ctx.now)) {
      this.reply(ctx, to, r);
      return;
    }
    v.held.push({ to, reply: r, index, term: node.term, role: node.role });
    if (write && node.role === "leader") {
      const waitingOn = node.readLeaseHolders(ctx.now).flatMap((h) => (h.applied < index ? [h.peer] : []));
      ctx.emit({ kind: "write-wait", index, waitingOn });
    }
  }

  /** Persist, then send, then apply: the order Raft requires. */
  private handleReady(ctx: ProcessContext): void {
    const v = this.v;
    if (v === null) return;
    // Nothing to persist, send or report (a refresh answered from the tracker): no Ready at all.
    const rd = v.node.hasReady ? v.node.ready() : null;
    if (rd !== null) this.persistAndSend(ctx, rd);

    if (rd !== null && rd.snapshot !== null) this.loadSnapshot(ctx, v, rd.snapshot);
    this.applyCommitted(ctx, v, rd === null ? v.node.commitIndex : rd.commitIndex);
    this.maybeSnapshot(ctx, v);

    // The tracker lives as long as leadership, from the moment the new leader has applied
    // an entry of its own term: then it has applied every entry committed before its term
    // (grants, expiries, checkpoints), and starts from all of it. (Until then it answers
    // refreshes "try again", and it could not expire anything.) Leases granted later
    // arrive through onApplied.
    if (v.node.role === "leader" && v.tracker === null && v.node.termAt(v.lastApplied) === v.node.term) {
      const events: TrackerEvent[] = [];
      v.tracker = LeaseTracker.promote(this.config.lease, ctx.now, v.sm.leaseList(), events);
      this.emitTracker(ctx, events);
    } else if (v.node.role !== "leader" && v.tracker !== null) {
      v.tracker = null;
    }

    const readStates = rd === null ? NONE : rd.readStates;
    for (let k = 0; k < readStates.length; k++) {
      const rs = readStates[k] as (typeof readStates)[number];
      const r = v.reads.get(rs.ctx);
      if (r === undefined) continue;
      r.index = rs.index;
      if (rs.lease === true) ctx.emit({ kind: "lease-read", via: "leader-lease", client: r.client, seq: r.seq, index: rs.index });
    }
    // (Guarded: iterating a map, even an empty one, allocates, and this runs on every message.)
    if (v.reads.size > 0) this.answerReads(ctx, v);
    if (v.held.length > 0) v.held = releaseHeld(v.held, v.node, ctx.now, (to, r) => this.reply(ctx, to, r));

    if (v.node.role !== "leader" && (v.writes.size > 0 || v.reads.size > 0)) {
      // Lost leadership: tell waiting clients to look elsewhere. Their writes may still
      // commit; a retry with the same sequence number is applied at most once.
      const hint = v.node.redirect;
      for (const w of v.writes.values()) this.reply(ctx, w.client, { type: "ClientReply", seq: w.seq, ok: false, leaderHint: hint });
      for (const r of v.reads.values()) this.reply(ctx, r.client, { type: "ClientReply", seq: r.seq, ok: false, leaderHint: hint });
      v.writes.clear();
      v.reads.clear();
    }
    if (v.node.role !== "leader" && v.refreshes.size > 0) {
      // Not renewed after all: the holder asks the new leader.
      for (const { to, reply } of v.refreshes.values()) {
        ctx.send(to, {
          type: "LeaseRefreshReply",
          reqId: reply.reqId,
          name: reply.name,
          ok: false,
          reason: "not-leader",
          leaderHint: v.node.redirect,
        });
      }
      v.refreshes.clear();
    }
  }

  /** The first half of handleReady: persist what `rd` holds, report it, and send its messages. */
  private persistAndSend(ctx: ProcessContext, rd: Ready): void {
    const disk = this.disk;

    if (rd.hardState !== null) {
      disk.hard = rd.hardState;
      ctx.emit({ kind: "hard", term: rd.hardState.term, votedFor: rd.hardState.votedFor });
    }
    if (rd.snapshot !== null) {
      // InstallSnapshot (Figure 13): keep the entries after the snapshot's last one if this
      // log has that entry (step 6), else none (step 7); the snapshot replaces the old one.
      const snap = rd.snapshot;
      disk.log = diskTermAt(disk, snap.index) === snap.term ? disk.log.slice(snap.index - disk.start.index) : [];
      disk.start = { index: snap.index, term: snap.term, snapshot: snap };
      ctx.emit({ kind: "snapshot", op: "install", index: snap.index, term: snap.term, digest: snap.digest, logStart: snap.index, lastIndex: diskLastIndex(disk) });
    }
    if (rd.truncateFrom !== null || rd.entries.length > 0) {
      const base = disk.start.index;
      if (rd.truncateFrom !== null) disk.log.length = Math.max(0, rd.truncateFrom - 1 - base);
      for (let k = 0; k < rd.entries.length; k++) {
        const e = rd.entries[k] as Entry;
        if (e.index <= base || e.index > diskLastIndex(disk) + 1) throw new Error(`${this.id}: disk log gap before ${e.index}`);
        disk.log[e.index - base - 1] = e;
      }
      if (rd.entries.length > 0) disk.log.length = (rd.entries[rd.entries.length - 1] as Entry).index - base;
      const last = disk.log[disk.log.length - 1];
      const lastIndex = diskLastIndex(disk);
      const from = rd.entries.length > 0 ? (rd.entries[0] as Entry).index : lastIndex + 1;
      ctx.emit({ kind: "log", truncatedFrom: rd.truncateFrom, from, lastIndex, lastTerm: last ? last.term : disk.start.term });
    }
    // Indexed loops: this runs on every message and timer, and an iterator may be allocated.
    for (let k = 0; k < rd.events.length; k++) {
      const e = rd.events[k] as (typeof rd.events)[number];
      if (e.type === "role") ctx.emit({ kind: "role", role: e.role, term: e.term, leader: e.leader, reason: e.reason });
      else if (e.type === "vote") ctx.emit({ kind: "vote", term: e.term, candidate: e.candidate });
      else if (e.type === "config") ctx.emit({ kind: "config", voters: e.voters, index: e.index });
      else if (e.type === "transfer") ctx.emit({ kind: "transfer", to: e.to, phase: e.phase, reason: e.reason });
      else if (e.type === "readlease") ctx.emit({ kind: "readlease", phase: e.phase, peer: e.peer, untilLocal: e.untilLocal, reason: e.reason });
      else ctx.emit({ kind: "commit", index: e.index });
    }
    for (let k = 0; k < rd.messages.length; k++) {
      const m = rd.messages[k] as (typeof rd.messages)[number];
      ctx.send(m.to, m.msg);
    }
  }

  /** Answers the reads whose index is now applied (in the order they were asked). */
  private answerReads(ctx: ProcessContext, v: Volatile): void {
    for (const [k, r] of v.reads) {
      if (r.index !== null && r.index <= v.lastApplied) {
        v.reads.delete(k);
        const tracker = v.tracker;
        const remaining = (name: string): number | null => tracker?.remainingMs(ctx.now, name) ?? null;
        this.answer(ctx, v, r.client, { type: "ClientReply", seq: r.seq, ok: true, result: v.sm.query(r.query, remaining) }, v.lastApplied);
      }
    }
  }

  /** The state machine starts over from a snapshot installed from the leader (Figure 13 step 8). */
  private loadSnapshot(ctx: ProcessContext, v: Volatile, snap: Snapshot): void {
    if (snap.index <= v.lastApplied) throw new Error(`${this.id}: installed snapshot at ${snap.index} is not past applied ${v.lastApplied}`);
    v.sm = CoreStateMachine.fromSnapshot(this.config.lease, snap.data as CoreSnapshotData);
    v.lastApplied = snap.index;
    // Whatever waited for an entry the snapshot covers is settled: the waiting write may or
    // may not be in it, so its client hears "ask the leader" and retries (applied once).
    for (const [i, w] of v.writes) {
      if (i > snap.index) continue;
      v.writes.delete(i);
      this.reply(ctx, w.client, { type: "ClientReply", seq: w.seq, ok: false, leaderHint: v.node.redirect });
    }
    for (const i of [...v.refreshes.keys()]) if (i <= snap.index) v.refreshes.delete(i);
  }

  /**
   * Section 7: once the state machine has applied `everyEntries` past the latest snapshot,
   * snapshot it and compact the log (node and disk alike) up to `keepEntries` before it.
   * Runs after persisting and applying, so the disk log equals the node's.
   */
  private maybeSnapshot(ctx: ProcessContext, v: Volatile): void {
    const c = this.config.compaction ?? NO_COMPACTION;
    const node = v.node;
    if (c.everyEntries <= 0 || v.lastApplied - node.snapshotIndex < c.everyEntries) return;
    const data = v.sm.toSnapshot();
    const index = v.lastApplied;
    const snap: Snapshot = {
      index,
      term: node.termAt(index),
      voters: node.configAt(index),
      data,
      digest: snapshotDigest(data),
    };
    const upTo = Math.max(node.firstIndex - 1, index - c.keepEntries);
    node.compact(snap, upTo);
    const disk = this.disk;
    if (diskLastIndex(disk) !== node.lastIndex || disk.start.index > upTo) throw new Error(`${this.id}: disk log out of step with the node's`);
    disk.log = disk.log.slice(upTo - disk.start.index);
    disk.start = { index: upTo, term: node.logStartTerm, snapshot: snap };
    ctx.emit({ kind: "snapshot", op: "take", index, term: snap.term, digest: snap.digest, logStart: upTo, lastIndex: diskLastIndex(disk) });
  }

  private applyCommitted(ctx: ProcessContext, v: Volatile, commitIndex: number): void {
    if (commitIndex <= v.lastApplied) return;
    const from = v.lastApplied + 1;
    for (let i = from; i <= commitIndex; i++) {
      const e = v.node.entryAt(i);
      if (e === undefined) throw new Error(`${this.id}: committed entry ${i} missing`);
      const pending = v.writes.get(i);
      if (pending !== undefined) v.writes.delete(i);
      const refresh = v.refreshes.get(i);
      if (refresh !== undefined) {
        v.refreshes.delete(i);
        ctx.send(refresh.to, refresh.reply);
      }
      if (e.cmd.type === "system") {
        this.afterLease(ctx, v, v.sm.applySystem(e.cmd.op), i);
        continue;
      }
      if (e.cmd.type !== "client") continue;
      const out = v.sm.apply(e.cmd.clientId, e.cmd.seq, e.cmd.op, i);
      if (out.kind === "applied" && out.lease !== null) this.afterLease(ctx, v, out.lease, i);
      if (pending !== undefined && pending.clientId === e.cmd.clientId && pending.seq === e.cmd.seq && out.kind !== "stale") {
        this.answer(ctx, v, pending.client, { type: "ClientReply", seq: pending.seq, ok: true, result: out.result }, i, true);
      }
    }
    v.lastApplied = commitIndex;
    ctx.emit({ kind: "apply", from, to: commitIndex });
  }

  /** Reports an applied lease command, and lets the leader's tracker follow it. */
  private afterLease(ctx: ProcessContext, v: Volatile, effect: LeaseEffect, index: number): void {
    if (effect.event === null) return;
    ctx.emit({ kind: "lease", ...effect.event, index });
    if (v.tracker === null) return;
    const events: TrackerEvent[] = [];
    v.tracker.onApplied(ctx.now, effect, events);
    this.emitTracker(ctx, events);
  }
}
