/** Pause on key moments, play to the next one, and the automatic slow-down, in the worker's host. */
import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS } from "../../src/app/params";
import { applyActionsTo } from "../../src/core/replay/timeline";
import { buildSimulation, scenarioActions } from "../../src/core/scenario/runner";
import type { TraceEvent } from "../../src/core/sim/trace";
import { TICK_MS } from "../../src/worker/host";
import { type Moment, momentsOf, PAUSE_GROUP } from "../../src/worker/moments";
import type { PauseKind, RunSettings } from "../../src/worker/protocol";
import { fakeHost } from "../support/host";
import { loadScenario } from "../support/scenarios";

const scenario = loadScenario("scenarios/lease", "03-gc-pause-fenced.json");

function headlessMoments(): Moment[] {
  const events: TraceEvent[] = [];
  const sim = buildSimulation(scenario, { onTrace: (e) => events.push(e) });
  applyActionsTo(sim, scenarioActions(scenario), 0, scenario.duration);
  return momentsOf(events);
}

const all = headlessMoments();

function opened(speed: number, pauseOn: PauseKind[], autoSlow: boolean) {
  const h = fakeHost();
  const settings: RunSettings = { ...DEFAULT_SETTINGS, speed, autoplay: false };
  h.host.handle({ type: "moment-options", pauseOn, autoSlow });
  h.host.handle({ type: "start", settings, scenario });
  return h;
}

/** Ticks until the host stops playing (or `max` ticks); returns how many ticks it took. */
function playOut(h: ReturnType<typeof fakeHost>, max = 100_000): number {
  let n = 0;
  while (h.timers() > 0 && n < max) {
    h.tick(TICK_MS);
    n++;
  }
  return n;
}

describe("pause on key moments", () => {
  it("stops at the very event of the rejected write, and says why", () => {
    const h = opened(1, ["rejection"], false);
    h.host.handle({ type: "play" });
    playOut(h);
    const v = h.last();
    const rejected = all.find((m) => m.kind === "write-rejected") as Moment;
    expect(v.playing).toBe(false);
    expect(v.pausedBy?.kind).toBe("write-rejected");
    expect(v.pausedBy?.n).toBe(rejected.n);
    expect(v.now).toBe(rejected.t);
    expect(v.moments?.at(-1)?.n).toBe(rejected.n);
    // Anything else the user does ends the "paused because" line.
    h.host.handle({ type: "step" });
    expect(h.last().pausedBy).toBeNull();
  });

  it("does not stop on moments of groups not asked for", () => {
    const h = opened(1, [], false);
    h.host.handle({ type: "play" });
    playOut(h, 400);
    expect(h.last().pausedBy ?? null).toBeNull();
    expect(h.last().now).toBeGreaterThan((all.find((m) => m.kind === "write-rejected") as Moment).t);
  });
});

describe("play to the next key moment", () => {
  it("with no group chosen, stops at each lease moment in turn, at its event's time", () => {
    const h = opened(2, [], false);
    // Moments made by one event (h1 wakes up in jeopardy and lost at once) stop once, at the newest.
    const expected = all.filter((m, i) => PAUSE_GROUP[m.kind] !== null && all[i + 1]?.t !== m.t).slice(0, 5);
    for (const m of expected) {
      h.host.handle({ type: "play-to-next" });
      playOut(h);
      const v = h.last();
      expect(v.pausedBy?.n).toBe(m.n);
      expect(v.now).toBe(m.t);
    }
    expect(expected.map((m) => m.kind)).toEqual(["lease-granted", "lease-expired", "lease-granted", "lease-lost", "write-rejected"]);
  });

  it("with a group chosen, skips the others", () => {
    const h = opened(2, ["grant"], false);
    h.host.handle({ type: "play-to-next" });
    playOut(h);
    h.host.handle({ type: "play-to-next" });
    playOut(h);
    const grants = all.filter((m) => m.kind === "lease-granted");
    expect(h.last().pausedBy?.n).toBe(grants[1]?.n);
    expect(h.last().pausedBy?.at).toBe("h2");
  });
});

describe("automatic slow-down", () => {
  /** Real seconds from 0 to the rejection of 03 at the default speed. */
  function realSecondsToRejection(autoSlow: boolean): { seconds: number; paces: Set<number> } {
    const h = opened(DEFAULT_SETTINGS.speed, ["rejection"], autoSlow);
    h.host.handle({ type: "play" });
    const paces = new Set<number>();
    let ticks = 0;
    while (h.timers() > 0 && ticks < 100_000) {
      h.tick(TICK_MS);
      ticks++;
      paces.add(h.last().pace ?? -1);
    }
    expect(h.last().pausedBy?.kind).toBe("write-rejected");
    return { seconds: (ticks * TICK_MS) / 1000, paces };
  }

  it("plays 03 to its rejection in about 30 s instead of 140 s, slow around each lease event", () => {
    const before = realSecondsToRejection(false);
    const after = realSecondsToRejection(true);
    console.log(`03 to its rejection at ${DEFAULT_SETTINGS.speed}x: ${before.seconds} s real without the slow-down, ${after.seconds} s with it`);
    expect(before.seconds).toBeGreaterThan(130);
    expect(after.seconds).toBeLessThan(40);
    expect(after.seconds).toBeGreaterThan(15);
    expect([...after.paces].sort()).toEqual([DEFAULT_SETTINGS.speed, DEFAULT_SETTINGS.speed * 10].sort());
  });
});
