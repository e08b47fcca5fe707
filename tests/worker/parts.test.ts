/** The worker's on-demand parts: which message needs which, and a host without them says so instead of failing silently. */
import { describe, expect, it, vi } from "vitest";
import { DEFAULT_SETTINGS } from "../../src/app/params";
import type { FromWorker } from "../../src/worker/protocol";
import { scenarioFromSettings } from "../../src/worker/settings";

/** A fresh copy of parts.ts (and of the host using it): nothing loaded yet, unlike the tests' setup. */
async function fresh() {
  vi.resetModules();
  const parts = await import("../../src/worker/parts");
  const { SimHost } = await import("../../src/worker/host");
  const posted: FromWorker[] = [];
  const host = new SimHost({ post: (m) => posted.push(m), nowMs: () => 0, setTimer: () => 0, clearTimer: () => {} });
  return { parts, host, posted };
}

describe("the worker's parts", () => {
  it("a run from the settings needs none; the reads, exports and lessons load their part first, once", async () => {
    const { parts } = await fresh();
    const settings = { ...DEFAULT_SETTINGS, autoplay: false };
    for (const msg of [{ type: "start", settings } as const, { type: "play" } as const, { type: "restart" } as const]) expect(parts.partsFor(msg)).toBeNull();
    expect(() => parts.toolsPart()).toThrow(/could not be loaded/);
    const tools = parts.partsFor({ type: "check-reads", requestId: 1 });
    expect(tools).not.toBeNull();
    await tools;
    expect(parts.partsFor({ type: "export", what: "scenario", requestId: 2 })).toBeNull();
    expect(parts.toolsPart().checkReads).toBeTypeOf("function");

    const scenario = scenarioFromSettings(settings);
    expect(parts.partsFor({ type: "start", settings, scenario })).toBeNull();
    const tracked = { ...scenario, expect: [{ that: "leader-count" as const, count: 1 }] };
    const lessons = parts.partsFor({ type: "start", settings, scenario: tracked as never });
    expect(lessons).not.toBeNull();
    await lessons;
    expect(parts.partsFor({ type: "lesson-return" })).toBeNull();
  });

  it("a host whose part is missing answers the request with a plain error, and the run goes on", async () => {
    const { host, posted } = await fresh();
    host.handle({ type: "start", settings: { ...DEFAULT_SETTINGS, autoplay: false } });
    host.handle({ type: "export", what: "scenario", requestId: 9 });
    const answer = posted.find((m) => m.type === "export");
    expect(answer).toMatchObject({ requestId: 9, text: "", error: expect.stringMatching(/could not be loaded .* reload the page/) });
    host.handle({ type: "step" });
    expect(posted.filter((m) => m.type === "error")).toEqual([]);
  });
});
