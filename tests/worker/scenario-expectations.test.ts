/** An opened scenario's expectations, checked by the worker as the run goes, and consistent under time travel. */
import { describe, expect, it } from "vitest";
import { runScenario } from "../../src/core/scenario/runner";
import { DEFAULT_SETTINGS } from "../../src/app/params";
import type { RunSettings, SimView } from "../../src/worker/protocol";
import { fakeHost } from "../support/host";
import { loadScenario } from "../support/scenarios";

const settings: RunSettings = { ...DEFAULT_SETTINGS, autoplay: false };
const statuses = (v: SimView): string[] => (v.scenario?.expectations ?? []).map((e) => e.status);

function opened(file: string) {
  const sc = loadScenario("scenarios/lease", file);
  const h = fakeHost();
  h.host.handle({ type: "start", settings, scenario: sc });
  return { h, sc };
}

describe("scenario expectations in the worker", () => {
  it("03: every expectation is pending at 0, all ✓ at the end, and pending again after a seek back to 0", () => {
    const { h, sc } = opened("03-gc-pause-fenced.json");
    const v0 = h.last();
    expect(v0.scenario?.name).toBe(sc.name);
    expect(v0.scenario?.description).toBe(sc.description);
    expect(v0.scenario?.scripted.map((a) => a.at)).toEqual([2_000_000]);
    expect(statuses(v0)).toEqual(["pending", "pending", "pending", "pending", "pending"]);
    h.host.handle({ type: "seek", t: 10_000_000 });
    expect(statuses(h.last())).toEqual(["ok", "ok", "ok", "ok", "ok"]);
    h.host.handle({ type: "seek", t: 0 });
    expect(statuses(h.last())).toEqual(["pending", "pending", "pending", "pending", "pending"]);
    // Between: those due by the cursor only.
    h.host.handle({ type: "seek", t: 6_600_000 });
    expect(statuses(h.last())).toEqual(["ok", "ok", "ok", "pending", "pending"]);
  });

  it("03: playing from 0 ticks them in time order, each decided at its own moment", () => {
    const { h } = opened("03-gc-pause-fenced.json");
    h.host.handle({ type: "setSpeed", speed: 5 });
    h.host.handle({ type: "play" });
    for (let i = 0; i < 200 && h.last().now < 10_000_000 && h.timers() > 0; i++) h.tick(250);
    const v = h.last();
    expect(v.now).toBeGreaterThanOrEqual(10_000_000);
    expect(v.scenario?.expectations.map((e) => [e.status, e.decidedAt])).toEqual([
      ["ok", 1_900_000],
      ["ok", 6_500_000],
      ["ok", 6_500_000],
      ["ok", 10_000_000],
      ["ok", 10_000_000],
    ]);
  });

  it("04 (no fencing): the violation expectation ticks when the checker reports it", () => {
    const { h } = opened("04-gc-pause-unfenced.json");
    h.host.handle({ type: "seek", t: 10_000_000 });
    const v = h.last();
    expect(statuses(v)).toEqual(["ok", "ok", "ok"]);
    expect(v.violations).toBeGreaterThan(0);
  });

  it.each(["03-gc-pause-fenced.json", "04-gc-pause-unfenced.json", "06b-repeated-elections-checkpoint.json"])(
    "%s: the page's verdicts are the CLI runner's",
    (file) => {
      const { h, sc } = opened(file);
      h.host.handle({ type: "seek", t: sc.duration });
      const cli = runScenario(sc).expectations;
      const page = h.last().scenario?.expectations ?? [];
      expect(page.map((e) => [e.index, e.status])).toEqual(
        [...cli].sort((a, b) => a.at - b.at || a.index - b.index).map((r) => [r.index, r.ok ? "ok" : "failed"]),
      );
    },
  );

  it("an action in the past starts a branch that keeps only the results decided before it", () => {
    const { h } = opened("03-gc-pause-fenced.json");
    h.host.handle({ type: "seek", t: 10_000_000 });
    h.host.handle({ type: "seek", t: 3_000_000 });
    h.host.handle({ type: "act", action: { type: "crash", proc: "h2" } });
    const v = h.last();
    expect(v.timeline.branch).not.toBe(0);
    expect(statuses(v)).toEqual(["ok", "pending", "pending", "pending", "pending"]);
  });

  it("the file's own actions are 'scripted' markers on the time slider; the user's are 'action'", () => {
    const { h } = opened("03-gc-pause-fenced.json");
    const kinds = (v: SimView) => v.timeline.markers.filter((m) => m.n < 0).map((m) => [m.t, m.kind]);
    expect(kinds(h.last())).toEqual([[2_000_000, "scripted"]]);
    h.host.handle({ type: "seek", t: 1_000_000 });
    h.host.handle({ type: "act", action: { type: "crash", proc: "n1" } });
    // The file's own action stays ahead on the new branch, still marked as the script's.
    expect(kinds(h.last())).toEqual([
      [1_000_000, "action"],
      [2_000_000, "scripted"],
    ]);
  });

  it("a run made from the page's settings, or opened from a file without expectations, has no scenario card", () => {
    const h = fakeHost();
    h.host.handle({ type: "start", settings });
    expect(h.last().scenario).toBeUndefined();
    const bare = { ...loadScenario("scenarios/lease", "03-gc-pause-fenced.json"), expect: [] };
    h.host.handle({ type: "start", settings, scenario: bare });
    expect(h.last().scenario).toBeUndefined();
    // The file's actions are still its script (no card, but the slider marks them so).
    expect(h.last().timeline.markers.filter((m) => m.n < 0).map((m) => m.kind)).toEqual(["scripted"]);
  });
});
