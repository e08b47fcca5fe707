/** Where a user's action goes in a live run, and the processes it names, resolved on the page. */
import { describe, expect, it } from "vitest";
import { defaultConfig, mergeConfig } from "../../src/core/sim/config";
import { resolveRefs, targetOf } from "../../src/live/route";

const IDS = new Set(["n1", "n2", "n3", "n4", "n5", "h1", "h2", "s1"]);
const resolve = (ref: string): string | null => ({ leader: "n3", follower: "n1" })[ref] ?? (IDS.has(ref) ? ref : null);
const config = mergeConfig(defaultConfig(), { holders: { count: 2 } });

describe("a live run's actions", () => {
  it("name processes, not roles, before they leave the page", () => {
    expect(resolveRefs({ type: "crash", proc: "leader" }, resolve)).toEqual({ type: "crash", proc: "n3" });
    expect(resolveRefs({ type: "partition", groups: [["leader", "n1"], ["others"]] }, resolve)).toEqual({
      type: "partition",
      groups: [["n3", "n1"], ["others"]],
    });
    expect(resolveRefs({ type: "cut", from: "leader", to: "follower" }, resolve)).toEqual({ type: "cut", from: "n3", to: "n1" });
    expect(resolveRefs({ type: "gc-pause", holder: "h2", durationUs: 5 }, resolve)).toEqual({ type: "gc-pause", holder: "h2", durationUs: 5 });
    expect(resolveRefs({ type: "heal" }, resolve)).toEqual({ type: "heal" });
  });

  it("say which name could not be resolved", () => {
    expect(resolveRefs({ type: "crash", proc: "n9" }, resolve)).toBe('"n9": no such process now');
    expect(resolveRefs({ type: "crash", proc: "leader" }, () => null)).toBe('"leader": no such process now');
  });

  it("go to the process they are about, the storage, or the leader", () => {
    expect(targetOf({ type: "clock", proc: "n2", driftPpm: 100 }, config, resolve)).toEqual({ id: "n2", why: null });
    expect(targetOf({ type: "release", holder: "h1" }, config, resolve)).toEqual({ id: "h1", why: null });
    expect(targetOf({ type: "fencing", on: false }, config, resolve)).toEqual({ id: "s1", why: null });
    expect(targetOf({ type: "transfer", to: "n2" }, config, resolve)).toEqual({ id: "n3", why: null });
    expect(targetOf({ type: "add-node", proc: "n6" }, config, () => null).why).toMatch(/no leader/);
    expect(targetOf({ type: "fencing", on: true }, mergeConfig(defaultConfig(), { holders: { count: 0 } }), resolve).why).toMatch(/no storage/);
  });
});
