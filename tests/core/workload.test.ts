/** The random workload keeps values bounded (clients.maxValueChars), and its history stays checkable. */
import { describe, expect, it } from "vitest";
import { checkLinearizability } from "../../src/core/lin/check";
import { runScenario } from "../../src/core/scenario/runner";
import { parseScenario } from "../../src/core/scenario/schema";
import { staleReads } from "../../src/core/scenario/staleReads";
import type { TraceEvent } from "../../src/core/sim/trace";

const CAP = 64;

function run(maxValueChars: number, seed = 3) {
  const parsed = parseScenario({
    name: "workload",
    duration: "90s",
    clients: { count: 3, workload: "random", keys: 2, maxValueChars },
  });
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  let longest = 0;
  let puts = 0;
  const onTrace = (e: TraceEvent): void => {
    if (e.kind !== "client" || e.phase !== "ok") return;
    if (e.op.type === "put") puts++;
    if (e.result?.kind === "kv") longest = Math.max(longest, e.result.value?.length ?? 0);
  };
  const r = runScenario(parsed.scenario, { seed, history: true, onTrace });
  return { longest, puts, history: r.history };
}

describe("the random workload", () => {
  it("keeps every value within its cap (plus the appends in flight when it was reached)", () => {
    const r = run(CAP);
    expect(r.puts).toBeGreaterThan(10);
    // Each of the 3 clients appends at most about once more after the value reaches the cap: 3 x 8 characters.
    expect(r.longest).toBeLessThan(CAP + 3 * 12);
  });

  it("without a cap, appends without end", () => {
    const r = run(0);
    expect(r.puts).toBe(0);
    expect(r.longest).toBeGreaterThan(10 * CAP);
  });

  it("with puts in its history, it stays linearizable and has no stale reads", () => {
    for (const seed of [1, 2, 3]) {
      const h = run(CAP, seed).history;
      if (h === null) throw new Error("no history");
      expect(checkLinearizability(h.operations).verdict, `seed ${seed}`).toBe("ok");
      expect(staleReads(h), `seed ${seed}`).toEqual([]);
    }
  });
});
