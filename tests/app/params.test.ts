/** URL parameters, the settings dialog's validation, and the partition editor's grouping. */
import { describe, expect, it } from "vitest";
import { deadlineWords } from "../../src/app/Inspector";
import { partitionGroups } from "../../src/app/NetworkTools";
import { DEFAULT_SETTINGS, DEFAULT_TIMING, parseParams, toSearch } from "../../src/app/params";
import { settingsFromDraft } from "../../src/app/SettingsDialog";
import { nearestSpeedIndex } from "../../src/app/Toolbar";
import { SPEEDS } from "../../src/worker/protocol";
import { configFor, timingOf } from "../../src/worker/settings";

describe("URL parameters", () => {
  it("no parameters: the defaults, no problems", () => {
    expect(parseParams("")).toEqual({ settings: DEFAULT_SETTINGS, problems: [] });
  });

  it("reads every setting, timing included", () => {
    const { settings, problems } = parseParams("?seed=42&nodes=7&holders=10&clients=0&speed=1&election=300-600&heartbeat=100&latency=5-30&ttl=4000&renew=0.5&grace=800");
    expect(problems).toEqual([]);
    expect(settings).toMatchObject({ seed: 42, nodes: 7, holders: 10, speed: 1, clients: { count: 0, workload: "none" } });
    expect(settings.timing).toEqual({
      electionTimeoutMinMs: 300,
      electionTimeoutMaxMs: 600,
      heartbeatIntervalMs: 100,
      latencyMinMs: 5,
      latencyMaxMs: 30,
      leaseTtlMs: 4000,
      renewFraction: 0.5,
      gracePeriodMs: 800,
      checkpoint: false,
      checkpointIntervalMs: 1000,
      lockDelayMs: 0,
      driftMarginPpm: 20_000,
      expirySlackFactor: 1,
      poolSize: 0,
    });
  });

  it("each bad value falls back alone, with a sentence naming it", () => {
    const { settings, problems } = parseParams("?seed=1e9&nodes=0&election=300-100&renew=2&ttl=abc");
    expect(settings.seed).toBe(1);
    expect(settings.nodes).toBe(5);
    expect(settings.timing).toEqual(DEFAULT_TIMING);
    expect(problems).toHaveLength(5);
    expect(problems[0]).toMatch(/^Ignored \?seed=1e9: seed must be a whole number/);
    expect(problems.join(" ")).toMatch(/Ignored \?election=300-100: election must be a range/);
  });

  it("values that clash with each other reset the timing, with the reason", () => {
    const { settings, problems } = parseParams("?heartbeat=500");
    expect(settings.timing).toEqual(DEFAULT_TIMING);
    expect(problems).toEqual([expect.stringMatching(/heartbeatIntervalMs must be shorter than electionTimeoutMinMs/)]);
  });

  it("spares beyond nine servers in all fall back to none, with the reason", () => {
    const { settings, problems } = parseParams("?nodes=7&spares=3");
    expect(settings).toMatchObject({ nodes: 7, spares: 0 });
    expect(problems).toEqual([expect.stringMatching(/^Ignored \?spares=3: spares must be a whole number from 0 to 2 \(nodes and spares make at most 9\)/)]);
  });

  it("a very long bad value is shortened in the message", () => {
    const { problems } = parseParams(`?seed=${"x".repeat(500)}`);
    expect(problems[0]?.length).toBeLessThan(200);
  });

  it("toSearch names the run: parsing it back gives the same settings", () => {
    const s = parseParams("?seed=9&nodes=3&spares=2&holders=4&speed=0.2&election=200-400&ttl=3000&renew=0.5&grace=250").settings;
    expect(s.spares).toBe(2);
    expect(parseParams(toSearch(s)).settings).toEqual(s);
    expect(toSearch(DEFAULT_SETTINGS)).toBe("?seed=1");
  });
});

describe("lease policy settings in the URL", () => {
  it("checkpoint, lock-delay, drift margin, slack and pool round-trip through the URL", () => {
    const s = {
      ...DEFAULT_SETTINGS,
      timing: { ...DEFAULT_TIMING, checkpoint: true, checkpointIntervalMs: 500, lockDelayMs: 1500, driftMarginPpm: 50_000, expirySlackFactor: 1.5, poolSize: 2 },
    };
    const search = toSearch(s);
    expect(search).toBe("?seed=1&checkpoint=on&checkpointevery=500&lockdelay=1500&driftmargin=50000&slack=1.5&pool=2");
    expect(parseParams(search)).toEqual({ settings: s, problems: [] });
  });

  it("reaches the engine: the run's configuration has them", () => {
    const t = parseParams("?lockdelay=700&checkpoint=on&checkpointevery=300&driftmargin=1000&slack=2&pool=4").settings;
    const c = configFor(t);
    expect(c.lease).toMatchObject({ lockDelayMs: 700, checkpoint: true, checkpointIntervalMs: 300, expirySlackFactor: 2, poolSize: 4 });
    expect(c.holders.driftMarginPpm).toBe(1000);
    // And back, as a share link's scenario is read.
    expect(timingOf(c)).toEqual(t.timing);
  });

  it("absurd values fall back, each with the engine's own range in words", () => {
    const r = parseParams("?lockdelay=-5&slack=99&driftmargin=abc&checkpoint=maybe&pool=1.5");
    expect(r.settings.timing).toEqual(DEFAULT_TIMING);
    expect(r.problems).toEqual([
      "Ignored ?checkpoint=maybe: checkpoint must be on or off. Using checkpoint off instead.",
      "Ignored ?lockdelay=-5: Lock-delay (ms) must be between 0 and 3600000 (got -5). Using 0 instead.",
      "Ignored ?driftmargin=abc: Holder's drift margin (ppm) must be a number (got abc). Using 20000 instead.",
      "Ignored ?slack=99: Leader's slack (× TTL) must be between 1 and 10 (got 99). Using 1 instead.",
      "Ignored ?pool=1.5: Lease pool size must be a whole number from 0 to 10000 (got 1.5). Using 0 instead.",
    ]);
  });
});

describe("settings dialog", () => {
  const draft = {
    seed: "5",
    nodes: "5",
    spares: "0",
    holders: "3",
    clients: "2",
    electionTimeoutMinMs: "150",
    electionTimeoutMaxMs: "300",
    heartbeatIntervalMs: "50",
    latencyMinMs: "10",
    latencyMaxMs: "20",
    leaseTtlMs: "2000",
    renewFraction: "0.33",
    gracePeriodMs: "0",
    checkpoint: "off",
    checkpointIntervalMs: "1000",
    lockDelayMs: "0",
    driftMarginPpm: "20000",
    expirySlackFactor: "1",
    poolSize: "0",
  };

  it("accepts good values", () => {
    const r = settingsFromDraft(draft, DEFAULT_SETTINGS);
    expect(r.problems).toEqual([]);
    expect(r.settings?.seed).toBe(5);
    expect(r.settings?.timing.renewFraction).toBe(0.33);
  });

  it("spare servers: at most nine servers in all", () => {
    expect(settingsFromDraft({ ...draft, spares: "2" }, DEFAULT_SETTINGS).settings?.spares).toBe(2);
    expect(settingsFromDraft({ ...draft, nodes: "9", spares: "1" }, DEFAULT_SETTINGS).problems).toEqual([
      "nodes and spares together must be at most 9 (got 9 + 1)",
    ]);
  });

  it("takes the lease policies, refusing absurd ones in the engine's words", () => {
    const ok = settingsFromDraft({ ...draft, checkpoint: "on", lockDelayMs: "250", poolSize: "3" }, DEFAULT_SETTINGS);
    expect(ok.problems).toEqual([]);
    expect(ok.settings?.timing).toMatchObject({ checkpoint: true, lockDelayMs: 250, poolSize: 3 });
    expect(settingsFromDraft({ ...draft, lockDelayMs: "-1" }, DEFAULT_SETTINGS).problems).toEqual([
      "Lock-delay (ms) must be between 0 and 3600000 (got -1).",
    ]);
    expect(settingsFromDraft({ ...draft, driftMarginPpm: "900000" }, DEFAULT_SETTINGS).problems).toEqual([
      "Holder's drift margin (ppm) must be a whole number from 0 to 500000 (got 900000).",
    ]);
  });

  it("refuses empty, non-numeric and clashing values, each with a reason", () => {
    expect(settingsFromDraft({ ...draft, seed: "" }, DEFAULT_SETTINGS).problems).toEqual(["Seed must be a number."]);
    expect(settingsFromDraft({ ...draft, holders: "99" }, DEFAULT_SETTINGS).problems).toEqual(["Holders must be a whole number from 0 to 20."]);
    const clash = settingsFromDraft({ ...draft, latencyMinMs: "50", latencyMaxMs: "10" }, DEFAULT_SETTINGS);
    expect(clash.settings).toBeNull();
    expect(clash.problems).toEqual(["latencyMaxMs must be at least latencyMinMs"]);
  });
});

describe("partition editor", () => {
  const ids = ["n1", "n2", "n3", "h1", "s1"];
  it("groups assigned processes, leaving the rest reachable by all", () => {
    expect(partitionGroups({ n1: 0, n2: 1, n3: 1, s1: 0 }, ids)).toEqual([
      ["n1", "s1"],
      ["n2", "n3"],
    ]);
  });
  it("skips empty groups and needs at least two", () => {
    expect(partitionGroups({ n1: 2, n2: 0 }, ids)).toEqual([["n2"], ["n1"]]);
    expect(partitionGroups({ n1: 1, n2: 1 }, ids)).toBeNull();
    expect(partitionGroups({}, ids)).toBeNull();
  });
});

describe("speed slider", () => {
  it("snaps any speed to the nearest offered one on a log scale", () => {
    expect(SPEEDS[nearestSpeedIndex(0.05)]).toBe(0.05);
    expect(SPEEDS[nearestSpeedIndex(0.06)]).toBe(0.05);
    expect(SPEEDS[nearestSpeedIndex(0.09)]).toBe(0.1);
    expect(SPEEDS[nearestSpeedIndex(100)]).toBe(SPEEDS.at(-1));
  });
});

describe("inspector words", () => {
  it("a holder's deadline: time left, passed, or passed while frozen", () => {
    expect(deadlineWords({ deadlineAt: null, status: "up" }, 0)).toBe("—");
    expect(deadlineWords({ deadlineAt: 1_500_000, status: "up" }, 0)).toMatch(/^1\.5 s left/);
    expect(deadlineWords({ deadlineAt: 1_000_000, status: "up" }, 2_410_000)).toBe("passed 1.41 s ago");
    expect(deadlineWords({ deadlineAt: 1_000_000, status: "paused" }, 2_410_000)).toBe("passed 1.41 s ago, but it is paused and has not noticed");
  });
});
