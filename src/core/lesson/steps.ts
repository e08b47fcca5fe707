/**
 * What the page and the lesson engine read from a lesson's steps, apart from its schema
 * (schema.ts, with zod): a page that shows a lesson's panels or words loads no schema library.
 */
import { type ObserverNeeds, observerNeeds } from "../scenario/observer";
import type { Expectation } from "../scenario/schema";
import type { LessonSection, LessonStep } from "./schema";

/** The panels a step may point at. */
export const PANELS = ["cluster", "lease-timeline", "holders", "storage", "log", "space-time", "events", "checkers", "time-travel"] as const;

/** The conditions a step waits on or checks: a play step's `until` or `throughout`, a question's reveal. */
export function stepConditions(step: LessonStep): Expectation[] {
  const cs = step.kind === "play" ? [step.until, step.throughout] : step.kind === "predict" ? [step.reveal.until] : [];
  return cs.filter((c): c is Expectation => c !== undefined);
}

/** What a lesson's RunObserver records for its conditions (message types, refusals, lease events). */
export function lessonObserverNeeds(lesson: LessonSection): ObserverNeeds {
  return observerNeeds(lesson.steps.flatMap(stepConditions));
}

/** The glossary terms a step's words mark with [[term]] (or [[term|shown words]]). */
export function markedTerms(text: string): string[] {
  return [...text.matchAll(/\[\[([^\]|]+)(?:\|[^\]]*)?\]\]/g)].map((m) => (m[1] as string).trim().toLowerCase());
}

/** Every piece of prose in a lesson, for the glossary check and the page. */
export function lessonTexts(l: LessonSection): string[] {
  return l.steps.flatMap((s) => {
    switch (s.kind) {
      case "narrate":
        return [s.text];
      case "play":
      case "act":
        return s.text === undefined ? [] : [s.text];
      case "your-turn":
        return s.hint === undefined ? [s.text] : [s.text, s.hint];
      case "predict":
        return [s.text, ...s.choices.flatMap((c) => [c.text, c.feedback])];
      default: {
        const unhandled: never = s;
        throw new Error(`lessonTexts: unhandled step ${(unhandled as LessonStep).kind}`);
      }
    }
  });
}
