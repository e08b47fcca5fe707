import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scenarioActions, scenarioConfig } from "../../src/core/scenario/runner";
import { parseScenario } from "../../src/core/scenario/schema";
import { DEFAULT_SETTINGS } from "../../src/app/params";
import { measureHolders, measureReads, otherMode, withReads } from "../../src/worker/readFigures";
import { readWriteFigures } from "../../src/core/scenario/readStats";
import { scenarioFromSettings, settingsFromScenario } from "../../src/worker/settings";
import { fakeHost } from "../support/host";
import { loadScenario } from "../support/scenarios";

const S = 1_000_000;
const drift = loadScenario(join(import.meta.dirname, "../../scenarios/reads"), "leader-lease-drift.json");

describe("the Reads panel's figures", () => {
  it("the leader-lease run against the same seed and actions with ReadIndex: lease reads only in the first, and both columns measured", () => {
    const [here, other] = measureReads(drift, scenarioActions(drift), 6 * S, true);
    expect(here?.current).toBe(true);
    expect(here?.mode).toBe("leader-lease");
    expect(here?.leaderLeaseReads).toBeGreaterThan(0);
    expect(here?.reads.count).toBeGreaterThan(0);
    expect(other?.current).toBe(false);
    expect(other?.mode).toBe("read-index");
    expect(other?.leaderLeaseReads).toBe(0);
    // The cut-off old leader cannot confirm it leads: c1's reads there get no answer with ReadIndex, and stale ones with the lease.
    expect(other?.unansweredReads).toBeGreaterThan(here?.unansweredReads ?? Number.POSITIVE_INFINITY);
    expect(other?.reads.count).toBeGreaterThan(0);
    // ReadIndex pays a heartbeat round per read: slower on average.
    expect(other?.reads.meanUs).toBeGreaterThan(here?.reads.meanUs ?? Number.POSITIVE_INFINITY);
  });

  it("counts reads served locally under read leases, and writes held back for holders", () => {
    const r = parseScenario({ seed: 3, duration: "6s", cluster: { nodes: 5, readLeaseFollowers: 2 }, clients: { count: 4, workload: "random" } });
    if (!r.ok) throw new Error(r.errors.join("; "));
    const [only, ...rest] = measureReads(r.scenario, [], 5 * S, false);
    expect(rest).toEqual([]);
    expect(only?.localReads).toBeGreaterThan(0);
    expect(only?.writeWaits).toBeGreaterThan(0);
    expect(only?.readLeaseFollowers).toBe(2);
  });

  it("the same run with 0, 2 and 4 read-lease followers: more local reads, slower writes", () => {
    const r = parseScenario({ seed: 3, duration: "6s", cluster: { nodes: 5, readLeaseFollowers: 2 }, clients: { count: 4, workload: "random" } });
    if (!r.ok) throw new Error(r.errors.join("; "));
    const cols = measureHolders(r.scenario, [], 5 * S);
    expect(cols.map((c) => [c.readLeaseFollowers, c.current])).toEqual([
      [0, false],
      [2, true],
      [4, false],
    ]);
    const [none, two, four] = cols;
    expect(none?.localReads).toBe(0);
    expect(four?.localReads).toBeGreaterThan(two?.localReads ?? Number.POSITIVE_INFINITY);
    // Counted among the reads answered, never beyond them.
    for (const c of cols) expect(c.localReads + c.leaderLeaseReads).toBeLessThanOrEqual(c.reads.count);
    expect(four?.writes.meanUs).toBeGreaterThan(none?.writes.meanUs ?? Number.POSITIVE_INFINITY);
  });

  it("withReads swaps the mode and drops the file's expectations (written for its own mode)", () => {
    expect(drift.expect.length).toBeGreaterThan(0);
    const ri = withReads(drift, otherMode("leader-lease"));
    expect(scenarioConfig(ri).raft.reads).toBe("read-index");
    expect(ri.expect).toEqual([]);
    expect(ri.actions).toEqual(drift.actions);
  });
});

describe("reads settings", () => {
  it("a scenario's reads settings reach the page's settings, and the page's settings reach the engine", () => {
    const s = settingsFromScenario(drift, { speed: 1, autoplay: false });
    expect(s.timing.reads).toBe("leader-lease");
    const t = { ...DEFAULT_SETTINGS.timing, reads: "leader-lease" as const, readLeaseFollowers: 2, readLeaseMs: 800, leaseDriftBoundPpm: 50_000 };
    const c = scenarioConfig(scenarioFromSettings({ ...DEFAULT_SETTINGS, timing: t }));
    expect(c.raft).toMatchObject({ reads: "leader-lease", readLeaseFollowers: 2, readLeaseMs: 800, leaseDriftBoundPpm: 50_000 });
    expect(settingsFromScenario(scenarioFromSettings(DEFAULT_SETTINGS), { speed: 1, autoplay: false }).timing.reads).toBeUndefined();
  });
});

describe("the host", () => {
  it("answers measure-reads with the figures up to the cursor, and restarts the same file with the other way of reading", () => {
    const h = fakeHost();
    const settings = settingsFromScenario(drift, { speed: 1, autoplay: false });
    h.host.handle({ type: "start", settings, scenario: drift });
    h.host.handle({ type: "seek", t: 5 * S });
    h.host.handle({ type: "measure-reads", requestId: 7, compare: true });
    const answer = h.posts.at(-1);
    expect(answer?.type).toBe("read-figures");
    if (answer?.type !== "read-figures" || answer.result.kind !== "ok") throw new Error("no figures");
    expect(answer.requestId).toBe(7);
    expect(answer.result.untilUs).toBe(5 * S);
    expect(answer.result.columns.map((c) => c.mode)).toEqual(["leader-lease", "read-index"]);
    h.host.handle({ type: "restart", reads: "read-index" });
    const v = h.last();
    expect(v.settings.timing.reads).toBe("read-index");
    expect(v.now).toBe(0);
    // The file's actions are kept (the partition at 3 s is still ahead), its expectations dropped.
    expect(v.timeline.script?.actions ?? 0).toBeGreaterThan(0);
    expect(v.scenario).toBeUndefined();
  });
});

describe("the read and write figures of a long history", () => {
  it("a history of half a million operations (hours of a run) is measured, not refused by the engine's argument limit", () => {
    const ops = Array.from({ length: 500_000 }, (_, i) => ({
      client: "c1",
      session: "c1#1",
      seq: i,
      operation: i % 2 === 0 ? "get" : "put",
      key: "k1",
      value: null,
      outcome: "ok" as const,
      output: null,
      callUs: i * 1000,
      returnUs: i * 1000 + 400 + (i % 7),
    }));
    const f = readWriteFigures(ops as unknown as Parameters<typeof readWriteFigures>[0]);
    expect(f.reads.count).toBe(250_000);
    expect(f.writes.maxUs).toBe(406);
    expect(f.reads.perSecond).toBeCloseTo(500, 0);
  });
});
