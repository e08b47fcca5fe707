/**
 * The page fetches the lesson and scenario files (src/app/dataFiles.ts); the tests, in Node,
 * read them from disk instead, on first use.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { readLessonFilesWith } from "../../src/app/lesson/catalog";
import { readScenarioFilesWith } from "../../src/app/library/catalog";

const ROOT = join(import.meta.dirname, "../..");

/** Every .json file in the folder (relative to the repository), by its path there, parsed. */
function jsonIn(folder: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of readdirSync(join(ROOT, folder))) {
    if (name.endsWith(".json")) out[`${folder}/${name}`] = JSON.parse(readFileSync(join(ROOT, folder, name), "utf8"));
  }
  return out;
}

readLessonFilesWith(() => jsonIn("lessons"));
readScenarioFilesWith(() => {
  const scenarios = readdirSync(join(ROOT, "scenarios"), { withFileTypes: true }).filter((d) => d.isDirectory());
  return Object.assign({}, ...scenarios.map((d) => jsonIn(`scenarios/${d.name}`)));
});
