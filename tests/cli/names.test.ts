/**
 * One name, one meaning: no two modules in src/ export a declaration of the same name (two
 * `HolderView`s, one on the holder's clock and one on the simulator's, once sat side by side).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const src = join(import.meta.dirname, "../../src");
const DECLARED = /^export (?:declare )?(?:abstract )?(?:async )?(?:function\*?|const|let|class|interface|type|enum) ([A-Za-z0-9_$]+)/gm;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) return sources(p);
    return /\.tsx?$/.test(f) ? [p] : [];
  });
}

describe("exported names", () => {
  it("each is declared by one module only", () => {
    const where = new Map<string, string[]>();
    for (const file of sources(src)) {
      for (const m of readFileSync(file, "utf8").matchAll(DECLARED)) {
        const name = m[1] as string;
        where.set(name, [...(where.get(name) ?? []), relative(src, file)]);
      }
    }
    const twice = [...where].filter(([, files]) => files.length > 1).map(([name, files]) => `${name}: ${files.join(", ")}`);
    expect(where.size).toBeGreaterThan(300);
    expect(twice).toEqual([]);
  });
});
