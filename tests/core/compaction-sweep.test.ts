import { describe, expect, it } from "vitest";
import { buildSimulation, runScenario } from "../../src/core/scenario/runner";
import { parseScenario } from "../../src/core/scenario/schema";
import { ALL_FAULTS } from "../../src/core/sim/nemesis";
import type { TraceEvent } from "../../src/core/sim/trace";
import { HistoryRecorder } from "../../src/core/scenario/history";
import { LinSweep } from "../support/sweeps";

const SEEDS = 150;

/**
 * The nemesis sweeps with log compaction at a small interval, so that within 10 s every
 * node snapshots many times and followers cut off by crashes and partitions catch up
 * through InstallSnapshot. The checkers must find nothing, and the sweep must show that
 * snapshots were taken and installed (or it proves nothing).
 */
describe("random nemesis sweep with log compaction (Raft paper section 7)", () => {
  const sweep = (base: Record<string, unknown>, label: string) => {
    const parsed = parseScenario({
      duration: "10s",
      cluster: { snapshotEveryEntries: 20, snapshotKeepEntries: 5 },
      nemesis: { includeClients: true, intervalMin: "100ms", intervalMax: "700ms", quietAfter: "7s" },
      expect: [{ that: "leader-exists" }],
      ...base,
    });
    if (!parsed.ok) throw new Error(parsed.errors.join("; "));
    const bad: string[] = [];
    const lin = new LinSweep(label);
    let taken = 0;
    let installed = 0;
    let sent = 0;
    let configs = 0;
    const count = (e: TraceEvent): void => {
      if (e.kind === "config") configs++;
      else if (e.kind === "snapshot") {
        if (e.op === "take") taken++;
        else installed++;
      } else if (e.kind === "send" && e.msg.type === "InstallSnapshot") sent++;
    };
    for (let seed = 1; seed <= SEEDS; seed++) {
      const r = runScenario(parsed.scenario, { seed, onTrace: count, history: true });
      for (const v of r.violations) bad.push(`seed ${seed}: ${v.invariant} at ${v.time}µs: ${v.detail} (${label})`);
      for (const x of r.expectations) if (!x.ok) bad.push(`seed ${seed}: ${x.description}: ${x.detail}`);
      lin.check(r, `seed ${seed} of "${label}" in tests/core/compaction-sweep.test.ts`);
    }
    console.log(
      `${label}: ${taken} snapshots taken, ${sent} InstallSnapshot sent, ${installed} installed, ${configs} configuration changes seen over ${SEEDS} seeds`,
    );
    lin.report();
    expect(bad).toEqual([]);
    expect(lin.violations).toEqual([]);
    expect(taken).toBeGreaterThan(SEEDS);
    expect(sent).toBeGreaterThan(0);
    expect(installed).toBeGreaterThan(0);
    return configs;
  };

  it(`${SEEDS} seeds of the Raft nemesis, snapshots every 20 entries: no violation, and the cluster recovers`, () => {
    sweep({ name: "compaction sweep", clients: { count: 3, workload: "random" } }, "raft sweep");
  });

  it(`${SEEDS} seeds with lease holders and fenced storage, snapshots every 20 entries: no violation`, () => {
    sweep(
      {
        name: "compaction lease sweep",
        clients: { count: 1, workload: "random" },
        holders: { count: 3, ttlMs: 1500 },
        storage: { fencing: true },
      },
      "lease sweep",
    );
  });

  it(`${SEEDS} seeds with membership changes (a spare, adds and removals, the leader's own) and snapshots every 20 entries: no violation`, () => {
    // Pinned to membership changes among the faults that cut servers off, so that servers
    // join behind a compacted log (InstallSnapshot carries the configuration) and removed
    // ones come back.
    const configs = sweep(
      {
        name: "membership and compaction sweep",
        cluster: { nodes: 5, spares: 1, snapshotEveryEntries: 20, snapshotKeepEntries: 5 },
        clients: { count: 2, workload: "random" },
        holders: { count: 2, ttlMs: 1500 },
        storage: { fencing: true },
        nemesis: {
          includeClients: true,
          intervalMin: "100ms",
          intervalMax: "500ms",
          quietAfter: "7s",
          faults: ["membership", "crash", "partition", "leader-crash", "transfer"],
        },
      },
      "membership sweep",
    );
    expect(configs).toBeGreaterThan(SEEDS * 5);
  });

  it("10-minute nemesis runs with snapshots every 50 entries: no violation, and the checkers release the history below every node's log start", () => {
    const parsed = parseScenario({
      name: "long compaction run",
      duration: "10m",
      cluster: { snapshotEveryEntries: 50, snapshotKeepEntries: 10 },
      clients: { count: 3, workload: "random" },
      holders: { count: 2, ttlMs: 1500 },
      // Every fault but membership changes: a configuration of four split two and two stays
      // leaderless until the quiet period (seed 1 did), and this test needs a long log.
      nemesis: {
        includeClients: true,
        intervalMin: "200ms",
        intervalMax: "2s",
        quietAfter: "590s",
        faults: ALL_FAULTS.filter((k) => k !== "membership"),
      },
    });
    if (!parsed.ok) throw new Error(parsed.errors.join("; "));
    // Seeds whose runs write more than two chunks of log (1,400 to 2,700 entries in ten minutes
    // under this nemesis; the release works in chunks of 1024). A new kind of fault changes the
    // mix, and so which seeds do: the assertion below says so if one falls short.
    const lin = new LinSweep("long compaction runs");
    for (const seed of [1, 6, 7]) {
      const recorder = new HistoryRecorder();
      const sim = buildSimulation(parsed.scenario, { seed, onTrace: (e) => recorder.observe(e) });
      sim.advanceTo(parsed.scenario.duration);
      expect(sim.violations.map((v) => `seed ${seed}: ${v.invariant}: ${v.detail}`)).toEqual([]);
      lin.checkHistory(seed, recorder.finish(seed).operations, `seed ${seed} of the long compaction runs in tests/core/compaction-sweep.test.ts`);
      const leader = sim.leader();
      expect(leader, `seed ${seed}: a leader at the end`).not.toBeNull();
      expect(sim.server(leader as string).node?.lastIndex, `seed ${seed}: the run is long enough`).toBeGreaterThan(2048);
      // The checkers' per-index history below every node's log start is released (in chunks of 1024).
      const checkers = (sim as unknown as { checkers: { raft: { s: { committed: { get(i: number): number | undefined } } } } }).checkers;
      expect(checkers.raft.s.committed.get(1), `seed ${seed}`).toBeUndefined();
    }
    lin.report();
    expect(lin.violations).toEqual([]);
  });
});
