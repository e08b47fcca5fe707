/** The journal labels every message with messageLabel: it must say what describeMessage's label says. */
import { describe, expect, it } from "vitest";
import { defaultConfig, mergeConfig } from "../../src/core/sim/config";
import { ALL_FAULTS } from "../../src/core/sim/nemesis";
import { Simulation } from "../../src/core/sim/sim";
import type { Payload } from "../../src/core/sim/trace";
import { describeMessage, messageLabel } from "../../src/worker/describe";

describe("messageLabel", () => {
  it("is describeMessage's label, for every message of a run with faults, clients, holders and leases", () => {
    const cfg = mergeConfig(defaultConfig(), { seed: 11, clients: { count: 2, workload: "random" }, holders: { count: 3 } });
    const sim = new Simulation(cfg, { intervalMinUs: 200_000, intervalMaxUs: 800_000, faults: ALL_FAULTS, quietAfterUs: 30_000_000, includeClients: true });
    const seen = new Map<string, Payload>();
    let checked = 0;
    sim.onTrace((e) => {
      if (e.kind !== "send") return;
      checked++;
      expect(messageLabel(e.msg)).toBe(describeMessage(e.msg).label);
      seen.set(describeMessage(e.msg).label, e.msg);
    });
    sim.advanceTo(30_000_000);
    expect(checked).toBeGreaterThan(1000);
    // The run went through most kinds of message (so the comparison covered them).
    expect(seen.size).toBeGreaterThanOrEqual(12);
  });
});
