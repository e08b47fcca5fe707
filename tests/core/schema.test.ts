import { describe, expect, it } from "vitest";
import { parseScenario, parseScenarioText } from "../../src/core/scenario/schema";

const errorsOf = (input: unknown): string[] => {
  const r = parseScenario(input);
  return r.ok ? [] : r.errors;
};

describe("scenario validation", () => {
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

  it("reports broken JSON clearly", () => {
    const r = parseScenarioText('{ "seed": 1, ');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]).toMatch(/^not valid JSON/);
  });
});
