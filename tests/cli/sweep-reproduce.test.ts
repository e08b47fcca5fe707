import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runScenario } from "../../src/core/scenario/runner";
import { loadScenario } from "../support/scenarios";
import { reproduce, sweeps } from "../support/sweeps";

const root = join(import.meta.dirname, "../..");
const tsx = join(root, "node_modules/.bin/tsx");

/** Runs the command a sweep prints for a failing seed (with --json), from the repository root. */
function cliHash(file: string, seed: number): string {
  const cmd = reproduce(file, seed);
  const args = cmd.replace(/^npm run sim -- /, "").split(" ");
  const r = spawnSync(tsx, [join(root, "src/cli/main.ts"), ...args, "--json"], { cwd: root, encoding: "utf8", timeout: 60_000 });
  expect(r.status, r.stderr).not.toBe(2);
  const doc = JSON.parse(r.stdout);
  expect(doc.runs).toHaveLength(1);
  return doc.runs[0].traceHash;
}

describe("a sweep's reproduce line reruns the very run the sweep made", () => {
  for (const [file, seed] of [
    ["raft-sweep.json", 17],
    ["lease-sweep.json", 23],
  ] as const) {
    it(`${file}, seed ${seed}: the CLI's trace hash is the test's`, () => {
      const inTest = runScenario(loadScenario(sweeps, file), { seed }).traceHash;
      expect(cliHash(file, seed)).toBe(inTest);
    });
  }
});
