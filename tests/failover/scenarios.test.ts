import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runScenario } from "../../src/core/scenario/runner";
import type { Scenario } from "../../src/core/scenario/schema";
import { loadScenario, scenarioFailures } from "../support/scenarios";

const dir = join(import.meta.dirname, "../../scenarios/failover");
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .sort();

const load = (file: string): Scenario => loadScenario(dir, file);
const has = (fs: string[], text: string) => fs.some((f) => f.includes(text));

describe("shipped failover scenarios", () => {
  it("ship the clean failover and the hung primary with the watchdog on and off", () => {
    expect(files).toEqual(expect.arrayContaining(["01-clean-failover.json", "02-hung-primary-watchdog-on.json", "03-hung-primary-watchdog-off.json"]));
  });

  for (const file of files) {
    it(`${file}: every expectation holds, for its seed and four others`, () => {
      const s = load(file);
      for (const seed of [s.seed, 101, 202, 303, 404]) expect(scenarioFailures({ ...s, seed }), `seed ${seed}`).toEqual([]);
    });
  }

  it("each scenario checks for two primaries", () => {
    for (const file of files) expect(load(file).expect.some((e) => e.that === "two-primaries"), file).toBe(true);
  });
});

describe("the failover scenarios fail when what they show breaks", () => {
  it("clean failover: the new primary comes with a new token, and the old one's lease ended by expiry", () => {
    const r = runScenario(load("01-clean-failover.json"));
    const roles = r.holders.filter((h) => h.token !== null);
    expect(roles.map((h) => h.id)).not.toContain("h1");
    expect(roles.length).toBe(1);
    // The summary (the CLI's --json) says each replica's role; h1 crashed, so it has none.
    expect(r.holders.map((h) => h.role ?? "none").sort()).toEqual(["none", "primary", "secondary"]);
  });

  it("clean failover: without the replicas, no holder is a primary", () => {
    const s = load("01-clean-failover.json");
    const fs = scenarioFailures({ ...s, holders: { ...s.holders, preset: undefined } });
    expect(has(fs, "h1 is the primary: no holder is a database replica")).toBe(true);
  });

  it("hung primary, watchdog on: switching the watchdog off gives two primaries", () => {
    const s = load("02-hung-primary-watchdog-on.json");
    const fs = scenarioFailures({ ...s, holders: { ...s.holders, selfFence: false } });
    expect(has(fs, "no two replicas were primary accepting writes at the same instant")).toBe(true);
    expect(has(fs, "violation two-primaries")).toBe(true);
  });

  it("hung primary, watchdog off: switching the watchdog on leaves one primary at a time, and nothing to reject", () => {
    const s = load("03-hung-primary-watchdog-off.json");
    const fs = scenarioFailures({ ...s, holders: { ...s.holders, selfFence: true } });
    expect(has(fs, "were primary accepting writes at the same instant, at least 1")).toBe(true);
    expect(has(fs, "storage rejected at least 1 write(s) from h1")).toBe(true);
  });

  it("hung primary, watchdog off: without fencing the old primary's writes land", () => {
    const s = load("03-hung-primary-watchdog-off.json");
    const fs = scenarioFailures({ ...s, storage: { fencing: false } });
    expect(has(fs, "storage rejected at least 1 write(s) from h1")).toBe(true);
    expect(has(fs, "violation storage-corruption")).toBe(true);
  });

  it("watchdog and drift: a margin that covers the drift keeps one primary at a time", () => {
    const s = load("05-watchdog-clock-drift.json");
    const fs = scenarioFailures({ ...s, holders: { ...s.holders, driftMarginPpm: 450_000 } });
    expect(has(fs, "were primary accepting writes at the same instant, at least 1")).toBe(true);
  });
});
