/**
 * A live process's thread reports what it did since its last report: the page adds the reports
 * up (src/live/cluster.ts), so a report that repeated the calls already reported counted them
 * again every half second (the Live panel's "Calls" grew as the square of the run's length).
 */
import { describe, expect, it } from "vitest";
import { LiveProcess } from "../../src/core/live/process";
import { defaultConfig, mergeConfig } from "../../src/core/sim/config";
import type { ProcessDisk } from "../../src/live/disk";
import { ProcessShell } from "../../src/live/processShell";
import { epochMs } from "../../src/live/protocol";

describe("ProcessShell.stats", () => {
  it("counts each call once: a report holds only the calls since the last one", () => {
    const config = mergeConfig(defaultConfig(), { seed: 1 });
    const disk: ProcessDisk = { kind: "memory", note: null, read: () => null, write: () => {}, close: () => {} };
    const proc = new LiveProcess(config, "n1", 0, null, { baseT: 0, baseLocal: 0, driftPpm: 0 });
    const shell = new ProcessShell(proc, { r0: epochMs(), v0: 0, speed: 1 }, disk, { toPage: () => {}, toRouter: () => {}, cells: null, slot: 0 });
    shell.boot();
    const first = shell.stats();
    expect(first.calls).toBe(1);
    expect(shell.stats().calls).toBe(0);
    shell.finish();
  });
});
