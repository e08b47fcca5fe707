/**
 * Raft's safety properties (paper, Figure 3) checked on every trace event, plus
 * the persistence rule and per-node monotonicity. The checker mirrors each node's
 * persisted log as a chain of prefix hashes, so comparing two logs up to an index
 * costs one number comparison.
 */
import type { CoreStateMachine } from "../kv/statemachine";
import { type Disk, diskEntry, diskLastIndex } from "../raft/server";
import type { Entry, NodeId } from "../raft/types";
import { CowArray } from "./cow";
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
  "lease-exclusive": "At most one holder per lease name in the committed state at any index",
  "token-monotonic": "Fencing tokens strictly increase per lease name",
  "fencing-monotonic": "With fencing on, storage never accepts a token lower than one it accepted for that resource",
  "storage-corruption":
    "With fencing off, storage accepted a write from a holder whose lease had been superseded (two holders' writes interleaved)",
  "lease-keys": "Keys attached to a lease never outlive it in the committed state",
  "renewed-lease-kept": "A holder that renews in time on a fault-free network never loses its lease",
  "lease-belief":
    "No holder believes it holds a lease (its own deadline still ahead) once the service has applied that lease as expired or given to another holder",
} as const;

export type Invariant = keyof typeof INVARIANTS;

/**
 * Not a violation: a run broke an assumption the protocol is entitled to make (today: the
 * clock-rate bound the holders' drift margin covers). The run goes on; the finding says so.
 */
export interface BoundBroken {
  readonly bound: "clock-rate";
  readonly time: number;
  readonly nodes: readonly ProcId[];
  readonly detail: string;
}

/** How a holder times the lease it believes it holds (its own clock, µs). */
export interface HolderTiming {
  /** When the request (grant or refresh) the holder times its lease from was sent. */
  readonly sentAtUs: number;
  readonly ttlMs: number;
  /** The clock drift the holder allows for (its deadline is sentAt + ttl x (1 - margin)). */
  readonly driftMarginPpm: number;
}

export interface CheckerHost {
  readonly seed: number;
  readonly now: number;
  /** The Raft nodes, in a fixed order. */
  readonly nodeIds: readonly NodeId[];
  readonly holderIds: readonly ProcId[];
  diskOf(id: ProcId): Disk | undefined;
  /** The node's applied state machine (null while crashed). */
  stateOf(id: ProcId): CoreStateMachine | null;
  /** Whether a process is running (up or paused), for "it did nothing wrong" checks. */
  isUp(id: ProcId): boolean;
  /** The process's local clock reading now (µs). */
  localNow(id: ProcId): number;
  /** The lease timing of a holder that believes it holds one; null otherwise. */
  holderTiming(id: ProcId): HolderTiming | null;
  report(v: Omit<Violation, "time" | "seed">): void;
  /** A broken assumption (not a protocol violation): recorded, and the run goes on. */
  boundBroken(b: Omit<BoundBroken, "time">): void;
}

/** What a holder believes: it holds `name` with `token` until its own deadline (local µs). */
interface Belief {
  readonly name: string;
  readonly token: number;
  readonly deadlineUs: number;
}

/** A holder's lease request as it left: its local time, the virtual time, and every node's clock then. */
interface SendMark {
  readonly local: number;
  readonly t: number;
  readonly nodes: readonly number[];
}

/** Requests remembered per holder, to find the one a belief is timed from. */
const SEND_MARKS_LIMIT = 64;

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

interface CheckerState {
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
  persistedTerm: Map<NodeId, number>;
  commit: Map<NodeId, number>;
  /** Per node and lease name: the committed holder and token as that node applied them. */
  leaseHeld: Map<string, { holder: string; token: number } | null>;
  /** Per node and lease name: the last token granted (tokens must grow). */
  lastToken: Map<string, number>;
  /** Per resource: the highest token storage has accepted. */
  storageMax: Map<string, number>;
  /** No fault has happened yet in this run (crash, pause, partition, loss, clock change...). */
  faultFree: boolean;
  /** Expiries already judged by renewed-lease-kept ("name#token"). */
  expiredSeen: Set<string>;
  /** Holders that crashed and have not held a lease since: their old lease may expire (not a fault of the run). */
  crashedHolders: Set<ProcId>;
  /** Per holder: the lease it believes it holds, while its statechart is in holding. */
  beliefs: Map<ProcId, Belief>;
  /** Per holder: its recent grant and refresh requests (each array is never changed in place). */
  sendMarks: Map<ProcId, readonly SendMark[]>;
  /** Per lease name: the leader that last decided to expire it (proposed an Expire). */
  expiryDecidedBy: Map<string, NodeId>;
  /**
   * The highest log index whose lease command some node has applied. A node catching up
   * (or replaying its log after a restart) applies history: only the first application of
   * an index is news to the holders.
   */
  leaseIndexApplied: number;
}

export class Checkers {
  private s: CheckerState;

  constructor(
    private readonly host: CheckerHost,
    state?: CheckerState,
    faultFreeAtStart = true,
  ) {
    this.s = state ?? {
      leaseHeld: new Map(),
      lastToken: new Map(),
      storageMax: new Map(),
      faultFree: faultFreeAtStart,
      expiredSeen: new Set(),
      crashedHolders: new Set(),
      beliefs: new Map(),
      sendMarks: new Map(),
      expiryDecidedBy: new Map(),
      leaseIndexApplied: 0,
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

  clone(host: CheckerHost): Checkers {
    const s = this.s;
    const ph = new Map<NodeId, PrefixHashes>();
    for (const [k, v] of s.ph) ph.set(k, { base: v.base, h: v.h.clone() });
    return new Checkers(host, {
      leaders: new Map(s.leaders),
      ph,
      snapshotDigests: s.snapshotDigests,
      seen: s.seen.clone(),
      committed: s.committed.clone(),
      committedTerm: s.committedTerm.clone(),
      committedSeqs: new Map(s.committedSeqs),
      persistedTerm: new Map(s.persistedTerm),
      commit: new Map(s.commit),
      leaseHeld: new Map(s.leaseHeld),
      lastToken: new Map(s.lastToken),
      storageMax: new Map(s.storageMax),
      faultFree: s.faultFree,
      expiredSeen: new Set(s.expiredSeen),
      crashedHolders: new Set(s.crashedHolders),
      beliefs: new Map(s.beliefs),
      sendMarks: new Map(s.sendMarks),
      expiryDecidedBy: new Map(s.expiryDecidedBy),
      leaseIndexApplied: s.leaseIndexApplied,
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
      case "snapshot":
        this.onSnapshot(e.proc, e);
        return;
      case "apply":
        this.onApply(e.proc, e.from, e.to);
        return;
      case "crash":
        this.s.commit.delete(e.proc);
        if (this.host.holderIds.includes(e.proc)) {
          this.s.beliefs.delete(e.proc);
          // A holder's crash is not a fault of the service: the lease it held may expire,
          // and every other holder must still keep theirs (renewed-lease-kept goes on).
          this.s.crashedHolders.add(e.proc);
          this.s.sendMarks.delete(e.proc);
          return;
        }
        this.s.faultFree = false;
        // Its state machine is rebuilt from the log on restart: forget what it had applied.
        for (const k of [...this.s.leaseHeld.keys()]) if (k.startsWith(`${e.proc}/`)) this.s.leaseHeld.delete(k);
        for (const k of [...this.s.lastToken.keys()]) if (k.startsWith(`${e.proc}/`)) this.s.lastToken.delete(k);
        return;
      case "pause":
      case "partition":
      case "cut":
      case "disconnect":
      case "slow-link":
      case "clock":
        this.s.faultFree = false;
        return;
      case "network":
        if (e.dropRate > 0) this.s.faultFree = false;
        return;
      case "drop":
        if (e.reason !== "down") this.s.faultFree = false;
        return;
      case "lease":
        this.onLease(e.proc, e);
        return;
      case "storage":
        this.onStorage(e.proc, e);
        return;
      case "holder":
        this.onHolder(e.proc, e);
        return;
      case "send":
        this.onSend(e.from, e.to, e);
        if (e.msg.type === "LeaseRefresh" || (e.msg.type === "ClientWrite" && e.msg.op.type === "grant")) this.markSend(e.from);
        return;
      case "client":
        if (e.phase === "ok" && e.op.type !== "get" && !this.isCommitted(e.clientId, e.seq)) {
          this.host.report({
            invariant: "acknowledged-write-durable",
            nodes: [e.proc],
            detail: `${e.proc} was told write #${e.seq} of ${e.clientId} succeeded, but no node has committed it`,
          });
        }
        if (e.phase === "ok") this.acknowledged(e.clientId, e.seq);
        return;
      // Nothing to check, or judged through other events: named, so a new kind must be placed.
      case "vote":
      case "config":
      case "transfer":
      case "deliver":
      case "restart":
      case "resume":
      case "heal":
      case "connect":
      case "timeout":
      case "note":
      case "violation":
        return;
      default: {
        const unhandled: never = e;
        throw new Error(`checkers: unhandled trace event ${(unhandled as TraceEvent).kind}`);
      }
    }
  }

  private onLease(node: NodeId, e: TraceEvent & { kind: "lease" }): void {
    const key = `${node}/${e.name}`;
    const news = e.index !== undefined && e.index > this.s.leaseIndexApplied;
    if (news) this.s.leaseIndexApplied = e.index as number;
    switch (e.op) {
      case "grant": {
        if (e.holder === null) return;
        const held = this.s.leaseHeld.get(key) ?? null;
        if (held !== null && held.token !== e.token) {
          this.host.report({
            invariant: "lease-exclusive",
            nodes: [node, held.holder, e.holder],
            detail: `${node} granted ${e.name} to ${e.holder} (token ${e.token}) while ${held.holder} still held it (token ${held.token})`,
          });
        }
        const last = this.s.lastToken.get(key) ?? 0;
        if (e.token !== last && e.token < last) {
          this.host.report({
            invariant: "token-monotonic",
            nodes: [node],
            detail: `${node} granted ${e.name} with token ${e.token} after token ${last}`,
          });
        }
        this.s.lastToken.set(key, Math.max(last, e.token));
        this.s.leaseHeld.set(key, { holder: e.holder, token: e.token });
        if (news) this.checkBeliefs(node, e.name, (_b, h) => h !== e.holder, `was granted to ${e.holder} (token ${e.token})`);
        return;
      }
      case "expiring":
        this.s.expiryDecidedBy.set(e.name, node);
        return;
      case "revoke":
      case "expire": {
        const held = this.s.leaseHeld.get(key) ?? null;
        if (held !== null && held.token === e.token) this.s.leaseHeld.set(key, null);
        const dangling = this.host.stateOf(node)?.danglingKeys() ?? [];
        if (dangling.length > 0) {
          this.host.report({
            invariant: "lease-keys",
            nodes: [node],
            detail: `after ${e.name} ended on ${node}, its key(s) ${dangling.join(", ")} are still there`,
          });
        }
        if (e.op === "expire") {
          this.onExpire(node, e.name, e.holder, e.token);
          const token = e.token;
          if (news) this.checkBeliefs(node, e.name, (b) => b.token === token, `expired (token ${token})`);
        }
        return;
      }
      // No holding changes hands: a denial, the end of a lock-delay, a checkpoint, a skipped
      // expiry, and the leader's own timing (refreshes, the decision to expire, an extension).
      case "deny":
      case "free":
      case "checkpoint":
      case "expire-skipped":
      case "timed":
      case "refresh":
      case "refresh-denied":
      case "extended":
        return;
      default: {
        const unhandled: never = e.op;
        throw new Error(`checkers: unhandled lease event ${unhandled as string}`);
      }
    }
  }

  private onExpire(node: NodeId, name: string, holder: string | null, token: number): void {
    const id = `${name}#${token}`;
    if (this.s.expiredSeen.has(id)) return;
    this.s.expiredSeen.add(id);
    if (this.s.faultFree && holder !== null && this.host.isUp(holder) && !this.s.crashedHolders.has(holder)) {
      this.host.report({
        invariant: "renewed-lease-kept",
        nodes: [node, holder],
        detail: `${holder}'s lease ${name} (token ${token}) expired although nothing went wrong: it was running and the network was healthy`,
      });
    }
  }

  private onHolder(holder: ProcId, e: TraceEvent & { kind: "holder" }): void {
    if (e.state.startsWith("holding") && e.token !== null && e.deadlineUs !== null) {
      this.s.beliefs.set(holder, { name: e.leaseName, token: e.token, deadlineUs: e.deadlineUs });
      this.s.crashedHolders.delete(holder);
    } else {
      this.s.beliefs.delete(holder);
    }
  }

  private markSend(holder: ProcId): void {
    const local = this.host.localNow(holder);
    const marks = this.s.sendMarks.get(holder) ?? [];
    const last = marks[marks.length - 1];
    if (last !== undefined && last.local === local) return;
    const mark: SendMark = { local, t: this.host.now, nodes: this.host.nodeIds.map((id) => this.host.localNow(id)) };
    const kept = marks.length >= SEND_MARKS_LIMIT ? marks.slice(marks.length - SEND_MARKS_LIMIT + 1) : marks;
    this.s.sendMarks.set(holder, [...kept, mark]);
  }

  /**
   * The lease `name` just ended or changed hands on `node` (`what`). Every holder that
   * still believes it holds it, by its own clock, is either a protocol bug (a violation) or
   * a clock that broke the bound the holders' drift margin covers (a broken bound).
   */
  private checkBeliefs(node: NodeId, name: string, affected: (b: Belief, holder: ProcId) => boolean, what: string): void {
    for (const [holder, b] of this.s.beliefs) {
      if (b.name !== name || !affected(b, holder)) continue;
      const local = this.host.localNow(holder);
      if (local >= b.deadlineUs) continue;
      // Judged once per belief.
      this.s.beliefs.delete(holder);
      const leftMs = ((b.deadlineUs - local) / 1000).toFixed(1);
      const decider = this.s.expiryDecidedBy.get(name) ?? node;
      const clock = this.clockExcuse(holder, decider);
      if (clock !== null) {
        this.host.boundBroken({
          bound: "clock-rate",
          nodes: [decider, holder],
          detail: `${holder} still believed it held ${name} (token ${b.token}, ${leftMs} ms left on its clock) when it ${what} on ${node}, because ${clock}`,
        });
        continue;
      }
      this.host.report({
        invariant: "lease-belief",
        nodes: [node, holder],
        detail: `${holder} believes it holds ${name} (token ${b.token}) for ${leftMs} ms more on its own clock, but ${name} ${what} on ${node}`,
      });
    }
  }

  /**
   * Whether clock rates explain a holder's late belief: since the holder sent the request
   * it times its lease from, has the leader that decided the expiry seen more time pass
   * than the holder's drift margin allows for? (If not, no clock excuses it.)
   */
  private clockExcuse(holder: ProcId, leader: NodeId): string | null {
    const timing = this.host.holderTiming(holder);
    const marks = this.s.sendMarks.get(holder);
    const li = this.host.nodeIds.indexOf(leader);
    if (timing === null || marks === undefined || li < 0) return null;
    const mark = marks.find((m) => m.local === timing.sentAtUs);
    if (mark === undefined) return null;
    const holderUs = this.host.localNow(holder) - mark.local;
    const leaderUs = this.host.localNow(leader) - (mark.nodes[li] as number);
    const margin = timing.driftMarginPpm / 1e6;
    // The leader timed at least the TTL from after the send; the holder's deadline is
    // ttl x (1 - margin) from the send. Both can only hold if the leader's clock gained.
    if (leaderUs * (1 - margin) <= holderUs) return null;
    const fastPct = holderUs <= 0 ? Number.POSITIVE_INFINITY : (leaderUs / holderUs - 1) * 100;
    const realUs = this.host.now - mark.t;
    const rate =
      holderUs <= 0
        ? `${holder}'s clock went back`
        : `${leader}'s clock ran ${fastPct.toFixed(0)} % fast against ${holder}'s (${(leaderUs / 1e6).toFixed(2)} s against ${(holderUs / 1e6).toFixed(2)} s in ${(realUs / 1e6).toFixed(2)} s of real time)`;
    return `${rate}; the holders assume at most ${(margin * 100).toFixed(margin * 100 < 1 ? 1 : 0)} %`;
  }

  private onStorage(storage: ProcId, e: TraceEvent & { kind: "storage" }): void {
    if (!e.accepted) return;
    const max = this.s.storageMax.get(e.resource) ?? 0;
    if (e.token < max) {
      this.host.report(
        e.fencing
          ? {
              invariant: "fencing-monotonic",
              nodes: [storage, e.holder],
              detail: `storage accepted ${e.holder}'s write to ${e.resource} with token ${e.token} after accepting token ${max}`,
            }
          : {
              invariant: "storage-corruption",
              nodes: [storage, e.holder],
              detail: `fencing is off: storage accepted ${e.holder}'s late write to ${e.resource} with token ${e.token} after a newer holder wrote with token ${max}; their writes interleaved`,
            },
      );
    }
    this.s.storageMax.set(e.resource, Math.max(max, e.token));
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
   * start, and below it are the committed ones.
   */
  private onSnapshot(node: NodeId, e: TraceEvent & { kind: "snapshot" }): void {
    const committed = this.s.committed.get(e.index);
    const bad = (detail: string, invariant: Invariant = "state-machine-safety"): void =>
      this.host.report({ invariant, nodes: [node], detail });
    if (committed === undefined) {
      bad(`${node} ${e.op === "take" ? "took" : "installed"} a snapshot up to index ${e.index}, which no node has committed`);
      return;
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
    if (e.op === "install") {
      // Its state machine starts over from the snapshot: forget what it had applied.
      for (const k of [...this.s.leaseHeld.keys()]) if (k.startsWith(`${node}/`)) this.s.leaseHeld.delete(k);
      for (const k of [...this.s.lastToken.keys()]) if (k.startsWith(`${node}/`)) this.s.lastToken.delete(k);
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
        else if (diskLastIndex(disk) < m.prevLogIndex + m.entries.length)
          bad(`entries up to ${m.prevLogIndex + m.entries.length} it has not persisted`);
        return;
      case "AppendEntriesResp":
        if (disk.hard.term < m.term) bad(`an append reply in term ${m.term} before persisting that term`);
        else if (m.success && diskLastIndex(disk) < m.matchIndex) bad(`an acknowledgement of index ${m.matchIndex} before persisting it`);
        return;
      case "InstallSnapshot":
        if (disk.hard.term < m.term) bad(`a snapshot in term ${m.term} before persisting that term`);
        else if ((disk.start.snapshot?.index ?? 0) < m.snapshot.index) bad(`a snapshot up to ${m.snapshot.index} it has not persisted`);
        return;
      // A pre-vote or a TimeoutNow depends on nothing persisted; the rest are not Raft's.
      case "TimeoutNow":
      case "ClientWrite":
      case "ClientRead":
      case "ClientReply":
      case "LeaseRefresh":
      case "LeaseRefreshReply":
      case "StorageWrite":
      case "StorageReply":
        return;
      default: {
        const unhandled: never = m;
        throw new Error(`checkers: unhandled message ${(unhandled as { type: string }).type}`);
      }
    }
  }
}
