import { describe, expect, it } from "vitest";
import { FIRST_SCREEN_BUDGET, firstScreen, htmlEntries, report, staticImports, TOTAL_BUDGET, urlReferences } from "../../scripts/sizes";

describe("the size benchmark (scripts/sizes.ts)", () => {
  it("follows static imports and re-exports, not import()", () => {
    const code = 'import{a as b}from"./react-1.js";import"./side.js";export{c}from"../x/d.js";const L=()=>import("./Lazy-2.js");';
    expect(staticImports({ name: "assets/index-0.js", code })).toEqual(["assets/react-1.js", "assets/side.js", "x/d.js"]);
  });

  it("finds the worker the page starts by URL, only among built files", () => {
    const code = "new Worker(new URL(new URL(`sim.worker-9.js`,import.meta.url).href,import.meta.url));new URL(`nope.js`,import.meta.url)";
    expect(urlReferences({ name: "assets/index-0.js", code }, new Set(["assets/sim.worker-9.js"]))).toEqual(["assets/sim.worker-9.js"]);
  });

  it("reads index.html's module scripts and modulepreloads", () => {
    const html = '<script type="module" crossorigin src="./assets/index-0.js"></script><link rel="modulepreload" crossorigin href="./assets/react-1.js"><script src="x.js"></script>';
    expect(htmlEntries(html)).toEqual(["assets/index-0.js", "assets/react-1.js"]);
  });

  it("the first screen is the entries, their static imports and workers, transitively; lazy chunks are left out", () => {
    const files = [
      { name: "assets/index-0.js", code: 'import"./react-1.js";new URL(`w-3.js`,import.meta.url);import("./Lazy-2.js")' },
      { name: "assets/react-1.js", code: "" },
      { name: "assets/Lazy-2.js", code: 'import"./react-1.js";import"./d3-4.js"' },
      { name: "assets/w-3.js", code: 'import"./zod-5.js"' },
      { name: "assets/d3-4.js", code: "" },
      { name: "assets/zod-5.js", code: "" },
    ];
    expect(firstScreen(["assets/index-0.js"], files)).toEqual(["assets/index-0.js", "assets/react-1.js", "assets/w-3.js", "assets/zod-5.js"]);
  });

  it("prints OVER and fails when a budget is over, ok when under", () => {
    const under = report([{ name: "a.js", raw: 1, gzip: FIRST_SCREEN_BUDGET }, { name: "b.js", raw: 1, gzip: 1000 }], ["a.js"]);
    expect(under.over).toBe(false);
    expect(under.lines.filter((l) => l.startsWith("budget")).every((l) => l.endsWith(" ok"))).toBe(true);
    const firstOver = report([{ name: "a.js", raw: 1, gzip: FIRST_SCREEN_BUDGET + 1 }], ["a.js"]);
    expect(firstOver.over).toBe(true);
    expect(firstOver.lines).toContain("budget first screen: 170.0 KB of 170.0 KB gzipped OVER");
    const totalOver = report([{ name: "a.js", raw: 1, gzip: 1 }, { name: "b.js", raw: 1, gzip: TOTAL_BUDGET }], ["a.js"]);
    expect(totalOver.over).toBe(true);
    expect(totalOver.lines.at(-1)).toMatch(/^budget all JavaScript: .* OVER$/);
  });

  it("shows the lesson and scenario data (JSON) on a line of its own, outside the JavaScript budgets", () => {
    const js = [{ name: "a.js", raw: 10, gzip: FIRST_SCREEN_BUDGET }];
    const data = [
      { name: "assets/01-x.json", raw: 5000, gzip: 200_000 },
      { name: "assets/02-y.json", raw: 3000, gzip: 1000 },
    ];
    const r = report(js, ["a.js"], data);
    expect(r.over).toBe(false);
    expect(r.lines).toContain("lesson and scenario data (JSON, fetched when opened): 201.0 KB gzipped, 8.0 KB raw, in 2 files");
    expect(r.lines).toContain("all JavaScript: 170.0 KB gzipped, 0.0 KB raw");
  });
});
