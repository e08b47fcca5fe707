/**
 * Raft's safety properties (paper, Figure 3) checked on every trace event, plus
 * the persistence rule and per-node monotonicity. The checker mirrors each node's
 * persisted log as a chain of prefix hashes, so comparing two logs up to an index
 * costs one number comparison.
 */
import type { Disk } from "../raft/server";
import type { Entry, NodeId } from "../raft/types";
import { hashString, mix32 } from "./rng";
import type { ProcId, TraceEvent } from "./trace";

export interface Violation {
  readonly invariant: Invariant;
  readonly time: number;
  readonly nodes: readonly ProcId[];
  readonly detail: string;
  readonly seed: number;
}

export const INVARIANTS = {
  "election-safety": "At most one leader per term",
  "log-matching": "Two logs with an entry of the same index and term are identical up to it",
  "leader-completeness": "A new leader's log holds every committed entry",
  "state-machine-safety": "No two nodes commit or apply different entries at one index",
  "term-monotonic": "A node's persisted term never decreases",
  "commit-monotonic": "A node's commit index never decreases (within one run of the process)",
  "persist-before-send": "Term, vote and entries are persisted before the messages that depend on them",
  "acknowledged-write-durable": "A write acknowledged to a client is committed",
  assertion: "Every process's internal assertions hold (e.g. a committed entry is never overwritten)",
} as const;

export type Invariant = keyof typeof INVARIANTS;

export interface CheckerHost {
  readonly seed: number;
  readonly now: number;
  diskOf(id: ProcId): Disk | undefined;
  report(v: Omit<Violation, "time" | "seed">): void;
}

const digests = new WeakMap<Entry, number>();

/** Content hash of an entry: its term and command. */
export function entryDigest(e: Entry): number {
  let d = digests.get(e);
  if (d === undefined) {
    d = hashString(JSON.stringify(e.cmd), mix32(e.term));
    digests.set(e, d);
  }
  return d;
}

interface CheckerState {
  leaders: Map<number, NodeId>;
  /** Per node: prefix hash of its persisted log, ph[i] covers entries 1..i; ph[0] = 0. */
  ph: Map<NodeId, number[]>;
  /** `${index}:${term}` -> [prefix hash, first node seen with it]. */
  seen: Map<string, [number, NodeId]>;
  /** committed[i]: prefix hash of the committed entry at index i (committed[0] = 0). */
  committed: number[];
  /**
   * committedTerm[i]: the term of the node that first reported index i committed, an upper
   * bound on the term in which it was committed (non-decreasing in i).
   */
  committedTerm: number[];
  committedCommands: Set<string>;
  persistedTerm: Map<NodeId, number>;
  commit: Map<NodeId, number>;
}

export class Checkers {
  private s: CheckerState;

  constructor(
    private readonly host: CheckerHost,
    state?: CheckerState,
  ) {
    this.s = state ?? {
      leaders: new Map(),
      ph: new Map(),
      seen: new Map(),
      committed: [0],
      committedTerm: [0],
      committedCommands: new Set(),
      persistedTerm: new Map(),
      commit: new Map(),
    };
  }

  clone(host: CheckerHost): Checkers {
    const s = this.s;
    const ph = new Map<NodeId, number[]>();
    for (const [k, v] of s.ph) ph.set(k, v.slice());
    return new Checkers(host, {
      leaders: new Map(s.leaders),
      ph,
      seen: new Map(s.seen),
      committed: s.committed.slice(),
      committedTerm: s.committedTerm.slice(),
      committedCommands: new Set(s.committedCommands),
      persistedTerm: new Map(s.persistedTerm),
      commit: new Map(s.commit),
    });
  }

  /** Highest index known committed anywhere. */
  get committedIndex(): number {
    return this.s.committed.length - 1;
  }

  isCommitted(clientId: string, seq: number): boolean {
    return this.s.committedCommands.has(`${clientId}#${seq}`);
  }

  observe(e: TraceEvent): void {
    switch (e.kind) {
      case "hard":
        this.onHard(e.proc, e.term);
        return;
      case "log":
        this.onLog(e.proc, e.from, e.lastIndex);
        return;
      case "role":
        if (e.role === "leader") this.onLeader(e.proc, e.term);
        return;
      case "commit":
        this.onCommit(e.proc, e.index);
        return;
      case "apply":
        this.onApply(e.proc, e.from, e.to);
        return;
      case "crash":
        this.s.commit.delete(e.proc);
        return;
      case "send":
        this.onSend(e.from, e.to, e);
        return;
      case "client":
        if (e.phase === "ok" && e.op.type !== "get" && !this.isCommitted(e.clientId, e.seq)) {
          this.host.report({
            invariant: "acknowledged-write-durable",
            nodes: [e.proc],
            detail: `${e.proc} was told write #${e.seq} of ${e.clientId} succeeded, but no node has committed it`,
          });
        }
        return;
      default:
        return;
    }
  }

  private onHard(node: NodeId, term: number): void {
    const prev = this.s.persistedTerm.get(node) ?? 0;
    if (term < prev) {
      this.host.report({ invariant: "term-monotonic", nodes: [node], detail: `${node} persisted term ${term} after term ${prev}` });
    }
    this.s.persistedTerm.set(node, term);
  }

  private onLog(node: NodeId, from: number, lastIndex: number): void {
    const disk = this.host.diskOf(node);
    if (disk === undefined) return;
    let ph = this.s.ph.get(node);
    if (ph === undefined) {
      ph = [0];
      this.s.ph.set(node, ph);
    }
    const start = Math.min(from, ph.length);
    ph.length = start;
    for (let i = start; i <= lastIndex; i++) {
      const e = disk.log[i - 1] as Entry;
      const h = mix32((ph[i - 1] as number) ^ entryDigest(e));
      ph.push(h);
      const key = `${i}:${e.term}`;
      const prior = this.s.seen.get(key);
      if (prior === undefined) this.s.seen.set(key, [h, node]);
      else if (prior[0] !== h) {
        this.host.report({
          invariant: "log-matching",
          nodes: [prior[1], node],
          detail: `${node} and ${prior[1]} both hold an entry at index ${i} of term ${e.term}, but their logs differ up to it`,
        });
      }
    }
  }

  private onLeader(node: NodeId, term: number): void {
    const prior = this.s.leaders.get(term);
    if (prior !== undefined && prior !== node) {
      this.host.report({
        invariant: "election-safety",
        nodes: [prior, node],
        detail: `${prior} and ${node} were both leader in term ${term}`,
      });
    }
    this.s.leaders.set(term, node);
    // Figure 3: an entry committed in a term is in the log of every leader of a higher term.
    // (A leader of an older term, elected late, need not hold entries committed since.)
    const ct = this.s.committedTerm;
    let c = ct.length - 1;
    while (c > 0 && (ct[c] as number) >= term) c--;
    const ph = this.s.ph.get(node) ?? [0];
    if (c > 0 && (ph.length <= c || ph[c] !== this.s.committed[c])) {
      this.host.report({
        invariant: "leader-completeness",
        nodes: [node],
        detail: `${node} became leader of term ${term} without every entry committed before it (up to index ${c}; its log has ${ph.length - 1})`,
      });
    }
  }

  private onCommit(node: NodeId, index: number): void {
    const prev = this.s.commit.get(node) ?? 0;
    if (index < prev) {
      this.host.report({
        invariant: "commit-monotonic",
        nodes: [node],
        detail: `${node}'s commit index went from ${prev} back to ${index}`,
      });
      return;
    }
    const ph = this.s.ph.get(node) ?? [0];
    const disk = this.host.diskOf(node);
    const committed = this.s.committed;
    for (let i = prev + 1; i <= index; i++) {
      const h = ph[i];
      if (h === undefined) {
        this.host.report({ invariant: "persist-before-send", nodes: [node], detail: `${node} committed index ${i} before persisting it` });
        return;
      }
      const known = committed[i];
      if (known === undefined) {
        committed[i] = h;
        this.s.committedTerm[i] = this.s.persistedTerm.get(node) ?? 0;
        const e = disk?.log[i - 1];
        if (e !== undefined && e.cmd.type === "client") this.s.committedCommands.add(`${e.cmd.clientId}#${e.cmd.seq}`);
      } else if (known !== h) {
        this.host.report({
          invariant: "state-machine-safety",
          nodes: [node],
          detail: `${node} committed a different entry at index ${i} than another node did`,
        });
        return;
      }
    }
    this.s.commit.set(node, index);
  }

  private onApply(node: NodeId, from: number, to: number): void {
    const commit = this.s.commit.get(node) ?? 0;
    if (to > commit) {
      this.host.report({
        invariant: "state-machine-safety",
        nodes: [node],
        detail: `${node} applied up to ${to} with commit index ${commit}`,
      });
      return;
    }
    const ph = this.s.ph.get(node) ?? [0];
    for (let i = from; i <= to; i++) {
      if (ph[i] !== this.s.committed[i]) {
        this.host.report({
          invariant: "state-machine-safety",
          nodes: [node],
          detail: `${node} applied an entry at index ${i} that differs from the committed one`,
        });
        return;
      }
    }
  }

  private onSend(from: ProcId, to: ProcId, e: TraceEvent & { kind: "send" }): void {
    const m = e.msg;
    const disk = this.host.diskOf(from);
    if (disk === undefined) return;
    const bad = (what: string): void =>
      this.host.report({ invariant: "persist-before-send", nodes: [from], detail: `${from} sent ${what}` });
    switch (m.type) {
      case "RequestVote":
        if (!m.preVote && (disk.hard.term !== m.term || disk.hard.votedFor !== from))
          bad(`a vote request for term ${m.term} before persisting its own vote`);
        return;
      case "RequestVoteResp":
        if (m.granted && !m.preVote && (disk.hard.term !== m.term || disk.hard.votedFor !== to)) {
          bad(`a vote for ${to} in term ${m.term} before persisting it`);
        }
        return;
      case "AppendEntries":
        if (disk.hard.term < m.term) bad(`an append in term ${m.term} before persisting that term`);
        else if (disk.log.length < m.prevLogIndex + m.entries.length)
          bad(`entries up to ${m.prevLogIndex + m.entries.length} it has not persisted`);
        return;
      case "AppendEntriesResp":
        if (disk.hard.term < m.term) bad(`an append reply in term ${m.term} before persisting that term`);
        else if (m.success && disk.log.length < m.matchIndex) bad(`an acknowledgement of index ${m.matchIndex} before persisting it`);
        return;
      default:
        return;
    }
  }
}
