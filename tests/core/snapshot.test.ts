import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { defaultConfig, mergeConfig } from "../../src/core/sim/config";
import { ALL_FAULTS } from "../../src/core/sim/nemesis";
import { Simulation } from "../../src/core/sim/sim";

describe("snapshot and restore", () => {
  it("restoring a snapshot and running on reproduces the original future exactly (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 0, max: 4_000_000 }), (seed, cutUs) => {
        const sim = new Simulation(mergeConfig(defaultConfig(), { seed, clients: { count: 2, workload: "random" } }), {
          intervalMinUs: 100_000,
          intervalMaxUs: 500_000,
          faults: ALL_FAULTS,
          quietAfterUs: 4_000_000,
          includeClients: true,
        });
        sim.advanceTo(cutUs);
        const snap = sim.snapshot();
        sim.advanceTo(5_000_000);
        const first = sim.traceHash;
        const firstEvents = sim.eventsProcessed;
        sim.restore(snap);
        expect(sim.now).toBe(cutUs);
        sim.advanceTo(5_000_000);
        expect(sim.traceHash, `seed ${seed}, cut at ${cutUs}µs`).toBe(first);
        expect(sim.eventsProcessed).toBe(firstEvents);
        // The snapshot stays reusable: a second restore gives the same future again.
        sim.restore(snap);
        sim.advanceTo(5_000_000);
        expect(sim.traceHash, `seed ${seed}, second restore`).toBe(first);
      }),
      { numRuns: 25, seed: 20261122, verbose: true },
    );
  });

  it("a snapshot is not changed by running on (no shared mutable state)", () => {
    const sim = new Simulation(mergeConfig(defaultConfig(), { seed: 3, clients: { count: 2, workload: "random" } }));
    sim.advanceTo(2_000_000);
    const snap = sim.snapshot();
    const leader = sim.leader();
    expect(leader).not.toBeNull();
    const logLen = sim.server(leader as string).disk.log.length;
    sim.advanceTo(6_000_000);
    expect(sim.server(leader as string).disk.log.length).toBeGreaterThan(logLen);
    sim.restore(snap);
    expect(sim.server(leader as string).disk.log.length).toBe(logLen);
  });
});

describe("frozen Raft logs in snapshots", () => {
  it("a frozen server clones back to the same logs and state; successive frozen copies share their unchanged chunks", () => {
    // Compaction off: the logs grow past two chunks.
    const sim = new Simulation(
      mergeConfig(defaultConfig(), { seed: 8, clients: { count: 3, workload: "random" }, raft: { snapshotEveryEntries: 0 } }),
    );
    sim.advanceTo(240_000_000);
    const leader = sim.leader() as string;
    const server = sim.server(leader);
    expect(server.disk.log.length).toBeGreaterThan(2048);
    const a = server.freeze();
    sim.advanceTo(241_000_000);
    const b = server.freeze();
    const chunksOf = (s: unknown) => (s as { frozen: { disk: { chunks: readonly unknown[] } } }).frozen.disk.chunks;
    // The first chunk did not change in that second: the two frozen copies hold the very same array.
    expect(chunksOf(b)[0]).toBe(chunksOf(a)[0]);
    // A frozen copy holds no flat log of its own.
    expect(a.disk.log).toHaveLength(0);
    const back = b.clone();
    expect(back.disk.log).toEqual(server.disk.log);
    expect(back.node?.log).toEqual(server.node?.log);
    expect(back.node?.commitIndex).toBe(server.node?.commitIndex);
    // And the clone is independent of the server it came from.
    sim.advanceTo(242_000_000);
    expect(back.disk.log.length).toBeLessThan(server.disk.log.length);
  });

  it("with compaction, frozen copies share the snapshot and the chunks the compaction did not touch", () => {
    // Snapshots every 1500 entries keeping 1200 before them: the log spans a few chunks.
    const cfg = mergeConfig(defaultConfig(), {
      seed: 8,
      clients: { count: 3, workload: "random" },
      raft: { snapshotEveryEntries: 1500, snapshotKeepEntries: 1200 },
    });
    const sim = new Simulation(cfg);
    sim.advanceTo(240_000_000);
    const leader = sim.leader() as string;
    const server = sim.server(leader);
    expect(server.disk.start.snapshot).not.toBeNull();
    expect(server.disk.start.index).toBeGreaterThan(0);
    const a = server.freeze();
    sim.advanceTo(241_000_000);
    const b = server.freeze();
    type Frozen = { frozen: { disk: { first: number; chunks: readonly (readonly { index: number }[])[] } } };
    const fa = (a as unknown as Frozen).frozen.disk;
    const fb = (b as unknown as Frozen).frozen.disk;
    // Chunks are aligned by log index: each chunk of b at an index a covers too, and unchanged, is a's.
    const shared = fb.chunks.filter((c) => fa.chunks.includes(c));
    expect(shared.length).toBeGreaterThan(0);
    const back = b.clone();
    expect(back.disk.start).toBe(server.disk.start);
    expect(back.disk.log).toEqual(server.disk.log);
    expect(back.node?.log).toEqual(server.node?.log);
    expect(back.node?.snapshot).toBe(server.node?.snapshot);
    expect(back.stateMachine?.entries()).toEqual(server.stateMachine?.entries());
  });
});
