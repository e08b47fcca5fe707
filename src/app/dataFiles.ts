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
