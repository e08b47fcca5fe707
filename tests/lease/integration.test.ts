import { describe, expect, it } from "vitest";
import { defaultConfig, mergeConfig } from "../../src/core/sim/config";
import { Simulation } from "../../src/core/sim/sim";
import type { TraceEvent } from "../../src/core/sim/trace";

describe("the lease service in a running cluster", () => {
  it("a leader cut off from its majority (CheckQuorum off, so it stays leader) never expires a lease (etcd 15247)", () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const sim = new Simulation(mergeConfig(defaultConfig(), { seed, raft: { checkQuorum: false }, holders: { count: 1 } }));
      const events: TraceEvent[] = [];
      sim.onTrace((e) => events.push(e));
      sim.advanceTo(2_000_000);
      const old = sim.leader();
      expect(old, `seed ${seed}`).not.toBeNull();
      // The holder dies, and the leader is cut off with nobody.
      sim.act({ type: "crash", proc: "h1" });
      sim.act({ type: "partition", groups: [[old as string], ["others"]] });
      const cutAt = sim.now;
      sim.advanceTo(10_000_000);
      // It still believes it leads, and its lease clock ran out long ago...
      expect(sim.server(old as string).node?.role, `seed ${seed}`).toBe("leader");
      // ...but it proposed no expiry once it had gone an election timeout without hearing a majority.
      const lateExpiring = events.filter((e) => e.kind === "lease" && e.op === "expiring" && e.proc === old && e.t > cutAt + 150_000);
      expect(lateExpiring, `seed ${seed}`).toEqual([]);
      // The majority side elected a new leader, which did expire the abandoned lease.
      const expiredElsewhere = events.some((e) => e.kind === "lease" && e.op === "expire" && e.proc !== old);
      expect(expiredElsewhere, `seed ${seed}`).toBe(true);
      expect(sim.violations, `seed ${seed}`).toEqual([]);
    }
  });

  it("a client can ask for a lease's time to live and attached keys, answered by the leader through ReadIndex", () => {
    const sim = new Simulation(mergeConfig(defaultConfig(), { seed: 9, clients: { count: 1 }, holders: { count: 1 } }));
    const answers: unknown[] = [];
    sim.onTrace((e) => {
      if (e.kind === "client" && e.phase === "ok" && e.proc === "c1") answers.push(e.result);
    });
    sim.advanceTo(2_000_000);
    sim.act({ type: "submit", client: "c1", op: { read: { type: "lease-ttl", name: "lock" } } });
    sim.act({ type: "submit", client: "c1", op: { read: { type: "lease-list" } } });
    sim.advanceTo(2_500_000);
    expect(answers).toHaveLength(2);
    const ttl = answers[0] as { kind: string; lease: { holder: string; keys: string[]; ttlMs: number }; remainingMs: number };
    expect(ttl.kind).toBe("lease-info");
    expect(ttl.lease).toMatchObject({ holder: "h1", keys: ["/holders/h1"], ttlMs: 2000 });
    // The holder renews every third of the TTL, so the leader's view never falls far below a full TTL.
    expect(ttl.remainingMs).toBeGreaterThan(1000);
    expect(ttl.remainingMs).toBeLessThanOrEqual(2000);
    expect(answers[1]).toMatchObject({ kind: "lease-list", leases: [{ name: "lock", state: "held" }] });
  });
});

describe("leader failover does not cost a healthy holder its lease", () => {
  it("over 40 seeds: the leader crashes at a random moment; the holders never reach lost", () => {
    const lostIn: string[] = [];
    for (let seed = 1; seed <= 40; seed++) {
      const sim = new Simulation(mergeConfig(defaultConfig(), { seed, holders: { count: 2, leaseNames: ["a", "b"] } }));
      sim.onTrace((e) => {
        if (e.kind === "holder" && e.state.startsWith("lost")) lostIn.push(`seed ${seed}: ${e.proc} lost its lease at ${e.t}µs`);
      });
      sim.advanceTo(2_000_000 + ((seed * 7919) % 1_000_000));
      sim.act({ type: "crash", proc: "leader" });
      sim.advanceTo(8_000_000);
      expect(sim.violations, `seed ${seed}`).toEqual([]);
    }
    expect(lostIn).toEqual([]);
  });
});
