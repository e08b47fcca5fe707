/**
 * What the expectations need to know about a run so far, gathered from the trace: a
 * RunObserver listens to every event. It records the costly things (message sends, refusals,
 * the leader's lease events) only when some expectation asks for them (observerNeeds).
 * Time travel saves and restores it with save() and load().
 */
import type { Expectation } from "./schema";
import type { TraceEvent } from "../sim/trace";

/** The leader's lease-tracker events a `lease-event` expectation counts (each happens once, on the leader). */
export const TRACKER_EVENTS = ["timed", "refresh", "refresh-denied", "expiring", "extended"] as const;
export type TrackerEventName = (typeof TRACKER_EVENTS)[number];

/** Message sends of one type: time (µs), JSON size, sender and receiver, index by index. */
export interface Sends {
  t: number[];
  bytes: number[];
  from: string[];
  to: string[];
}

/** A refusal the lease service sent a holder: a refresh turned down, or a grant denied. */
export interface Refusal {
  readonly t: number;
  readonly holder: string;
  readonly name: string;
  readonly reason: string;
}

/** One of the leader's lease-tracker events. */
export interface LeaseEventSeen {
  readonly t: number;
  readonly event: string;
  readonly name: string;
}

/** What a run's expectations ask the observer to record. */
export interface ObserverNeeds {
  /** Count messages only of these types (sizes cost a JSON.stringify each). */
  readonly types: ReadonlySet<string>;
  readonly refusals: boolean;
  readonly leaseEvents: boolean;
  /** Keep the clients' events (their history: linearizable, slowest-operation). Absent: false. */
  readonly history?: boolean;
  /** Keep reads served under a lease (reads-served). Absent: false. */
  readonly leaseReads?: boolean;
}

/** A read served under a lease, as the trace reported it. */
export interface LeaseReadSeen {
  readonly t: number;
  readonly via: "local" | "leader-lease";
  readonly node: string;
}

/** What a set of expectations needs recorded. */
export function observerNeeds(es: readonly Expectation[]): ObserverNeeds {
  return {
    types: new Set(es.flatMap((e) => (e.that === "messages" ? [e.type] : []))),
    refusals: es.some((e) => e.that === "refused"),
    leaseEvents: es.some((e) => e.that === "lease-event"),
    history: es.some((e) => e.that === "linearizable" || e.that === "slowest-operation"),
    leaseReads: es.some((e) => e.that === "reads-served"),
  };
}

/** A RunObserver's state as plain data (time travel keeps it in its snapshots). */
export interface ObserverState {
  readonly acks: [string, number][];
  readonly holderState: [string, string][];
  readonly visited: [string, string[]][];
  readonly writes: { holder: string; accepted: boolean }[];
  readonly sends: [string, Sends][];
  readonly refusals: Refusal[];
  readonly leaseEvents: LeaseEventSeen[];
  readonly clientEvents?: ClientEvent[];
  readonly leaseReads?: LeaseReadSeen[];
}

/** A client's invoke or outcome, as traced (what the history is made of). */
export type ClientEvent = Extract<TraceEvent, { kind: "client" }>;

const copySends = (s: Sends): Sends => ({ t: s.t.slice(), bytes: s.bytes.slice(), from: s.from.slice(), to: s.to.slice() });

export class RunObserver {
  readonly acks = new Map<string, number>();
  readonly holderState = new Map<string, string>();
  readonly holderVisited = new Map<string, Set<string>>();
  readonly storageWrites: { holder: string; accepted: boolean }[] = [];
  /** Per message type: the sends, for `messages` expectations. */
  readonly sends = new Map<string, Sends>();
  /** Refusals sent to holders, oldest first (recorded only when needs.refusals). */
  readonly refusals: Refusal[] = [];
  /** The leader's lease-tracker events, oldest first (recorded only when needs.leaseEvents). */
  readonly leaseEvents: LeaseEventSeen[] = [];
  /** The clients' events, oldest first (recorded only when needs.history). */
  readonly clientEvents: ClientEvent[] = [];
  /** Reads served under a lease, oldest first (recorded only when needs.leaseReads). */
  readonly leaseReads: LeaseReadSeen[] = [];
  private readonly needs: ObserverNeeds;

  /** `needs` as a set of message types counts only those (and records no refusals or lease events). */
  constructor(needs: ReadonlySet<string> | ObserverNeeds = new Set()) {
    this.needs = needs instanceof Set ? { types: needs, refusals: false, leaseEvents: false } : (needs as ObserverNeeds);
  }

  observe(e: TraceEvent): void {
    if (e.kind === "send") {
      if (this.needs.refusals && !e.dup) this.refusal(e);
      if (!this.needs.types.has(e.msg.type)) return;
      let c = this.sends.get(e.msg.type);
      if (c === undefined) {
        c = { t: [], bytes: [], from: [], to: [] };
        this.sends.set(e.msg.type, c);
      }
      c.t.push(e.t);
      c.bytes.push(JSON.stringify(e.msg).length);
      c.from.push(e.from);
      c.to.push(e.to);
      return;
    }
    if (e.kind === "client" && this.needs.history === true) this.clientEvents.push(e);
    if (e.kind === "lease-read" && this.needs.leaseReads === true) this.leaseReads.push({ t: e.t, via: e.via, node: e.proc });
    if (e.kind === "client" && e.phase === "ok") this.acks.set(e.proc, (this.acks.get(e.proc) ?? 0) + 1);
    else if (e.kind === "holder") {
      this.holderState.set(e.proc, e.state);
      let seen = this.holderVisited.get(e.proc);
      if (seen === undefined) {
        seen = new Set();
        this.holderVisited.set(e.proc, seen);
      }
      seen.add(e.state);
    } else if (e.kind === "storage") this.storageWrites.push({ holder: e.holder, accepted: e.accepted });
    else if (e.kind === "lease" && this.needs.leaseEvents && (TRACKER_EVENTS as readonly string[]).includes(e.op)) {
      this.leaseEvents.push({ t: e.t, event: e.op, name: e.name });
    }
  }

  /** A refresh refused (LeaseRefreshReply not ok) or a grant denied (a ClientReply saying denied), as sent. */
  private refusal(e: Extract<TraceEvent, { kind: "send" }>): void {
    const m = e.msg;
    if (m.type === "LeaseRefreshReply" && !m.ok) this.refusals.push({ t: e.t, holder: e.to, name: m.name, reason: m.reason });
    else if (m.type === "ClientReply" && m.ok && m.result.kind === "denied") {
      this.refusals.push({ t: e.t, holder: e.to, name: m.result.name, reason: m.result.reason });
    }
  }

  save(): ObserverState {
    return {
      acks: [...this.acks],
      holderState: [...this.holderState],
      visited: [...this.holderVisited].map(([k, v]) => [k, [...v]]),
      writes: this.storageWrites.map((w) => ({ ...w })),
      sends: [...this.sends].map(([k, v]) => [k, copySends(v)]),
      refusals: this.refusals.slice(),
      leaseEvents: this.leaseEvents.slice(),
      clientEvents: this.clientEvents.slice(),
      leaseReads: this.leaseReads.slice(),
    };
  }

  load(s: ObserverState): void {
    this.acks.clear();
    for (const [k, v] of s.acks) this.acks.set(k, v);
    this.holderState.clear();
    for (const [k, v] of s.holderState) this.holderState.set(k, v);
    this.holderVisited.clear();
    for (const [k, v] of s.visited) this.holderVisited.set(k, new Set(v));
    this.storageWrites.length = 0;
    for (const w of s.writes) this.storageWrites.push({ ...w });
    this.sends.clear();
    for (const [k, v] of s.sends) this.sends.set(k, copySends(v));
    this.refusals.length = 0;
    for (const r of s.refusals) this.refusals.push(r);
    this.leaseEvents.length = 0;
    for (const l of s.leaseEvents) this.leaseEvents.push(l);
    this.clientEvents.length = 0;
    for (const c of s.clientEvents ?? []) this.clientEvents.push(c);
    this.leaseReads.length = 0;
    for (const r of s.leaseReads ?? []) this.leaseReads.push(r);
  }
}
