/**
 * A live process's thread, in Node (the worker's shell around LiveProcess): each call writes
 * the disk before its report reaches the router; a pause without shared memory holds the
 * thread's inputs until it wakes, and the report says pause, then wake, then what came meanwhile;
 * its figures count each call once (the page adds the reports up).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LiveProcess } from "../../src/core/live/process";
import type { LiveInput } from "../../src/core/live/recording";
import { defaultConfig, mergeConfig } from "../../src/core/sim/config";
import type { ProcessDisk } from "../../src/live/disk";
import type { ProcessToRouter } from "../../src/live/protocol";
import { ProcessShell } from "../../src/live/processShell";

const config = mergeConfig(defaultConfig(), { seed: 4, holders: { count: 1 } });

function shell(id: string) {
  const log: string[] = [];
  const reports: Extract<ProcessToRouter, { type: "report" }>[] = [];
  const disk: ProcessDisk = {
    kind: "memory",
    note: null,
    read: () => null,
    write: () => log.push("disk"),
    close: () => {},
  };
  const s = new ProcessShell(new LiveProcess(config, id, 0, null), { r0: Date.now(), v0: 0, speed: 1 }, disk, {
    toPage: () => {},
    toRouter: (m) => {
      if (m.type === "report") {
        reports.push(m);
        log.push(`report ${m.inputs.map((i) => i.kind).join(",")}${m.sends.length > 0 ? ` +${m.sends.length} sent` : ""}`);
      } else log.push(m.type);
    },
    cells: null,
    slot: 0,
  });
  return { s, log, reports };
}

describe("a live process's thread", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance", "Date"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("writes its disk before it reports a call and passes on the messages it made", () => {
    const { s, log } = shell("n1");
    s.boot();
    // Its disk is written when it starts (the file exists from then on).
    expect(log).toEqual(["disk"]);
    vi.advanceTimersByTime(5);
    // Told to campaign: a new term (on disk first), then its vote requests go out with the report.
    s.deliver({ key: "n2/0/0", copy: 0, from: "n2", to: "n1", sentAt: 1_000, payload: { type: "TimeoutNow", term: 0 } as never });
    expect(log.slice(1)).toEqual(["disk", "report message +4 sent"]);
  });

  it("checking every call, each report carries its state's digest after the call; switched off, none does", () => {
    const { s, reports } = shell("n1");
    s.boot();
    vi.advanceTimersByTime(5);
    const msg = (k: number) => ({ key: `n2/0/${k}`, copy: 0, from: "n2", to: "n1", sentAt: 1_000, payload: { type: "TimeoutNow", term: 0 } as never });
    s.deliver(msg(0));
    s.verify = true;
    s.deliver(msg(1));
    const digest = reports.at(-1)?.after;
    s.verify = false;
    s.deliver(msg(2));
    expect(reports.map((r) => r.after === undefined)).toEqual([true, false, true]);
    expect(digest).toMatch(/^[0-9a-f]{16}$/);
  });

  it("paused without shared memory, holds its inputs and runs them when it wakes", () => {
    const { s, reports } = shell("n2");
    s.boot();
    vi.advanceTimersByTime(10);
    s.pause(2_000_000);
    const msg = { key: "n1/0/0", copy: 0, from: "n1", to: "n2", sentAt: 5_000, payload: { type: "TimeoutNow", term: 1 } as never };
    s.deliver(msg);
    const before: LiveInput[] = reports.flatMap((r) => r.inputs);
    expect(before.map((i) => i.kind)).toEqual(["pause"]);
    vi.advanceTimersByTime(2_100);
    const after = reports.flatMap((r) => r.inputs);
    expect(after.map((i) => i.kind).slice(0, 3)).toEqual(["pause", "wake", "message"]);
    const wake = after[1] as LiveInput;
    const handled = after[2] as LiveInput;
    // It handled the message when it woke, not when it arrived.
    expect(wake.at).toBeGreaterThanOrEqual(2_000_000);
    expect(handled.at).toBeGreaterThanOrEqual(wake.at);
  });

  it("counts each call once: a report of its figures holds only the calls since the last one", () => {
    const { s } = shell("n1");
    s.boot();
    expect(s.stats().calls).toBe(1);
    expect(s.stats().calls).toBe(0);
  });

  it("reports its digest at the end, after its last report, and then handles nothing", () => {
    const { s, log } = shell("h1");
    s.boot();
    s.finish();
    expect(log.at(-1)).toBe("final");
    const n = log.length;
    s.deliver({ key: "n1/0/0", copy: 0, from: "n1", to: "h1", sentAt: 0, payload: { type: "TimeoutNow", term: 1 } as never });
    expect(log.length).toBe(n);
  });
});
