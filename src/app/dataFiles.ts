/**
 * The lesson and scenario files ship as JSON files beside the page, not inside its
 * JavaScript (issue 15, part 4): fetched when the course, a lesson or the library is first
 * opened, and cached by the service worker with the rest of the build for offline use.
 */

/** Path (as in the source tree) -> the file's parsed JSON, or a FileProblem when it could not be fetched. */
export type JsonFiles = Readonly<Record<string, unknown>>;

/** Stands for a file that could not be fetched; the catalogs list it with this reason. */
export class FileProblem extends Error {}

/** Fetches every file (path -> address) at once; one that fails becomes a FileProblem, never a rejection. */
export async function fetchFiles(urls: Readonly<Record<string, string>>): Promise<JsonFiles> {
  const entries = await Promise.all(
    Object.entries(urls).map(async ([path, url]): Promise<[string, unknown]> => {
      try {
        const res = await fetch(url);
        if (!res.ok) return [path, new FileProblem(`the server answered ${res.status} ${res.statusText}`.trim())];
        return [path, await res.json()];
      } catch (e) {
        return [path, new FileProblem(`it could not be fetched (is the page offline?): ${e instanceof Error ? e.message : String(e)}`)];
      }
    }),
  );
  return Object.fromEntries(entries);
}

/** A set of data files made into one value (the course, the library): fetched once in the page, read from disk in Node. */
export interface DataSet<T> {
  /** Fetches the files and builds the value once: every call gives the same promise (React's `use` needs that). Never rejects. */
  readonly load: () => Promise<T>;
  /** The value if it is built (or Node gave the files), else null. */
  readonly loaded: () => T | null;
  /** The value; load() must have settled first (the page awaits it before showing what needs it). */
  readonly get: () => T;
  /** Node (tests): where the files come from instead of fetching them (path -> parsed JSON), read on first use. */
  readonly readWith: (read: () => JsonFiles) => void;
}

/** `what` names the set in the error of a get() before load() ("the lessons"). */
export function dataSet<T>(urls: Readonly<Record<string, string>>, build: (files: JsonFiles) => T, what: string): DataSet<T> {
  let value: T | null = null;
  let loading: Promise<T> | null = null;
  let disk: (() => JsonFiles) | null = null;
  const loaded = (): T | null => {
    if (value === null && disk !== null) value = build(disk());
    return value;
  };
  return {
    load: () => {
      if (loading === null) {
        const now = loaded();
        loading = now !== null ? Promise.resolve(now) : fetchFiles(urls).then((files) => (value = build(files)));
      }
      return loading;
    },
    loaded,
    get: () => {
      const v = loaded();
      if (v === null) throw new Error(`${what} are not loaded yet (load them first)`);
      return v;
    },
    readWith: (read) => {
      disk = read;
      value = null;
      loading = null;
    },
  };
}
