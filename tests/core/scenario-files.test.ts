import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runScenario } from "../../src/core/scenario/runner";
import { parseScenarioText, type Scenario } from "../../src/core/scenario/schema";

const dir = join(import.meta.dirname, "../../scenarios/raft");
const files = readdirSync(dir).filter((f) => f.endsWith(".json"));

function load(file: string): Scenario {
  const r = parseScenarioText(readFileSync(join(dir, file), "utf8"));
  if (!r.ok) throw new Error(`${file}: ${r.errors.join("; ")}`);
  return r.scenario;
}

function failures(s: Scenario): string[] {
  const r = runScenario(s);
  return [
    ...r.violations.map((v) => `violation ${v.invariant}: ${v.detail} (seed ${v.seed})`),
    ...r.expectations.filter((x) => !x.ok).map((x) => `${x.description}: ${x.detail} (seed ${r.seed})`),
    ...r.actionFailures.map((f) => `action ${f.action.type} failed: ${f.error} (seed ${r.seed})`),
  ];
}

describe("shipped Raft scenarios", () => {
  it("there are scenarios to run", () => {
    expect(files.length).toBeGreaterThanOrEqual(8);
  });

  for (const file of files) {
    it(`${file} passes every expectation with no violation`, () => {
      expect(failures(load(file))).toEqual([]);
    });
  }

  for (const file of files) {
    it(`${file} passes for other seeds too (its expectations are not tuned to one seed)`, () => {
      const s = load(file);
      for (const seed of [101, 202, 303]) expect(failures({ ...s, seed }), `seed ${seed}`).toEqual([]);
    });
  }
});

describe("the scenarios' expectations fail when the behaviour they show breaks", () => {
  it("without PreVote, a rejoining node raises the term (prevote-rejoin fails)", () => {
    const s = load("prevote-rejoin.json");
    const broken = { ...s, cluster: { ...s.cluster, preVote: false } };
    expect(failures(broken).some((f) => f.includes("highest term is at most"))).toBe(true);
  });

  it("without CheckQuorum, the isolated leader does not step down (isolated-leader-checkquorum fails)", () => {
    const s = load("isolated-leader-checkquorum.json");
    const broken = { ...s, cluster: { ...s.cluster, checkQuorum: false } };
    expect(failures(broken).some((f) => f.includes("exactly 1 node(s) believe they are leader"))).toBe(true);
  });

  it("with every message lost, nothing is elected or committed (leader-crash fails)", () => {
    const s = load("leader-crash.json");
    const broken = { ...s, network: { ...s.network, dropRate: 1 } };
    expect(failures(broken).length).toBeGreaterThan(0);
  });
});
