/**
 * The course: every lesson file in lessons/, validated with parseLesson. The files are data,
 * not code: the build ships them as JSON files beside the page (cached for offline use like
 * the rest), fetched when the course or a lesson is first opened (loadLessons). Node
 * (the tests) hands them in read from disk (readLessonFilesWith). A file that does not parse, or
 * cannot be fetched, is listed with its errors (the page says so when it is asked for); it
 * never stops the page.
 */
import { type Lesson, parseLesson } from "../../core/lesson/schema";
import { dataSet, FileProblem, type JsonFiles } from "../dataFiles";

export interface CatalogEntry {
  /** The file's name ("07-fencing.json"). */
  readonly file: string;
  readonly lesson: Lesson | null;
  /** Why it could not be used (empty when it parsed). */
  readonly errors: readonly string[];
}

export interface Catalog {
  /** Every lesson file, in course order (by `order`, then file name); broken ones last. */
  readonly entries: readonly CatalogEntry[];
  /** The lessons that parsed, by id. */
  readonly byId: ReadonlyMap<string, Lesson>;
}

function fileName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/** Parses each file's JSON (path -> parsed JSON); the glossary file is not a lesson. */
export function buildCatalog(files: Readonly<Record<string, unknown>>): Catalog {
  const entries: CatalogEntry[] = [];
  const byId = new Map<string, Lesson>();
  for (const [path, json] of Object.entries(files)) {
    const file = fileName(path);
    if (file === "glossary.json") continue;
    if (json instanceof FileProblem) {
      entries.push({ file, lesson: null, errors: [json.message] });
      continue;
    }
    let r: ReturnType<typeof parseLesson>;
    try {
      r = parseLesson(json);
    } catch (e) {
      r = { ok: false, errors: [`could not be read: ${e instanceof Error ? e.message : String(e)}`] };
    }
    if (!r.ok) {
      entries.push({ file, lesson: null, errors: r.errors });
      continue;
    }
    const id = r.lesson.lesson.id;
    if (byId.has(id)) {
      entries.push({ file, lesson: null, errors: [`lesson.id: "${id}" is already the id of another lesson`] });
      continue;
    }
    byId.set(id, r.lesson);
    entries.push({ file, lesson: r.lesson, errors: [] });
  }
  const rank = (e: CatalogEntry): number => (e.lesson === null ? Number.POSITIVE_INFINITY : e.lesson.lesson.order);
  entries.sort((a, b) => rank(a) - rank(b) || a.file.localeCompare(b.file));
  return { entries, byId };
}

/** A glossary file: term -> definition. Terms are looked up without regard to case. */
export function buildGlossary(json: unknown): ReadonlyMap<string, string> {
  const terms = new Map<string, string>();
  if (typeof json !== "object" || json === null || Array.isArray(json)) return terms;
  for (const [term, definition] of Object.entries(json)) {
    if (typeof definition === "string") terms.set(term.trim().toLowerCase(), definition);
  }
  return terms;
}

/** Each lesson file (and the glossary) as the address of its JSON file in the build. */
const LESSON_URLS = import.meta.glob<string>("../../../lessons/*.json", { query: "?url&no-inline", import: "default", eager: true });

interface Course {
  readonly catalog: Catalog;
  /** Term (lower case) -> definition. */
  readonly glossary: ReadonlyMap<string, string>;
  /** The terms as written, in alphabetical order, for the glossary page. */
  readonly terms: readonly (readonly [term: string, definition: string])[];
}

function courseOf(files: JsonFiles): Course {
  const glossaryJson = Object.entries(files).find(([path]) => fileName(path) === "glossary.json")?.[1] ?? {};
  const terms =
    typeof glossaryJson === "object" && glossaryJson !== null && !Array.isArray(glossaryJson)
      ? Object.entries(glossaryJson as Record<string, unknown>)
          .filter((e): e is [string, string] => typeof e[1] === "string")
          .sort(([a], [b]) => a.localeCompare(b, "en", { sensitivity: "base" }))
      : [];
  return { catalog: buildCatalog(files), glossary: buildGlossary(glossaryJson), terms };
}

const lessons = dataSet(LESSON_URLS, courseOf, "the lessons");

/** Node (tests): where the lesson files come from instead of fetching them (path -> parsed JSON), read on first use. */
export const readLessonFilesWith = lessons.readWith;

/** Fetches and parses the lessons and the glossary once (the same promise every call). Never rejects: a file that cannot be fetched is a broken entry. */
export const loadLessons = lessons.load;

/** The lessons if they are loaded (or Node gave their files), else null. */
export function loadedLessonCatalog(): Catalog | null {
  return lessons.loaded()?.catalog ?? null;
}

/** The lessons shipped with the page; loadLessons must have settled first (the page awaits it before showing any lesson). */
export function lessonCatalog(): Catalog {
  return lessons.get().catalog;
}

/** The glossary (lessons/glossary.json): term (lower case) -> definition. Loaded with the lessons. */
export function glossary(): ReadonlyMap<string, string> {
  return lessons.get().glossary;
}

/** The same terms as written, in alphabetical order, for the glossary page. */
export function glossaryTerms(): readonly (readonly [term: string, definition: string])[] {
  return lessons.get().terms;
}
