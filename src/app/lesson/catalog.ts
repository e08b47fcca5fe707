/**
 * The course: every lesson file in lessons/, bundled into the page and validated with
 * parseLesson. A file that does not parse is listed with its errors (the page says so when
 * it is asked for); it never stops the page.
 */
import { type Lesson, parseLesson } from "../../core/lesson/schema";
import glossaryFile from "../../../lessons/glossary.json";

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

let bundled: Catalog | null = null;

/** The lessons bundled with the page (parsed once, on first use). */
export function lessonCatalog(): Catalog {
  bundled ??= buildCatalog(import.meta.glob("../../../lessons/*.json", { eager: true, import: "default" }));
  return bundled;
}

/** The glossary bundled with the page (lessons/glossary.json): term (lower case) -> definition. */
export const GLOSSARY: ReadonlyMap<string, string> = buildGlossary(glossaryFile);

/** The same terms as written, in alphabetical order, for the glossary page. */
export const GLOSSARY_TERMS: readonly (readonly [term: string, definition: string])[] = Object.entries(glossaryFile as Record<string, string>).sort(
  ([a], [b]) => a.localeCompare(b, "en", { sensitivity: "base" }),
);
