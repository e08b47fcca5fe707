/**
 * A hand-driven harness for the sans-IO RaftNode: a host per node that persists each
 * Ready to a simulated disk (checking the persist-before-send rule on every Ready),
 * and a tiny network whose messages the tests route, drop or rewrite by hand.
 */
import { expect } from "vitest";
import { RaftNode, UNCOMPACTED } from "../../src/core/raft/node";
import type { Entry, HardState, LogStart, NodeId, RaftConfig, RaftMessage, Ready, RequestVote, Snapshot } from "../../src/core/raft/types";
import { Rng } from "../../src/core/sim/rng";

export const ELECTION_MIN_US = 150_000;
export const ELECTION_MAX_US = 300_000;
export const HEARTBEAT_US = 50_000;

export function raftConfig(id: NodeId, voters: readonly NodeId[], over: Partial<RaftConfig> = {}): RaftConfig {
  return {
    id,
    voters,
    electionTimeoutMinUs: ELECTION_MIN_US,
    electionTimeoutMaxUs: ELECTION_MAX_US,
    heartbeatIntervalUs: HEARTBEAT_US,
    preVote: false,
    checkQuorum: false,
    maxEntriesPerAppend: 64,
    ...over,
  };
}

export function ids(n: number): NodeId[] {
  return Array.from({ length: n }, (_, i) => `n${i + 1}`);
}

/** Entry `index` of term `term`. The command names both, so entries of different logs also compare by content. */
export function entry(index: number, term: number): Entry {
  return {
    index,
    term,
    cmd: { type: "client", clientId: `w${term}`, seq: index, op: { type: "put", key: "k", value: `${index}@${term}` } },
  };
}

/** A log from its terms: logOf([1, 1, 4]) is three entries of terms 1, 1 and 4. */
export function logOf(terms: readonly number[]): Entry[] {
  return terms.map((t, i) => entry(i + 1, t));
}

export function termsOf(log: readonly Entry[]): number[] {
  return log.map((e) => e.term);
}

export interface Disk {
  hard: HardState;
  /** log[k] is the entry at index (start.index) + k + 1; absent: the log starts at 1. */
  log: Entry[];
  start?: LogStart;
}

function startOf(disk: Disk): LogStart {
  return disk.start ?? UNCOMPACTED;
}

/** The persisted entry at `index` (undefined if compacted or past the end). */
export function diskAt(disk: Disk, index: number): Entry | undefined {
  const base = startOf(disk).index;
  return index <= base ? undefined : disk.log[index - base - 1];
}

/** A snapshot for hand-driven tests: its data is whatever the test says the state machine held. */
export function snapshotAt(index: number, term: number, voters: readonly NodeId[], data: unknown = `state@${index}`): Snapshot {
  return { index, term, voters, data, digest: index * 31 + term };
}

function sameEntry(a: Entry | undefined, b: Entry | undefined): boolean {
  if (a === b) return a !== undefined;
  return a !== undefined && b !== undefined && a.index === b.index && a.term === b.term && JSON.stringify(a.cmd) === JSON.stringify(b.cmd);
}

/**
 * What is wrong with sending the messages of `rd` from `id` when its disk holds `disk`
 * (Figure 2: "respond to RPCs only after updating stable storage").
 */
export function persistProblems(id: NodeId, disk: Disk, node: RaftNode, rd: Ready): string[] {
  const bad: string[] = [];
  const onDisk = (upTo: number): boolean => {
    for (let i = startOf(disk).index + 1; i <= upTo; i++) if (!sameEntry(diskAt(disk, i), node.entryAt(i))) return false;
    return upTo <= startOf(disk).index + disk.log.length;
  };
  for (const { to, msg: m } of rd.messages) {
    switch (m.type) {
      case "RequestVote":
        if (!m.preVote && (disk.hard.term !== m.term || disk.hard.votedFor !== id)) {
          bad.push(`${id} asked ${to} for a vote in term ${m.term} with ${JSON.stringify(disk.hard)} on disk`);
        }
        break;
      case "RequestVoteResp":
        if (!m.preVote && disk.hard.term < m.term) bad.push(`${id} answered ${to} in term ${m.term} with term ${disk.hard.term} on disk`);
        if (!m.preVote && m.granted && (disk.hard.term !== m.term || disk.hard.votedFor !== to)) {
          bad.push(`${id} granted ${to} its vote in term ${m.term} with ${JSON.stringify(disk.hard)} on disk`);
        }
        break;
      case "AppendEntries":
        if (disk.hard.term < m.term) bad.push(`${id} sent an append in term ${m.term} with term ${disk.hard.term} on disk`);
        if (!onDisk(m.prevLogIndex + m.entries.length)) bad.push(`${id} sent ${to} entries it has not persisted`);
        break;
      case "AppendEntriesResp":
        if (disk.hard.term < m.term) bad.push(`${id} answered an append in term ${m.term} with term ${disk.hard.term} on disk`);
        if (m.success && !onDisk(m.matchIndex)) bad.push(`${id} acknowledged index ${m.matchIndex} before persisting it`);
        break;
      case "InstallSnapshot":
        if (disk.hard.term < m.term) bad.push(`${id} sent a snapshot in term ${m.term} with term ${disk.hard.term} on disk`);
        if ((startOf(disk).snapshot?.index ?? 0) < m.snapshot.index) bad.push(`${id} sent ${to} a snapshot it has not persisted`);
        break;
    }
  }
  return bad;
}

/** Applies the persistence part of a Ready to a disk (what server.ts does). */
export function persist(disk: Disk, rd: Ready): void {
  if (rd.hardState !== null) disk.hard = rd.hardState;
  if (rd.snapshot !== null) {
    const snap = rd.snapshot;
    const keep = diskAt(disk, snap.index)?.term === snap.term;
    disk.log = keep ? disk.log.slice(snap.index - startOf(disk).index) : [];
    disk.start = { index: snap.index, term: snap.term, snapshot: snap };
  }
  const base = startOf(disk).index;
  if (rd.truncateFrom !== null) disk.log.length = Math.max(0, rd.truncateFrom - 1 - base);
  for (const e of rd.entries) {
    if (e.index <= base || e.index > base + disk.log.length + 1) throw new Error(`disk log gap before ${e.index}`);
    disk.log[e.index - base - 1] = e;
  }
  if (rd.entries.length > 0) disk.log.length = (rd.entries[rd.entries.length - 1] as Entry).index - base;
}

/** One node and its disk. Every ready() persists, then checks that the disk holds what the messages depend on. */
export class Host {
  node: RaftNode;
  readonly disk: Disk;
  private readonly rng: Rng;
  /** Every Ready taken so far, newest last (tests look at the Ready that carried a message). */
  readonly readies: Ready[] = [];

  constructor(
    readonly cfg: RaftConfig,
    hard: HardState = { term: 0, votedFor: null },
    log: readonly Entry[] = [],
    now = 0,
    seed = 1,
  ) {
    this.disk = { hard, log: log.slice() };
    this.rng = Rng.fromSeed(seed).fork(`node:${cfg.id}`);
    this.node = RaftNode.boot(cfg, hard, log, this.rng, now);
  }

  get id(): NodeId {
    return this.cfg.id;
  }

  /** Takes the Ready, persists it, and fails if a message depends on something the disk lacks. */
  ready(): Ready {
    const rd = this.node.ready();
    persist(this.disk, rd);
    const problems = persistProblems(this.id, this.disk, this.node, rd);
    if (problems.length > 0) throw new Error(`persist-before-send: ${problems.join("; ")}`);
    // After every Ready the disk must equal the node's persistent state (Figure 2): nothing durable is left unreported.
    if (this.disk.hard.term !== this.node.term || this.disk.hard.votedFor !== this.node.votedFor) {
      throw new Error(`${this.id}: node has term ${this.node.term} vote ${this.node.votedFor}, disk ${JSON.stringify(this.disk.hard)}`);
    }
    const base = startOf(this.disk).index;
    if (
      base !== this.node.firstIndex - 1 ||
      base + this.disk.log.length !== this.node.lastIndex ||
      this.disk.log.some((e, i) => !sameEntry(e, this.node.entryAt(base + i + 1)))
    ) {
      throw new Error(`${this.id}: persisted log ${termsOf(this.disk.log)} differs from the node's ${termsOf(this.node.log)}`);
    }
    this.readies.push(rd);
    return rd;
  }

  /** Crash and restart: only the disk survives. */
  reboot(now: number): void {
    this.node = RaftNode.boot(this.cfg, this.disk.hard, this.disk.log, this.rng, now, startOf(this.disk));
  }

  /**
   * What server.ts does once its state machine has applied far enough: snapshot it at
   * `index` (committed), and compact the log, on the node and on disk, up to `upTo`.
   */
  compact(index: number, upTo = index, data?: unknown): Snapshot {
    const snap = snapshotAt(index, this.node.termAt(index), this.cfg.voters, data);
    this.node.compact(snap, upTo);
    const base = startOf(this.disk).index;
    this.disk.log = this.disk.log.slice(upTo - base);
    this.disk.start = { index: upTo, term: this.node.logStartTerm, snapshot: snap };
    return snap;
  }
}

export interface Envelope {
  readonly from: NodeId;
  readonly to: NodeId;
  readonly msg: RaftMessage;
}

/**
 * A hand-routed network. send() queues the messages of a Ready; deliver() steps one
 * message into its target and queues what that produced.
 */
export class Net {
  readonly hosts = new Map<NodeId, Host>();
  queue: Envelope[] = [];
  /** Local time passed to step(); moves 1µs per delivery so nothing times out by accident. */
  now: number;
  delivered = 0;

  constructor(hosts: readonly Host[], now = 0) {
    for (const h of hosts) this.hosts.set(h.id, h);
    this.now = now;
  }

  host(id: NodeId): Host {
    const h = this.hosts.get(id);
    if (h === undefined) throw new Error(`no host ${id}`);
    return h;
  }

  node(id: NodeId): RaftNode {
    return this.host(id).node;
  }

  /** Takes the Ready of `id` and queues its messages. */
  flush(id: NodeId): Ready {
    const rd = this.host(id).ready();
    for (const o of rd.messages) this.queue.push({ from: id, to: o.to, msg: o.msg });
    return rd;
  }

  deliver(env: Envelope): Ready {
    this.now += 1;
    this.delivered += 1;
    this.node(env.to).step(this.now, env.from, env.msg);
    return this.flush(env.to);
  }

  /** Removes and returns the queued messages matching `pick`. */
  take(pick: (e: Envelope) => boolean): Envelope[] {
    const out = this.queue.filter(pick);
    this.queue = this.queue.filter((e) => !pick(e));
    return out;
  }

  /**
   * Delivers queued messages (oldest first) until none is left. `keep` may drop a
   * message (false) or rewrite it (an envelope); `limit` bounds the number of deliveries.
   */
  run(keep: (e: Envelope) => boolean | Envelope = () => true, limit = 100_000): number {
    let n = 0;
    for (;;) {
      const env = this.queue.shift();
      if (env === undefined) return n;
      if (++n > limit) throw new Error(`network not quiet after ${limit} deliveries`);
      const k = keep(env);
      if (k === false) continue;
      this.deliver(k === true ? env : k);
    }
  }

  /** Fires the election timer of `id` (at its deadline) and queues what it sends. */
  timeout(id: NodeId): Ready {
    const node = this.node(id);
    this.now = Math.max(this.now, node.electionDeadline);
    node.onTimer(this.now);
    return this.flush(id);
  }

  /** Fires the leader's heartbeat timer and queues the appends. */
  heartbeat(id: NodeId): Ready {
    const node = this.node(id);
    this.now = Math.max(this.now, node.nextDeadline());
    node.onTimer(this.now);
    return this.flush(id);
  }
}

/** Builds a cluster of fresh nodes and makes `leader` win an election (every message delivered). */
export function electedCluster(n: number, over: Partial<RaftConfig> = {}, leader = "n1", startTerm = 0): Net {
  const voters = ids(n);
  const net = new Net(voters.map((id) => new Host(raftConfig(id, voters, over), { term: startTerm, votedFor: null })));
  net.timeout(leader);
  net.run();
  if (net.node(leader).role !== "leader") throw new Error(`${leader} did not win`);
  return net;
}

/** A vote (or pre-vote) request. */
export function rv(term: number, lastLogIndex: number, lastLogTerm: number, preVote = false): RequestVote {
  return { type: "RequestVote", term, lastLogIndex, lastLogTerm, preVote };
}

/** The only message of `type` in a list of outgoing messages, addressed to `to`. */
export function only<T extends RaftMessage["type"]>(
  msgs: readonly { to: NodeId; msg: RaftMessage }[],
  to: NodeId,
  type: T,
): Extract<RaftMessage, { type: T }> {
  const found = msgs.filter((o) => o.to === to && o.msg.type === type);
  expect(found, `exactly one ${type} to ${to}`).toHaveLength(1);
  return (found[0] as { msg: RaftMessage }).msg as Extract<RaftMessage, { type: T }>;
}
