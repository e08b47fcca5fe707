/**
 * docs/trace.md is complete enough for an outside reader of a trace: every event kind is
 * documented, and its formula from a process's local clock reading to virtual time works
 * when replayed from the trace's own `clock` events.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildSimulation } from "../../src/core/scenario/runner";
import { parseScenario } from "../../src/core/scenario/schema";
import type { TraceEvent } from "../../src/core/sim/trace";

const root = join(import.meta.dirname, "../..");

describe("docs/trace.md", () => {
  it("documents every kind of trace event, in its table", () => {
    const source = readFileSync(join(root, "src/core/sim/trace.ts"), "utf8");
    const types = source.slice(source.indexOf("export type ProcEvent"), source.indexOf("/** One trace record"));
    const kinds = new Set<string>();
    for (const m of types.matchAll(/readonly kind: ((?:"[\w-]+"(?: \| )?)+)/g)) for (const k of (m[1] as string).matchAll(/"([\w-]+)"/g)) kinds.add(k[1] as string);
    expect(kinds.size).toBeGreaterThan(25);
    const doc = readFileSync(join(root, "docs/trace.md"), "utf8");
    const rows = doc.split("\n").filter((l) => l.startsWith("| `"));
    const missing = [...kinds].filter((k) => !rows.some((r) => (r.split("|")[1] ?? "").includes(`\`${k}\``)));
    expect(missing).toEqual([]);
    for (const section of ["## Lease events", "## Holder events", "## Storage events", "## Clocks"]) expect(doc).toContain(section);
  });

  it("its clock formula, replayed from the trace's clock events, gives each process's local clock", () => {
    const s = parseScenario({
      name: "clocks",
      duration: "8s",
      clients: { count: 1, workload: "random" },
      holders: { count: 2 },
      nemesis: { includeClients: true, intervalMin: "50ms", intervalMax: "300ms", quietAfter: "7s", faults: ["clock", "crash"] },
    });
    if (!s.ok) throw new Error(s.errors.join("; "));
    // The documented rule: every clock starts at (0, 0, 0 ppm); a clock event at t re-bases it.
    const clocks = new Map<string, { baseT: number; baseLocal: number; driftPpm: number }>();
    const local = (c: { baseT: number; baseLocal: number; driftPpm: number }, t: number) =>
      c.baseLocal + (t - c.baseT) + Math.floor(((t - c.baseT) * c.driftPpm) / 1_000_000);
    let events = 0;
    const sim = buildSimulation(s.scenario, {
      seed: 5,
      onTrace: (e: TraceEvent) => {
        if (e.kind !== "clock") return;
        events++;
        const c = clocks.get(e.proc) ?? { baseT: 0, baseLocal: 0, driftPpm: 0 };
        clocks.set(e.proc, { baseT: e.t, baseLocal: local(c, e.t) + e.jumpUs, driftPpm: e.driftPpm });
      },
    });
    sim.advanceTo(s.scenario.duration);
    expect(events).toBeGreaterThan(3);
    for (const id of ["n1", "n2", "n3", "n4", "n5", "h1", "h2", "c1"]) {
      const c = clocks.get(id) ?? { baseT: 0, baseLocal: 0, driftPpm: 0 };
      expect(local(c, sim.now), id).toBe(sim.localNow(id));
    }
  });
});
