/**
 * Shared helpers for the scenario suites (in the spirit of the MIT 6.824 Raft lab
 * tests): build a seeded simulation, run it until a condition holds, find the
 * leader, write through clients and record their history, and check the final
 * state against that history. Every failure message names the seed.
 */
import { expect, it } from "vitest";
import type { RaftNode } from "../../src/core/raft/node";
import type { Entry, NodeId } from "../../src/core/raft/types";
import { type ConfigPatch, defaultConfig, mergeConfig } from "../../src/core/sim/config";
import { type NemesisConfig, Simulation } from "../../src/core/sim/sim";
import { formatDuration, formatInstant, sec } from "../../src/core/sim/time";
import type { TraceEvent } from "../../src/core/sim/trace";

export type ClientEvent = Extract<TraceEvent, { kind: "client" }>;

export function makeSim(seed: number, patch: ConfigPatch = {}, nemesis?: NemesisConfig): Simulation {
  return new Simulation(mergeConfig(defaultConfig(), { ...patch, seed }), nemesis);
}

/** "seed=7 t=1.234s": the prefix of every failure message. */
export function tag(sim: Simulation): string {
  return `seed=${sim.seed} t=${formatInstant(sim.now)}`;
}

/** Runs `fn`, prefixing any error (assertion or crash in the core) with the seed. */
export function withSeed<T>(seed: number, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof Error && !e.message.includes(`seed=${seed}`)) e.message = `[seed=${seed}] ${e.message}`;
    throw e;
  }
}

/** One `it` per seed; the seed is in the test name and in every failure message. */
export function itForSeeds(name: string, seeds: readonly number[], fn: (seed: number) => void): void {
  for (const seed of seeds) it(`${name} (seed ${seed})`, () => withSeed(seed, () => fn(seed)));
}

export function expectNoViolations(sim: Simulation): void {
  const v = sim.violations.map((x) => `${x.invariant} at ${formatInstant(x.time)} [${x.nodes.join(",")}]: ${x.detail}`);
  expect(v, `${tag(sim)}: invariant violations (reproduce with seed ${sim.seed})`).toEqual([]);
}

// ---- driving -------------------------------------------------------------------

/**
 * Processes events one timestamp at a time until `pred` holds or `timeoutUs` of
 * virtual time has passed. Returns whether `pred` held.
 */
export function runUntil(sim: Simulation, pred: () => boolean, timeoutUs: number): boolean {
  const end = sim.now + timeoutUs;
  while (!pred()) {
    const next = sim.nextEventTime();
    if (next === null || next > end) {
      sim.advanceTo(Math.max(sim.now, end));
      return pred();
    }
    sim.advanceTo(Math.max(sim.now, next));
  }
  return true;
}

export function advanceBy(sim: Simulation, us: number): void {
  sim.advanceTo(sim.now + us);
}

// ---- nodes and leaders -----------------------------------------------------------

/** The running Raft node; fails when it is crashed. */
export function node(sim: Simulation, id: NodeId): RaftNode {
  const n = sim.server(id).node;
  if (n === null) throw new Error(`${tag(sim)}: ${id} is down`);
  return n;
}

export function upNodes(sim: Simulation): NodeId[] {
  return sim.nodeIds.filter((id) => sim.status(id) !== "down");
}

/** Every up (or paused) node that believes it is leader, whatever its term. */
export function leadersNow(sim: Simulation): NodeId[] {
  return upNodes(sim).filter((id) => node(sim, id).role === "leader");
}

export function majority(sim: Simulation): number {
  return Math.floor(sim.nodeIds.length / 2) + 1;
}

/**
 * A leader that a majority of the cluster follows: the only leader at the highest
 * term, with a majority of nodes (itself included) in its term naming it.
 */
export function agreedLeader(sim: Simulation, among: readonly NodeId[] = sim.nodeIds): NodeId | null {
  const up = upNodes(sim).filter((id) => among.includes(id));
  const leaders = up.filter((id) => node(sim, id).role === "leader");
  if (leaders.length === 0) return null;
  const top = Math.max(...leaders.map((id) => node(sim, id).term));
  const atTop = leaders.filter((id) => node(sim, id).term === top);
  if (atTop.length !== 1) return null;
  const l = atTop[0] as NodeId;
  const followers = up.filter((id) => node(sim, id).term === top && node(sim, id).leader === l);
  return followers.length >= majority(sim) ? l : null;
}

export function awaitLeader(sim: Simulation, timeoutUs: number, among: readonly NodeId[] = sim.nodeIds): NodeId {
  const ok = runUntil(sim, () => agreedLeader(sim, among) !== null, timeoutUs);
  const l = agreedLeader(sim, among);
  if (!ok || l === null) {
    const roles = upNodes(sim).map((id) => `${id}:${node(sim, id).role}@${node(sim, id).term}`);
    throw new Error(`${tag(sim)}: no agreed leader among [${among.join(",")}] within ${formatDuration(timeoutUs)} (${roles.join(" ")})`);
  }
  return l;
}

/** Highest commit index of any running node. */
export function maxCommit(sim: Simulation): number {
  return Math.max(0, ...upNodes(sim).map((id) => node(sim, id).commitIndex));
}

// ---- logs --------------------------------------------------------------------

export function entryKey(e: Entry): string {
  return `${e.index}/${e.term}/${JSON.stringify(e.cmd)}`;
}

/** Every node up, one leader, every log equal to the leader's, all committed and applied. */
export function converged(sim: Simulation): boolean {
  if (upNodes(sim).length !== sim.nodeIds.length) return false;
  const l = agreedLeader(sim);
  if (l === null) return false;
  const ln = node(sim, l);
  const last = ln.lastIndex;
  if (ln.commitIndex !== last) return false;
  for (const id of sim.nodeIds) {
    const n = node(sim, id);
    if (n.lastIndex !== last || n.commitIndex !== last || sim.server(id).lastApplied !== last) return false;
    if (n.termAt(last) !== ln.termAt(last)) return false;
  }
  return true;
}

export function awaitConverged(sim: Simulation, timeoutUs: number): NodeId {
  const ok = runUntil(sim, () => converged(sim), timeoutUs);
  if (!ok) {
    const desc = sim.nodeIds.map((id) => {
      const n = sim.server(id).node;
      return n === null
        ? `${id}:down`
        : `${id}:${n.role}@${n.term} last=${n.lastIndex} commit=${n.commitIndex} applied=${sim.server(id).lastApplied}`;
    });
    throw new Error(`${tag(sim)}: cluster did not converge within ${formatDuration(timeoutUs)}: ${desc.join("; ")}`);
  }
  return agreedLeader(sim) as NodeId;
}

/** Full comparison of every log and state machine with the leader's. */
export function expectIdenticalLogs(sim: Simulation, leader: NodeId): void {
  const ref = node(sim, leader).log.map(entryKey);
  const refState = sim.server(leader).stateMachine?.entries();
  for (const id of sim.nodeIds) {
    expect(node(sim, id).log.map(entryKey), `${tag(sim)}: log of ${id} differs from leader ${leader}'s`).toEqual(ref);
    expect(sim.server(id).stateMachine?.entries(), `${tag(sim)}: state of ${id} differs from leader ${leader}'s`).toEqual(refState);
  }
}

export function stateOf(sim: Simulation, id: NodeId): Record<string, string> {
  const sm = sim.server(id).stateMachine;
  if (sm === null) throw new Error(`${tag(sim)}: ${id} is down`);
  return Object.fromEntries(sm.entries());
}

// ---- clients and history ---------------------------------------------------------

/** Records every client event ("invoke", "ok", "fail", "info") of a run. */
export class History {
  readonly events: ClientEvent[] = [];
  /** Terminal phase of each append, by "key value". */
  private outcomes = new Map<string, "ok" | "fail" | "info">();

  constructor(sim: Simulation) {
    sim.onTrace((e) => {
      if (e.kind !== "client") return;
      this.events.push(e);
      if (e.phase !== "invoke" && e.op.type === "append") this.outcomes.set(`${e.op.key} ${e.op.value}`, e.phase);
    });
  }

  outcome(key: string, value: string): "ok" | "fail" | "info" | null {
    return this.outcomes.get(`${key} ${value}`) ?? null;
  }

  count(phase: ClientEvent["phase"], type?: "append" | "get"): number {
    return this.events.filter((e) => e.phase === phase && (type === undefined || e.op.type === type)).length;
  }
}

export function submitAppend(sim: Simulation, client: string, key: string, value: string): void {
  sim.act({ type: "submit", client, op: { write: { type: "append", key, value } } });
}

/** Appends through a client and waits for the client to hear "ok". */
export function appendOk(sim: Simulation, hist: History, client: string, key: string, value: string, timeoutUs = sec(5)): void {
  submitAppend(sim, client, key, value);
  runUntil(sim, () => hist.outcome(key, value) !== null, timeoutUs);
  expect(hist.outcome(key, value), `${tag(sim)}: append ${key} += "${value}" through ${client}`).toBe("ok");
}

/** Values are tokens ending in ";" (the random workload's "c1.1:7;" or our own "w7;"). */
export function tokens(value: string | null | undefined): string[] {
  if (value === null || value === undefined || value === "") return [];
  return value
    .split(";")
    .filter((t) => t !== "")
    .map((t) => `${t};`);
}

/**
 * Checks a client history against the final state (appends only, with unique
 * token values; reads are gets):
 * - every acknowledged append is in the final value of its key exactly once;
 * - every unacknowledged one (info, or cut short by a client crash) at most once;
 * - nothing is in the state that no client invoked;
 * - every read that returned ok saw a prefix of the final value, containing every
 *   append acknowledged before the read began and none invoked after it returned.
 * Returns the problems, empty when the history is consistent.
 */
export function historyProblems(hist: History, finalState: Record<string, string>): string[] {
  const problems: string[] = [];
  const counts = new Map<string, number>();
  for (const [key, value] of Object.entries(finalState)) {
    for (const tok of tokens(value)) counts.set(`${key} ${tok}`, (counts.get(`${key} ${tok}`) ?? 0) + 1);
  }
  const invokedAt = new Map<string, number>();
  const okAt = new Map<string, number>();
  for (const e of hist.events) {
    if (e.op.type !== "append") continue;
    const k = `${e.op.key} ${e.op.value}`;
    if (e.phase === "invoke") {
      if (invokedAt.has(k)) problems.push(`value ${k} was invoked twice: the test needs unique values`);
      invokedAt.set(k, e.t);
    } else if (e.phase === "ok") okAt.set(k, e.t);
  }
  for (const [k, n] of counts) {
    if (!invokedAt.has(k)) problems.push(`${k} is in the final state but was never invoked`);
    if (n > 1) problems.push(`${k} is in the final state ${n} times (${okAt.has(k) ? "acknowledged" : "unacknowledged"})`);
  }
  for (const k of okAt.keys()) {
    if ((counts.get(k) ?? 0) !== 1) problems.push(`acknowledged append ${k} is in the final state ${counts.get(k) ?? 0} times`);
  }
  const invokes = new Map<string, ClientEvent>();
  for (const e of hist.events) {
    if (e.op.type !== "get") continue;
    const rk = `${e.clientId}#${e.seq}`;
    if (e.phase === "invoke") {
      invokes.set(rk, e);
      continue;
    }
    if (e.phase !== "ok") continue;
    const key = e.op.key;
    const seen = e.result?.kind === "kv" ? (e.result.value ?? "") : "";
    const fin = finalState[key] ?? "";
    if (!fin.startsWith(seen)) {
      problems.push(`read ${rk} of ${key} at ${formatInstant(e.t)} returned "${seen}", not a prefix of the final "${fin}"`);
      continue;
    }
    const start = invokes.get(rk)?.t ?? e.t;
    const seenSet = new Set(tokens(seen));
    for (const [k, t] of okAt) {
      const [wk, tok] = k.split(" ") as [string, string];
      if (wk === key && t < start && !seenSet.has(tok)) {
        problems.push(`read ${rk} of ${key} began at ${formatInstant(start)} but missed ${tok} acknowledged at ${formatInstant(t)}`);
      }
    }
    for (const tok of seenSet) {
      const t = invokedAt.get(`${key} ${tok}`);
      if (t !== undefined && t > e.t) problems.push(`read ${rk} of ${key} returned ${tok}, invoked only after the read returned`);
    }
  }
  return problems;
}

export function expectHistoryConsistent(sim: Simulation, hist: History, finalState: Record<string, string>): void {
  const problems = historyProblems(hist, finalState);
  expect(problems.slice(0, 20), `${tag(sim)}: ${problems.length} history problems`).toEqual([]);
}

/** Brings every process back and removes every fault. */
export function healAll(sim: Simulation): void {
  sim.act({ type: "heal" });
  sim.act({ type: "network", dropRate: 0, duplicateRate: 0 });
  for (const id of [...sim.nodeIds, ...sim.clientIds]) {
    if (sim.status(id) === "down") sim.act({ type: "restart", proc: id });
    else if (sim.status(id) === "paused") sim.act({ type: "resume", proc: id });
  }
}

/** Stops a random workload: crashed clients issue nothing more (in-flight writes stay unknown). */
export function stopClients(sim: Simulation): void {
  for (const id of sim.clientIds) sim.act({ type: "crash", proc: id });
}
