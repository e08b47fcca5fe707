/**
 * Log compaction (Raft paper section 7, Figures 12 and 13; dissertation chapter 5), in
 * the style of paper.test.ts: every title names the section it checks. The node is
 * driven by hand (sans-IO) except where a whole cluster is the point.
 */
import { describe, expect, it } from "vitest";
import type { CoreSnapshotData } from "../../src/core/kv/statemachine";
import { CoreStateMachine } from "../../src/core/kv/statemachine";
import { SNAPSHOT_RESEND_HEARTBEATS } from "../../src/core/raft/node";
import type { InstallSnapshot, NodeId, RaftMessage, Snapshot } from "../../src/core/raft/types";
import { defaultConfig, leaseServerSettings, mergeConfig } from "../../src/core/sim/config";
import { Simulation } from "../../src/core/sim/sim";
import { sec } from "../../src/core/sim/time";
import type { TraceEvent } from "../../src/core/sim/trace";
import { awaitLeader, runUntil } from "../scenarios/helpers";
import { electedCluster, entry, Host, ids, logOf, raftConfig, snapshotAt, termsOf } from "./harness";

function installSnapshot(term: number, snapshot: Snapshot): InstallSnapshot {
  return { type: "InstallSnapshot", term, snapshot };
}

function sent(msgs: readonly { to: NodeId; msg: RaftMessage }[], to: NodeId, type: RaftMessage["type"]): RaftMessage[] {
  return msgs.filter((o) => o.to === to && o.msg.type === type).map((o) => o.msg);
}

describe("§7 log compaction on one node", () => {
  it("§7 compaction drops the entries up to the given index, keeps the rest, and index lookups follow the offset", () => {
    const host = new Host(raftConfig("n1", ids(3)), { term: 2, votedFor: null }, logOf([1, 1, 2, 2, 2]));
    // Commit everything (as a follower would learn it).
    host.node.step(1, "n2", { type: "AppendEntries", term: 2, prevLogIndex: 5, prevLogTerm: 2, entries: [], leaderCommit: 5, readCtx: 0 });
    host.ready();
    const snap = host.compact(4, 2);
    expect(host.node.snapshot).toBe(snap);
    expect(host.node.snapshotIndex).toBe(4);
    expect(host.node.snapshotTerm).toBe(2);
    expect(host.node.firstIndex).toBe(3);
    expect(termsOf(host.node.log)).toEqual([2, 2, 2]);
    expect(host.node.lastIndex).toBe(5);
    expect(host.node.termAt(2)).toBe(1); // the log start's term is kept
    expect(host.node.termAt(1)).toBe(-1); // compacted: unknown here
    expect(host.node.entryAt(2)).toBeUndefined();
    expect(host.node.entryAt(3)).toEqual(entry(3, 2));
    expect(host.disk.log.map((e) => e.index)).toEqual([3, 4, 5]);
  });

  it("§7 a snapshot must cover committed entries only", () => {
    const host = new Host(raftConfig("n1", ids(3)), { term: 2, votedFor: null }, logOf([1, 1, 2]));
    expect(() => host.compact(2)).toThrow(/past the commit index/);
  });

  it("§7 a restarted node boots from its snapshot and the log after it: whatever the snapshot covers is committed", () => {
    const host = new Host(raftConfig("n1", ids(3)), { term: 2, votedFor: null }, logOf([1, 1, 2, 2, 2]));
    host.node.step(1, "n2", { type: "AppendEntries", term: 2, prevLogIndex: 5, prevLogTerm: 2, entries: [], leaderCommit: 4, readCtx: 0 });
    host.ready();
    const snap = host.compact(4, 3);
    host.reboot(100);
    expect(host.node.snapshot).toBe(snap);
    expect(host.node.commitIndex).toBe(4);
    expect(host.node.firstIndex).toBe(4);
    expect(host.node.lastIndex).toBe(5);
    expect(host.node.lastTerm()).toBe(2);
    expect(termsOf(host.node.log)).toEqual([2, 2]);
  });
});

describe("§7 InstallSnapshot, receiver (Figure 13)", () => {
  const voters = ids(3);

  it("Figure 13 receiver 1: a snapshot with a stale term is refused and changes nothing", () => {
    const host = new Host(raftConfig("n2", voters), { term: 3, votedFor: null }, logOf([1, 1, 2]));
    host.node.step(10, "n1", installSnapshot(2, snapshotAt(3, 2, voters)));
    const rd = host.ready();
    expect(rd.snapshot).toBeNull();
    expect(sent(rd.messages, "n1", "AppendEntriesResp")).toEqual([expect.objectContaining({ term: 3, success: false })]);
    expect(termsOf(host.node.log)).toEqual([1, 1, 2]);
    expect(host.node.snapshot).toBeNull();
    expect(host.node.commitIndex).toBe(0);
  });

  it("Figure 13 step 6: a follower whose log holds the snapshot's last entry keeps the entries after it", () => {
    const host = new Host(raftConfig("n2", voters), { term: 2, votedFor: null }, logOf([1, 1, 1, 2, 2]));
    const snap = snapshotAt(3, 1, voters);
    host.node.step(10, "n1", installSnapshot(2, snap));
    const rd = host.ready(); // persists, and checks the disk equals the node
    expect(rd.snapshot).toBe(snap);
    expect(host.node.firstIndex).toBe(4);
    expect(termsOf(host.node.log)).toEqual([2, 2]);
    expect(host.node.lastIndex).toBe(5);
    expect(host.node.commitIndex).toBe(3);
    expect(host.disk.start?.snapshot).toBe(snap);
    expect(sent(rd.messages, "n1", "AppendEntriesResp")).toEqual([expect.objectContaining({ term: 2, success: true, matchIndex: 3 })]);
  });

  it("Figure 13 step 7: otherwise the follower discards its whole log (a conflicting or a shorter one)", () => {
    const conflicting = new Host(raftConfig("n2", voters), { term: 3, votedFor: null }, logOf([1, 1, 1, 2, 2]));
    conflicting.node.step(10, "n1", installSnapshot(3, snapshotAt(4, 3, voters)));
    conflicting.ready();
    expect(conflicting.node.log).toEqual([]);
    expect(conflicting.node.lastIndex).toBe(4);
    expect(conflicting.node.lastTerm()).toBe(3);
    expect(conflicting.disk.log).toEqual([]);

    const short = new Host(raftConfig("n3", voters), { term: 3, votedFor: null }, logOf([1, 1]));
    short.node.step(10, "n1", installSnapshot(3, snapshotAt(7, 2, voters)));
    const rd = short.ready();
    expect(short.node.log).toEqual([]);
    expect(short.node.firstIndex).toBe(8);
    expect(short.node.commitIndex).toBe(7);
    expect(sent(rd.messages, "n1", "AppendEntriesResp")).toEqual([expect.objectContaining({ success: true, matchIndex: 7 })]);
  });

  it("§7 a snapshot at or below the commit index holds nothing new: answered with the commit index, not installed", () => {
    const host = new Host(raftConfig("n2", voters), { term: 2, votedFor: null }, logOf([1, 1, 2]));
    host.node.step(1, "n1", { type: "AppendEntries", term: 2, prevLogIndex: 3, prevLogTerm: 2, entries: [], leaderCommit: 3, readCtx: 0 });
    host.ready();
    host.node.step(2, "n1", installSnapshot(2, snapshotAt(2, 1, voters)));
    const rd = host.ready();
    expect(rd.snapshot).toBeNull();
    expect(termsOf(host.node.log)).toEqual([1, 1, 2]);
    expect(sent(rd.messages, "n1", "AppendEntriesResp")).toEqual([expect.objectContaining({ success: true, matchIndex: 3 })]);
  });

  it("§7 a follower answers an append from before its snapshot with its commit index (etcd does the same)", () => {
    const host = new Host(raftConfig("n2", voters), { term: 2, votedFor: null });
    host.node.step(1, "n1", installSnapshot(2, snapshotAt(6, 2, voters)));
    host.ready();
    host.node.step(2, "n1", { type: "AppendEntries", term: 2, prevLogIndex: 3, prevLogTerm: 1, entries: [entry(4, 1)], leaderCommit: 6, readCtx: 0 });
    const rd = host.ready();
    expect(rd.entries).toEqual([]);
    expect(sent(rd.messages, "n1", "AppendEntriesResp")).toEqual([expect.objectContaining({ success: true, matchIndex: 6 })]);
  });
});

describe("§7 InstallSnapshot, leader", () => {
  /** n1 leads; n3 is cut off while n1 commits entries 2..10 with n2, then n1 compacts up to 8 (snapshot at 10). */
  const cutOff = () => {
    const net = electedCluster(3);
    const n1 = net.node("n1");
    for (let i = 0; i < 9; i++) n1.propose({ type: "noop" });
    net.flush("n1");
    net.run((e) => e.to !== "n3" && e.from !== "n3");
    expect(n1.commitIndex).toBe(10);
    net.host("n1").compact(10, 8);
    return net;
  };

  it("§7 a follower whose next entry was compacted away gets the snapshot, and no appends until it answers", () => {
    const net = cutOff();
    const n1 = net.node("n1");
    // A heartbeat asks n3 at n1's log start; n3 lacks entry 8 and says so; n1 has only the snapshot for it.
    net.heartbeat("n1");
    expect(n1.progress.n3).toMatchObject({ state: "snapshot", pendingSnapshot: 10 });
    const held = net.take((e) => e.msg.type === "InstallSnapshot");
    expect(held.map((e) => e.to)).toEqual(["n3"]);
    net.run();
    expect(n1.progress.n3?.state).toBe("snapshot");
    // While the snapshot is on its way, a new entry goes to n2 only.
    n1.propose({ type: "noop" });
    const rd = net.flush("n1");
    expect(sent(rd.messages, "n2", "AppendEntries")).toHaveLength(1);
    expect(sent(rd.messages, "n3", "AppendEntries")).toEqual([]);
    // Deliver everything now: n3 installs the snapshot, answers, and gets entry 11 by append.
    net.queue.push(...held);
    net.run();
    expect(n1.progress.n3).toMatchObject({ state: "replicate", match: 11 });
    const n3 = net.node("n3");
    expect(n3.snapshot).toBe(n1.snapshot);
    expect(n3.firstIndex).toBe(11);
    expect(n3.lastIndex).toBe(11);
    expect(n3.commitIndex).toBe(11);
  });

  it(`§7 a lost snapshot is sent again after ${SNAPSHOT_RESEND_HEARTBEATS} heartbeats without an answer`, () => {
    const net = cutOff();
    const n1 = net.node("n1");
    net.heartbeat("n1");
    net.run((e) => !(e.to === "n3" && e.msg.type === "InstallSnapshot")); // the snapshot is lost
    expect(n1.progress.n3?.state).toBe("snapshot");
    let resent = 0;
    for (let i = 0; i < SNAPSHOT_RESEND_HEARTBEATS; i++) {
      const rd = net.heartbeat("n1");
      resent += sent(rd.messages, "n3", "InstallSnapshot").length;
      net.run((e) => e.msg.type !== "InstallSnapshot");
    }
    expect(resent).toBe(1);
    for (let i = 0; i < SNAPSHOT_RESEND_HEARTBEATS; i++) {
      net.heartbeat("n1");
      net.run();
    }
    expect(n1.progress.n3).toMatchObject({ state: "replicate", match: 10 });
  });
});

describe("§7 log compaction in a running cluster", () => {
  const cfg = (seed: number, everyEntries: number, keepEntries: number) =>
    mergeConfig(defaultConfig(), {
      seed,
      nodes: 5,
      clients: { count: 3, workload: "random" },
      raft: { snapshotEveryEntries: everyEntries, snapshotKeepEntries: keepEntries },
    });

  it("§7 every node snapshots once it has applied the configured number of entries, and truncates its log to the kept ones", () => {
    const sim = new Simulation(cfg(4, 50, 10));
    const taken: Extract<TraceEvent, { kind: "snapshot" }>[] = [];
    sim.onTrace((e) => {
      if (e.kind === "snapshot" && e.op === "take") taken.push(e);
    });
    sim.advanceTo(sec(20));
    expect(sim.violations).toEqual([]);
    for (const id of sim.nodeIds) {
      const server = sim.server(id);
      const disk = server.disk;
      const snap = disk.start.snapshot as Snapshot;
      expect(snap, id).not.toBeNull();
      expect(disk.start.index, id).toBe(snap.index - 10);
      expect(server.lastApplied - snap.index, id).toBeLessThan(50);
      expect(server.node?.firstIndex, id).toBe(disk.start.index + 1);
      expect(disk.log[0]?.index, id).toBe(disk.start.index + 1);
      expect(disk.log.length, id).toBeLessThan(50 + 10 + 64);
    }
    // Snapshots at one index hold one state (the checkers compare digests too).
    const byIndex = new Map<number, number>();
    for (const e of taken) {
      expect(byIndex.get(e.index) ?? e.digest).toBe(e.digest);
      byIndex.set(e.index, e.digest);
    }
    // Each node's snapshots are the configured distance apart.
    for (const id of sim.nodeIds) {
      const mine = taken.filter((e) => e.proc === id).map((e) => e.index);
      for (let i = 1; i < mine.length; i++) expect((mine[i] as number) - (mine[i - 1] as number)).toBeGreaterThanOrEqual(50);
    }
  });

  it("§7 a follower that was down while the log was compacted past it catches up by InstallSnapshot, to the same state machine", () => {
    const sim = new Simulation(cfg(11, 30, 5));
    const leader = awaitLeader(sim, sec(2));
    const f = sim.nodeIds.find((id) => id !== leader) as NodeId;
    sim.act({ type: "crash", proc: f });
    sim.advanceTo(sim.now + sec(6));
    const l = sim.leader() as NodeId;
    const lastOnDisk = (sim.diskOf(f)?.start.index ?? 0) + (sim.diskOf(f)?.log.length ?? 0);
    expect(sim.server(l).node?.firstIndex).toBeGreaterThan(lastOnDisk + 1);
    const events: TraceEvent[] = [];
    sim.onTrace((e) => {
      if ((e.kind === "send" && e.msg.type === "InstallSnapshot" && e.to === f) || (e.kind === "snapshot" && e.proc === f)) events.push(e);
    });
    sim.act({ type: "restart", proc: f });
    const caughtUp = () => {
      const lead = sim.leader();
      return lead !== null && sim.server(f).lastApplied >= (sim.server(lead).node?.commitIndex ?? 0) - 5;
    };
    expect(runUntil(sim, () => events.some((e) => e.kind === "snapshot" && e.op === "install") && caughtUp(), sec(3))).toBe(true);
    expect(events.some((e) => e.kind === "send")).toBe(true);
    // Stop the clients and let everything settle: the state machines agree.
    sim.act({ type: "partition", groups: [[...sim.nodeIds], [...sim.clientIds]] });
    sim.advanceTo(sim.now + sec(1));
    const lead = sim.leader() as NodeId;
    expect(sim.server(f).lastApplied).toBe(sim.server(lead).lastApplied);
    expect(sim.server(f).stateMachine?.entries()).toEqual(sim.server(lead).stateMachine?.entries());
    expect(sim.server(f).stateMachine?.toSnapshot()).toEqual(sim.server(lead).stateMachine?.toSnapshot());
    expect(sim.violations).toEqual([]);
  });

  it("§7 a restarted node starts from its snapshot: state machine, lastApplied and commit index", () => {
    const c = cfg(5, 40, 8);
    const sim = new Simulation(c);
    sim.advanceTo(sec(8));
    const id = sim.nodeIds.find((x) => x !== sim.leader()) as NodeId;
    sim.act({ type: "crash", proc: id });
    const snap = sim.diskOf(id)?.start.snapshot as Snapshot;
    expect(snap).not.toBeNull();
    sim.act({ type: "restart", proc: id });
    const server = sim.server(id);
    expect(server.node?.snapshot).toBe(snap);
    expect(server.node?.commitIndex).toBeGreaterThanOrEqual(snap.index);
    expect(server.lastApplied).toBeGreaterThanOrEqual(snap.index);
    const fromSnap = CoreStateMachine.fromSnapshot(leaseServerSettings(c), snap.data as CoreSnapshotData);
    if (server.lastApplied === snap.index) expect(server.stateMachine?.toSnapshot()).toEqual(fromSnap.toSnapshot());
    sim.advanceTo(sim.now + sec(2));
    expect(sim.violations).toEqual([]);
  });
});
