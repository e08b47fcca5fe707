/**
 * How much JavaScript the built app ships (issue 15, part 4). Pure functions over the
 * built files' text, so tests need no build; `bench/size.ts` runs them on dist/.
 *
 * The first screen needs the page's entry scripts (index.html's module scripts and
 * modulepreloads), everything they import statically, and the simulation worker they
 * start (a `new URL("….js", import.meta.url)` reference) with its own static imports.
 * Chunks reached only by `import()` load later, when their part of the page is opened.
 */
import { gzipSync } from "node:zlib";

/** Budgets, in gzipped bytes (1 KB = 1000 bytes). */
export const FIRST_SCREEN_BUDGET = 170_000;
export const TOTAL_BUDGET = 300_000;

export interface JsFile {
  /** Path relative to dist/, with / separators, e.g. "assets/index-abc.js". */
  name: string;
  code: string;
}

export interface FileSize {
  name: string;
  raw: number;
  gzip: number;
}

/** Resolves a relative import ("./x.js", "../x.js") against the importing file's path. */
function resolve(from: string, spec: string): string {
  const parts = from.split("/").slice(0, -1);
  for (const p of spec.split("/")) {
    if (p === "..") parts.pop();
    else if (p !== "." && p !== "") parts.push(p);
  }
  return parts.join("/");
}

const STATIC_IMPORT = /\b(?:import|export)\s*(?:[\w$*{}\s,]*?\s*from\s*)?["'`](\.{1,2}\/[^"'`]+\.js)["'`]/g;
const URL_REFERENCE = /new URL\(\s*(?:new URL\(\s*)?["'`]([^"'`]+\.js)["'`]/g;

/** The files a chunk imports statically (not `import()`), as paths relative to dist/. */
export function staticImports(file: JsFile): string[] {
  return [...file.code.matchAll(STATIC_IMPORT)].map((m) => resolve(file.name, m[1] as string));
}

/** Scripts a chunk starts by URL (workers): `new URL("x.js", import.meta.url)`. */
export function urlReferences(file: JsFile, known: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const m of file.code.matchAll(URL_REFERENCE)) {
    const spec = m[1] as string;
    const candidates = [resolve(file.name, spec.startsWith(".") ? spec : `./${spec}`), spec.replace(/^\.?\//, "")];
    const hit = candidates.find((c) => known.has(c));
    if (hit) out.push(hit);
  }
  return out;
}

/** The module scripts and modulepreloads index.html loads, relative to dist/. */
export function htmlEntries(html: string): string[] {
  const out: string[] = [];
  for (const m of html.matchAll(/<script\b[^>]*\btype="module"[^>]*\bsrc="([^"]+)"/g)) out.push(m[1] as string);
  for (const m of html.matchAll(/<link\b[^>]*\brel="modulepreload"[^>]*\bhref="([^"]+)"/g)) out.push(m[1] as string);
  return out.map((p) => p.replace(/^\.?\//, ""));
}

/** Everything the first screen loads: the entries, their static imports, and the workers they start, transitively. */
export function firstScreen(entries: readonly string[], files: readonly JsFile[]): string[] {
  const byName = new Map(files.map((f) => [f.name, f]));
  const known = new Set(byName.keys());
  const seen = new Set<string>();
  const todo = [...entries];
  while (todo.length > 0) {
    const name = todo.pop() as string;
    if (seen.has(name)) continue;
    const file = byName.get(name);
    if (!file) continue;
    seen.add(name);
    todo.push(...staticImports(file), ...urlReferences(file, known));
  }
  return [...seen].sort();
}

export function sizeOf(file: JsFile): FileSize {
  const bytes = Buffer.from(file.code);
  return { name: file.name, raw: bytes.length, gzip: gzipSync(bytes).length };
}

const kb = (n: number) => `${(n / 1000).toFixed(1)} KB`;

export interface SizeReport {
  lines: string[];
  over: boolean;
}

/**
 * The printed report: every file, the two totals, the lesson and scenario data (JSON files
 * fetched when opened: shown, never counted against the JavaScript budgets), and a budget line
 * for each (OVER when over).
 */
export function report(sizes: readonly FileSize[], first: readonly string[], data: readonly FileSize[] = []): SizeReport {
  const lines: string[] = [];
  const firstSet = new Set(first);
  const width = Math.max(...sizes.map((s) => s.name.length), 4);
  lines.push(`${"file".padEnd(width)}  ${"raw".padStart(10)}  ${"gzip".padStart(10)}  first screen`);
  for (const s of [...sizes].sort((a, b) => b.gzip - a.gzip)) {
    lines.push(`${s.name.padEnd(width)}  ${kb(s.raw).padStart(10)}  ${kb(s.gzip).padStart(10)}  ${firstSet.has(s.name) ? "yes" : ""}`);
  }
  const firstGzip = sizes.filter((s) => firstSet.has(s.name)).reduce((a, s) => a + s.gzip, 0);
  const totalGzip = sizes.reduce((a, s) => a + s.gzip, 0);
  const totalRaw = sizes.reduce((a, s) => a + s.raw, 0);
  lines.push(`first screen (page + worker): ${kb(firstGzip)} gzipped`);
  lines.push(`all JavaScript: ${kb(totalGzip)} gzipped, ${kb(totalRaw)} raw`);
  const dataGzip = data.reduce((a, s) => a + s.gzip, 0);
  const dataRaw = data.reduce((a, s) => a + s.raw, 0);
  lines.push(`lesson and scenario data (JSON, fetched when opened): ${kb(dataGzip)} gzipped, ${kb(dataRaw)} raw, in ${data.length} files`);
  const budget = (what: string, value: number, limit: number) =>
    `budget ${what}: ${kb(value)} of ${kb(limit)} gzipped ${value <= limit ? "ok" : "OVER"}`;
  lines.push(budget("first screen", firstGzip, FIRST_SCREEN_BUDGET));
  lines.push(budget("all JavaScript", totalGzip, TOTAL_BUDGET));
  return { lines, over: firstGzip > FIRST_SCREEN_BUDGET || totalGzip > TOTAL_BUDGET };
}
