/** `npm run sim -- --lesson FILE`: walks each lesson headless, as the tests do, and says where one stops. */
import { runLesson } from "../core/lesson/runner";
import type { Lesson } from "../core/lesson/schema";
import { formatInstant } from "../core/sim/time";

/** Prints each lesson's steps (or one JSON document) and returns whether every lesson ran to its end. */
export function runLessonFiles(lessons: readonly { file: string; lesson: Lesson }[], json: boolean, quiet: boolean): boolean {
  const results = lessons.map(({ file, lesson }) => ({ file, ...runLesson(lesson) }));
  if (json) {
    console.log(JSON.stringify({ lessons: results, ok: results.every((r) => r.ok) }, null, 1));
    return results.every((r) => r.ok);
  }
  for (const r of results) {
    console.log(`${r.ok ? "ok  " : "FAIL"} ${r.file}: lesson ${r.id}, ${r.steps.length} step(s) run`);
    if (!quiet || !r.ok) {
      for (const s of r.steps) {
        console.log(`     ${s.ok ? "ok  " : "FAIL"} step ${s.index + 1} (${s.kind}) from ${formatInstant(s.startUs)}${s.detail === "" ? "" : `: ${s.detail}`}`);
      }
    }
    if (r.failure !== null) console.log(`     ${r.failure}`);
    for (const v of r.violations) console.log(`     violation: ${v}`);
  }
  const failed = results.filter((r) => !r.ok).length;
  console.log(`${results.length - failed} of ${results.length} lesson(s) ran to their end`);
  return failed === 0;
}
