import { describe, expect, it } from "vitest";
import { defaultConfig, mergeConfig } from "../../src/core/sim/config";
import { ALL_FAULTS } from "../../src/core/sim/nemesis";
import { Simulation } from "../../src/core/sim/sim";
import type { TraceEvent } from "../../src/core/sim/trace";

const nemesis = { intervalMinUs: 100_000, intervalMaxUs: 600_000, faults: ALL_FAULTS, quietAfterUs: 8_000_000, includeClients: true };

function busySim(seed: number): Simulation {
  return new Simulation(mergeConfig(defaultConfig(), { seed, clients: { count: 3, workload: "random" } }), nemesis);
}

describe("determinism (DESIGN.md: same seed + same actions = same trace)", () => {
  it("the same seed gives the same trace hash; another seed gives another", () => {
    for (const seed of [1, 2, 99]) {
      const a = busySim(seed);
      const b = busySim(seed);
      a.advanceTo(10_000_000);
      b.advanceTo(10_000_000);
      expect(a.traceHash, `seed ${seed}`).toBe(b.traceHash);
      expect(a.eventsProcessed, `seed ${seed}`).toBe(b.eventsProcessed);
    }
    const x = busySim(1);
    const y = busySim(2);
    x.advanceTo(5_000_000);
    y.advanceTo(5_000_000);
    expect(x.traceHash).not.toBe(y.traceHash);
  });

  it("advancing in one chunk or in many gives the same trace, event for event", () => {
    const seed = 4242;
    const one = busySim(seed);
    const oneEvents: string[] = [];
    one.onTrace((e) => oneEvents.push(JSON.stringify(e)));
    one.advanceTo(6_000_000);

    const many = busySim(seed);
    const manyEvents: string[] = [];
    many.onTrace((e) => manyEvents.push(JSON.stringify(e)));
    // Irregular chunks, including zero-length ones and chunks landing exactly on event times.
    let t = 0;
    let i = 0;
    while (t < 6_000_000) {
      t = Math.min(6_000_000, t + ((i * 7919) % 23_456) + (i % 5 === 0 ? 0 : 1));
      many.advanceTo(t);
      const next = many.nextEventTime();
      if (next !== null && next <= 6_000_000 && i % 3 === 0) {
        many.advanceTo(next);
        t = next;
      }
      i++;
    }
    expect(manyEvents.length).toBe(oneEvents.length);
    expect(manyEvents).toEqual(oneEvents);
    expect(many.traceHash).toBe(one.traceHash);
  });

  it("stepping one event at a time gives the same trace as advancing", () => {
    const a = busySim(7);
    a.advanceTo(2_000_000);
    const b = busySim(7);
    const stepped: TraceEvent[] = [];
    for (;;) {
      const next = b.nextEventTime();
      if (next === null || next > 2_000_000) break;
      stepped.push(...b.step(2_000_000));
    }
    b.advanceTo(2_000_000);
    expect(b.traceHash).toBe(a.traceHash);
    expect(stepped.length).toBe(a.eventsProcessed);
  });

  it("step() processes exactly one event: it never skips time past the next event", () => {
    const sim = busySim(11);
    sim.advanceTo(500_000);
    for (let i = 0; i < 200; i++) {
      const next = sim.nextEventTime();
      const events = sim.step();
      if (events.length === 0) continue; // a cancelled timer was skipped
      // Everything one step produced happened at one instant, no earlier than the next queued event.
      const times = new Set(events.map((e) => e.t));
      expect(times.size).toBe(1);
      expect(events[0]?.t).toBeGreaterThanOrEqual(next ?? 0);
    }
  });

  it("the same user actions at the same times reproduce the run", () => {
    const run = (): string => {
      const sim = busySim(5);
      sim.advanceTo(1_000_000);
      sim.act({ type: "crash", proc: "leader" });
      sim.advanceTo(1_500_000);
      sim.act({ type: "partition", groups: [["n1", "n2"], ["others"]] });
      sim.advanceTo(3_000_000);
      sim.act({ type: "heal" });
      sim.act({ type: "clock", proc: "n3", driftPpm: 100_000 });
      sim.advanceTo(5_000_000);
      return sim.traceHash;
    };
    expect(run()).toBe(run());
  });
});

describe("advanceTo with a stop condition", () => {
  it("stops right after the event that meets it, and going on gives the same run as never stopping", () => {
    const config = mergeConfig(defaultConfig(), { seed: 11, holders: { count: 2 } });
    const a = new Simulation(config);
    const done = a.advanceTo(2_000_000, () => a.eventsHandled >= 137);
    expect(done).toBe(false);
    expect(a.eventsHandled).toBe(137);
    expect(a.now).toBeLessThan(2_000_000);
    a.advanceTo(2_000_000);
    const b = new Simulation(config);
    expect(b.advanceTo(2_000_000)).toBe(true);
    expect(a.traceHash).toBe(b.traceHash);
    expect(a.eventsHandled).toBe(b.eventsHandled);
  });
});
