/**
 * Raft's safety properties (paper, Figure 3) checked on every trace event: election safety,
 * log matching, leader completeness and state machine safety; plus per-node monotonicity of
 * the persisted term and the commit index, and that a write acknowledged to a client is
 * committed. The checker mirrors each node's persisted log as a chain of prefix hashes, so
 * comparing two logs up to an index costs one number comparison.
 */
import { diskEntry } from "../../raft/server";
import type { Entry, NodeId } from "../../raft/types";
import { CowArray } from "../cow";
import { hashString, mix32 } from "../rng";
import type { TraceEvent } from "../trace";
import type { CheckerHost, Invariant } from "./types";

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

/**
 * A node's persisted log as prefix hashes: h.get(k) covers entries 1..base + k. Below
 * `base` the node's log is compacted into a snapshot, which holds committed entries only:
 * there its prefix hashes are the committed ones.
 */
interface PrefixHashes {
  readonly base: number;
  readonly h: CowArray<number>;
}

/** The prefix hashes of an empty log. */
const ZERO: PrefixHashes = { base: 0, h: new CowArray([0]) };

/** Snapshot digests remembered, by index, to compare the snapshots nodes take or install. */
const SNAPSHOT_DIGESTS_LIMIT = 64;

interface RaftCheckState {
  /** Per term: the node seen as its leader. */
  leaders: Map<number, NodeId>;
  // The per-index history grows with the log: it lives in copy-on-write arrays, so a
  // snapshot of the checkers shares it instead of copying it.
  /** Per node: prefix hashes of its persisted log (see PrefixHashes). */
  ph: Map<NodeId, PrefixHashes>;
  /** The digests of the latest snapshots taken or installed, by index (each array is never changed in place). */
  snapshotDigests: readonly (readonly [number, number])[];
  /** seen[index]: per term at that index, [term, prefix hash, first node seen with it] (each list is never changed in place). */
  seen: CowArray<readonly (readonly [number, number, NodeId])[] | undefined>;
  /** committed[i]: prefix hash of the committed entry at index i (committed[0] = 0). */
  committed: CowArray<number>;
  /**
   * committedTerm[i]: the term of the node that first reported index i committed, an upper
   * bound on the term in which it was committed (non-decreasing in i).
   */
  committedTerm: CowArray<number>;
  /**
   * Per client id: the sequence numbers of its committed commands that it has not yet
   * been told about (each array is never changed in place). A client (or holder) is
   * answered in order of its sequence numbers, so once it is told "ok" for seq, the ones
   * up to seq are forgotten: this stays small however long the run.
   */
  committedSeqs: Map<string, readonly number[]>;
  /** Per node: the term it last persisted. */
  persistedTerm: Map<NodeId, number>;
  /** Per node: its commit index (forgotten when it crashes). */
  commit: Map<NodeId, number>;
}

export class RaftChecker {
  private readonly s: RaftCheckState;

  constructor(
    private readonly host: CheckerHost,
    state?: RaftCheckState,
  ) {
    this.s = state ?? {
      leaders: new Map(),
      ph: new Map(),
      snapshotDigests: [],
      seen: new CowArray(),
      committed: new CowArray([0]),
      committedTerm: new CowArray([0]),
      committedSeqs: new Map(),
      persistedTerm: new Map(),
      commit: new Map(),
    };
  }

  clone(host: CheckerHost): RaftChecker {
    const s = this.s;
    const ph = new Map<NodeId, PrefixHashes>();
    for (const [k, v] of s.ph) ph.set(k, { base: v.base, h: v.h.clone() });
    return new RaftChecker(host, {
      leaders: new Map(s.leaders),
      ph,
      snapshotDigests: s.snapshotDigests,
      seen: s.seen.clone(),
      committed: s.committed.clone(),
      committedTerm: s.committedTerm.clone(),
      committedSeqs: new Map(s.committedSeqs),
      persistedTerm: new Map(s.persistedTerm),
      commit: new Map(s.commit),
    });
  }

  /** Whether the client command (clientId, seq) is committed; answers for commands not yet acknowledged to the client. */
  isCommitted(clientId: string, seq: number): boolean {
    return this.s.committedSeqs.get(clientId)?.includes(seq) ?? false;
  }

  /** The client was told the outcome of seq: it will not be told about seq or anything before it again. */
  private acknowledged(clientId: string, seq: number): void {
    const seqs = this.s.committedSeqs.get(clientId);
    if (seqs === undefined) return;
    const left = seqs.filter((x) => x > seq);
    if (left.length === 0) this.s.committedSeqs.delete(clientId);
    else if (left.length < seqs.length) this.s.committedSeqs.set(clientId, left);
  }

  /** A client was told the outcome of a command: a write it was told succeeded must be committed. */
  onClient(e: TraceEvent & { kind: "client" }): void {
    if (e.phase === "ok" && e.op.type !== "get" && !this.isCommitted(e.clientId, e.seq)) {
      this.host.report({
        invariant: "acknowledged-write-durable",
        nodes: [e.proc],
        detail: `${e.proc} was told write #${e.seq} of ${e.clientId} succeeded, but no node has committed it`,
      });
    }
    if (e.phase === "ok") this.acknowledged(e.clientId, e.seq);
  }

  /** A node crashed: its commit index starts over (commit-monotonic holds within one run of the process). */
  crashed(node: NodeId): void {
    this.s.commit.delete(node);
  }

  onHard(node: NodeId, term: number): void {
    const prev = this.s.persistedTerm.get(node) ?? 0;
    if (term < prev) {
      this.host.report({ invariant: "term-monotonic", nodes: [node], detail: `${node} persisted term ${term} after term ${prev}` });
    }
    this.s.persistedTerm.set(node, term);
  }

  onLog(node: NodeId, from: number, lastIndex: number): void {
    const disk = this.host.diskOf(node);
    if (disk === undefined) return;
    let p = this.s.ph.get(node);
    if (p === undefined) {
      p = { base: 0, h: new CowArray([0]) };
      this.s.ph.set(node, p);
    }
    const ph = p.h;
    const start = Math.max(p.base + 1, Math.min(from, p.base + ph.length));
    ph.truncate(start - p.base);
    const seen = this.s.seen;
    for (let i = start; i <= lastIndex; i++) {
      const e = diskEntry(disk, i);
      if (e === undefined) throw new Error(`checkers: ${node}'s log event names index ${i}, which its disk does not hold`);
      const h = mix32((ph.get(i - 1 - p.base) as number) ^ entryDigest(e));
      ph.push(h);
      const atIndex = seen.get(i);
      const prior = atIndex?.find((x) => x[0] === e.term);
      if (prior === undefined) {
        while (seen.length <= i) seen.push(undefined);
        seen.set(i, [...(atIndex ?? []), [e.term, h, node]]);
      } else if (prior[1] !== h) {
        this.host.report({
          invariant: "log-matching",
          nodes: [prior[2], node],
          detail: `${node} and ${prior[2]} both hold an entry at index ${i} of term ${e.term}, but their logs differ up to it`,
        });
      }
    }
  }

  /** The prefix hash of `node`'s persisted log up to index i (undefined past its end). */
  private prefixHash(node: NodeId, i: number): number | undefined {
    const p = this.s.ph.get(node) ?? ZERO;
    return i < p.base ? this.s.committed.get(i) : p.h.get(i - p.base);
  }

  private baseOf(node: NodeId): number {
    return (this.s.ph.get(node) ?? ZERO).base;
  }

  /** The last index of `node`'s persisted log, as the checker knows it. */
  private lastOf(node: NodeId): number {
    const p = this.s.ph.get(node) ?? ZERO;
    return p.base + p.h.length - 1;
  }
  /**
   * Log compaction. A snapshot holds committed entries only: its last entry must be the
   * committed one at its index (state machine safety), and every snapshot at one index must
   * hold the same state (its digest). Then the node's prefix hashes start at its new log
   * start, and below it are the committed ones. Returns false if the snapshot holds an
   * index no node has committed (nothing else is then checked, or recorded).
   */
  onSnapshot(node: NodeId, e: TraceEvent & { kind: "snapshot" }): boolean {
    const committed = this.s.committed.get(e.index);
    const bad = (detail: string, invariant: Invariant = "state-machine-safety"): void =>
      this.host.report({ invariant, nodes: [node], detail });
    if (committed === undefined) {
      bad(`${node} ${e.op === "take" ? "took" : "installed"} a snapshot up to index ${e.index}, which no node has committed`);
      return false;
    }
    const committedTerm = this.s.seen.get(e.index)?.find((x) => x[1] === committed)?.[0];
    if (committedTerm !== undefined && committedTerm !== e.term) {
      bad(`${node}'s snapshot ends at index ${e.index} with term ${e.term}, but the entry committed there has term ${committedTerm}`);
    }
    const digests = this.s.snapshotDigests;
    const known = digests.find((x) => x[0] === e.index);
    if (known === undefined) {
      const kept = digests.length >= SNAPSHOT_DIGESTS_LIMIT ? digests.slice(digests.length - SNAPSHOT_DIGESTS_LIMIT + 1) : digests;
      this.s.snapshotDigests = [...kept, [e.index, e.digest]];
    } else if (known[1] !== e.digest) {
      bad(`${node}'s snapshot at index ${e.index} holds a different state than another snapshot at that index`);
    }
    const kept = e.lastIndex > e.index;
    if ((e.op === "take" || kept) && this.prefixHash(node, e.index) !== committed) {
      bad(
        e.op === "take"
          ? `${node} snapshotted up to index ${e.index}, but its log differs from the committed one up to there`
          : `${node} kept its entries after index ${e.index} (same term as the snapshot's last entry) but its log differs up to there`,
        e.op === "take" ? "state-machine-safety" : "log-matching",
      );
    }
    // The new prefix hashes: from logStart, the committed ones up to the snapshot, then the kept suffix.
    const h = new CowArray<number>();
    for (let i = e.logStart; i <= e.lastIndex; i++) {
      h.push((i <= e.index ? this.s.committed.get(i) : this.prefixHash(node, i)) as number);
    }
    this.s.ph.set(node, { base: e.logStart, h });
    // Every node's log now starts past `floor`: the per-index history below it is never
    // consulted again (see onLog, onCommit, onApply), so release it. This is what keeps the
    // checkers' memory flat in a long run with compaction on.
    let floor = Number.POSITIVE_INFINITY;
    for (const id of this.host.nodeIds) floor = Math.min(floor, this.baseOf(id));
    if (floor > 0) {
      this.s.seen.forgetBefore(floor);
      this.s.committed.forgetBefore(floor);
      this.s.committedTerm.forgetBefore(floor);
    }
    return true;
  }

  onLeader(node: NodeId, term: number): void {
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
    while (c > 0 && (ct.get(c) as number) >= term) c--;
    const last = this.lastOf(node);
    // (An index whose history was forgotten, below every node's log start, is not checked.)
    if (c > 0 && this.s.committed.get(c) !== undefined && (last < c || this.prefixHash(node, c) !== this.s.committed.get(c))) {
      this.host.report({
        invariant: "leader-completeness",
        nodes: [node],
        detail: `${node} became leader of term ${term} without every entry committed before it (up to index ${c}; its log has ${last})`,
      });
    }
  }

  onCommit(node: NodeId, index: number): void {
    const prev = this.s.commit.get(node) ?? 0;
    if (index < prev) {
      this.host.report({
        invariant: "commit-monotonic",
        nodes: [node],
        detail: `${node}'s commit index went from ${prev} back to ${index}`,
      });
      return;
    }
    const disk = this.host.diskOf(node);
    const committed = this.s.committed;
    // Below the node's log start is its snapshot, checked against the committed entries when taken or installed.
    for (let i = Math.max(prev + 1, this.baseOf(node)); i <= index; i++) {
      const h = this.prefixHash(node, i);
      if (h === undefined) {
        this.host.report({ invariant: "persist-before-send", nodes: [node], detail: `${node} committed index ${i} before persisting it` });
        return;
      }
      const known = committed.get(i);
      if (known === undefined) {
        // Committed indexes fill in order: i is the next one (every index below it is known).
        committed.set(i, h);
        this.s.committedTerm.set(i, this.s.persistedTerm.get(node) ?? 0);
        const e = disk === undefined ? undefined : diskEntry(disk, i);
        if (e !== undefined && e.cmd.type === "client") {
          const { clientId, seq } = e.cmd;
          const seqs = this.s.committedSeqs.get(clientId) ?? [];
          if (!seqs.includes(seq)) this.s.committedSeqs.set(clientId, [...seqs, seq]);
        }
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

  onApply(node: NodeId, from: number, to: number): void {
    const commit = this.s.commit.get(node) ?? 0;
    if (to > commit) {
      this.host.report({
        invariant: "state-machine-safety",
        nodes: [node],
        detail: `${node} applied up to ${to} with commit index ${commit}`,
      });
      return;
    }
    for (let i = Math.max(from, this.baseOf(node)); i <= to; i++) {
      if (this.prefixHash(node, i) !== this.s.committed.get(i)) {
        this.host.report({
          invariant: "state-machine-safety",
          nodes: [node],
          detail: `${node} applied an entry at index ${i} that differs from the committed one`,
        });
        return;
      }
    }
  }
}
