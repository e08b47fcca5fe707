import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Scenario } from "../../src/core/scenario/schema";
import { loadScenario, scenarioFailures } from "../support/scenarios";

const dir = join(import.meta.dirname, "../../scenarios/lease");
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .sort();

const load = (file: string): Scenario => loadScenario(dir, file);
const failures = scenarioFailures;

describe("shipped lease scenarios", () => {
  it("ship the ten stories of the issue", () => {
    expect(files.length).toBeGreaterThanOrEqual(11);
  });

  for (const file of files) {
    it(`${file}: every expectation holds, for its seed and three others`, () => {
      const s = load(file);
      for (const seed of [s.seed, 101, 202, 303]) expect(failures({ ...s, seed }), `seed ${seed}`).toEqual([]);
    });
  }
});

describe("the lease scenarios fail when what they show breaks", () => {
  const has = (fs: string[], text: string) => fs.some((f) => f.includes(text));

  it("GC pause: with fencing off the late write is accepted and the checker reports corruption", () => {
    const s = load("03-gc-pause-fenced.json");
    const fs = failures({ ...s, storage: { fencing: false } });
    expect(has(fs, "violation storage-corruption")).toBe(true);
    expect(has(fs, "storage rejected at least 1 write(s) from h1")).toBe(true);
  });

  it("GC pause without fencing: switching fencing on removes the corruption the scenario expects", () => {
    const s = load("04-gc-pause-unfenced.json");
    expect(has(failures({ ...s, storage: { fencing: true } }), "the checker reports storage-corruption")).toBe(true);
  });

  it("repeated elections: with checkpointing the abandoned lease does expire", () => {
    const s = load("06a-repeated-elections-keep-lease.json");
    expect(has(failures({ ...s, lease: { ...s.lease, checkpoint: true, checkpointIntervalMs: 300 } }), "lease lock is held by h1")).toBe(
      true,
    );
  });

  it("repeated elections with checkpointing: without the checkpoint the lease survives", () => {
    const s = load("06b-repeated-elections-checkpoint.json");
    expect(has(failures({ ...s, lease: { ...s.lease, checkpoint: false } }), "lease lock is not held")).toBe(true);
  });

  it("clock drift: without the holder's drift margin, its writes outlive its lease and are rejected", () => {
    const s = load("07-clock-drift.json");
    expect(has(failures({ ...s, holders: { ...s.holders, driftMarginPpm: 0 } }), "storage rejected at most 0")).toBe(true);
  });

  it("Chubby grace: without a grace period the holder loses its lease in the failover", () => {
    const s = load("10-chubby-grace.json");
    const fs = failures({ ...s, holders: { ...s.holders, gracePeriodMs: 0 } });
    expect(has(fs, "h1 has never been lost")).toBe(true);
  });

  it("holder crash: with a lock-delay longer than the run, nobody else gets the lease", () => {
    const s = load("02-holder-crash.json");
    expect(has(failures({ ...s, lease: { ...s.lease, lockDelayMs: 60_000 } }), "lease lock is held by h2")).toBe(true);
  });
});
