/**
 * The simulated network: latency, loss and duplication drawn from its own seeded stream,
 * and the faults that block or slow links (partitions, one-way cuts, disconnected
 * processes, slow links). The kernel asks it each message's fate when the message is
 * sent; the actions change its shape.
 */
import { MAX_SLOW_LINK_US, type NetworkSettings } from "./config";
import { ActionRefused } from "./refusal";
import { Rng, type RngState } from "./rng";
import { ms } from "./time";
import type { ProcId } from "./trace";

/** A latency range (µs) for one type of message, instead of the network's own. */
export interface LatencyRange {
  readonly minUs: number;
  readonly maxUs: number;
}

export interface NetState {
  latencyMinUs: number;
  latencyMaxUs: number;
  /** Latency by message type ("AppendEntriesReply": replies slower than requests); other types use the range above. */
  latencyByType: Readonly<Record<string, LatencyRange>>;
  dropRate: number;
  duplicateRate: number;
  /** Partition group of each process named in a partition; unnamed ones reach everyone. */
  groupOf: Record<ProcId, number>;
  /** One-way cuts "from>to". */
  cuts: string[];
  /** One-way slow links: extra latency (µs) from one process to another (usually none: the send path checks the length first). */
  slow: { readonly from: ProcId; readonly to: ProcId; readonly delayUs: number }[];
  /** Processes cut off from every other, both ways (disconnect), whatever the partition says. */
  isolated: string[];
}

/** The network's shape as the views show it. */
export interface NetworkShape {
  readonly groups: ProcId[][];
  readonly cuts: { from: ProcId; to: ProcId }[];
  readonly slow: { from: ProcId; to: ProcId; delayUs: number }[];
  readonly isolated: ProcId[];
  readonly dropRate: number;
  readonly duplicateRate: number;
  readonly latencyMinUs: number;
  readonly latencyMaxUs: number;
  readonly latencyByType: Readonly<Record<string, LatencyRange>>;
}

/** A change of rates or latency (the `network` action); fields left out keep their value. */
export interface NetworkChange {
  readonly dropRate?: number;
  readonly duplicateRate?: number;
  readonly latencyMinUs?: number;
  readonly latencyMaxUs?: number;
  /** Replaces the whole per-type table; a type mapped to null goes back to the network's range. */
  readonly latencyByType?: Readonly<Record<string, LatencyRange | null>>;
}

export class Network {
  /** Whether st.groupOf names anyone, and st.latencyByType any type (kept with them): the send path's fast case skips their lookups. */
  private grouped: boolean;
  private typed: boolean;

  private constructor(
    private st: NetState,
    private rng: Rng,
  ) {
    this.grouped = hasKeys(st.groupOf);
    this.typed = hasKeys(st.latencyByType);
  }

  static fromSettings(n: NetworkSettings, rng: Rng): Network {
    const byType: Record<string, LatencyRange> = {};
    for (const [type, r] of Object.entries(n.latencyByType)) byType[type] = { minUs: ms(r.minMs), maxUs: ms(r.maxMs) };
    return new Network(
      {
        latencyMinUs: ms(n.latencyMinMs),
        latencyMaxUs: ms(n.latencyMaxMs),
        latencyByType: byType,
        dropRate: n.dropRate,
        duplicateRate: n.duplicateRate,
        groupOf: {},
        cuts: [],
        slow: [],
        isolated: [],
      },
      rng,
    );
  }

  // ---- a message's fate, drawn when it is sent (the draws' order is part of the trace) ----

  /** How many copies of a message go out: 2 when it is duplicated. */
  copies(): number {
    return this.rng.chance(this.st.duplicateRate) ? 2 : 1;
  }

  /** One copy's latency (µs): the range for its type, plus a slow link's delay. */
  latency(from: ProcId, to: ProcId, type: string): number {
    const n = this.st;
    const r = this.typed ? n.latencyByType[type] : undefined;
    const base = r === undefined ? this.rng.int(n.latencyMinUs, n.latencyMaxUs) : this.rng.int(r.minUs, r.maxUs);
    return n.slow.length === 0 ? base : base + (n.slow.find((l) => l.from === from && l.to === to)?.delayUs ?? 0);
  }

  /** Whether one copy is lost on the way. */
  lost(): boolean {
    return this.rng.chance(this.st.dropRate);
  }

  /** Whether a message from `from` can reach `to` now, and if not, what blocks it. */
  isBlocked(from: ProcId, to: ProcId): "cut" | "partition" | null {
    const n = this.st;
    if (n.cuts.length > 0 && n.cuts.includes(`${from}>${to}`)) return "cut";
    if (n.isolated.length > 0 && from !== to && (n.isolated.includes(from) || n.isolated.includes(to))) return "partition";
    if (!this.grouped) return null;
    const a = n.groupOf[from];
    const b = n.groupOf[to];
    return a !== undefined && b !== undefined && a !== b ? "partition" : null;
  }

  // ---- changes (the actions) ----

  /** Splits the processes named into groups (each process in one group at most). */
  partition(groups: readonly (readonly ProcId[])[]): void {
    const groupOf: Record<ProcId, number> = {};
    groups.forEach((g, i) => {
      for (const id of g) {
        if (groupOf[id] !== undefined && groupOf[id] !== i) throw new ActionRefused(`partition: ${id} is in two groups`);
        groupOf[id] = i;
      }
    });
    this.st.groupOf = groupOf;
    this.grouped = hasKeys(groupOf);
  }

  /** Every link back: no partition, cut, slow link or disconnected process. */
  heal(): void {
    this.st.groupOf = {};
    this.grouped = false;
    this.st.cuts = [];
    this.st.slow = [];
    this.st.isolated = [];
  }

  cut(from: ProcId, to: ProcId): void {
    const key = `${from}>${to}`;
    if (!this.st.cuts.includes(key)) this.st.cuts.push(key);
  }

  /** Cuts a process off from every other, both ways (`connected` false), or joins it back. */
  setConnected(id: ProcId, connected: boolean): void {
    const i = this.st.isolated.indexOf(id);
    if (!connected && i < 0) this.st.isolated = [...this.st.isolated, id];
    if (connected && i >= 0) this.st.isolated = this.st.isolated.filter((x) => x !== id);
  }

  /** Messages from `from` to `to` take `delayUs` longer (0: back to normal). */
  slowLink(from: ProcId, to: ProcId, delayUs: number): void {
    if (!Number.isSafeInteger(delayUs) || delayUs < 0 || delayUs > MAX_SLOW_LINK_US) {
      throw new ActionRefused(`slow-link: the extra delay must be from 0 to ${MAX_SLOW_LINK_US / 1_000_000} s`);
    }
    const others = this.st.slow.filter((l) => l.from !== from || l.to !== to);
    this.st.slow = delayUs === 0 ? others : [...others, { from, to, delayUs }];
  }

  /** Changes rates and latency; refuses (and changes nothing) when the result is not a valid network. */
  change(c: NetworkChange): void {
    const n = { ...this.st };
    if (c.dropRate !== undefined) n.dropRate = c.dropRate;
    if (c.duplicateRate !== undefined) n.duplicateRate = c.duplicateRate;
    if (c.latencyMinUs !== undefined) n.latencyMinUs = c.latencyMinUs;
    if (c.latencyMaxUs !== undefined) n.latencyMaxUs = c.latencyMaxUs;
    if (c.latencyByType !== undefined) {
      const byType: Record<string, LatencyRange> = { ...n.latencyByType };
      for (const [type, r] of Object.entries(c.latencyByType)) {
        if (r === null) delete byType[type];
        else if (!validRange(r.minUs, r.maxUs)) throw new ActionRefused(`network: latency of ${type} must be a non-negative range`);
        else byType[type] = { minUs: r.minUs, maxUs: r.maxUs };
      }
      n.latencyByType = byType;
    }
    if (!(n.dropRate >= 0 && n.dropRate <= 1 && n.duplicateRate >= 0 && n.duplicateRate <= 1)) {
      throw new ActionRefused("network: rates must be between 0 and 1");
    }
    if (!validRange(n.latencyMinUs, n.latencyMaxUs)) throw new ActionRefused("network: latency must be a non-negative range");
    this.st = n;
    this.typed = hasKeys(n.latencyByType);
  }

  // ---- views and snapshots ----

  view(): NetworkShape {
    const n = this.st;
    const groups: ProcId[][] = [];
    for (const id of Object.keys(n.groupOf)) {
      const g = n.groupOf[id] as number;
      while (groups.length <= g) groups.push([]);
      (groups[g] as ProcId[]).push(id);
    }
    return {
      groups: groups.filter((g) => g.length > 0),
      cuts: n.cuts.map((k) => {
        const i = k.indexOf(">");
        return { from: k.slice(0, i), to: k.slice(i + 1) };
      }),
      slow: n.slow.slice(),
      isolated: n.isolated.slice(),
      dropRate: n.dropRate,
      duplicateRate: n.duplicateRate,
      latencyMinUs: n.latencyMinUs,
      latencyMaxUs: n.latencyMaxUs,
      latencyByType: n.latencyByType,
    };
  }

  snapshot(): { readonly state: NetState; readonly rng: RngState } {
    return { state: cloneNet(this.st), rng: this.rng.snapshot() };
  }

  static restore(s: { readonly state: NetState; readonly rng: RngState }): Network {
    return new Network(cloneNet(s.state), Rng.restore(s.rng));
  }
}

function hasKeys(o: object): boolean {
  for (const _ in o) return true;
  return false;
}

const validRange = (lo: number, hi: number): boolean => Number.isSafeInteger(lo) && Number.isSafeInteger(hi) && lo >= 0 && hi >= lo;

function cloneNet(n: NetState): NetState {
  return { ...n, groupOf: { ...n.groupOf }, cuts: n.cuts.slice(), slow: n.slow.slice(), isolated: n.isolated.slice() };
}
