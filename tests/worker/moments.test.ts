/** Key moments derived from the trace of real runs of the shipped scenarios. */
import { describe, expect, it } from "vitest";
import { applyActionsTo } from "../../src/core/replay/timeline";
import { buildSimulation, scenarioActions } from "../../src/core/scenario/runner";
import type { TraceEvent } from "../../src/core/sim/trace";
import { Journal } from "../../src/worker/journal";
import { type Moment, MOMENT_LIMIT, MomentTracker, momentsOf } from "../../src/worker/moments";
import { loadScenario } from "../support/scenarios";

function trace(file: string): { events: TraceEvent[]; hash: string } {
  const s = loadScenario("scenarios/lease", file);
  const events: TraceEvent[] = [];
  const sim = buildSimulation(s, { onTrace: (e) => events.push(e) });
  applyActionsTo(sim, scenarioActions(s), 0, s.duration);
  return { events, hash: sim.traceHash };
}

const ofKind = (ms: readonly Moment[], kind: Moment["kind"]): Moment[] => ms.filter((m) => m.kind === kind);

describe("key moments", () => {
  const fenced = trace("03-gc-pause-fenced.json");
  const moments = momentsOf(fenced.events);

  it("03 (fenced): the stale write is rejected, with h1's old token and the storage's highest", () => {
    const rejected = ofKind(moments, "write-rejected");
    expect(rejected.length).toBeGreaterThanOrEqual(1);
    const first = rejected[0] as Moment;
    const event = fenced.events.find((e) => e.kind === "storage" && !e.accepted);
    expect(event?.kind).toBe("storage");
    if (event?.kind !== "storage") return;
    expect(first.t).toBe(event.t);
    expect(first.n).toBe(event.n);
    expect(first.at).toBe("s1");
    expect(first.procs).toEqual(["s1", "h1"]);
    expect(first.short).toBe(`token ${event.token} < ${event.highest}`);
    expect(event.token).toBeLessThan(event.highest);
    expect(first.text).toBe(
      `The storage rejected h1's write: its token ${event.token} is older than the ${event.highest} the storage has already seen.`,
    );
  });

  it("03: h1's lease expires at the leader, and h2 is granted it with a higher token, once each (not once per node)", () => {
    const grants = ofKind(moments, "lease-granted");
    expect(grants.map((g) => g.at)).toEqual(["h1", "h2"]);
    const [g1, g2] = grants as [Moment, Moment];
    expect(g2.short).toMatch(/^granted, token \d+$/);
    const tok = (m: Moment): number => Number(/token (\d+)/.exec(m.short)?.[1]);
    expect(tok(g2)).toBeGreaterThan(tok(g1));
    const expired = ofKind(moments, "lease-expired");
    expect(expired).toHaveLength(1);
    expect(expired[0]?.t).toBeLessThan(g2.t);
    expect(expired[0]?.text).toContain("h1 did not renew it in time");
    // When h1 wakes it finds its lease gone by its own clock, just before its write is rejected.
    const lost = ofKind(moments, "lease-lost");
    expect(lost.map((m) => m.at)).toEqual(["h1"]);
    expect(ofKind(moments, "jeopardy").map((m) => m.at)).toEqual(["h1"]);
    expect(lost[0]?.t).toBeLessThanOrEqual(ofKind(moments, "write-rejected")[0]?.t ?? 0);
    expect(ofKind(moments, "leader-elected").length).toBeGreaterThanOrEqual(1);
  });

  it("04 (unfenced): no write is rejected", () => {
    const unfenced = momentsOf(trace("04-gc-pause-unfenced.json").events);
    expect(ofKind(unfenced, "write-rejected")).toEqual([]);
    expect(ofKind(unfenced, "lease-granted").length).toBe(2);
  });

  it("10 (Chubby grace): jeopardy, then grace, then renewed in grace with the same token", () => {
    const grace = momentsOf(trace("10-chubby-grace.json").events).filter((m) => m.at === "h1" && m.kind !== "lease-granted");
    expect(grace.map((m) => m.kind)).toEqual(["jeopardy", "grace", "renewed-in-grace"]);
    expect(grace[2]?.text).toBe("h1 renewed its lease (token 2) during its grace period: it keeps the same lease and token.");
    expect(grace.every((m, i) => i === 0 || m.t > (grace[i - 1] as Moment).t)).toBe(true);
  });

  it("keeps the newest MOMENT_LIMIT, and a saved state gives back the same moments", () => {
    const t = new MomentTracker();
    let saved: ReturnType<MomentTracker["save"]> | null = null;
    let atSave: readonly Moment[] = [];
    for (const e of fenced.events) {
      t.observe(e);
      if (saved === null && t.count === 3) {
        saved = t.save();
        atSave = t.moments().slice();
      }
    }
    expect(t.moments().length).toBe(Math.min(MOMENT_LIMIT, moments.length));
    expect(t.count).toBe(moments.length);
    t.load(saved as ReturnType<MomentTracker["save"]>);
    expect(t.moments()).toEqual(atSave);
    expect(t.count).toBe(3);
  });
});

describe("the journal's moments", () => {
  // The journal hands the moment tracker only the kinds of event that may make a moment (the
  // frequent ones, sends, deliveries, the log's, go past it): it must end with the moments a
  // tracker given every event has.
  for (const [dir, file] of [
    ["lease", "02-holder-crash.json"],
    ["lease", "03-gc-pause-fenced.json"],
    ["lease", "05-leader-failover.json"],
    ["lease", "10-chubby-grace.json"],
    ["failover", "01-clean-failover.json"],
    ["failover", "03-hung-primary-watchdog-off.json"],
  ] as const) {
    it(`${dir}/${file}: the same moments as a tracker that sees every event`, () => {
      const s = loadScenario(`scenarios/${dir}`, file);
      const journal = new Journal();
      const all = new MomentTracker();
      const sim = buildSimulation(s, {
        onTrace: (e) => {
          journal.listener(e);
          all.observe(e);
        },
      });
      applyActionsTo(sim, scenarioActions(s), 0, s.duration);
      expect(all.count).toBeGreaterThan(0);
      expect(journal.moments.count).toBe(all.count);
      expect(journal.moments.moments()).toEqual(all.moments());
      expect(journal.moments.save()).toEqual(all.save());
    });
  }
});
