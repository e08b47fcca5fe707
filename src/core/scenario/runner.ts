/**
 * Runs a scenario: builds the simulation from its settings, performs its actions and
 * checks its expectations at their times. The CLI, the tests and the UI share it.
 */
import { diskLastIndex } from "../raft/server";
import { applyActionsTo } from "../replay/timeline";
import type { BoundBroken, Violation } from "../sim/checkers";
import type { ActionFailure, Simulation, TraceListener } from "../sim/sim";
import { formatDuration, formatInstant } from "../sim/time";
import { holderStateOf } from "../holder/holder";
import type { LeaseInfo } from "../lease/types";
import type { StorageLogEntry } from "../storage/storage";
import { type History, HistoryRecorder } from "./history";
import { checkObserved, describeObserved, isObserved } from "./observed";
import { observerNeeds, RunObserver } from "./observer";
import type { Expectation, Scenario } from "./schema";
import { buildSimulation, scenarioActions } from "./build";

export { toSimAction } from "./actions";
export { buildSimulation, scenarioActions, scenarioNemesis } from "./build";
export { scenarioConfig } from "./settings";
export { observerNeeds, RunObserver } from "./observer";

export interface RunOptions {
  /** Overrides the scenario's seed. */
  seed?: number;
  /** Overrides the cluster size. */
  nodes?: number;
  /** Overrides the run's length (µs). */
  durationUs?: number;
  checkers?: boolean;
  hashTrace?: boolean;
  stopOnViolation?: boolean;
  onTrace?: TraceListener;
  /** Record the clients' operation history (RunResult.history). */
  history?: boolean;
}

export interface HolderSummary {
  readonly id: string;
  readonly status: string;
  readonly state: string;
  readonly leaseName: string;
  readonly token: number | null;
  readonly storageAccepted: number;
  readonly storageRejected: number;
  /** A database replica's role at the end (holders.replicas); absent for a plain lease holder. */
  readonly role?: "primary" | "secondary" | "offline";
}

export interface ExpectationResult {
  readonly index: number;
  readonly at: number;
  readonly description: string;
  readonly ok: boolean;
  readonly detail: string;
}

export interface NodeSummary {
  readonly id: string;
  readonly status: string;
  readonly role: string | null;
  readonly term: number;
  readonly commitIndex: number;
  readonly lastIndex: number;
}

export interface RunResult {
  readonly name: string;
  readonly seed: number;
  readonly durationUs: number;
  readonly traceHash: string;
  readonly events: number;
  readonly violations: readonly Violation[];
  /** Assumptions the run broke (e.g. a clock faster than the holders' drift margin): reported, not violations. */
  readonly boundsBroken: readonly BoundBroken[];
  readonly expectations: readonly ExpectationResult[];
  readonly actionFailures: readonly ActionFailure[];
  readonly leader: string | null;
  readonly nodes: readonly NodeSummary[];
  /** The lease table as the leader (or, without one, the first running node) has applied it. */
  readonly leases: readonly LeaseInfo[];
  readonly holders: readonly HolderSummary[];
  /** The storage's recent writes (bounded), oldest first. */
  readonly storageLog: readonly StorageLogEntry[];
  readonly history: History | null;
  /** The random nemesis's fault mix (swarm: drawn from the seed), or null without a nemesis. */
  readonly nemesisMix: string | null;
  readonly ok: boolean;
}

/** How often a `within` expectation is looked at while it waits to come true (µs of virtual time). */
const WITHIN_POLL_US = 10_000;

export function runScenario(s: Scenario, opts: RunOptions = {}): RunResult {
  const durationUs = opts.durationUs ?? s.duration;
  const observer = new RunObserver(observerNeeds(s.expect));
  const recorder = opts.history ? new HistoryRecorder() : null;
  const sim = buildSimulation(s, {
    ...opts,
    onTrace: (e) => {
      observer.observe(e);
      recorder?.observe(e);
      opts.onTrace?.(e);
    },
  });
  const checks = s.expect
    .map((e, index) => ({ e, index, at: Math.min(e.at ?? durationUs, durationUs) }))
    .sort((a, b) => a.at - b.at || a.index - b.index);
  const actions = scenarioActions(s);
  const results: ExpectationResult[] = [];
  let next = 0;
  // Checks in time order; one with `within` waits (polled every WITHIN_POLL_US) until it holds
  // or its time is up, while later checks go on at their own times.
  const waiting: { c: (typeof checks)[number]; deadline: number; nextAt: number }[] = [];
  let i = 0;
  while (i < checks.length || waiting.length > 0) {
    const nextCheck = i < checks.length ? (checks[i] as (typeof checks)[number]).at : Number.POSITIVE_INFINITY;
    const nextPoll = Math.min(...waiting.map((w) => w.nextAt));
    const t = Math.min(nextCheck, nextPoll);
    // Actions at a check's own time run before it is checked.
    next = applyActionsTo(sim, actions, next, t).next;
    if (nextCheck === t) {
      const c = checks[i++] as (typeof checks)[number];
      if (c.e.within === undefined) results.push({ index: c.index, at: c.at, ...checkExpectation(sim, c.e, observer) });
      else waiting.push({ c, deadline: Math.min(c.at + c.e.within, durationUs), nextAt: c.at });
      continue;
    }
    for (const w of waiting.filter((x) => x.nextAt === t)) {
      const r = checkExpectation(sim, w.c.e, observer);
      const waited = ` (within ${formatDuration(w.c.e.within ?? 0)}: ${r.ok ? `held after ${formatDuration(t - w.c.at)}` : "never held"})`;
      if (r.ok || t >= w.deadline) {
        results.push({ index: w.c.index, at: t, ...r, detail: r.detail + waited });
        waiting.splice(waiting.indexOf(w), 1);
      } else w.nextAt = Math.min(t + WITHIN_POLL_US, w.deadline);
    }
  }
  applyActionsTo(sim, actions, next, durationUs);
  const optional = new Set(actions.filter((a) => a.optional === true).map((a) => a.action));
  // An optional action that found nothing to act on is skipped, and does not fail the run.
  const failures = sim.actionFailures.filter((f) => !optional.has(f.action));
  results.sort((a, b) => a.index - b.index);
  const nodes: NodeSummary[] = sim.nodeIds.map((id) => {
    const server = sim.server(id);
    const node = server.node;
    return {
      id,
      status: sim.status(id),
      role: node?.role ?? null,
      term: server.disk.hard.term,
      commitIndex: node?.commitIndex ?? 0,
      lastIndex: diskLastIndex(server.disk),
    };
  });
  const source = sim.leader() ?? sim.nodeIds.find((id) => sim.stateOf(id) !== null) ?? null;
  const holders: HolderSummary[] = sim.holderIds.map((id) => {
    const v = holderStateOf(sim.holder(id));
    return {
      id,
      status: sim.status(id),
      state: v.state,
      leaseName: v.leaseName,
      token: v.token,
      storageAccepted: v.storageAccepted,
      storageRejected: v.storageRejected,
      ...(v.role === null ? {} : { role: v.role }),
    };
  });
  return {
    name: s.name,
    seed: sim.seed,
    durationUs,
    traceHash: sim.traceHash,
    events: sim.eventsProcessed,
    violations: sim.violations,
    boundsBroken: sim.boundsBroken,
    expectations: results,
    actionFailures: sim.actionFailures,
    leader: sim.leader(),
    nodes,
    leases: source === null ? [] : (sim.stateOf(source)?.leaseList() ?? []),
    holders,
    storageLog: sim.storage()?.log ?? [],
    history: recorder?.finish(sim.seed) ?? null,
    nemesisMix: sim.nemesisMix,
    // A violation the scenario expects (e.g. corruption with fencing off) is the point of the run, not a failure.
    ok: unexpected(s, sim.violations).length === 0 && failures.length === 0 && results.every((r) => r.ok),
  };
}


/** "holding" matches "holding" and "holding.renewing"; "holding.renewing" matches only that. */
function stateMatches(actual: string, wanted: string): boolean {
  return actual === wanted || actual.startsWith(`${wanted}.`);
}

/** Whether a node can exchange messages with a majority of its configuration (itself included). */
function reachesMajority(sim: Simulation, id: string): boolean {
  const config = sim.server(id).node?.config ?? [];
  const reached = config.filter(
    (p) => p === id || (sim.status(p) !== "down" && sim.isBlocked(id, p) === null && sim.isBlocked(p, id) === null),
  ).length;
  return reached > config.length / 2;
}

/** The logs-agree expectation: one entry on every running node that holds it, or whole logs. */
function logsAgree<R>(sim: Simulation, index: number | undefined, result: (ok: boolean, detail: string) => R): R {
  const nodes = sim.nodeIds.flatMap((id) => {
    const node = sim.server(id).node;
    return node === null || sim.status(id) === "down" ? [] : [{ id, node }];
  });
  const key = (n: (typeof nodes)[number]["node"], i: number): string | null => {
    const e = n.entryAt(i);
    return e === undefined ? null : `${e.term}:${JSON.stringify(e.cmd)}`;
  };
  if (index !== undefined) {
    const held = nodes.flatMap(({ id, node }) => {
      const k = key(node, index);
      return k === null ? [] : [{ id, k }];
    });
    const distinct = new Set(held.map((h) => h.k));
    return result(distinct.size <= 1, held.length === 0 ? `no running node holds entry ${index}` : `held by ${held.map((h) => h.id).join(", ")}${distinct.size > 1 ? ", and they differ" : ""}`);
  }
  const ends = nodes.map(({ id, node }) => `${id}:${node.lastIndex}`);
  const lastIndexes = new Set(nodes.map(({ node }) => node.lastIndex));
  if (lastIndexes.size > 1) return result(false, `the logs end at different indexes: ${ends.join(" ")}`);
  const from = Math.max(1, ...nodes.map(({ node }) => node.firstIndex));
  const to = nodes[0]?.node.lastIndex ?? 0;
  for (let i = from; i <= to; i++) {
    const keys = new Set(nodes.map(({ node }) => key(node, i)));
    if (keys.size > 1) return result(false, `the logs differ at index ${i}`);
  }
  return result(true, `every log ends at ${to}${from > 1 ? ` (compared from ${from})` : ""}`);
}

export function describeExpectation(e: Expectation): string {
  if (isObserved(e)) return describeObserved(e);
  switch (e.that) {
    case "leader-exists":
      return "a leader exists";
    case "no-leader":
      return "no node is leader";
    case "leader-count":
      return e.connected === true
        ? `exactly ${e.count} leader(s) can reach a majority of their configuration`
        : `exactly ${e.count} node(s) believe they are leader`;
    case "leader-is":
      return `${e.node} is the leader`;
    case "leader-is-not":
      return `${e.node} is not the leader`;
    case "members":
      return `the leader's configuration is {${e.nodes.join(", ")}}`;
    case "terms-agree":
      return "every running node is in the same term";
    case "logs-agree":
      return e.index === undefined ? "every running node has the same log" : `every running node that holds entry ${e.index} holds the same one`;
    case "term-at-least":
      return `the highest term is at least ${e.term}`;
    case "term-at-most":
      return `the highest term is at most ${e.term}`;
    case "committed":
      return `${e.key} = ${e.value === undefined ? "(any value)" : JSON.stringify(e.value)} is applied on ${e.onNodes ?? "a majority of"} node(s)`;
    case "not-committed":
      return `${e.key} is not applied on any node`;
    case "commit-index-at-least":
      return `commit index is at least ${e.index} on ${e.onNodes ?? "a majority of"} node(s)`;
    case "client-acknowledged":
      return `${e.client} has at least ${e.count} acknowledged operation(s)`;
    case "lease-held":
      return `lease ${e.name} is held${e.by ? ` by ${e.by}` : ""} on ${e.onNodes ?? "a majority of"} node(s)`;
    case "lease-not-held":
      return `lease ${e.name} is not held (on a majority)`;
    case "lease-token-at-least":
      return `lease ${e.name}'s fencing token is at least ${e.token}`;
    case "lease-transitions":
      return `lease ${e.name} changed holder exactly ${e.count} time(s)`;
    case "holder-state":
      return `${e.holder} is ${e.state}`;
    case "holder-was-in":
      return `${e.holder} has been ${e.state}`;
    case "holder-never-in":
      return `${e.holder} has never been ${e.state}`;
    case "storage-writes":
      return `storage ${e.accepted ? "accepted" : "rejected"}${e.atLeast !== undefined ? ` at least ${e.atLeast}` : ""}${e.atMost !== undefined ? ` at most ${e.atMost}` : ""} write(s)${e.holder ? ` from ${e.holder}` : ""}`;
    case "violation":
      return `the checker reports ${e.invariant}`;
  }
}

/** Violations the scenario did not announce with a "violation" expectation. */
export function unexpected(s: Scenario, violations: readonly Violation[]): Violation[] {
  // A two-primaries expectation that allows one announces the checker's finding as well.
  const expected = new Set(
    s.expect.flatMap((e) => (e.that === "violation" ? [e.invariant] : e.that === "two-primaries" && e.atMost !== 0 ? ["two-primaries"] : [])),
  );
  return violations.filter((v) => !expected.has(v.invariant));
}

/**
 * Whether an expectation holds now, and what the run shows. `stepStartUs`: when the current
 * lesson step began (what `"since": "step"` counts from).
 */
export function checkExpectation(
  sim: Simulation,
  e: Expectation,
  run: RunObserver,
  stepStartUs?: number,
): { description: string; ok: boolean; detail: string } {
  const description = `at ${formatInstant(e.at ?? sim.now)}: ${describeExpectation(e)}`;
  const majority = Math.floor(sim.nodeIds.length / 2) + 1;
  const leader = sim.leader();
  const leaders = sim.nodeIds.filter((id) => sim.status(id) !== "down" && sim.server(id).node?.role === "leader");
  const maxTerm = Math.max(...sim.nodeIds.map((id) => sim.server(id).disk.hard.term));
  const result = (ok: boolean, detail: string) => ({ description, ok, detail });
  const missing = missingProcess(sim, e);
  if (missing !== null) return result(false, missing);
  if (isObserved(e)) {
    const r = checkObserved(sim, e, run, stepStartUs);
    return result(r.ok, r.detail);
  }
  switch (e.that) {
    case "leader-exists":
      return result(leader !== null, leader === null ? "no leader" : `leader ${leader}, term ${sim.server(leader).node?.term}`);
    case "no-leader":
      return result(leaders.length === 0, leaders.length === 0 ? "no leader" : `leader(s): ${leaders.join(", ")}`);
    case "leader-count": {
      // connected: only a leader that can reach (both ways, up) a majority of its configuration counts.
      const counted = e.connected === true ? leaders.filter((id) => reachesMajority(sim, id)) : leaders;
      return result(counted.length === e.count, `leader(s): ${counted.length ? counted.join(", ") : "none"}`);
    }
    case "leader-is":
      return result(leader === e.node, `leader is ${leader ?? "nobody"}`);
    case "leader-is-not":
      return result(leader !== e.node, `leader is ${leader ?? "nobody"}`);
    case "members": {
      const config = leader === null ? null : (sim.server(leader).node?.config ?? null);
      const want = [...e.nodes].sort().join(", ");
      const got = config === null ? null : [...config].sort().join(", ");
      return result(got === want, got === null ? "no leader" : `the leader counts {${got}}`);
    }
    case "terms-agree": {
      const terms = sim.nodeIds.filter((id) => sim.server(id).node !== null && sim.status(id) !== "down").map((id) => `${id}:${sim.server(id).node?.term}`);
      const distinct = new Set(terms.map((x) => x.split(":")[1]));
      return result(distinct.size <= 1, terms.join(" "));
    }
    case "logs-agree":
      return logsAgree(sim, e.index, result);
    case "term-at-least":
      return result(maxTerm >= e.term, `highest term ${maxTerm}`);
    case "term-at-most":
      return result(maxTerm <= e.term, `highest term ${maxTerm}`);
    case "committed": {
      const holders = sim.nodeIds.filter((id) => {
        const v = sim.server(id).stateMachine?.get(e.key) ?? null;
        return v !== null && (e.value === undefined || v === e.value);
      });
      const need = e.onNodes ?? majority;
      return result(holders.length >= need, `applied on ${holders.length} node(s)${holders.length ? `: ${holders.join(", ")}` : ""}`);
    }
    case "not-committed": {
      const holders = sim.nodeIds.filter((id) => (sim.server(id).stateMachine?.get(e.key) ?? null) !== null);
      return result(holders.length === 0, holders.length === 0 ? "on no node" : `applied on ${holders.join(", ")}`);
    }
    case "commit-index-at-least": {
      const n = sim.nodeIds.filter((id) => (sim.server(id).node?.commitIndex ?? 0) >= e.index).length;
      return result(n >= (e.onNodes ?? majority), `${n} node(s) have committed index ${e.index}`);
    }
    case "client-acknowledged": {
      const n = run.acks.get(e.client) ?? 0;
      return result(n >= e.count, `${n} acknowledged`);
    }
    case "lease-held": {
      const holders = sim.nodeIds.flatMap((id) => {
        const l = sim.stateOf(id)?.leases.info(e.name);
        return l?.state === "held" && (e.by === undefined || l.holder === e.by) ? [id] : [];
      });
      const need = e.onNodes ?? majority;
      return result(holders.length >= need, `held on ${holders.length} node(s)${describeLease(sim, e.name)}`);
    }
    case "lease-not-held": {
      const holders = sim.nodeIds.filter((id) => sim.stateOf(id)?.leases.info(e.name)?.state === "held");
      return result(holders.length < majority, `held on ${holders.length} node(s)${describeLease(sim, e.name)}`);
    }
    case "lease-token-at-least": {
      const token = Math.max(0, ...sim.nodeIds.map((id) => sim.stateOf(id)?.leases.info(e.name)?.token ?? 0));
      return result(token >= e.token, `highest token ${token}`);
    }
    case "lease-transitions": {
      const n = Math.max(0, ...sim.nodeIds.map((id) => sim.stateOf(id)?.leases.info(e.name)?.transitions ?? 0));
      return result(n === e.count, `${n} transition(s)`);
    }
    case "holder-state": {
      const st = sim.status(e.holder) === "down" ? "crashed" : (run.holderState.get(e.holder) ?? "idle");
      return result(stateMatches(st, e.state), `${e.holder} is ${st}`);
    }
    case "holder-was-in":
    case "holder-never-in": {
      const seen = [...(run.holderVisited.get(e.holder) ?? [])];
      const was = seen.some((st) => stateMatches(st, e.state));
      return result(e.that === "holder-was-in" ? was : !was, `${e.holder} has been in: ${seen.join(", ") || "nothing yet"}`);
    }
    case "storage-writes": {
      const n = run.storageWrites.filter((w) => w.accepted === e.accepted && (e.holder === undefined || w.holder === e.holder)).length;
      const ok = (e.atLeast === undefined || n >= e.atLeast) && (e.atMost === undefined || n <= e.atMost);
      return result(ok, `${n} ${e.accepted ? "accepted" : "rejected"}`);
    }
    case "violation": {
      const found = sim.violations.filter((v) => v.invariant === e.invariant);
      return result(found.length > 0, found.length > 0 ? `${found[0]?.detail}` : "no such violation");
    }
  }
}

/** An expectation about a holder, node or client the run does not have would check nothing: it fails, saying so. */
function missingProcess(sim: Simulation, e: Expectation): string | null {
  const holder = (id: string | undefined) => (id === undefined || sim.holderIds.includes(id) ? null : `${id} is not a holder`);
  const node = (id: string) => (sim.nodeIds.includes(id) ? null : `${id} is not a node`);
  switch (e.that) {
    case "leader-is":
    case "leader-is-not":
      return node(e.node);
    case "members":
      return e.nodes.map(node).find((x) => x !== null) ?? null;
    case "client-acknowledged":
      return sim.clientIds.includes(e.client) ? null : `${e.client} is not a client`;
    case "lease-held":
      return e.by === undefined || sim.clientIds.includes(e.by) ? null : holder(e.by);
    case "holder-state":
    case "holder-was-in":
    case "holder-never-in":
    case "storage-writes":
    case "refused":
      return holder(e.holder);
    case "messages": {
      const known = (id: string) => sim.nodeIds.includes(id) || sim.holderIds.includes(id) || sim.clientIds.includes(id) || id === sim.storageId;
      return [e.from, e.to].map((id) => (id === undefined || known(id) ? null : `${id} is not a process`)).find((x) => x !== null) ?? null;
    }
    case "two-primaries":
      return holder(e.holder);
    case "primary-is":
      return holder(e.holder);
    case "clock-bound-broken":
      return e.node === undefined || sim.nodeIds.includes(e.node) || sim.holderIds.includes(e.node) ? null : `${e.node} is not a node or a holder`;
    default:
      return null;
  }
}

function describeLease(sim: Simulation, name: string): string {
  const leader = sim.leader() ?? sim.nodeIds[0];
  const l = leader === undefined ? null : sim.stateOf(leader)?.leases.info(name);
  return l ? ` (${leader}: ${l.state}${l.holder ? ` by ${l.holder}` : ""}, token ${l.token})` : "";
}
