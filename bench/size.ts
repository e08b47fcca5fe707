/**
 * Size benchmark: the JavaScript in dist/ (raw and gzipped), what the first screen needs,
 * and the budgets (scripts/sizes.ts); and apart, the lesson and scenario files the build
 * ships as JSON (fetched when opened, not JavaScript). Exits 1 when a budget is over.
 *
 * Needs a build (`vite build`); `npm run bench:size` does that first.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { firstScreen, htmlEntries, type JsFile, report, sizeOf } from "../scripts/sizes";

const DIST = process.env.DIST ?? "dist";
if (!existsSync(join(DIST, "index.html"))) {
  console.error(`No build in ${DIST}/: run \`npx vite build\` first (npm run bench:size does).`);
  process.exit(1);
}

/** The built files whose names end in `ext`, as text. */
function filesEndingIn(ext: string, dir: string, prefix: string): JsFile[] {
  const out: JsFile[] = [];
  for (const entry of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const name = prefix ? `${prefix}/${entry.name}` : entry.name;
    // dist/bench holds the node benchmarks, not the app.
    if (entry.isDirectory() && name !== "bench") out.push(...filesEndingIn(ext, dir, name));
    else if (entry.isFile() && name.endsWith(ext)) out.push({ name, code: readFileSync(join(dir, name), "utf8") });
  }
  return out;
}

const files = filesEndingIn(".js", DIST, "");
const first = firstScreen(htmlEntries(readFileSync(join(DIST, "index.html"), "utf8")), files);
// The lesson and scenario files (src/app/dataFiles.ts) are the build's only .json files.
const { lines, over } = report(files.map(sizeOf), first, filesEndingIn(".json", DIST, "").map(sizeOf));
for (const line of lines) console.log(line);
if (over) process.exit(1);
