/**
 * two-primaries: at most one database replica accepts writes as primary at any virtual
 * instant (docs/failover.md). A replica (a holder with `replicas` on, known by its "replica"
 * events) accepts a client's write when it sends it to the storage: it only does so while it
 * believes it is the primary. Its primary interval under a token runs from the first write it
 * accepted with that token to the last. Two replicas of the same lease whose intervals overlap
 * were both accepting writes at one instant: split brain, whatever the storage then does with
 * the writes (fencing rejects the older token's, without fencing both land).
 */
import { formatInstant } from "../time";
import type { ProcId, TraceEvent } from "../trace";
import type { CheckerHost } from "./types";

interface PrimarySpan {
  readonly holder: ProcId;
  readonly token: number;
  readonly lease: string;
  readonly first: number;
  last: number;
}

export class PrimaryChecker {
  constructor(
    private readonly host: CheckerHost,
    /** Each replica's lease name (the holders that reported a role). */
    private readonly replicas = new Map<ProcId, string>(),
    /** Per lease, each (replica, token)'s interval of accepted writes. */
    private readonly spans = new Map<string, PrimarySpan[]>(),
    /** Pairs of spans already reported ("h1:1|h2:2"). */
    private readonly reported = new Set<string>(),
  ) {}

  clone(host: CheckerHost): PrimaryChecker {
    const spans = new Map([...this.spans].map(([k, list]) => [k, list.map((s) => ({ ...s }))]));
    return new PrimaryChecker(host, new Map(this.replicas), spans, new Set(this.reported));
  }

  onReplica(holder: ProcId, e: TraceEvent & { kind: "replica" }): void {
    this.replicas.set(holder, e.leaseName);
  }

  /** A message sent: a replica's StorageWrite is a write it accepted as primary. */
  onSend(e: TraceEvent & { kind: "send" }): void {
    if (e.msg.type !== "StorageWrite") return;
    const lease = this.replicas.get(e.from);
    if (lease !== undefined) this.accepted(e.from, lease, e.msg.token, e.t);
  }

  private accepted(holder: ProcId, lease: string, token: number, t: number): void {
    let list = this.spans.get(lease);
    if (list === undefined) {
      list = [];
      this.spans.set(lease, list);
    }
    let span = list.find((s) => s.holder === holder && s.token === token);
    if (span === undefined) {
      span = { holder, token, lease, first: t, last: t };
      list.push(span);
    }
    span.last = t;
    // Time only moves on: another span overlaps this one if it accepted a write at or after this one's first.
    for (const other of list) {
      if (other.holder === holder || other.last < span.first) continue;
      const key = [`${holder}:${token}`, `${other.holder}:${other.token}`].sort().join("|");
      if (this.reported.has(key)) continue;
      this.reported.add(key);
      const from = Math.max(span.first, other.first);
      this.host.report({
        invariant: "two-primaries",
        nodes: [other.holder, holder],
        detail: `two primaries of ${lease}: ${other.holder} (token ${other.token}) and ${holder} (token ${token}) both accepted writes between ${formatInstant(from)} and ${formatInstant(Math.min(t, other.last))}`,
      });
    }
  }
}
