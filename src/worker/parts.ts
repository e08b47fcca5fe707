/**
 * The parts of the worker a first run does not need, loaded on demand so the worker's
 * first chunk stays small (issue 15, part 4): the reads' check and figures and the
 * scenario export (toolsPart.ts), and the lesson player with the expectation tracker
 * (lessonsPart.ts), and live mode's shadow and replay (livePart.ts).
 *
 * sim.worker.ts loads the part a message needs before the host handles it (partsFor), in
 * message order; the host takes each part from here, and says so plainly if one is missing.
 * Node (tests, benchmarks) loads them all first (loadAllParts).
 */
import type { ToWorker } from "./protocol";

type ToolsPart = typeof import("./toolsPart");
type LessonsPart = typeof import("./lessonsPart");
type LivePart = typeof import("./livePart");

let tools: ToolsPart | null = null;
let lessons: LessonsPart | null = null;
let live: LivePart | null = null;

async function loadLive(): Promise<void> {
  live ??= await import("./livePart");
}

export function livePart(): LivePart {
  if (live === null) throw missing("live mode");
  return live;
}

async function loadTools(): Promise<void> {
  tools ??= await import("./toolsPart");
}

async function loadLessons(): Promise<void> {
  lessons ??= await import("./lessonsPart");
}

function missing(what: string): Error {
  return new Error(`the simulation's ${what} could not be loaded (is the page offline?): reload the page to try again`);
}

export function toolsPart(): ToolsPart {
  if (tools === null) throw missing("tools for reads and exports");
  return tools;
}

export function lessonsPart(): LessonsPart {
  if (lessons === null) throw missing("lesson player");
  return lessons;
}

/** What must load before the host handles `msg`, or null when nothing must. */
export function partsFor(msg: ToWorker): Promise<void> | null {
  const needTools = msg.type === "check-reads" || msg.type === "measure-reads" || msg.type === "export" || (msg.type === "restart" && msg.reads !== undefined);
  // A lesson, or an opened scenario whose expectations are checked as it runs.
  const needLessons = msg.type.startsWith("lesson-") || (msg.type === "start" && (msg.scenario?.expect.length ?? 0) > 0);
  if (msg.type.startsWith("live-") && live === null) return loadLive();
  if (needTools && tools === null) return loadTools();
  if (needLessons && lessons === null) return loadLessons();
  return null;
}

/** Every part, for Node (the tests and benchmarks drive the host directly). */
export async function loadAllParts(): Promise<void> {
  await Promise.all([loadTools(), loadLessons(), loadLive()]);
}
