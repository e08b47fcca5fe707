/** How far the learner got in each lesson, kept in the browser (localStorage), one key per lesson. */

export interface LessonProgress {
  /** The furthest step reached (from 0). */
  readonly reached: number;
  /** The last step was reached. */
  readonly done: boolean;
}

export function progressKey(id: string): string {
  return `lease-lab.lesson.${id}`;
}

/** The saved progress, or null (none yet, or no storage). */
export function loadProgress(id: string, storage: Pick<Storage, "getItem"> | null = safeStorage()): LessonProgress | null {
  try {
    const raw = storage?.getItem(progressKey(id));
    if (raw === null || raw === undefined) return null;
    const p = JSON.parse(raw) as Partial<LessonProgress>;
    if (typeof p.reached !== "number" || !Number.isInteger(p.reached) || p.reached < 0) return null;
    return { reached: p.reached, done: p.done === true };
  } catch {
    return null;
  }
}

/** Saves that step `reached` (from 0) of `count` was reached; progress never goes down. */
export function saveProgress(id: string, reached: number, count: number, storage: Pick<Storage, "getItem" | "setItem"> | null = safeStorage()): void {
  if (storage === null) return;
  const old = loadProgress(id, storage);
  const next: LessonProgress = {
    reached: Math.max(reached, old?.reached ?? 0),
    done: (old?.done ?? false) || reached >= count - 1,
  };
  if (old !== null && old.reached === next.reached && old.done === next.done) return;
  try {
    storage.setItem(progressKey(id), JSON.stringify(next));
  } catch {
    // Storage full or refused: progress is a convenience.
  }
}

/** The page's localStorage, or null where there is none or it is refused. */
export function safeStorage(): Storage | null {
  try {
    return typeof localStorage === "undefined" ? null : localStorage;
  } catch {
    return null;
  }
}

/** `?lesson=ID&step=N`: the lesson asked for, and its step (N from 1; null without one). */
export function lessonParams(search: string): { id: string; step: number | null; problem: string | null } | null {
  const q = new URLSearchParams(search);
  const id = q.get("lesson");
  if (id === null) return null;
  const raw = q.get("step");
  if (raw === null) return { id, step: null, problem: null };
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || n < 1) return { id, step: null, problem: `Ignored ?step=${raw.slice(0, 20)}: a step is a whole number from 1.` };
  return { id, step: n, problem: null };
}

/** The address of step `index` (from 0) of lesson `id`, keeping every other query field and the hash. */
export function stepAddress(location: Pick<Location, "pathname" | "search" | "hash">, id: string, index: number): string {
  const q = new URLSearchParams(location.search);
  q.set("lesson", id);
  q.set("step", String(index + 1));
  return `${location.pathname}?${q.toString()}${location.hash}`;
}
