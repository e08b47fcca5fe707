/** The page side of key moments: the callout's words and place, when it shows, the speed keys' steps, the kept options. */
import { describe, expect, it } from "vitest";
import { computeLayout, displayNow } from "../../src/app/ring/geometry";
import { calloutBox, calloutWords, loudMoment, MOMENT_LINGER_US, MOMENT_SHOW_MS, momentVisible } from "../../src/app/ring/momentLayer";
import { DEFAULT_MOMENT_OPTIONS, loadMomentOptions, stepSpeed } from "../../src/app/pace";
import type { Moment } from "../../src/worker/protocol";

const rejected: Moment = {
  t: 7_070_504,
  n: 2930,
  kind: "write-rejected",
  procs: ["s1", "h1"],
  at: "s1",
  short: "token 2 < 11",
  text: "The storage rejected h1's write: its token 2 is older than the 11 the storage has already seen.",
};
const elected: Moment = { ...rejected, n: 2940, t: 7_100_000, kind: "leader-elected", at: "n2", short: "leader, term 2", text: "n2 won." };

describe("key moments on the ring", () => {
  it("a rejected write says ⊘ and the token comparison; elections are left to the nodes' own marks", () => {
    expect(calloutWords(rejected)).toEqual({ main: "⊘ token 2 < 11", sub: "write rejected" });
    expect(calloutWords(elected)).toBeNull();
    expect(loudMoment({ moments: [rejected, elected] })).toBe(rejected);
    expect(loudMoment({ moments: [] })).toBeNull();
  });

  it("shows while paused at or just after it, or for a few real seconds while playing", () => {
    const at = { now: rejected.t, playing: false, pausedBy: rejected };
    expect(momentVisible(at, rejected, 60_000)).toBe(true);
    expect(momentVisible({ ...at, pausedBy: null, now: rejected.t + MOMENT_LINGER_US + 1 }, rejected, 0)).toBe(false);
    expect(momentVisible({ now: rejected.t + 5, playing: true, pausedBy: null }, rejected, MOMENT_SHOW_MS - 1)).toBe(true);
    expect(momentVisible({ now: rejected.t + 5, playing: true, pausedBy: null }, rejected, MOMENT_SHOW_MS)).toBe(false);
    // After a seek back before it, it has not happened yet.
    expect(momentVisible({ now: rejected.t - 1, playing: false, pausedBy: null }, rejected, 0)).toBe(false);
  });

  it("the callout goes above the storage and stays inside the drawing, however wide", () => {
    const L = computeLayout(["n1", "n2", "n3", "n4", "n5"], ["h1", "h2"], "s1", []);
    const s = L.places.get("s1");
    if (s === undefined) throw new Error("no storage place");
    for (const w of [60, 170, 300]) {
      const b = calloutBox(s, L, w, 50);
      expect(b.x).toBeGreaterThanOrEqual(4);
      expect(b.x + w).toBeLessThanOrEqual(L.width - 4);
      expect(b.y + 50).toBeLessThanOrEqual(s.y - 36);
      expect(b.y).toBeGreaterThanOrEqual(4);
    }
  });

  it("moving parts follow the pace (the automatic slow-down), not only the chosen speed", () => {
    expect(displayNow({ now: 1000, speed: 0.05, playing: true, pace: 0.5 }, 0, 100)).toBe(1000 + 100 * 0.5 * 1000);
    expect(displayNow({ now: 1000, speed: 0.05, playing: true }, 0, 100)).toBe(1000 + 100 * 0.05 * 1000);
  });
});

describe("pace", () => {
  it("the speed keys step through 0.01× … 2×, from between two steps to the next one", () => {
    expect(stepSpeed(0.05, 1)).toBe(0.1);
    expect(stepSpeed(0.05, -1)).toBe(0.02);
    expect(stepSpeed(0.005, 1)).toBe(0.01);
    expect(stepSpeed(0.07, -1)).toBe(0.05);
    expect(stepSpeed(2, 1)).toBe(2);
    expect(stepSpeed(0.01, -1)).toBe(0.01);
    expect(stepSpeed(5, -1)).toBe(2);
  });

  it("options kept in the browser are read back, and anything else gives the defaults", () => {
    const store = (v: string | null) => ({ getItem: () => v });
    expect(loadMomentOptions(store(null))).toEqual(DEFAULT_MOMENT_OPTIONS);
    expect(loadMomentOptions(store("{nope"))).toEqual(DEFAULT_MOMENT_OPTIONS);
    expect(loadMomentOptions(store(JSON.stringify({ pauseOn: ["grant", "bogus", "rejection"], autoSlow: false })))).toEqual({
      pauseOn: ["rejection", "grant"],
      autoSlow: false,
    });
  });
});
