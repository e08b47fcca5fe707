import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Scenario } from "../../src/core/scenario/schema";
import { loadScenario, scenarioFailures } from "../support/scenarios";

const dir = join(import.meta.dirname, "../../scenarios/raft");
const files = readdirSync(dir).filter((f) => f.endsWith(".json"));

const load = (file: string): Scenario => loadScenario(dir, file);
const failures = scenarioFailures;

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
