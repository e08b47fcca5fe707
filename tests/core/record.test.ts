/** Actions written back into a scenario file read back as the same actions, at the same microsecond. */
import { describe, expect, it } from "vitest";
import { scenarioActionsOf, type TimedAction } from "../../src/core/scenario/record";
import { formatExactDuration } from "../../src/core/sim/time";
import { scenarioActions } from "../../src/core/scenario/runner";
import { parseScenario } from "../../src/core/scenario/schema";
import type { Action } from "../../src/core/sim/sim";

type Of<T extends Action["type"]> = Extract<Action, { type: T }>;

/**
 * One or more examples of every kind of action: a new member of `Action` without an entry
 * here does not compile. Times are exact microseconds, some not whole milliseconds.
 */
const EXAMPLES = {
  crash: [
    { type: "crash", proc: "n1" },
    { type: "crash", proc: "leader", as: "old" },
  ],
  restart: [{ type: "restart", proc: "n1" }],
  pause: [{ type: "pause", proc: "h1", durationUs: 1_500_001 }],
  resume: [{ type: "resume", proc: "h1" }],
  timeout: [{ type: "timeout", proc: "n2" }],
  partition: [{ type: "partition", groups: [["n1", "n2"], ["others"]] }],
  heal: [{ type: "heal" }],
  cut: [{ type: "cut", from: "n1", to: "n3" }],
  disconnect: [{ type: "disconnect", proc: "n3" }],
  connect: [{ type: "connect", proc: "n3" }],
  "slow-link": [
    { type: "slow-link", from: "n2", to: "n1", delayUs: 250_001 },
    { type: "slow-link", from: "n2", to: "n1", delayUs: 0 },
  ],
  clock: [
    { type: "clock", proc: "n4", driftPpm: -25_000 },
    { type: "clock", proc: "n4", jumpUs: -250_007 },
  ],
  network: [
    { type: "network", dropRate: 0.125, duplicateRate: 0.5, latencyMinUs: 1_500, latencyMaxUs: 20_250 },
    { type: "network", latencyByType: { AppendEntriesResp: { minUs: 200_000, maxUs: 250_500 }, RequestVote: null } },
  ],
  submit: [
    { type: "submit", client: "c1", op: { write: { type: "put", key: "k", value: "v" } } },
    { type: "submit", client: "c2", op: { write: { type: "delete", key: "k" } } },
    { type: "submit", client: "c1", op: { read: { type: "get", key: "k" } } },
    { type: "submit", client: "c1", op: { read: { type: "lease-ttl", name: "lock" } } },
    { type: "submit", client: "c1", op: { read: { type: "lease-list" } } },
  ],
  "drop-message": [{ type: "drop-message", id: 42 }],
  note: [{ type: "note", text: "look here" }],
  release: [{ type: "release", holder: "h2" }],
  "gc-pause": [{ type: "gc-pause", holder: "h1", durationUs: 5_000_000 }],
  fencing: [{ type: "fencing", on: false }],
  transfer: [{ type: "transfer", to: "n3" }],
  "add-node": [{ type: "add-node", proc: "n6" }],
  "remove-node": [{ type: "remove-node", proc: "n2" }],
} satisfies { readonly [K in Action["type"]]: readonly Of<K>[] };

const EVERY_KIND: readonly TimedAction[] = Object.values(EXAMPLES)
  .flat()
  .map((action, i) => ({ at: 2_000_417 + i * 100_001, action }));

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
