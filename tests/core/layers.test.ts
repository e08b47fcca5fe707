/**
 * The core's folders form a one-way graph: the processes (raft, lease, holder, storage, kv)
 * never import the simulator that runs them, its settings, checkers or nemesis, nor the
 * scenario or replay layers built on it. (They may use the simulator's primitives: the
 * process interface, the trace's types, the seeded random stream, copy-on-write arrays.)
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const core = join(import.meta.dirname, "../../src/core");
const PROCESS_FOLDERS = ["raft", "lease", "holder", "storage", "kv"];
/** What a process may not import: the simulator and everything that runs on top of it. */
const FORBIDDEN = /from "\.\.\/(sim\/(sim|kernel|cluster|network|actions|config|checkers|nemesis)|scenario\/|replay\/)/;

/** What the checker in lin/ may import: its own files, and the history's types. */
const LIN_ALLOWED = /from "\.\/[\w-]+"|^\s*import type .* from "\.\.\/scenario\/history"/;

describe("the core's layers", () => {
  for (const folder of PROCESS_FOLDERS) {
    it(`${folder} does not import the simulator that runs it`, () => {
      const bad: string[] = [];
      for (const file of readdirSync(join(core, folder)).filter((f) => f.endsWith(".ts"))) {
        const text = readFileSync(join(core, folder, file), "utf8");
        for (const line of text.split("\n")) if (FORBIDDEN.test(line)) bad.push(`${folder}/${file}: ${line.trim()}`);
      }
      expect(bad).toEqual([]);
    });
  }

  it("lin (the linearizability checker) imports only itself and the history's types", () => {
    const bad: string[] = [];
    for (const file of readdirSync(join(core, "lin")).filter((f) => f.endsWith(".ts"))) {
      const text = readFileSync(join(core, "lin", file), "utf8");
      for (const line of text.split("\n")) {
        if (/^\s*(import|export)\b.*\bfrom\s+"/.test(line) && !LIN_ALLOWED.test(line)) bad.push(`lin/${file}: ${line.trim()}`);
      }
    }
    expect(bad).toEqual([]);
    expect(LIN_ALLOWED.test('import { runScenario } from "../scenario/runner";')).toBe(false);
    expect(LIN_ALLOWED.test('import { readFileSync } from "node:fs";')).toBe(false);
  });

  it("the check itself catches such an import", () => {
    expect(FORBIDDEN.test('import { defaultConfig } from "../sim/config";')).toBe(true);
    expect(FORBIDDEN.test('import type { Rng } from "../sim/rng";')).toBe(false);
  });
});
