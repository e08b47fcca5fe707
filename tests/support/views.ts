/** Hand-made view fixtures for the page's tests: every field filled, overrides on top. */
import { emptyColumns } from "../../src/worker/messageColumns";
import { newClock } from "../../src/core/sim/clock";
import { DEFAULT_SETTINGS } from "../../src/app/params";
import type { HolderView, NodeView, SimView, TimelineView } from "../../src/worker/protocol";

export function timelineFixture(over: Partial<TimelineView> = {}): TimelineView {
  return {
    branch: 0,
    branches: [{ id: 0, name: "main", parent: null, forkedAt: 0, end: 0, actions: 0, firstAction: null }],
    end: 0,
    markers: [],
    markersDropped: 0,
    actions: [],
    canStepBack: false,
    script: null,
    ...over,
  };
}

export function nodeFixture(over: Partial<NodeView> & { id: string }): NodeView {
  return {
    status: "up",
    role: "follower",
    term: 1,
    member: true,
    commitIndex: 0,
    lastIndex: 0,
    firstIndex: 1,
    snapshotIndex: 0,
    votedFor: null,
    leaderHint: null,
    votesFrom: [],
    electionTimerAt: null,
    electionTimerFrom: null,
    clock: newClock(),
    driftPpm: 0,
    pausedUntil: null,
    entries: [],
    progress: [],
    ...over,
  };
}

export function holderFixture(over: Partial<HolderView> & { id: string }): HolderView {
  return {
    status: "up",
    state: "holding.waiting",
    role: null,
    leaseName: "lock",
    token: null,
    deadlineAt: null,
    nominalEndAt: null,
    renewAt: null,
    graceEndAt: null,
    target: "n1",
    clock: newClock(),
    driftPpm: 0,
    pausedUntil: null,
    gcPauseArmedUs: null,
    writesAccepted: 0,
    writesRejected: 0,
    ...over,
  };
}

export function viewFixture(over: Partial<SimView> = {}): SimView {
  return {
    runId: 1,
    epoch: 1,
    opened: false,
    timeline: timelineFixture(),
    newMessages: emptyColumns(),
    newMarks: [],
    config: [],
    seed: 7,
    settings: DEFAULT_SETTINGS,
    now: 0,
    playing: true,
    speed: 1,
    halted: false,
    nodes: [],
    logWindow: { from: 1, to: 0 },
    leader: null,
    holders: [],
    clients: [],
    leases: [],
    storage: null,
    messages: [],
    drops: [],
    network: { groups: [], cuts: [],
      slow: [],
      isolated: [], dropRate: 0, duplicateRate: 0, latencyMinUs: 0, latencyMaxUs: 0 },
    checkers: [],
    violations: 0,
    recentViolations: [],
    newEvents: [],
    traceHash: "",
    eventsProcessed: 0,
    eventsHandled: 0,
    lastStep: [],
    lastStepBack: false,
    ...over,
  };
}
