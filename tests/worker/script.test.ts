/**
 * A run opened from a scenario file (or a share link) keeps its scripted actions when the
 * user acts in the past: the branch replaces only the user's own later actions, unless the
 * user turns "keep the script" off.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS } from "../../src/app/params";
import type { RunSettings } from "../../src/worker/protocol";
import { fakeHost } from "../support/host";
import { loadScenario } from "../support/scenarios";

const settings = (over: Partial<RunSettings> = {}): RunSettings => ({ ...DEFAULT_SETTINGS, autoplay: false, speed: 1, ...over });
const gcPause = loadScenario("scenarios/lease", "03-gc-pause-fenced.json");

function openedAtZero() {
  const h = fakeHost();
  h.host.handle({ type: "start", settings: settings(), scenario: gcPause });
  h.host.handle({ type: "seek", t: 0 });
  return h;
}

describe("a scenario's scripted actions belong to the run", () => {
  it("acting at 0 s in scenario 03 keeps the GC pause scripted at 2 s on the new branch, and it still happens", () => {
    const h = openedAtZero();
    expect(h.last().timeline.script).toEqual({ actions: 1, keep: true });
    expect(h.last().timeline.actions.map((a) => [a.text, a.scripted])).toEqual([[expect.stringMatching(/h1/), true]]);
    h.host.handle({ type: "act", action: { type: "fencing", on: false } });
    const v = h.last();
    expect(v.timeline.branch).toBe(1);
    expect(v.timeline.actions.map((a) => [a.action.type, a.at, a.scripted])).toEqual([
      ["fencing", 0, false],
      ["gc-pause", 2_000_000, true],
    ]);
    // Played on: the GC pause is performed at 2 s and h1 wakes after its lease is gone. Without
    // fencing its late write is accepted, and the run stops at the safety violation that makes.
    h.host.handle({ type: "play" });
    for (let i = 0; i < 400 && h.last().playing; i++) h.tick(250);
    const end = h.last();
    expect(end.storage?.fencing).toBe(false);
    expect(end.violations).toBeGreaterThan(0);
    const late = end.storage?.writes.filter((w) => w.holder === "h1" && w.t > 6_000_000) ?? [];
    expect(late.length).toBeGreaterThan(0);
    expect(late.every((w) => w.accepted)).toBe(true);
  });

  it("with the script dropped, the branch holds only the user's action (the old rule, by choice)", () => {
    const h = openedAtZero();
    h.host.handle({ type: "keepScript", keep: false });
    expect(h.last().timeline.script).toEqual({ actions: 1, keep: false });
    h.host.handle({ type: "act", action: { type: "fencing", on: false } });
    expect(h.last().timeline.actions.map((a) => a.action.type)).toEqual(["fencing"]);
  });

  it("the user's own later actions are still replaced by a branch; a run made from the settings has no script", () => {
    const h = fakeHost();
    h.host.handle({ type: "start", settings: settings() });
    expect(h.last().timeline.script).toBeNull();
    h.host.handle({ type: "play" });
    for (let i = 0; i < 40; i++) h.tick(40);
    h.host.handle({ type: "act", action: { type: "heal" } });
    h.host.handle({ type: "seek", t: 0 });
    h.host.handle({ type: "act", action: { type: "fencing", on: false } });
    expect(h.last().timeline.actions.map((a) => [a.action.type, a.scripted])).toEqual([["fencing", false]]);
  });

  it("Reset of an opened run keeps the script, and a share link's actions are the receiver's script", () => {
    const h = openedAtZero();
    h.host.handle({ type: "act", action: { type: "fencing", on: false } });
    h.host.handle({ type: "restart" });
    h.host.handle({ type: "pause" });
    expect(h.last().timeline.script).toEqual({ actions: 1, keep: true });
    expect(h.last().timeline.actions.map((a) => a.action.type)).toEqual(["gc-pause"]);
  });
});

describe("opening at a moment (the address's ?t=)", () => {
  it("a run from the settings opens paused at exactly that moment, explored up to it; Play goes on from there", () => {
    const h = fakeHost();
    h.host.handle({ type: "start", settings: settings(), at: 2_345_678 });
    const v = h.last();
    expect(v.now).toBe(2_345_678);
    expect(v.playing).toBe(false);
    expect(v.timeline.end).toBe(2_345_678);
    expect(v.opened).toBe(false);
    // The same moment as reached by playing the same run.
    const other = fakeHost();
    other.host.handle({ type: "start", settings: settings() });
    other.host.handle({ type: "seek", t: 0 });
    other.host.handle({ type: "play" });
    for (let i = 0; i < 200 && other.last().now < 3_000_000; i++) other.tick(250);
    other.host.handle({ type: "seek", t: 2_345_678 });
    expect(other.last().traceHash).toBe(v.traceHash);
  });

  it("a file's or link's run: the moment wins over its ui.at", () => {
    const h = fakeHost();
    h.host.handle({ type: "start", settings: settings(), scenario: gcPause, at: 3_000_000 });
    expect(h.last().now).toBe(3_000_000);
    expect(h.last().opened).toBe(true);
  });
});
