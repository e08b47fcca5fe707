/**
 * The expectations about what happened over time (message counts, refusals, the leader's
 * lease events), about a lease's granted TTL, about broken clock bounds, and about database
 * replicas (which is primary; two primaries at once): described and
 * checked here, for checkExpectation (runner.ts).
 */
import { checkLinearizability, describeLinResult, type LinResult } from "../lin/check";
import type { Simulation } from "../sim/sim";
import { formatDuration, formatInstant } from "../sim/time";
import { type HistoryOp, HistoryRecorder } from "./history";
import type { RunObserver } from "./observer";
import type { Expectation } from "./schema";

export type ObservedExpectation = Extract<
  Expectation,
  { that: "messages" | "lease-ttl" | "refused" | "lease-event" | "clock-bound-broken" | "linearizable" | "reads-served" | "slowest-operation" | "two-primaries" | "primary-is" }
>;

const OBSERVED: ReadonlySet<string> = new Set([
  "messages",
  "lease-ttl",
  "refused",
  "lease-event",
  "clock-bound-broken",
  "linearizable",
  "reads-served",
  "slowest-operation",
  "two-primaries",
  "primary-is",
]);

export function isObserved(e: Expectation): e is ObservedExpectation {
  return OBSERVED.has(e.that);
}

/** From when a `since` counts (µs): "step" is the current lesson step's start (the run's start outside a lesson). */
export function sinceUs(since: number | "step" | undefined, stepStartUs: number | undefined): number {
  return since === "step" ? (stepStartUs ?? 0) : (since ?? 0);
}

function describeSince(since: number | "step" | undefined): string {
  return since === undefined ? "" : since === "step" ? " since the step began" : ` since ${formatInstant(since)}`;
}

function describeRange(atLeast: number | undefined, atMost: number | undefined, unit: (n: number) => string = String): string {
  return [atLeast === undefined ? null : `at least ${unit(atLeast)}`, atMost === undefined ? null : `at most ${unit(atMost)}`]
    .filter((x) => x !== null)
    .join(" and ");
}

/** A count's range: without bounds, at least one. */
function inCount(n: number, atLeast: number | undefined, atMost: number | undefined): boolean {
  const min = atLeast ?? (atMost === undefined ? 1 : 0);
  return n >= min && (atMost === undefined || n <= atMost);
}

function countWords(atLeast: number | undefined, atMost: number | undefined): string {
  return atLeast === undefined && atMost === undefined ? "at least once" : `${describeRange(atLeast, atMost)} time(s)`;
}

export function describeObserved(e: ObservedExpectation): string {
  switch (e.that) {
    case "messages": {
      const range = describeRange(e.atLeast, e.atMost);
      const bytes = e.bytesAtMost === undefined ? "" : `${range ? ", " : ""}at most ${e.bytesAtMost} bytes`;
      const who = `${e.from === undefined ? "" : ` by ${e.from}`}${e.to === undefined ? "" : ` to ${e.to}`}`;
      return `${range}${bytes} ${e.type} message(s) sent${who}${e.atOnce === true ? " at one instant" : ""}${describeSince(e.since)}`;
    }
    case "lease-ttl":
      return `lease ${e.name} was granted a TTL of ${describeRange(e.atLeast, e.atMost, formatDuration)}`;
    case "refused":
      return `${e.holder ?? "a holder"} was refused (${e.reason})${e.name === undefined ? "" : ` for ${e.name}`} ${countWords(e.atLeast, e.atMost)}${describeSince(e.since)}`;
    case "lease-event":
      return `the leader's lease tracker reported ${e.event}${e.name === undefined ? "" : ` for ${e.name}`} ${countWords(e.atLeast, e.atMost)}${describeSince(e.since)}`;
    case "clock-bound-broken":
      return `a clock bound was broken${e.node === undefined ? "" : ` involving ${e.node}`}`;
    case "linearizable":
      return e.holds
        ? "the clients' reads and writes are linearizable (every read sees the latest write)"
        : "the clients' reads and writes are NOT linearizable: the checker finds a stale read";
    case "reads-served": {
      const via = e.via === "local" ? "locally by followers holding read leases" : e.via === "leader-lease" ? "by the leader under its lease" : "under a lease";
      return `reads were answered ${via}${e.node === undefined ? "" : ` at ${e.node}`} ${countWords(e.atLeast, e.atMost)}${describeSince(e.since)}`;
    }
    case "slowest-operation":
      return `the slowest ${e.operation}${e.client === undefined ? "" : ` by ${e.client}`}${describeSince(e.since)} took ${describeRange(e.atLeast, e.atMost, formatDuration)}`;
    case "two-primaries":
      return e.atMost === 0 && e.atLeast === undefined
        ? `no two replicas${e.holder === undefined ? "" : ` (with ${e.holder})`} were primary accepting writes at the same instant`
        : `two replicas${e.holder === undefined ? "" : ` (one of them ${e.holder})`} were primary accepting writes at the same instant, ${countWords(e.atLeast, e.atMost)}`;
    case "primary-is":
      return `${e.holder} is the primary`;
  }
}

/** The clients' history so far, from the events the observer kept (operations still open are unknown). */
/**
 * The clients' history so far, and its linearizability verdict, rebuilt only when a client
 * event came in: conditions are checked after every event (a lesson's `until`), and most
 * events are not the clients'.
 */
interface HistoryMemo {
  readonly events: number;
  /** The newest client event it saw: time travel may restore as many events from another branch. */
  readonly last: unknown;
  readonly ops: HistoryOp[];
  lin: LinResult | null;
}
const memos = new WeakMap<RunObserver, HistoryMemo>();

function historySoFar(sim: Simulation, run: RunObserver): HistoryMemo {
  const memo = memos.get(run);
  const last = run.clientEvents[run.clientEvents.length - 1];
  if (memo !== undefined && memo.events === run.clientEvents.length && memo.last === last) return memo;
  const rec = new HistoryRecorder();
  for (const c of run.clientEvents) rec.observe(c);
  const fresh = { events: run.clientEvents.length, last, ops: rec.finish(sim.seed).operations, lin: null };
  memos.set(run, fresh);
  return fresh;
}

/** The most recent grant of `name` applied on any node (the highest grant index), or null. */
function latestGrant(sim: Simulation, name: string): { id: string; ttlMs: number; grantIndex: number } | null {
  let best: { id: string; ttlMs: number; grantIndex: number } | null = null;
  for (const id of sim.nodeIds) {
    const l = sim.stateOf(id)?.leases.info(name);
    if (l == null || l.grantIndex <= 0) continue;
    if (best === null || l.grantIndex > best.grantIndex) best = { id, ttlMs: l.ttlMs, grantIndex: l.grantIndex };
  }
  return best;
}

export function checkObserved(sim: Simulation, e: ObservedExpectation, run: RunObserver, stepStartUs?: number): { ok: boolean; detail: string } {
  switch (e.that) {
    case "messages": {
      const c = run.sends.get(e.type);
      const from = sinceUs(e.since, stepStartUs);
      let count = 0;
      let bytes = 0;
      // With atOnce: the largest number sent at one instant (the sends are in time order).
      let burst = 0;
      let burstAt = -1;
      let maxBurst = 0;
      if (c !== undefined) {
        for (let k = 0; k < c.t.length; k++) {
          const t = c.t[k] as number;
          if (t < from || (e.from !== undefined && c.from[k] !== e.from) || (e.to !== undefined && c.to[k] !== e.to)) continue;
          count++;
          bytes += c.bytes[k] as number;
          burst = t === burstAt ? burst + 1 : 1;
          burstAt = t;
          maxBurst = Math.max(maxBurst, burst);
        }
      }
      if (e.atOnce === true) {
        const ok =
          (e.atLeast === undefined || maxBurst >= e.atLeast) && (e.atMost === undefined || maxBurst <= e.atMost) && (e.bytesAtMost === undefined || bytes <= e.bytesAtMost);
        return { ok, detail: `at most ${maxBurst} sent at one instant (${count} in all)` };
      }
      const ok = (e.atLeast === undefined || count >= e.atLeast) && (e.atMost === undefined || count <= e.atMost) && (e.bytesAtMost === undefined || bytes <= e.bytesAtMost);
      return { ok, detail: `${count} sent, ${bytes} bytes` };
    }
    case "lease-ttl": {
      const g = latestGrant(sim, e.name);
      if (g === null) return { ok: false, detail: `${e.name} has not been granted` };
      const us = g.ttlMs * 1000;
      const ok = (e.atLeast === undefined || us >= e.atLeast) && (e.atMost === undefined || us <= e.atMost);
      return { ok, detail: `granted ${formatDuration(us)} (the grant at index ${g.grantIndex}, applied on ${g.id})` };
    }
    case "refused": {
      const t0 = sinceUs(e.since, stepStartUs);
      const seen = run.refusals.filter((r) => r.t >= t0 && (e.holder === undefined || r.holder === e.holder) && (e.name === undefined || r.name === e.name));
      const n = seen.filter((r) => r.reason === e.reason).length;
      const reasons = [...new Set(seen.map((r) => r.reason))];
      return { ok: inCount(n, e.atLeast, e.atMost), detail: `${n} refusal(s) for ${e.reason}${reasons.length > 0 ? ` (reasons seen: ${reasons.join(", ")})` : ""}` };
    }
    case "lease-event": {
      const t0 = sinceUs(e.since, stepStartUs);
      const n = run.leaseEvents.filter((l) => l.t >= t0 && l.event === e.event && (e.name === undefined || l.name === e.name)).length;
      return { ok: inCount(n, e.atLeast, e.atMost), detail: `${n} ${e.event} event(s)` };
    }
    case "clock-bound-broken": {
      const found = sim.boundsBroken.filter((b) => e.node === undefined || b.nodes.includes(e.node));
      return { ok: found.length > 0, detail: found.length > 0 ? `${found[0]?.bound}: ${found[0]?.detail}` : "no bound broken" };
    }
    case "linearizable": {
      const memo = historySoFar(sim, run);
      const ops = memo.ops;
      memo.lin ??= checkLinearizability(ops);
      const r = memo.lin;
      const ok = r.verdict !== "unknown" && (r.verdict === "ok") === e.holds;
      const lines = describeLinResult(r);
      const detail = r.verdict === "violation" ? lines.slice(0, 8).join(" / ") : (lines[lines.length - 1] ?? "");
      return { ok, detail: `${ops.length} operation(s): ${detail}` };
    }
    case "reads-served": {
      const t0 = sinceUs(e.since, stepStartUs);
      const n = run.leaseReads.filter((r) => r.t >= t0 && (e.via === "any" || r.via === e.via) && (e.node === undefined || r.node === e.node)).length;
      return { ok: inCount(n, e.atLeast, e.atMost), detail: `${n} read(s) answered under a lease` };
    }
    case "slowest-operation": {
      const t0 = sinceUs(e.since, stepStartUs);
      const ops = historySoFar(sim, run).ops.filter(
        (o) => o.outcome === "ok" && o.returnUs !== null && o.operation === e.operation && o.callUs >= t0 && (e.client === undefined || o.client === e.client),
      );
      if (ops.length === 0) return { ok: false, detail: `no ${e.operation} completed` };
      // A loop, not Math.max(...list): a long run has more operations than a call may take arguments.
      let slowest = 0;
      for (const o of ops) slowest = Math.max(slowest, (o.returnUs as number) - o.callUs);
      const ok = (e.atLeast === undefined || slowest >= e.atLeast) && (e.atMost === undefined || slowest <= e.atMost);
      return { ok, detail: `slowest of ${ops.length}: ${formatDuration(slowest)}` };
    }
    case "two-primaries": {
      // The two-primaries checker's findings (checkers/primary.ts): one per pair of overlapping primaries.
      const found = sim.violations.filter((v) => v.invariant === "two-primaries" && (e.holder === undefined || v.nodes.includes(e.holder)));
      return { ok: inCount(found.length, e.atLeast, e.atMost), detail: found.length === 0 ? "never two primaries at once" : `${found.length}: ${found[0]?.detail}` };
    }
    case "primary-is": {
      const roles = sim.holderIds.flatMap((id) => {
        const r = sim.status(id) === "down" ? "crashed" : sim.holder(id).role;
        return r === null ? [] : [`${id} ${r}`];
      });
      const role = sim.status(e.holder) === "down" ? "crashed" : sim.holder(e.holder).role;
      return { ok: role === "primary", detail: roles.length === 0 ? "no holder is a database replica (holders.replicas)" : roles.join(", ") };
    }
  }
}
