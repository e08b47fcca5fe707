/** The journal labels every message with messageLabel, and describeMessage's label is the same words. */
import { describe, expect, it } from "vitest";
import { defaultConfig, mergeConfig } from "../../src/core/sim/config";
import { ALL_FAULTS } from "../../src/core/sim/nemesis";
import { Simulation } from "../../src/core/sim/sim";
import { messageLabel } from "../../src/worker/describe";

describe("messageLabel", () => {
  it("names each kind of message a run with faults, clients and holders sends, telling apart heartbeats, pre-votes and refusals", () => {
    const cfg = mergeConfig(defaultConfig(), { seed: 11, clients: { count: 2, workload: "random" }, holders: { count: 3 } });
    const sim = new Simulation(cfg, { intervalMinUs: 200_000, intervalMaxUs: 800_000, faults: ALL_FAULTS, quietAfterUs: 30_000_000, includeClients: true });
    const labels = new Set<string>();
    sim.onTrace((e) => {
      if (e.kind !== "send") return;
      const label = messageLabel(e.msg);
      labels.add(label);
      const m = e.msg;
      if (m.type === "AppendEntries") expect(label).toBe(m.entries.length === 0 ? "heartbeat" : "append");
      if (m.type === "RequestVote") expect(label).toBe(m.preVote ? "pre-vote" : "vote");
      if (m.type === "LeaseRefreshReply") expect(label).toBe(m.ok ? "refreshed" : "refresh refused");
      if (m.type === "ClientReply" && !m.ok) expect(label).toBe("not leader");
    });
    sim.advanceTo(30_000_000);
    for (const l of ["heartbeat", "append", "append reply", "pre-vote", "vote", "vote reply", "acquire", "granted", "refresh", "refreshed", "write", "write ok"]) {
      expect(labels, `no "${l}" message in the run`).toContain(l);
    }
  });
});
