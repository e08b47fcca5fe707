/**
 * The lease checkers: lease-exclusive, token-monotonic and lease-keys on what each node
 * applies; renewed-lease-kept on a run with no fault; and lease-belief, which compares what
 * the holders believe (by their own clocks) with what the service has applied.
 */
import type { NodeId } from "../../raft/types";
import type { ProcId, TraceEvent } from "../trace";
import type { CheckerHost } from "./types";

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
  /** The holder's previous mark (the marks form a list, newest first, never changed: snapshots share it). */
  readonly prev: SendMark | null;
  /** How many marks this list holds, this one included. */
  readonly depth: number;
}

/** Requests remembered per holder, to find the one a belief is timed from. */
const SEND_MARKS_LIMIT = 64;

/**
 * The newest SEND_MARKS_LIMIT marks of `top` as a list of their own, so the old ones can go:
 * done once the list is twice that long, so a send costs one mark and no copy on average.
 */
function trimMarks(top: SendMark): SendMark {
  const newest: SendMark[] = [];
  for (let m: SendMark | null = top; m !== null && newest.length < SEND_MARKS_LIMIT; m = m.prev) newest.push(m);
  let out: SendMark | null = null;
  for (let i = newest.length - 1; i >= 0; i--) {
    const m = newest[i] as SendMark;
    out = { local: m.local, t: m.t, nodes: m.nodes, prev: out, depth: out === null ? 1 : out.depth + 1 };
  }
  return out as SendMark;
}

interface LeaseCheckState {
  /** Per node and lease name: the committed holder and token as that node applied them. */
  leaseHeld: Map<string, { holder: string; token: number } | null>;
  /** Per node and lease name: the last token granted (tokens must grow). */
  lastToken: Map<string, number>;
  /** No fault has happened yet in this run (crash, pause, partition, loss, clock change...). */
  faultFree: boolean;
  /** Expiries already judged by renewed-lease-kept ("name#token"). */
  expiredSeen: Set<string>;
  /** Holders that crashed and have not held a lease since: their old lease may expire (not a fault of the run). */
  crashedHolders: Set<ProcId>;
  /** Per holder: the lease it believes it holds, while its statechart is in holding. */
  beliefs: Map<ProcId, Belief>;
  /** Per holder: its recent grant and refresh requests, newest first (a list never changed in place). */
  sendMarks: Map<ProcId, SendMark>;
  /** Per lease name: the leader that last decided to expire it (proposed an Expire). */
  expiryDecidedBy: Map<string, NodeId>;
  /**
   * The highest log index whose lease command some node has applied. A node catching up
   * (or replaying its log after a restart) applies history: only the first application of
   * an index is news to the holders.
   */
  leaseIndexApplied: number;
}

export class LeaseChecker {
  private readonly s: LeaseCheckState;

  constructor(
    private readonly host: CheckerHost,
    state?: LeaseCheckState,
    faultFreeAtStart = true,
  ) {
    this.s = state ?? {
      leaseHeld: new Map(),
      lastToken: new Map(),
      faultFree: faultFreeAtStart,
      expiredSeen: new Set(),
      crashedHolders: new Set(),
      beliefs: new Map(),
      sendMarks: new Map(),
      expiryDecidedBy: new Map(),
      leaseIndexApplied: 0,
    };
  }

  clone(host: CheckerHost): LeaseChecker {
    const s = this.s;
    return new LeaseChecker(host, {
      leaseHeld: new Map(s.leaseHeld),
      lastToken: new Map(s.lastToken),
      faultFree: s.faultFree,
      expiredSeen: new Set(s.expiredSeen),
      crashedHolders: new Set(s.crashedHolders),
      beliefs: new Map(s.beliefs),
      sendMarks: new Map(s.sendMarks),
      expiryDecidedBy: new Map(s.expiryDecidedBy),
      leaseIndexApplied: s.leaseIndexApplied,
    });
  }

  /** A fault happened (a crash, pause, partition, loss, clock change...): renewed-lease-kept no longer applies. */
  faultHappened(): void {
    this.s.faultFree = false;
  }

  /** A process crashed: a holder loses its belief; a node is a fault, and its state machine starts over. */
  crashed(proc: ProcId): void {
    if (this.host.holderIds.includes(proc)) {
      this.s.beliefs.delete(proc);
      // A holder's crash is not a fault of the service: the lease it held may expire,
      // and every other holder must still keep theirs (renewed-lease-kept goes on).
      this.s.crashedHolders.add(proc);
      this.s.sendMarks.delete(proc);
      return;
    }
    this.s.faultFree = false;
    // Its state machine is rebuilt from the log on restart: forget what it had applied.
    this.forgetApplied(proc);
  }

  /** The node's state machine starts over (a restart, or a snapshot installed): forget what it had applied. */
  forgetApplied(node: NodeId): void {
    for (const k of [...this.s.leaseHeld.keys()]) if (k.startsWith(`${node}/`)) this.s.leaseHeld.delete(k);
    for (const k of [...this.s.lastToken.keys()]) if (k.startsWith(`${node}/`)) this.s.lastToken.delete(k);
  }

  onLease(node: NodeId, e: TraceEvent & { kind: "lease" }): void {
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

  onHolder(holder: ProcId, e: TraceEvent & { kind: "holder" }): void {
    if (e.state.startsWith("holding") && e.token !== null && e.deadlineUs !== null) {
      this.s.beliefs.set(holder, { name: e.leaseName, token: e.token, deadlineUs: e.deadlineUs });
      this.s.crashedHolders.delete(holder);
    } else {
      this.s.beliefs.delete(holder);
    }
  }

  /** A holder sent a grant or a refresh: remember its clock and every node's, to judge a late belief by. */
  markSend(holder: ProcId): void {
    const local = this.host.localNow(holder);
    const last = this.s.sendMarks.get(holder) ?? null;
    if (last !== null && last.local === local) return;
    const nodeIds = this.host.nodeIds;
    const nodes = new Array<number>(nodeIds.length);
    for (let i = 0; i < nodeIds.length; i++) nodes[i] = this.host.localNow(nodeIds[i] as ProcId);
    const mark: SendMark = { local, t: this.host.now, nodes, prev: last, depth: last === null ? 1 : last.depth + 1 };
    this.s.sendMarks.set(holder, mark.depth >= 2 * SEND_MARKS_LIMIT ? trimMarks(mark) : mark);
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
    // The oldest of the newest SEND_MARKS_LIMIT marks sent at that local time.
    let mark: SendMark | undefined;
    let seen = 0;
    for (let m: SendMark | null = marks; m !== null && seen < SEND_MARKS_LIMIT; m = m.prev, seen++) if (m.local === timing.sentAtUs) mark = m;
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
}
