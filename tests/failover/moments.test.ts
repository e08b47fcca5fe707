/** The failover's key moments and sentences, from real runs of the shipped failover scenarios. */
import { describe, expect, it } from "vitest";
import { applyActionsTo } from "../../src/core/replay/timeline";
import { buildSimulation, scenarioActions } from "../../src/core/scenario/runner";
import type { TraceEvent } from "../../src/core/sim/trace";
import { describeEvent } from "../../src/worker/describe";
import { type Moment, MomentTracker, momentsOf } from "../../src/worker/moments";
import { loadScenario } from "../support/scenarios";

function trace(file: string): TraceEvent[] {
  const s = loadScenario("scenarios/failover", file);
  const events: TraceEvent[] = [];
  const sim = buildSimulation(s, { onTrace: (e) => events.push(e) });
  applyActionsTo(sim, scenarioActions(s), 0, s.duration);
  return events;
}

const ofKind = (ms: readonly Moment[], kind: Moment["kind"]): Moment[] => ms.filter((m) => m.kind === kind);

describe("failover moments", () => {
  it("clean failover: h1 becomes the first primary, then a secondary takes over with a new token", () => {
    const ms = momentsOf(trace("01-clean-failover.json"));
    const first = ofKind(ms, "new-primary");
    expect(first.map((m) => m.at)).toEqual(["h1"]);
    const failovers = ofKind(ms, "failover");
    expect(failovers).toHaveLength(1);
    const f = failovers[0] as Moment;
    expect(f.at).not.toBe("h1");
    expect(f.procs).toEqual([f.at, "h1"]);
    expect(f.text).toMatch(new RegExp(`^Failover: ${f.at} is the new primary of ag01, with a new lease and token \\d+ \\(h1 had token \\d+\\)`));
    expect(f.t).toBeGreaterThan(3_000_000);
    expect(ofKind(ms, "self-fenced")).toEqual([]);
  });

  it("hung primary, watchdog on: h1 takes itself offline (told once, not also as jeopardy), after the failover", () => {
    const ms = momentsOf(trace("02-hung-primary-watchdog-on.json"));
    const off = ofKind(ms, "self-fenced");
    expect(off.map((m) => m.at)).toEqual(["h1"]);
    expect(ofKind(ms, "jeopardy")).toEqual([]);
    const f = ofKind(ms, "failover")[0] as Moment;
    expect(f.t).toBeLessThan((off[0] as Moment).t);
  });

  it("hung primary, watchdog off: no offline moment; the two-primaries violation and a rejection follow", () => {
    const ms = momentsOf(trace("03-hung-primary-watchdog-off.json"));
    expect(ofKind(ms, "self-fenced")).toEqual([]);
    expect(ofKind(ms, "violation").map((m) => m.short)).toContain("two-primaries broken");
    expect(ofKind(ms, "write-rejected").length).toBeGreaterThan(0);
  });

  it("a saved tracker carries the last primary, so a failover after a seek is still a failover", () => {
    const events = trace("01-clean-failover.json");
    const cut = events.findIndex((e) => e.kind === "crash");
    const a = new MomentTracker();
    for (const e of events.slice(0, cut)) a.observe(e);
    const b = new MomentTracker();
    b.load(a.save());
    const after = events.slice(cut).flatMap((e) => {
      const m = b.observe(e);
      return m === null ? [] : [m];
    });
    expect(ofKind(after, "failover")).toHaveLength(1);
    expect(ofKind(after, "new-primary")).toEqual([]);
  });

  it("role changes have sentences", () => {
    const events = trace("02-hung-primary-watchdog-on.json").filter((e) => e.kind === "replica");
    const texts = events.map((e) => describeEvent(e, undefined, () => undefined)?.text ?? "");
    expect(texts).toContain("h1 started as a secondary of ag01: it follows the primary's writes and waits for the lease");
    expect(texts.some((t) => /^h1 became the primary of ag01 \(token \d+\): it now accepts the clients' writes$/.test(t))).toBe(true);
    expect(texts).toContain(
      "h1 took itself offline: it could not renew its lease on ag01 before its own deadline, so its watchdog stopped it accepting writes",
    );
  });
});
