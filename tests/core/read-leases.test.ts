/**
 * Read leases for followers (docs/reads.md, rules in src/core/raft/leases.ts): the shipped
 * scenarios in scenarios/reads/ for several seeds, and each rule switched off in turn (by
 * patching a prototype for the length of a test, never the production code) must be caught
 * by the linearizability checker.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkLinearizability } from "../../src/core/lin/check";
import { RaftNode } from "../../src/core/raft/node";
import { RaftServer } from "../../src/core/raft/server";
import { runScenario } from "../../src/core/scenario/runner";
import type { Scenario } from "../../src/core/scenario/schema";
import { loadScenario, scenarioFailures } from "../support/scenarios";
import { sweeps } from "../support/sweeps";

const dir = join(import.meta.dirname, "../../scenarios/reads");
const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8];
const restores: (() => void)[] = [];

afterEach(() => {
  for (const r of restores.splice(0).reverse()) r();
});

/** Replaces a method (or a getter, with `getter`) on a prototype until the test ends; it must exist. */
function plant(proto: object, name: string, value: unknown, getter = false): void {
  const own = Object.getOwnPropertyDescriptor(proto, name);
  let p: object | null = proto;
  let found: PropertyDescriptor | undefined;
  while (p !== null && found === undefined) {
    found = Object.getOwnPropertyDescriptor(p, name);
    p = Object.getPrototypeOf(p);
  }
  expect(found, `${name} must exist to plant the bug`).toBeDefined();
  Object.defineProperty(proto, name, getter ? { get: value as () => unknown, configurable: true } : { value, configurable: true, writable: true });
  restores.push(() => {
    if (own === undefined) delete (proto as Record<string, unknown>)[name];
    else Object.defineProperty(proto, name, own);
  });
}

/** Seeds of `s` whose history the checker rejects. */
function violatingSeeds(s: Scenario, seeds: readonly number[]): number[] {
  return seeds.filter((seed) => checkLinearizability(runScenario(s, { seed, history: true }).history?.operations ?? []).verdict === "violation");
}

describe("read leases: the shipped scenarios", () => {
  for (const file of ["read-lease-local-reads.json", "read-lease-partitioned-holder.json", "read-lease-leader-change.json"]) {
    it(`${file}: every expectation holds for seeds ${SEEDS[0]}..${SEEDS[SEEDS.length - 1]}`, () => {
      const s = loadScenario(dir, file);
      const bad = SEEDS.flatMap((seed) => scenarioFailures({ ...s, seed }));
      expect(bad).toEqual([]);
    });
  }
});

describe("read leases: each rule switched off is caught", () => {
  it("rule 1 off (a write is acknowledged without waiting for the holders): the reads sweep finds a stale read", () => {
    const answer = (RaftServer.prototype as unknown as Record<string, (...a: unknown[]) => unknown>).answer as (...a: unknown[]) => unknown;
    plant(RaftServer.prototype, "answer", function (this: unknown, ...args: unknown[]) {
      const [ctx, , to, reply, , write] = args as [{ send(to: string, r: unknown): void }, unknown, string, unknown, number, boolean];
      if (write === true) {
        ctx.send(to, reply);
        return;
      }
      return answer.apply(this, args);
    });
    const s = loadScenario(sweeps, "reads-sweep.json");
    const wide = { ...s, cluster: { ...s.cluster, readLeaseFollowers: 4 } };
    const BUDGET = 60;
    const found = violatingSeeds(wide, Array.from({ length: BUDGET }, (_, i) => i + 1));
    console.log(`rule 1 off: found by ${found.length} of ${BUDGET} seeds (first ${found[0]})`);
    expect(found.length).toBeGreaterThan(0);
  });

  it("rule 2 off (a follower answers without waiting for the visible index): read-lease-local-reads.json is not linearizable", () => {
    const visible = RaftNode.prototype.visibleIndex;
    plant(RaftNode.prototype, "visibleIndex", function (this: RaftNode, now: number) {
      return this.role === "leader" ? visible.call(this, now) : Number.MAX_SAFE_INTEGER;
    });
    const found = violatingSeeds(loadScenario(dir, "read-lease-local-reads.json"), SEEDS);
    expect(found.length).toBeGreaterThanOrEqual(SEEDS.length / 2);
  });

  it("rule 5's floor off (a holder serves before it has applied what its grant carried): the reads sweep finds a stale read", () => {
    const floor = RaftNode.prototype.localReadFloor;
    plant(RaftNode.prototype, "localReadFloor", function (this: RaftNode, now: number) {
      return floor.call(this, now) === null ? null : 0;
    });
    const s = loadScenario(sweeps, "reads-sweep.json");
    const BUDGET = 100;
    const found = violatingSeeds({ ...s, cluster: { ...s.cluster, readLeaseFollowers: 4 } }, Array.from({ length: BUDGET }, (_, i) => i + 1));
    console.log(`rule 5 floor off: found by ${found.length} of ${BUDGET} seeds (first ${found[0]})`);
    expect(found.length).toBeGreaterThan(0);
  });

  it("rule 4 off (a new leader does not wait out its predecessors' grants): read-lease-leader-change.json is not linearizable", () => {
    plant(RaftNode.prototype, "newLeaderWaitUs", () => 0, true);
    const found = violatingSeeds(loadScenario(dir, "read-lease-leader-change.json"), SEEDS);
    expect(found.length).toBeGreaterThanOrEqual(SEEDS.length / 2);
  });
});
