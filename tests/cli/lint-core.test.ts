import { spawnSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../..");
const biome = join(root, "node_modules/.bin/biome");

/** Lints a throwaway file at `rel` (inside the tree, so biome.json's overrides apply) and returns the report. */
function lint(rel: string, code: string): { code: number | null; report: string } {
  const file = join(root, rel);
  writeFileSync(file, code);
  try {
    const r = spawnSync(biome, ["lint", "--max-diagnostics=50", rel], { cwd: root, encoding: "utf8" });
    return { code: r.status, report: r.stdout + r.stderr };
  } finally {
    rmSync(file, { force: true });
  }
}

describe("the linter keeps the core deterministic", () => {
  it("rejects Math.random, Date, performance, timers, DOM, worker and Node globals, and UI or Node imports in src/core", () => {
    const { code, report } = lint(
      "src/core/sim/lint-probe.tmp.ts",
      [
        'import { readFileSync } from "node:fs";',
        'import * as d3 from "d3";',
        "export const a = Math.random();",
        "export const b = Date.now();",
        "export const c = performance.now();",
        "setTimeout(() => {}, 1);",
        "export const e = document.title;",
        "postMessage(1);",
        "export { readFileSync, d3 };",
      ].join("\n"),
    );
    expect(code).not.toBe(0);
    for (const needle of [
      "never Math.random",
      "Date",
      "performance",
      "setTimeout",
      "document",
      "postMessage",
      "No Node modules",
      "No UI libraries",
    ]) {
      expect(report, needle).toContain(needle);
    }
  });

  it("allows the same code outside the core", () => {
    const { report } = lint("src/app/lint-probe.tmp.ts", "export const a = Math.random() + Date.now();\n");
    expect(report).not.toContain("never Math.random");
    expect(report).not.toContain("Date");
  });
});

describe("the linter keeps src/ in pieces a reader can hold", () => {
  it("refuses a function over 120 lines and a file over 600, anywhere in src/", () => {
    const body = Array.from({ length: 125 }, (_, i) => `  total += ${i};`).join("\n");
    const long = `export function f(): number {\n  let total = 0;\n${body}\n  return total;\n}\n`;
    const fn = lint("src/app/lint-probe.tmp.ts", long);
    expect(fn.code).not.toBe(0);
    expect(fn.report).toContain("noExcessiveLinesPerFunction");
    const many = Array.from({ length: 610 }, (_, i) => `export const v${i} = ${i};`).join("\n");
    const file = lint("src/core/sim/lint-probe.tmp.ts", `${many}\n`);
    expect(file.code).not.toBe(0);
    expect(file.report).toContain("noExcessiveLinesPerFile");
  });
});
