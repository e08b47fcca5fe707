/** Reads a plain, cloneable view out of a running simulation. Read-only: no Raft logic here. */
import { isDivergence } from "../core/live/diverged";
import type { TimedAction } from "../core/scenario/record";
import { holderStateOf } from "../core/holder/holder";
import type { Entry } from "../core/raft/types";
import { opBody } from "../core/kv/client";
import { INVARIANTS, type Invariant } from "../core/sim/checkers";
import { type ClockState, virtualAt } from "../core/sim/clock";
import type { LocalUs, VirtualUs } from "../core/sim/time";
import type { Timeline } from "../core/replay/timeline";
import type { Simulation } from "../core/sim/sim";
import { describeAction, describeCommand, describeMessage, entryKind } from "./describe";
import type { Journal } from "./journal";
import { emptyColumns } from "./messageColumns";
import type { Moment } from "./moments";
import { nodeReadsView } from "./readsView";
import {
  type CheckerView,
  type ClientView,
  dropWindowUs,
  type EntryView,
  type HolderView,
  type LeaseRowView,
  LOG_WINDOW,
  MAX_RECENT_VIOLATIONS,
  type MessageView,
  type NodeView,
  type RunSettings,
  type SimView,
  STORAGE_WRITES_SHOWN,
  type StorageView,
  type TimedActionView,
  type TimelineMarker,
  type TimelineView,
  type ViolationView,
} from "./protocol";

/**
 * When a process's clock read (or will read) `local`, on virtual time: the clock module's
 * conversion, unbounded below so a deadline already past maps to when it passed.
 */
export function toVirtual(c: ClockState, local: LocalUs): VirtualUs {
  return virtualAt(c, local, Number.NEGATIVE_INFINITY);
}

function orNull(c: ClockState, local: LocalUs | null): VirtualUs | null {
  return local === null || !Number.isFinite(local) ? null : toVirtual(c, local);
}

/** A node's log (the running node's, or the disk's while down): entries after `start`, and its snapshot's index. */
function logOf(sim: Simulation, id: string): { readonly entries: readonly Entry[]; readonly start: number; readonly snapshotIndex: number } {
  const node = sim.server(id).node;
  if (node !== null) return { entries: node.log, start: node.firstIndex - 1, snapshotIndex: node.snapshotIndex };
  const disk = sim.diskOf(id);
  return { entries: disk?.log ?? [], start: disk?.start.index ?? 0, snapshotIndex: disk?.start.snapshot?.index ?? 0 };
}

/** The log indexes every node's row shows: the last LOG_WINDOW indexes of the longest log. */
export function logWindow(sim: Simulation): { from: number; to: number } {
  let to = 0;
  for (const id of sim.nodeIds) {
    const log = logOf(sim, id);
    to = Math.max(to, log.start + log.entries.length);
  }
  return { from: Math.max(1, to - LOG_WINDOW + 1), to };
}

/**
 * The cluster's configuration as the leader uses it (else the up node of the highest term):
 * who the voters are. Every node, when nobody is up.
 */
export function clusterConfig(sim: Simulation): readonly string[] {
  const leader = sim.leader();
  let best: { term: number; config: readonly string[] } | null = null;
  for (const id of leader === null ? sim.nodeIds : [leader]) {
    const node = sim.server(id).node;
    if (node === null || sim.status(id) === "down") continue;
    if (best === null || node.term > best.term) best = { term: node.term, config: node.config };
  }
  return best?.config ?? sim.nodeIds;
}

export function nodeView(sim: Simulation, id: string, window: { from: number; to: number }, config = clusterConfig(sim)): NodeView {
  const status = sim.status(id);
  const clock = sim.clockOf(id);
  const log = logOf(sim, id);
  const lastIndex = log.start + log.entries.length;
  const entries: EntryView[] = [];
  for (let i = Math.max(window.from, log.start + 1); i <= Math.min(window.to, lastIndex); i++) {
    const e = log.entries[i - log.start - 1] as Entry;
    entries.push({ index: e.index, term: e.term, label: describeCommand(e.cmd), kind: entryKind(e.cmd) });
  }
  const common = {
    id,
    status,
    clock,
    driftPpm: clock.driftPpm,
    pausedUntil: sim.pausedUntil(id),
    entries,
    lastIndex,
    firstIndex: log.start + 1,
    snapshotIndex: log.snapshotIndex,
    member: config.includes(id),
  };
  const node = sim.server(id).node;
  if (node === null || status === "down") {
    // Down: only the simulated disk is left.
    const disk = sim.diskOf(id);
    return {
      ...common,
      role: null,
      term: disk?.hard.term ?? 0,
      commitIndex: null,
      votedFor: disk?.hard.votedFor ?? null,
      leaderHint: null,
      votesFrom: [],
      electionTimerAt: null,
      electionTimerFrom: null,
      progress: [],
    };
  }
  const leader = node.role === "leader";
  const votes = node.votes;
  const reads = nodeReadsView(node, clock, sim.now, sim.server(id).heldIndexes);
  return {
    ...common,
    ...(reads === null ? {} : { reads }),
    role: node.role,
    term: node.term,
    commitIndex: node.commitIndex,
    votedFor: node.votedFor,
    leaderHint: node.leader,
    votesFrom: node.role === "candidate" || node.role === "precandidate" ? Object.keys(votes).filter((k) => votes[k] === true && k !== id) : [],
    // A server outside the configuration starts no election: it has no timer to show.
    electionTimerAt: leader || !node.isMember ? null : toVirtual(clock, node.electionDeadline),
    electionTimerFrom: leader || !node.isMember ? null : toVirtual(clock, node.electionTimerFrom),
    progress: leader
      ? Object.keys(node.progress)
          .filter((p) => p !== id)
          .map((p) => {
            const pr = node.progress[p];
            return { peer: p, next: pr?.next ?? 0, match: pr?.match ?? 0 };
          })
      : [],
  };
}

/** A key-value client: what it is asking now, and how many requests it has made. */
export function clientView(sim: Simulation, id: string): ClientView {
  const p = sim.client(id).progress;
  const c = p.current;
  const op = c === null ? null : opBody(c.op);
  return {
    id,
    status: sim.status(id),
    sent: p.sent,
    current: c === null || op === null ? null : { seq: c.seq, text: opText(op), attempts: c.attempts, server: c.server },
    queued: p.queued,
  };
}

function opText(op: ReturnType<typeof opBody>): string {
  switch (op.type) {
    case "put":
    case "append":
    case "delete":
    case "cas":
    case "get":
      return `${op.type} ${op.key}`;
    case "lease-ttl":
      return `time left of lease ${op.name}`;
    case "lease-list":
      return "list the leases";
  }
}

export function holderView(sim: Simulation, id: string): HolderView {
  const h = holderStateOf(sim.holder(id));
  const clock = sim.clockOf(id);
  const status = sim.status(id);
  return {
    id,
    status,
    state: status === "down" ? "down" : h.state,
    leaseName: h.leaseName,
    token: h.token,
    deadlineAt: orNull(clock, h.deadlineUs),
    nominalEndAt: orNull(clock, h.nominalEndUs),
    renewAt: orNull(clock, h.renewAtUs),
    graceEndAt: orNull(clock, h.graceEndUs),
    target: h.target,
    clock,
    driftPpm: clock.driftPpm,
    pausedUntil: sim.pausedUntil(id),
    gcPauseArmedUs: h.gcPauseArmedUs,
    writesAccepted: h.storageAccepted,
    writesRejected: h.storageRejected,
    role: status === "down" ? null : h.role,
  };
}

/** The node whose applied state the lease rows show: the leader, else the up node that applied most. */
function referenceNode(sim: Simulation): string | null {
  const l = sim.leader();
  if (l !== null) return l;
  let best: string | null = null;
  let bestApplied = -1;
  for (const id of sim.nodeIds) {
    const s = sim.server(id);
    if (s.node !== null && sim.status(id) !== "down" && s.lastApplied > bestApplied) {
      best = id;
      bestApplied = s.lastApplied;
    }
  }
  return best;
}

export function leaseRows(sim: Simulation, journal: Journal): LeaseRowView[] {
  const names = new Set<string>();
  for (const id of sim.holderIds) names.add(sim.holder(id).settings.leaseName);
  const ref = referenceNode(sim);
  const sm = ref === null ? null : sim.stateOf(ref);
  const infos = sm?.leaseList() ?? [];
  for (const l of infos) names.add(l.name);
  const leader = sim.leader();
  const tracker = leader === null ? null : sim.server(leader).tracker;
  const leaderClock = leader === null ? null : sim.clockOf(leader);
  return [...names].sort().map((name) => {
    const info = infos.find((l) => l.name === name) ?? null;
    const exp = tracker?.expiresAt(name) ?? null;
    return {
      name,
      state: info?.state ?? "free",
      holder: info?.state === "held" ? info.holder : null,
      token: info?.token ?? 0,
      ttlMs: info?.ttlMs ?? 0,
      transitions: info?.transitions ?? 0,
      keys: info?.keys.slice() ?? [],
      leaderExpiresAt: exp !== null && leaderClock !== null ? toVirtual(leaderClock, exp) : null,
      leaderId: leader,
      ...journal.history(name, sim.now),
    };
  });
}

export function storageView(sim: Simulation): StorageView | null {
  const s = sim.storage();
  if (s === null || sim.storageId === null) return null;
  const clock = sim.clockOf(sim.storageId);
  const log = s.log;
  const writes = log.slice(Math.max(0, log.length - STORAGE_WRITES_SHOWN)).map((w) => ({
    t: toVirtual(clock, w.atUs),
    holder: w.holder,
    resource: w.resource,
    token: w.token,
    accepted: w.accepted,
    reason: w.accepted ? null : `token ${w.token} is older than ${w.highestAfter}, which storage has already seen`,
    highestAfter: w.highestAfter,
    fencing: s.fencing,
  }));
  const t = s.totals;
  return {
    id: sim.storageId,
    status: sim.status(sim.storageId),
    fencing: s.fencing,
    resources: s.resources().map((r) => ({ ...r })),
    writes,
    accepted: t.accepted,
    rejected: t.rejected,
  };
}

export function messageViews(sim: Simulation): MessageView[] {
  return sim
    .inFlight()
    .map(({ env, queued }) => {
      const d = describeMessage(env.payload);
      return {
        id: env.id,
        from: env.from,
        to: env.to,
        sentAt: env.sentAt,
        deliverAt: env.deliverAt,
        label: d.label,
        detail: d.detail,
        fate: env.fate,
        dup: env.dup,
        queued,
      };
    })
    .sort((a, b) => a.id - b.id);
}

/** What each invariant's violation means, for a student. */
const EXPLANATIONS: Record<Invariant, string> = {
  "election-safety": "Two nodes both believed they were the leader of the same term. Raft allows at most one leader per term.",
  "log-matching": "Two logs agree on an entry's index and term but differ before it, so followers could apply different histories.",
  "leader-completeness": "A new leader is missing an entry that was already committed: that committed write could be lost.",
  "state-machine-safety": "Two nodes applied different commands at the same log index: the replicas have diverged.",
  "term-monotonic": "A node's stored term went backwards, so it could vote twice in one term.",
  "commit-monotonic": "A node's commit index went backwards: something it had declared committed was undone.",
  "persist-before-send": "A node sent a message that depends on state it had not yet written to disk; a crash could make it lie.",
  "acknowledged-write-durable": "A client was told its write succeeded, but the write is not committed.",
  assertion: "A process found its own state impossible and stopped. This is a bug in the model.",
  "lease-exclusive": "Two holders held the same lease at once in the committed state.",
  "token-monotonic": "A new grant got a fencing token that was not larger than the previous one.",
  "fencing-monotonic": "With fencing on, the storage accepted a write with an older token than one it had already seen.",
  "storage-corruption":
    "With fencing off, the storage accepted a write from a holder whose lease had already passed to someone else: two holders' writes interleaved. Turn fencing on and the stale write is rejected.",
  "lease-keys": "A key attached to a lease outlived the lease.",
  "renewed-lease-kept": "A holder that renewed in time, on a network with no faults, still lost its lease.",
  "lease-belief":
    "A holder still believed, by its own clock, that it held a lease the service had already expired or given to someone else. Its writes would now race the new holder's; only fencing stops them.",
  "two-primaries":
    "Two database replicas both acted as the primary at the same time and both accepted clients' writes (split brain). The old primary did not take itself offline when its lease ran out; only fencing at the storage stops its writes.",
};

export function explain(invariant: string, detail = ""): string {
  if (isDivergence({ invariant, detail }))
    return "The replay stopped following the live run here: the recording does not fit what the replayed processes do. That is a bug in Lease Lab's recording (or a file edited by hand), not a fault of the cluster; in a live run the threads run on. Save the recording and report it.";
  return EXPLANATIONS[invariant as Invariant] ?? "An invariant of the model was broken.";
}

function checkerViews(sim: Simulation): CheckerView[] {
  const counts = new Map<string, { n: number; first: number }>();
  for (const v of sim.violations) {
    const c = counts.get(v.invariant);
    if (c === undefined) counts.set(v.invariant, { n: 1, first: v.time });
    else c.n++;
  }
  return (Object.keys(INVARIANTS) as Invariant[]).map((k) => ({
    invariant: k,
    rule: INVARIANTS[k],
    violations: counts.get(k)?.n ?? 0,
    firstAt: counts.get(k)?.first ?? null,
  }));
}

/** The markers and actions lists last built per timeline: rebuilt only when they changed (views are built 25 times a second). */
const listsCache = new WeakMap<Timeline, { key: string; markers: TimelineMarker[]; actions: TimedActionView[] }>();

/** The simulator's markers and the user's actions (as markers too), in time order: an action after the events of its moment. */
function timelineLists(tl: Timeline, script: ReadonlySet<TimedAction> | null): { markers: TimelineMarker[]; actions: TimedActionView[] } {
  const sim = tl.markers;
  const key = `${tl.branchId}|${sim.length}|${sim.at(-1)?.n}|${tl.actions.length}|${script?.size}`;
  const hit = listsCache.get(tl);
  if (hit !== undefined && hit.key === key) return hit;
  const actions = tl.actions.map((a) => ({ at: a.at, action: a.action, text: describeAction(a.action), scripted: script?.has(a) ?? false }));
  const markers: TimelineMarker[] = [];
  const fromSim = (m: (typeof sim)[number]): TimelineMarker => ({ t: m.t, n: m.n, kind: m.kind, label: m.label });
  let i = 0;
  for (const [k, a] of actions.entries()) {
    for (; i < sim.length && (sim[i] as (typeof sim)[number]).t <= a.at; i++) markers.push(fromSim(sim[i] as (typeof sim)[number]));
    markers.push({ t: a.at, n: -1 - k, kind: a.scripted ? "scripted" : "action", label: a.text });
  }
  for (; i < sim.length; i++) markers.push(fromSim(sim[i] as (typeof sim)[number]));
  const lists = { key, markers, actions };
  listsCache.set(tl, lists);
  return lists;
}

/** Where the cursor is in the run's history: branches, markers and the branch's user actions. */
export function timelineView(tl: Timeline, script: { readonly actions: ReadonlySet<TimedAction>; readonly keep: boolean } | null = null): TimelineView {
  const { markers, actions } = timelineLists(tl, script?.actions ?? null);
  return {
    branch: tl.branchId,
    branches: tl.branches().map((b) => ({
      id: b.id,
      name: b.name,
      parent: b.parent,
      forkedAt: b.forkedAt,
      end: b.end,
      actions: b.actions.length,
      firstAction: b.firstAction === null ? null : describeAction(b.firstAction.action),
    })),
    end: tl.end,
    markers,
    markersDropped: tl.markersDropped,
    actions,
    canStepBack: tl.canStepBack,
    script: script === null || script.actions.size === 0 ? null : { actions: script.actions.size, keep: script.keep },
  };
}

export interface ViewContext {
  readonly runId: number;
  readonly epoch: number;
  readonly opened: boolean;
  /** The history retained up to the cursor, sent whole when the epoch changed (else only what is new). */
  readonly fresh: boolean;
  readonly timeline: TimelineView;
  readonly settings: RunSettings;
  readonly playing: boolean;
  readonly speed: number;
  readonly journal: Journal;
  readonly lastStep: readonly string[];
  /** lastStep is what a Step back undid (default: what a Step did). */
  readonly lastStepBack?: boolean;
  readonly pausedBy?: Moment | null;
  /** The speed time moves at now (automatic slow-down); the chosen speed when absent. */
  readonly pace?: number;
}

export function viewOf(sim: Simulation, c: ViewContext): SimView {
  const vs = sim.violations;
  const window = logWindow(sim);
  const recent: ViolationView[] = vs.slice(-MAX_RECENT_VIOLATIONS).map((v) => ({
    invariant: v.invariant,
    timeUs: v.time,
    nodes: v.nodes.slice(),
    detail: v.detail,
    explanation: explain(v.invariant, v.detail),
  }));
  const net = sim.network();
  const config = clusterConfig(sim);
  const history = c.fresh ? c.journal.retained() : null;
  const diagram = history === null ? c.journal.takeDiagram() : null;
  return {
    runId: c.runId,
    epoch: c.epoch,
    opened: c.opened,
    timeline: c.timeline,
    newMessages: history?.messages ?? diagram?.messages ?? emptyColumns(),
    newMarks: history?.marks ?? diagram?.marks ?? [],
    seed: sim.seed,
    settings: c.settings,
    now: sim.now,
    playing: c.playing,
    speed: c.speed,
    halted: sim.halted,
    nodes: sim.nodeIds.map((id) => nodeView(sim, id, window, config)),
    config,
    logWindow: window,
    leader: sim.leader(),
    holders: sim.holderIds.map((id) => holderView(sim, id)),
    clients: sim.clientIds.map((id) => clientView(sim, id)),
    leases: leaseRows(sim, c.journal),
    storage: storageView(sim),
    messages: messageViews(sim),
    drops: c.journal.recentDrops(sim.now, dropWindowUs(c.speed)),
    network: net,
    checkers: checkerViews(sim),
    violations: vs.length,
    recentViolations: recent,
    newEvents: history?.lines ?? c.journal.takeLines(),
    traceHash: sim.traceHash,
    eventsProcessed: sim.eventsProcessed,
    eventsHandled: sim.eventsHandled,
    lastStep: c.lastStep,
    lastStepBack: c.lastStepBack ?? false,
    moments: c.journal.moments.moments().slice(),
    pausedBy: c.pausedBy ?? null,
    pace: c.pace ?? c.speed,
  };
}
