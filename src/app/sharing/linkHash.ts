/**
 * Whether the address carries a share link (#run=…): all the first screen needs to know.
 * Decoding one (link.ts, with its compression and its check) loads only when there is one.
 */

/** The hash parameter that carries a run. */
export const HASH_KEY = "run";

/** The run payload in a URL hash ("#run=1.abc" -> "1.abc"), or null when the hash carries no run. */
export function runPayloadFromHash(hash: string): string | null {
  const h = hash.startsWith("#") ? hash.slice(1) : hash;
  if (h === "") return null;
  for (const part of h.split("&")) {
    const eq = part.indexOf("=");
    const key = eq < 0 ? part : part.slice(0, eq);
    if (key === HASH_KEY) return eq < 0 ? "" : part.slice(eq + 1);
  }
  return null;
}
