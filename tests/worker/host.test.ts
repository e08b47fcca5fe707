/** The simulation host and the view it posts: driven with a fake clock and fake timers, as the worker would drive it. */
import { fakeHost } from "../support/host";
import { describe, expect, it } from "vitest";
import { localTime, withDrift } from "../../src/core/sim/clock";
import { defaultConfig, mergeConfig } from "../../src/core/sim/config";
import { Simulation } from "../../src/core/sim/sim";
import { Journal } from "../../src/worker/journal";
import type { RunSettings } from "../../src/worker/protocol";
import { toVirtual, viewOf } from "../../src/worker/view";
import { DEFAULT_SETTINGS } from "../../src/app/params";
import { timelineFixture } from "../support/views";

/** A host whose real time and timers are under the test's control. */
const harness = fakeHost;

const settings = (over: Partial<RunSettings> = {}): RunSettings => ({ ...DEFAULT_SETTINGS, autoplay: false, ...over });

describe("SimHost", () => {
  it("starts a run and posts a view with every node, holder and the storage", () => {
    const h = harness();
    h.host.handle({ type: "start", settings: settings({ seed: 5, nodes: 3, holders: 2 }) });
    const v = h.last();
    expect(v.seed).toBe(5);
    expect(v.nodes.map((n) => n.id)).toEqual(["n1", "n2", "n3"]);
    expect(v.holders.map((x) => x.id)).toEqual(["h1", "h2"]);
    expect(v.storage?.fencing).toBe(true);
    expect(v.checkers.length).toBeGreaterThan(10);
    expect(v.checkers.every((c) => c.violations === 0)).toBe(true);
    expect(v.playing).toBe(false);
    expect(h.timers()).toBe(0);
  });

  it("Step handles exactly one simulator event and says what it did", () => {
    const h = harness();
    h.host.handle({ type: "start", settings: settings() });
    for (let i = 0; i < 25; i++) {
      const before = h.last().eventsHandled;
      h.host.handle({ type: "step" });
      const v = h.last();
      expect(v.eventsHandled).toBe(before + 1);
      expect(v.lastStep.length).toBeGreaterThan(0);
    }
    h.host.handle({ type: "pause" });
    expect(h.last().lastStep).toEqual([]);
  });

  it("Step back says what it undid: the very lines the Step over that event said, and leaves the run where it was", () => {
    const h = harness();
    h.host.handle({ type: "start", settings: settings() });
    for (let i = 0; i < 40; i++) h.host.handle({ type: "step" });
    for (let i = 0; i < 10; i++) {
      h.host.handle({ type: "step" });
      const stepped = h.last();
      expect(stepped.lastStepBack).toBe(false);
      h.host.handle({ type: "stepBack" });
      const back = h.last();
      expect(back.lastStepBack).toBe(true);
      expect(back.eventsHandled).toBe(stepped.eventsHandled - 1);
      expect(back.lastStep).toEqual(stepped.lastStep);
      // Undid, and nothing more: stepping forward again gives the same moment.
      h.host.handle({ type: "step" });
      expect(h.last().eventsHandled).toBe(stepped.eventsHandled);
      expect(h.last().traceHash).toBe(stepped.traceHash);
      expect(h.last().lastStepBack).toBe(false);
    }
    h.host.handle({ type: "pause" });
    expect(h.last().lastStep).toEqual([]);
    expect(h.last().lastStepBack).toBe(false);
  });

  it("a paused run posts nothing and keeps no timer; playing advances virtual time at the speed", () => {
    const h = harness();
    h.host.handle({ type: "start", settings: settings({ speed: 0.5 }) });
    const n = h.posts.length;
    h.tick(1000);
    expect(h.posts.length).toBe(n);
    h.host.handle({ type: "play" });
    expect(h.timers()).toBe(1);
    const t0 = h.last().now;
    h.tick(40);
    h.tick(40);
    // 80 ms of real time at 0.5x is 40 ms of virtual time.
    expect(h.last().now - t0).toBe(40_000);
  });

  it("a hidden page stops the loop, and showing it again resumes without a jump", () => {
    const h = harness();
    h.host.handle({ type: "start", settings: settings({ speed: 1 }) });
    h.host.handle({ type: "play" });
    h.tick(40);
    h.host.handle({ type: "hidden", hidden: true });
    expect(h.timers()).toBe(0);
    const t = h.last().now;
    h.host.handle({ type: "hidden", hidden: false });
    expect(h.timers()).toBe(1);
    h.tick(40);
    expect(h.last().now - t).toBe(40_000);
  });

  it("bad settings are refused with a message and the current run goes on", () => {
    const h = harness();
    h.host.handle({ type: "start", settings: settings({ seed: 9 }) });
    const bad = settings({ timing: { ...DEFAULT_SETTINGS.timing, heartbeatIntervalMs: 500 } });
    h.host.handle({ type: "start", settings: bad });
    const err = h.posts.find((p) => p.type === "error");
    expect(err?.type === "error" && err.message).toMatch(/heartbeatIntervalMs must be shorter/);
    h.host.handle({ type: "step" });
    expect(h.last().seed).toBe(9);
  });

  it("a bad action is reported, not thrown", () => {
    const h = harness();
    h.host.handle({ type: "start", settings: settings() });
    h.host.handle({ type: "act", action: { type: "crash", proc: "n42" } });
    const err = h.posts.find((p) => p.type === "error");
    expect(err?.type === "error" && err.message).toMatch(/no process named "n42"/);
  });

  it("inspect answers with the node's full state, and a message that is gone with an error", () => {
    const h = harness();
    h.host.handle({ type: "start", settings: settings() });
    h.host.handle({ type: "inspect", target: { kind: "node", id: "n2" } });
    const ins = h.posts.find((p) => p.type === "inspection");
    expect(ins?.type === "inspection" && ins.title).toBe("Node n2");
    expect(ins?.type === "inspection" && JSON.parse(ins.text).persisted.term).toBe(0);
    h.host.handle({ type: "inspect", target: { kind: "message", id: 999999 } });
    expect(h.posts.some((p) => p.type === "error" && /no longer in flight/.test(p.message))).toBe(true);
  });

  it("a new run gets a new runId, so the page drops what it accumulated", () => {
    const h = harness();
    h.host.handle({ type: "start", settings: settings() });
    const a = h.last().runId;
    h.host.handle({ type: "start", settings: settings() });
    expect(h.last().runId).toBe(a + 1);
  });
});

describe("the view", () => {
  function run(untilMs: number, patch = {}): { sim: Simulation; journal: Journal } {
    const sim = new Simulation(mergeConfig(defaultConfig(), { seed: 3, holders: { count: 3 }, ...patch }));
    const journal = new Journal();
    sim.onTrace(journal.listener);
    sim.advanceTo(untilMs * 1000);
    return { sim, journal };
  }
  const ctx = (journal: Journal) => ({
    runId: 1,
    epoch: 1,
    opened: false,
    fresh: false,
    timeline: timelineFixture(),
    settings: DEFAULT_SETTINGS,
    playing: false,
    speed: 0.1,
    journal,
    lastStep: [],
  });

  it("maps local clock readings back onto virtual time under drift", () => {
    let c = withDrift({ baseT: 0, baseLocal: 0, driftPpm: 0 }, 1_000_000, 100_000);
    c = withDrift(c, 3_000_000, -50_000);
    for (const t of [3_000_000, 4_123_456, 10_000_000]) {
      // The earliest moment the clock showed that reading: exactly t, or a microsecond before it when two moments share a reading.
      const back = toVirtual(c, localTime(c, t));
      expect(t - back).toBeGreaterThanOrEqual(0);
      expect(t - back).toBeLessThanOrEqual(1);
    }
    // A reading from before the last drift change maps back too (a deadline long past).
    expect(toVirtual(c, localTime(c, 2_000_000))).toBe(2_000_000);
  });

  it("shows one leader with the progress of every follower, and election timers on the others", () => {
    const { sim, journal } = run(3000);
    const v = viewOf(sim, ctx(journal));
    const leader = v.nodes.find((n) => n.role === "leader");
    expect(leader?.id).toBe(v.leader);
    expect(leader?.progress.map((p) => p.peer).sort()).toEqual(v.nodes.filter((n) => n !== leader).map((n) => n.id));
    expect(leader?.electionTimerAt).toBeNull();
    for (const n of v.nodes.filter((x) => x !== leader)) {
      expect(n.electionTimerFrom).not.toBeNull();
      expect(n.electionTimerAt).toBeGreaterThan(v.now);
      expect(n.electionTimerFrom ?? 0).toBeLessThanOrEqual(v.now);
    }
    // The log window ends at the longest log, and every row shows the same indexes.
    expect(v.logWindow.to).toBe(Math.max(...v.nodes.map((n) => n.lastIndex)));
    for (const n of v.nodes) for (const e of n.entries) expect(e.index).toBeGreaterThanOrEqual(v.logWindow.from);
  });

  it("with log compaction, the log window and each row follow the logs' offsets, and rows say where the snapshot ends", () => {
    const { sim, journal } = run(20_000, { clients: { count: 3, workload: "random" }, raft: { snapshotEveryEntries: 30, snapshotKeepEntries: 3 } });
    const v = viewOf(sim, ctx(journal));
    const leader = sim.server(v.leader as string).node;
    expect(leader?.snapshotIndex).toBeGreaterThan(0);
    expect(v.logWindow.to).toBe(Math.max(...v.nodes.map((n) => n.lastIndex)));
    for (const n of v.nodes) {
      const node = sim.server(n.id).node;
      expect(n.lastIndex).toBe(node?.lastIndex);
      expect(n.firstIndex).toBe(node?.firstIndex);
      expect(n.snapshotIndex).toBe(node?.snapshotIndex);
      // Entries are the node's own, at their indexes, from the window (or the log's start) to its end.
      for (const e of n.entries) {
        expect(e.index).toBeGreaterThanOrEqual(Math.max(v.logWindow.from, n.firstIndex));
        expect(e.term).toBe(node?.termAt(e.index));
      }
      expect(n.entries.at(-1)?.index).toBe(n.lastIndex);
    }
  });

  it("the lease row: one grant per token in the log (not one per node), an open leader span and the holder's own span", () => {
    const { sim, journal } = run(3000);
    const lines = journal.takeLines();
    const grants = lines.filter((l) => /granted to/.test(l.text));
    const tokens = grants.map((l) => /token (\d+)/.exec(l.text)?.[1]);
    expect(new Set(tokens).size).toBe(tokens.length);
    const v = viewOf(sim, ctx(journal));
    const row = v.leases[0];
    expect(row?.state).toBe("held");
    const open = row?.leaderSpans.filter((s) => s.to === null) ?? [];
    expect(open).toHaveLength(1);
    expect(open[0]?.holder).toBe(row?.holder);
    expect(open[0]?.token).toBe(row?.token);
    expect(row?.leaderExpiresAt).toBeGreaterThan(v.now);
    const mine = row?.holderSpans.filter((s) => s.to === null) ?? [];
    expect(mine.map((s) => s.holder)).toEqual([row?.holder]);
    const h = v.holders.find((x) => x.id === row?.holder);
    // The holder's own deadline is conservative: before the leader's expiry.
    expect(h?.deadlineAt).toBeLessThan(row?.leaderExpiresAt ?? 0);
  });

  it("a holder's own span closes when it crashes, and a new one opens for the next holder", () => {
    const { sim, journal } = run(3000);
    const before = viewOf(sim, ctx(journal)).leases[0];
    const holder = before?.holder as string;
    sim.act({ type: "crash", proc: holder });
    sim.advanceTo(sim.now + 6_000_000);
    const row = viewOf(sim, ctx(journal)).leases[0];
    const mine = row?.holderSpans.filter((s) => s.holder === holder) ?? [];
    expect(mine.at(-1)?.end).toBe("crash");
    expect(mine.every((s) => s.to !== null)).toBe(true);
    expect(row?.holder).not.toBe(holder);
    expect(row?.holderSpans.some((s) => s.holder === row.holder && s.to === null)).toBe(true);
  });

  it("messages crossing a partition are marked blocked, and drops are remembered with their label", () => {
    const { sim, journal } = run(2000);
    const leader = sim.leader() as string;
    sim.act({ type: "partition", groups: [[leader], ["others"]] });
    const seen: string[] = [];
    for (let i = 0; i < 40; i++) {
      sim.advanceTo(sim.now + 5_000);
      for (const m of viewOf(sim, ctx(journal)).messages) if (m.from === leader && m.to.startsWith("n")) seen.push(m.fate);
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((f) => f === "partition")).toBe(true);
    const v = viewOf(sim, ctx(journal));
    const drops = journal.recentDrops(sim.now, 1_000_000);
    expect(drops.some((d) => d.reason === "partition" && d.label === "heartbeat")).toBe(true);
    expect(v.network.groups).toHaveLength(2);
  });
});
