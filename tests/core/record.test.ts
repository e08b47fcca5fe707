/** Actions written back into a scenario file read back as the same actions, at the same microsecond. */
import { describe, expect, it } from "vitest";
import { formatExactDuration, scenarioActionsOf, type TimedAction } from "../../src/core/scenario/record";
import { scenarioActions } from "../../src/core/scenario/runner";
import { parseScenario } from "../../src/core/scenario/schema";

const EVERY_KIND: readonly TimedAction[] = [
  { at: 0, action: { type: "crash", proc: "n1" } },
  { at: 1_000, action: { type: "restart", proc: "n1" } },
  { at: 2_000_417, action: { type: "pause", proc: "h1", durationUs: 1_500_001 } },
  { at: 2_000_417, action: { type: "resume", proc: "h1" } },
  { at: 3_000_000, action: { type: "timeout", proc: "n2" } },
  { at: 3_000_001, action: { type: "partition", groups: [["n1", "n2"], ["others"]] } },
  { at: 3_000_002, action: { type: "heal" } },
  { at: 3_000_003, action: { type: "cut", from: "n1", to: "n3" } },
  { at: 3_000_004, action: { type: "clock", proc: "n4", driftPpm: -25_000 } },
  { at: 3_000_005, action: { type: "clock", proc: "n4", jumpUs: -250_007 } },
  { at: 3_000_006, action: { type: "network", dropRate: 0.125, duplicateRate: 0.5, latencyMinUs: 1_500, latencyMaxUs: 20_250 } },
  { at: 3_000_007, action: { type: "submit", client: "c1", op: { write: { type: "put", key: "k", value: "v" } } } },
  { at: 3_000_008, action: { type: "submit", client: "c2", op: { write: { type: "delete", key: "k" } } } },
  { at: 3_000_009, action: { type: "submit", client: "c1", op: { read: { type: "get", key: "k" } } } },
  { at: 3_000_010, action: { type: "submit", client: "c1", op: { read: { type: "lease-ttl", name: "lock" } } } },
  { at: 3_000_011, action: { type: "submit", client: "c1", op: { read: { type: "lease-list" } } } },
  { at: 3_000_012, action: { type: "drop-message", id: 42 } },
  { at: 3_000_013, action: { type: "note", text: "look here" } },
  { at: 3_000_014, action: { type: "release", holder: "h2" } },
  { at: 3_000_015, action: { type: "gc-pause", holder: "h1", durationUs: 5_000_000 } },
  { at: 3_000_016, action: { type: "fencing", on: false } },
  { at: 3_000_017, action: { type: "transfer", to: "n3" } },
  { at: 3_000_018, action: { type: "add-node", proc: "n6" } },
  { at: 3_000_019, action: { type: "remove-node", proc: "n2" } },
];

describe("recorded actions in scenario files", () => {
  it("every kind of action reads back as itself, at the same microsecond, in the same order", () => {
    const parsed = parseScenario({ duration: "10s", actions: EVERY_KIND.flatMap(scenarioActionsOf) });
    if (!parsed.ok) throw new Error(parsed.errors.join("\n"));
    expect(scenarioActions(parsed.scenario)).toEqual(EVERY_KIND);
  });

  it("a clock change that both drifts and jumps becomes two file actions, drift first", () => {
    const both = scenarioActionsOf({ at: 5, action: { type: "clock", proc: "n1", driftPpm: 100, jumpUs: 7 } });
    expect(both.map((a) => a.do)).toEqual(["drift", "clock-jump"]);
  });

  it("times are written exactly: whole milliseconds as ms, anything else as µs", () => {
    expect(formatExactDuration(1_500_000)).toBe("1500ms");
    expect(formatExactDuration(2_000_417)).toBe("2000417us");
    expect(formatExactDuration(0)).toBe("0ms");
    expect(() => formatExactDuration(1.5)).toThrow(/whole number/);
  });
});
