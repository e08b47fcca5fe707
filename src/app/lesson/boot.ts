/** How the page opens a lesson: ?lesson=ID (and &step=N) against the bundled catalog. */
import type { Lesson } from "../../core/lesson/schema";
import type { ParsedParams } from "../params";
import { settingsFromScenario } from "../../worker/settings";
import type { Catalog } from "./catalog";
import { lessonParams } from "./progress";

export interface LessonBoot {
  readonly lesson: Lesson;
  /** The step to open at (from 0). */
  readonly step: number;
}

/**
 * The lesson the address asks for, and the page's parameters for it: the lesson's scenario
 * sets the run. An unknown id (or a lesson file that does not parse) is explained in the
 * page's notices and the normal lab opens.
 */
export function bootLesson(search: string, params: ParsedParams, catalogOf: () => Catalog): { params: ParsedParams; lesson?: LessonBoot } {
  const asked = lessonParams(search);
  if (asked === null) return { params };
  const catalog = catalogOf();
  const lesson = catalog.byId.get(asked.id);
  if (lesson === undefined) {
    const known = [...catalog.byId.keys()];
    const broken = catalog.entries.filter((e) => e.lesson === null).map((e) => `${e.file} (${e.errors.slice(0, 2).join("; ")})`);
    const problems = [
      `There is no lesson "${asked.id.slice(0, 40)}". ${known.length > 0 ? `The lessons are: ${known.join(", ")}.` : "No lesson could be loaded."}`,
      ...(broken.length > 0 ? [`These lesson files could not be used: ${broken.join("; ")}.`] : []),
      ...params.problems,
    ];
    return { params: { ...params, problems } };
  }
  const count = lesson.lesson.steps.length;
  const step = asked.step === null ? 0 : Math.min(asked.step, count) - 1;
  const problems = [
    ...(asked.problem === null ? [] : [asked.problem]),
    ...(asked.step !== null && asked.step > count ? [`Ignored ?step=${asked.step}: this lesson has ${count} steps, so it opens at the last one.`] : []),
  ];
  const settings = settingsFromScenario(lesson.scenario, { speed: params.settings.speed, autoplay: false });
  return { params: { settings, problems }, lesson: { lesson, step } };
}
