/**
 * The lesson format (docs/lessons.md): a scenario file (seed, settings, actions) with a
 * `lesson` section of steps. Steps narrate, play the engine until a condition holds, act,
 * ask the learner to act, or ask a question before the engine shows the answer. Every wait
 * is one of the scenario format's expectations, so a lesson is a claim about behaviour that
 * runs headless (lesson/runner.ts) and fails the day the behaviour changes.
 */
import { z } from "zod/mini";
import { duration, procRef } from "../scenario/fields";
import { actionSchema, expectationSchema, type ParseResult as ScenarioParse, parseScenario, type Scenario } from "../scenario/schema";
import { clip } from "../sim/time";
import { PANELS } from "./steps";

/** Where a step points: a process (node, holder, client, storage), a type of message, a lease's lane, or a panel (PANELS). */
const highlight = z.union([
  z.strictObject({ proc: procRef }),
  z.strictObject({ message: z.string().check(z.minLength(1)) }),
  z.strictObject({ lease: z.string().check(z.minLength(1)) }),
  z.strictObject({ panel: z.enum(PANELS) }),
]);

/** Prose: a few sentences; glossary terms are marked [[term]] (each must be in lessons/glossary.json). */
const prose = z.string().check(z.minLength(1), z.maxLength(1500));

/** A wait: one of the scenario format's expectations, without `at` or `within` (the step's own `within` bounds it). */
const condition = expectationSchema.check(
  z.refine((e) => e.at === undefined && e.within === undefined, {
    message: "a lesson's condition has no `at` or `within`: the step's `within` bounds the wait",
  }),
);

/** An action as a scenario file writes it, without `at` (a lesson acts at the step's moment). */
const lessonAction = z.pipe(
  z.pipe(
    z.record(z.string(), z.unknown()).check(z.refine((a) => !("at" in a), { message: "a lesson's action has no `at`: it happens at its step" })),
    z.transform((a: Record<string, unknown>) => ({ ...a, at: 0 }) as z.input<typeof actionSchema>),
  ),
  actionSchema,
);

const common = {
  title: z.optional(z.string().check(z.minLength(1), z.maxLength(80))),
  highlight: z.optional(z.array(highlight).check(z.maxLength(8))),
};

const step = z.discriminatedUnion("kind", [
  /** Words on screen; time stands still. */
  z.strictObject({ ...common, kind: z.literal("narrate"), text: prose }),
  /**
   * The engine runs (at `speed` in the page) until `until` holds; after `within` of virtual
   * time the step says it did not happen. Or, with `for` and no condition, it runs that long
   * ("two seconds pass"); with `throughout` as well, that condition must hold the whole time
   * ("the lock stays free for five seconds"), or the step fails at the moment it stops.
   */
  z
    .strictObject({
      ...common,
      kind: z.literal("play"),
      text: z.optional(prose),
      until: z.optional(condition),
      within: z.optional(duration),
      for: z.optional(duration),
      throughout: z.optional(condition),
      speed: z.optional(z.number().check(z.positive(), z.maximum(100))),
    })
    .check(
      z.refine(
        (s) => (s.until !== undefined && s.within !== undefined && s.for === undefined) || (s.until === undefined && s.within === undefined && s.for !== undefined),
        { message: "a play step either waits `until` a condition (with `within`), or runs `for` a while" },
      ),
      z.refine((s) => s.throughout === undefined || s.for !== undefined, { message: "`throughout` goes with `for`: the condition must hold for that long" }),
    ),
  /** The lesson does something, shown as a user's action would be. */
  z.strictObject({ ...common, kind: z.literal("act"), text: z.optional(prose), do: lessonAction }),
  /**
   * The learner does it: the step waits for an action of this kind on this target (a role
   * such as "leader" is resolved when the learner acts), and offers "Do it for me".
   */
  z.strictObject({ ...common, kind: z.literal("your-turn"), text: prose, do: lessonAction, hint: z.optional(prose) }),
  /**
   * A question before the answer: the learner picks a choice, reads the feedback on it, then
   * the engine plays until `reveal` holds, which is what makes the correct choice true.
   */
  z.strictObject({
    ...common,
    kind: z.literal("predict"),
    text: prose,
    choices: z
      .array(z.strictObject({ text: z.string().check(z.minLength(1), z.maxLength(200)), correct: z._default(z.boolean(), false), feedback: prose }))
      .check(
        z.minLength(2),
        z.maxLength(6),
        z.refine((cs) => cs.filter((c) => c.correct).length === 1, { message: "exactly one choice is correct" }),
      ),
    reveal: z.strictObject({ until: condition, within: duration, speed: z.optional(z.number().check(z.positive(), z.maximum(100))) }),
  }),
]);

export const lessonSectionSchema = z.strictObject({
  /** Short and stable: the course menu, progress and ?lesson= links use it. */
  id: z.string().check(z.regex(/^[a-z0-9-]{1,40}$/, "an id is 1 to 40 lower-case letters, digits and dashes")),
  title: z.string().check(z.minLength(1), z.maxLength(80)),
  /** One sentence for the course menu. */
  summary: z.string().check(z.minLength(1), z.maxLength(300)),
  /** About how long it takes (the course asks for 3 to 8). */
  minutes: z.number().check(z.int(), z.minimum(1), z.maximum(30)),
  /** Its place in the course (1, 2, ...). */
  order: z.number().check(z.int(), z.minimum(1), z.maximum(99)),
  steps: z.array(step).check(z.minLength(1), z.maxLength(60)),
  /** Public sources, cited at the end. */
  sources: z._default(z.array(z.strictObject({ title: z.string().check(z.minLength(1)), url: z.url() })).check(z.maxLength(10)), []),
});

export type LessonSection = z.output<typeof lessonSectionSchema>;
export type LessonStep = LessonSection["steps"][number];
export interface Lesson {
  readonly scenario: Scenario;
  readonly lesson: LessonSection;
}

export type LessonParse = { ok: true; lesson: Lesson } | { ok: false; errors: string[] };

/** Validates a lesson file's JSON: the scenario part with the scenario schema, the `lesson` section with its own. */
export function parseLesson(input: unknown): LessonParse {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return { ok: false, errors: ["a lesson file is a JSON object"] };
  const { lesson, ...rest } = input as Record<string, unknown>;
  if (lesson === undefined) return { ok: false, errors: ["lesson: missing (a lesson file is a scenario with a `lesson` section)"] };
  const scenario: ScenarioParse = parseScenario(rest);
  const section = lessonSectionSchema.safeParse(lesson);
  const errors = [
    ...(scenario.ok ? [] : scenario.errors),
    ...(section.success ? [] : section.error.issues.slice(0, 50).map((i) => `lesson.${i.path.map(String).join(".")}: ${clip(i.message, 200)}`)),
  ];
  if (!scenario.ok || !section.success) return { ok: false, errors };
  return { ok: true, lesson: { scenario: scenario.scenario, lesson: section.data } };
}

export function parseLessonText(text: string): LessonParse {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { ok: false, errors: [`not valid JSON: ${clip((e as Error).message, 200)}`] };
  }
  return parseLesson(json);
}
