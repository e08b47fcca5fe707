import { afterEach, describe, expect, it, vi } from "vitest";
import { RaftServer } from "../../src/core/raft/server";
import { defaultConfig, mergeConfig } from "../../src/core/sim/config";
import { ActionRefused, Simulation } from "../../src/core/sim/sim";
import type { TraceEvent } from "../../src/core/sim/trace";

/** Bugs are not refusals: only ActionRefused is a skipped action; anything else halts the run. */

function settled(seed = 1): Simulation {
  const sim = new Simulation(mergeConfig(defaultConfig(), { seed }));
  sim.advanceTo(2_000_000);
  expect(sim.leader()).not.toBeNull();
  return sim;
}

function notes(sim: Simulation): string[] {
  const out: string[] = [];
  sim.onTrace((e: TraceEvent) => {
    if (e.kind === "note") out.push(e.text);
  });
  return out;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("refusals and bugs in actions", () => {
  it("a refused action is skipped and reported, and the run goes on", () => {
    const sim = settled();
    const said = notes(sim);
    const failure = sim.perform({ type: "crash", proc: "nobody" });
    expect(failure?.error).toContain('no process named "nobody"');
    expect(sim.actionFailures).toHaveLength(1);
    expect(said.some((t) => t.startsWith("crash skipped:"))).toBe(true);
    expect(sim.halted).toBe(false);
    expect(sim.violations).toEqual([]);
    const before = sim.eventsProcessed;
    sim.advanceTo(3_000_000);
    expect(sim.eventsProcessed).toBeGreaterThan(before);
  });

  it("a refusal from a process (a hand-over to itself) is skipped too", () => {
    const sim = settled();
    const leader = sim.leader() as string;
    const failure = sim.perform({ type: "transfer", to: leader });
    expect(failure).not.toBeNull();
    expect(sim.halted).toBe(false);
    expect(sim.violations).toEqual([]);
  });

  it("the sim's refusals are ActionRefused, thrown by act()", () => {
    const sim = settled();
    expect(() => sim.act({ type: "crash", proc: "nobody" })).toThrow(ActionRefused);
  });

  it("a plain Error thrown inside an action halts the run as an assertion violation", () => {
    const sim = settled();
    vi.spyOn(RaftServer.prototype, "crash").mockImplementation(() => {
      throw new Error("planted bug in crash");
    });
    const failure = sim.perform({ type: "crash", proc: "leader" });
    expect(failure).toBeNull();
    expect(sim.actionFailures).toEqual([]);
    expect(sim.halted).toBe(true);
    expect(sim.violations).toHaveLength(1);
    expect(sim.violations[0]?.invariant).toBe("assertion");
    expect(sim.violations[0]?.detail).toContain("planted bug in crash");
    const at = sim.eventsProcessed;
    sim.advanceTo(3_000_000);
    expect(sim.eventsProcessed).toBe(at);
  });

  it("a plain Error from a process method called by an action (transfer) halts the run", () => {
    const sim = settled();
    vi.spyOn(RaftServer.prototype, "transferLeadership").mockImplementation(() => {
      throw new Error("planted bug in transferLeadership");
    });
    const follower = sim.nodeIds.find((id) => id !== sim.leader()) as string;
    sim.perform({ type: "transfer", to: follower });
    expect(sim.halted).toBe(true);
    expect(sim.actionFailures).toEqual([]);
    expect(sim.violations.map((v) => v.invariant)).toEqual(["assertion"]);
    expect(sim.violations[0]?.detail).toContain("planted bug in transferLeadership");
  });

  it("a scheduled action's bug halts the run too", () => {
    const sim = settled();
    vi.spyOn(RaftServer.prototype, "crash").mockImplementation(() => {
      throw new Error("planted bug, scheduled");
    });
    sim.schedule(2_500_000, { type: "crash", proc: "leader" });
    sim.advanceTo(4_000_000);
    expect(sim.halted).toBe(true);
    expect(sim.violations[0]?.invariant).toBe("assertion");
    expect(sim.violations[0]?.detail).toContain("planted bug, scheduled");
    expect(sim.violations[0]?.time).toBe(2_500_000);
  });

  it("the nemesis: a bug in one of its actions halts the run as an assertion violation", () => {
    vi.spyOn(RaftServer.prototype, "crash").mockImplementation(() => {
      throw new Error("planted bug under the nemesis");
    });
    const sim = new Simulation(mergeConfig(defaultConfig(), { seed: 5 }), {
      intervalMinUs: 100_000,
      intervalMaxUs: 300_000,
      faults: ["crash"],
      quietAfterUs: 8_000_000,
      includeClients: false,
    });
    sim.advanceTo(10_000_000);
    expect(sim.halted).toBe(true);
    expect(sim.violations.map((v) => v.invariant)).toEqual(["assertion"]);
    expect(sim.violations[0]?.detail).toContain("planted bug under the nemesis");
  });

  it("the nemesis: a refused action is a note, and the run goes on", () => {
    const sim = new Simulation(mergeConfig(defaultConfig(), { seed: 1 }), {
      intervalMinUs: 100_000,
      intervalMaxUs: 300_000,
      faults: ["membership", "leader-crash"],
      quietAfterUs: 8_000_000,
      includeClients: false,
    });
    const said = notes(sim);
    // Seed 1: a removal decided while the new leader has not committed in its term is refused.
    sim.advanceTo(10_000_000);
    expect(sim.violations).toEqual([]);
    expect(sim.halted).toBe(false);
    expect(said.some((t) => t.startsWith("nemesis: remove-node skipped:"))).toBe(true);
  });
});
