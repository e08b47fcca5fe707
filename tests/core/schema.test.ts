import { describe, expect, it } from "vitest";
import { scenarioConfig } from "../../src/core/scenario/runner";
import { parseScenario, parseScenarioText, type Scenario } from "../../src/core/scenario/schema";
import { configProblems, defaultConfig, mergeConfig, SETTING_FIELDS } from "../../src/core/sim/config";

const errorsOf = (input: unknown): string[] => {
  const r = parseScenario(input);
  return r.ok ? [] : r.errors;
};

describe("scenario validation", () => {
  it("takes each setting's type and range from its one declaration, so the file and the simulator agree", () => {
    // A 15-minute lease TTL: the simulator allows up to an hour; the file used to refuse it.
    const long = parseScenario({ holders: { count: 1, ttlMs: 900_000 } });
    expect(long.ok).toBe(true);
    expect(configProblems(scenarioConfig((long as { ok: true; scenario: Scenario }).scenario))).toEqual([]);
    // electionTimeoutMinMs 0 used to pass the file's schema and fail later, in the simulator.
    expect(errorsOf({ cluster: { electionTimeoutMinMs: 0 } })).toEqual(["cluster.electionTimeoutMinMs: must be between 1 and 600000 (got 0)"]);
    expect(configProblems(mergeConfig(defaultConfig(), { raft: { electionTimeoutMinMs: 0 } }))).toEqual([
      "electionTimeoutMinMs must be between 1 and 600000 (got 0)",
    ]);
    // Every field of every section the file may set is one the settings declare, with the same bounds.
    for (const [section, fields] of Object.entries(SETTING_FIELDS)) {
      for (const name of Object.keys(fields)) {
        const where = section === "raft" ? "cluster" : section;
        expect(errorsOf({ [where]: { [name]: "not a setting value" } }), `${where}.${name}`).toHaveLength(1);
      }
    }
    expect(errorsOf({ holders: { ttlMs: 3_600_001 } })).toEqual(["holders.ttlMs: must be between 1 and 3600000 (got 3600001)"]);
    expect(errorsOf({ holders: { leaseNames: [] } })).toEqual(["holders.leaseNames: must name at least one lease, each 1 to 64 characters"]);
  });

  it("keeps only the checks that compare two settings outside the schema", () => {
    const c = mergeConfig(defaultConfig(), { raft: { heartbeatIntervalMs: 200 }, network: { latencyMinMs: 30, latencyMaxMs: 10 } });
    expect(configProblems(c)).toEqual([
      "heartbeatIntervalMs must be shorter than electionTimeoutMinMs, or followers time out between heartbeats",
      "latencyMaxMs must be at least latencyMinMs",
    ]);
    expect(configProblems(defaultConfig())).toEqual([]);
  });

  it("accepts a minimal scenario and fills defaults", () => {
    const r = parseScenario({});
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.scenario.seed).toBe(1);
      expect(r.scenario.duration).toBe(10_000_000);
      expect(r.scenario.actions).toEqual([]);
    }
  });

  it("refuses a nemesis that would act more than once a millisecond, naming the field; defaults still parse", () => {
    expect(errorsOf({ nemesis: { intervalMin: "1us", intervalMax: "2ms" } })).toEqual([
      'nemesis.intervalMin: the nemesis acts at most once a millisecond (at least "1ms")',
    ]);
    expect(errorsOf({ nemesis: { intervalMin: "1ms", intervalMax: "1ms" } })).toEqual([]);
    expect(errorsOf({ nemesis: {} })).toEqual([]);
  });

  it("parses durations in several units", () => {
    const r = parseScenario({
      duration: "1.5s",
      actions: [
        { at: "250ms", do: "heal" },
        { at: 1000, do: "heal" },
        { at: "1s", do: "pause", node: "n1", for: "40us" },
      ],
    });
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.scenario.duration).toBe(1_500_000);
      expect(r.scenario.actions.map((a) => a.at)).toEqual([250_000, 1_000_000, 1_000_000]);
    }
  });

  it("names the field that is wrong", () => {
    expect(errorsOf({ cluster: { nodes: 12 } })[0]).toMatch(/^cluster\.nodes: /);
    expect(errorsOf({ actions: [{ at: "1s", do: "explode" }] })[0]).toMatch(/^actions\[0\]\.do: /);
    expect(errorsOf({ actions: [{ at: "soon", do: "heal" }] })[0]).toMatch(/^actions\[0\]\.at: not a duration/);
    expect(errorsOf({ actions: [{ at: "1s", do: "crash" }] })[0]).toMatch(/^actions\[0\]\.node: /);
    expect(errorsOf({ network: { dropRate: 2 } })[0]).toMatch(/^network\.dropRate: /);
    expect(errorsOf({ expect: [{ that: "leader-exists", at: "20s" }], duration: "10s" })[0]).toMatch(/^expect\[0\]\.at: .*after the end/);
  });

  it("rejects unknown fields (a typo must not be silently ignored)", () => {
    expect(errorsOf({ clustre: { nodes: 3 } }).join()).toMatch(/clustre/);
    expect(errorsOf({ actions: [{ at: "1s", do: "crash", node: "n1", nod: "n2" }] }).join()).toMatch(/nod/);
  });

  it("says what is wrong in words where the schema has no message of its own (zod/mini loads none unless told)", () => {
    expect(errorsOf({ name: "", holders: { preset: "x" }, actions: [{ at: 0, do: "drift", node: "n1", ppm: 1.5 }, 5] })).toEqual([
      "name: Too small: expected string to have >=1 characters",
      'holders.preset: Invalid option: expected one of "etcd"|"dhcp"|"primary"',
      "actions[0].ppm: Invalid input: expected int, received number",
      "actions[1]: Invalid input: expected object, received number",
    ]);
    expect(errorsOf({ cluster: { nodes: 3, bogus: 1 } })).toEqual(['cluster: Unrecognized key: "bogus"']);
  });

  it("reports broken JSON clearly", () => {
    const r = parseScenarioText('{ "seed": 1, ');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]).toMatch(/^not valid JSON/);
  });
});
