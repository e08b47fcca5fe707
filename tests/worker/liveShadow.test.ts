/**
 * The dashboard's shadow of a live run: fed the recording in pieces as the router sends it
 * (items a little ahead of the watermark, plans with the items that made them, now and then a
 * report that comes late), it ends in the live run's state.
 */
import { describe, expect, it } from "vitest";
import type { ReplaySimulation } from "../../src/core/live/replay";
import type { LiveRecording, ScriptItem } from "../../src/core/live/recording";
import { Timeline } from "../../src/core/replay/timeline";
import { LiveShadow } from "../../src/worker/liveShadow";
import { ReplaySimulation as Replay } from "../../src/core/live/replay";
import { LiveHarness } from "../support/liveHarness";
import { defaultConfig, mergeConfig } from "../../src/core/sim/config";
import { scenarioConfig } from "../../src/core/scenario/settings";
import { scenarioFromSettings } from "../../src/worker/settings";
import { DEFAULT_SETTINGS } from "../../src/app/params";
import { fakeHost } from "../support/host";

function recording(seed: number): LiveRecording {
  const h = new LiveHarness(mergeConfig(defaultConfig(), { seed, holders: { count: 2 }, clients: { count: 2, workload: "random" } }), seed);
  h.runTo(1_000_000);
  h.crash("n1");
  h.runTo(1_800_000);
  h.restart("n1");
  h.pause("h1", 400_000);
  h.runTo(3_000_000);
  return h.recording();
}

/** Feeds the shadow as the router does: every `everyUs`, the items recorded by then and their plans, with the watermark `lagUs` behind. */
function feedAll(shadow: LiveShadow, rec: LiveRecording, everyUs: number, lagUs: number, late?: (x: ScriptItem) => boolean): void {
  const planOf = new Map(Object.entries(rec.plans));
  let sent = 0;
  const held: ScriptItem[] = [];
  for (let t = everyUs; t < rec.endAt + everyUs + lagUs; t += everyUs) {
    const items: ScriptItem[] = [...held.splice(0)];
    while (sent < rec.script.length && (rec.script[sent] as ScriptItem).input.at <= t) {
      const x = rec.script[sent++] as ScriptItem;
      // A late report: held back one feed, past the watermark.
      if (late?.(x)) held.push(x);
      else items.push(x);
    }
    items.sort((a, b) => a.input.at - b.input.at);
    const plans = [...planOf].filter(([k]) => sentBy(items, k));
    for (const [k] of plans) planOf.delete(k);
    shadow.feed({ items, plans, rewritten: false, watermark: Math.min(rec.endAt, Math.max(0, t - lagUs)) });
    shadow.timeline.advanceTo(shadow.watermark);
  }
}

/** The plans a feed carries: as the router's, with a call of their sender (here: every plan not sent yet whose sender has an item in the feed). */
function sentBy(items: readonly ScriptItem[], key: string): boolean {
  const from = key.split("/")[0];
  return items.some((x) => x.proc === from);
}

describe("the live run's shadow", () => {
  it("fed in pieces behind the watermark, ends in the live run's state", () => {
    const rec = recording(8);
    const shadow = new LiveShadow(rec.config, () => new Timeline(new Replay(rec.config)));
    // Feeds come faster than the watermark moves at first: some carry plans while it stands still.
    feedAll(shadow, rec, 50_000, 150_000);
    const sim = shadow.timeline.sim as ReplaySimulation;
    expect(sim.violations.filter((v) => v.invariant === "assertion").map((v) => v.detail)).toEqual([]);
    expect(sim.digests()).toEqual(rec.digests);
    expect(shadow.rebuilds).toBe(0);
  });

  it("goes back for a report that comes after the shadow played past its time, and still ends in the same state", () => {
    const rec = recording(9);
    const shadow = new LiveShadow(rec.config, () => new Timeline(new Replay(rec.config)));
    let n = 0;
    feedAll(shadow, rec, 50_000, 10_000, (x) => x.proc === "h2" && n++ % 40 === 5);
    expect(shadow.rebuilds).toBeGreaterThan(0);
    expect((shadow.timeline.sim as ReplaySimulation).digests()).toEqual(rec.digests);
  });

  it("goes back only to the snapshot before a late report, not to the start, and plays exactly what the whole recording plays", () => {
    const rec = recording(9);
    const whole = new Timeline(new Replay(rec.config, rec), [], { snapshotEveryUs: 100_000 });
    let once = 0;
    whole.sim.onTrace(() => once++);
    whole.advanceTo(rec.endAt);
    const made: Timeline[] = [];
    const shadow = new LiveShadow(rec.config, () => {
      const t = new Timeline(new Replay(rec.config), [], { snapshotEveryUs: 100_000 });
      made.push(t);
      return t;
    });
    // Count the trace events the shadow makes: going back to the start would make most of them again for each late report.
    let handled = 0;
    shadow.timeline.sim.onTrace(() => handled++);
    let n = 0;
    feedAll(shadow, rec, 50_000, 10_000, (x) => x.proc?.startsWith("h") === true && n++ % 7 === 3);
    expect(shadow.rebuilds).toBeGreaterThan(3);
    expect(made).toHaveLength(1);
    const sim = shadow.timeline.sim as ReplaySimulation;
    expect(sim.violations.filter((v) => v.invariant === "assertion")).toEqual([]);
    expect(sim.traceHash).toBe(whole.sim.traceHash);
    expect(sim.digests()).toEqual(rec.digests);
    expect(shadow.timeline.markers).toEqual(whole.markers);
    expect(handled).toBeLessThan(once * 1.5);
  });

  it("a late report while the dashboard shows an earlier moment (time travel) leaves it at that moment", () => {
    const rec = recording(10);
    const shadow = new LiveShadow(rec.config, () => new Timeline(new Replay(rec.config), [], { snapshotEveryUs: 100_000 }));
    const early = rec.script.filter((x) => x.input.at <= 2_000_000);
    const late = early.filter((x) => x.proc === "h1" && x.input.at > 1_200_000).slice(0, 1);
    shadow.feed({ items: early.filter((x) => !late.includes(x)), plans: Object.entries(rec.plans), rewritten: false, watermark: 2_000_000 });
    shadow.timeline.advanceTo(2_000_000);
    shadow.timeline.seek(700_000);
    expect(shadow.feed({ items: late, plans: [], rewritten: false, watermark: 2_000_000 })).toBe(true);
    expect(shadow.timeline.now).toBe(700_000);
    shadow.timeline.advanceTo(2_000_000);
    const whole = new Timeline(new Replay(rec.config, { ...rec, script: early }));
    whole.advanceTo(2_000_000);
    expect(shadow.timeline.sim.traceHash).toBe(whole.sim.traceHash);
  });
});

describe("the worker's host in live mode", () => {
  const settings = { ...DEFAULT_SETTINGS, seed: 4, holders: 2, clients: { count: 1, workload: "random" as const }, autoplay: false };
  const config = scenarioConfig(scenarioFromSettings(settings));
  const h = new LiveHarness(config, 4);
  h.runTo(2_000_000);
  const rec = h.recording();

  it("tells the page each time the shadow starts again, so the Live panel can say so", () => {
    const host = fakeHost();
    host.host.handle({ type: "live-start", settings, config });
    const early = rec.script.filter((x) => x.input.at <= 1_000_000);
    host.host.handle({ type: "live-feed", items: early, plans: Object.entries(rec.plans), rewritten: false, watermark: 1_000_000 });
    expect(host.posts.some((p) => p.type === "live-rebuilt")).toBe(false);
    // An item at 0.5 s after the shadow was given everything to 1 s: a late report.
    const late = rec.script.find((x) => x.input.at > 400_000 && x.input.at < 600_000) as ScriptItem;
    host.host.handle({ type: "live-feed", items: [late], plans: [], rewritten: false, watermark: 1_000_000 });
    // The router moved an item it had handed over: it sends the whole script again.
    host.host.handle({ type: "live-feed", items: early, plans: [], rewritten: true, watermark: 1_000_000 });
    expect(host.posts.filter((p) => p.type === "live-rebuilt").map((p) => (p as { rebuilds: number }).rebuilds)).toEqual([1, 2]);
  });

  it("a recording the replay cannot follow stops the dashboard with a violation that says so, not one that blames the model", () => {
    const host = fakeHost();
    host.host.handle({ type: "live-start", settings, config });
    // No plans: the first message a process sends is one the live run never sent.
    host.host.handle({ type: "live-feed", items: rec.script, plans: [], rewritten: false, watermark: 1_000_000 });
    host.tick(100);
    const v = host.last().recentViolations.at(-1);
    expect(v?.detail).toMatch(/^the replay diverged from the live run: /);
    expect(v?.explanation).toMatch(/stopped following the live run/);
    expect(v?.explanation).not.toMatch(/bug in the model/);
  });

  it("opened in the simulator, compares every process's digest with the live one", () => {
    const host = fakeHost();
    host.host.handle({ type: "live-open", settings, recording: rec });
    const check = host.posts.find((p) => p.type === "replay-check");
    expect(check?.type === "replay-check" && check.check.digests.every((d) => d.same)).toBe(true);
    expect(check?.type === "replay-check" && check.check.digests.length).toBe(h.router.ids.length);
  });
});

describe("a long live run's shadow", () => {
  it("starts again over a recording of hundreds of thousands of inputs (no call takes them all as arguments)", () => {
    const rec = recording(11);
    // The same items over and over, each later than the last: a long recording (the replay itself is not played).
    const span = rec.endAt + 1;
    const many: ScriptItem[] = [];
    for (let k = 0; many.length < 300_000; k++) for (const x of rec.script) many.push({ ...x, input: { ...x.input, at: x.input.at + k * span } } as ScriptItem);
    const shadow = new LiveShadow(rec.config, () => new Timeline(new Replay(rec.config)));
    shadow.feed({ items: many.slice(0, 10), plans: [], rewritten: false, watermark: 0 });
    expect(() => shadow.feed({ items: many, plans: [], rewritten: true, watermark: (many.at(-1) as ScriptItem).input.at })).not.toThrow();
    expect((shadow.timeline.sim as ReplaySimulation).scriptEnd).toBe((many.at(-1) as ScriptItem).input.at);
  });
});
