/**
 * Where a visitor was, so the bare address (`/`) takes them back there: the lesson they were
 * in (at the step they reached), or the lab. A first visit (nothing saved) opens the welcome.
 * An address with anything in it (?seed=, ?lesson=, a share link) opens what it names.
 */
import type { Catalog } from "../lesson/catalog";
import { loadProgress, safeStorage } from "../lesson/progress";

const LAST_KEY = "lease-lab.last";

/** Where the visitor was last: in a lesson (by id), or in the lab. */
export type LastVisit = { readonly lesson: string } | "lab";

/** The address names nothing: no query, no hash. */
export function isBareAddress(search: string, hash: string): boolean {
  return (search === "" || search === "?") && (hash === "" || hash === "#");
}

export function loadLastVisit(storage: Pick<Storage, "getItem"> | null = safeStorage()): LastVisit | null {
  try {
    const raw = storage?.getItem(LAST_KEY);
    if (raw === null || raw === undefined) return null;
    if (raw === "lab") return "lab";
    const v = JSON.parse(raw) as { lesson?: unknown };
    return typeof v.lesson === "string" && /^[a-z0-9-]{1,40}$/.test(v.lesson) ? { lesson: v.lesson } : null;
  } catch {
    return null;
  }
}

export function saveLastVisit(v: LastVisit, storage: Pick<Storage, "setItem"> | null = safeStorage()): void {
  try {
    storage?.setItem(LAST_KEY, v === "lab" ? "lab" : JSON.stringify(v));
  } catch {
    // Storage full or refused: coming back to the same place is a convenience.
  }
}

/**
 * What the bare address opens: the unfinished lesson the visitor was in ("?lesson=ID&step=N"
 * at the furthest step reached), the lab (null), or the welcome, for a first visit.
 */
export function bareAddressOpens(
  catalog: Catalog,
  storage: Pick<Storage, "getItem"> | null = safeStorage(),
): { readonly search: string } | "lab" | "welcome" {
  const last = loadLastVisit(storage);
  if (last === null) return "welcome";
  if (last === "lab") return "lab";
  const lesson = catalog.byId.get(last.lesson);
  if (lesson === undefined) return "lab";
  const p = loadProgress(last.lesson, storage);
  if (p?.done) return "lab";
  const step = Math.min((p?.reached ?? 0) + 1, lesson.lesson.steps.length);
  return { search: `?lesson=${encodeURIComponent(last.lesson)}&step=${step}` };
}
