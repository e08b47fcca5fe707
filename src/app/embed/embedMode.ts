/**
 * Embed mode (?embed=1): the cluster and its controls only, for an iframe in a slide
 * (800×450 and up), with a link that opens the same run in the full lab.
 */

/** Whether an address asks for embed mode: ?embed=1 (or true, yes, on). */
export function isEmbed(search: string): boolean {
  const v = new URLSearchParams(search).get("embed");
  return v !== null && ["1", "true", "yes", "on", ""].includes(v.trim().toLowerCase());
}

/**
 * Read once, as the page's modules load: the page later rewrites its query to name the run
 * (?seed=…), which drops embed=1, and the page must stay embedded.
 */
const EMBEDDED = typeof window !== "undefined" && isEmbed(window.location.search);

export function embedded(): boolean {
  return EMBEDDED;
}

/** The full lab's address for the run on screen: this address (its query and its #run=… link, kept up to date by the page) without embed. */
export function fullLabHref(href: string): string {
  const url = new URL(href);
  url.searchParams.delete("embed");
  return url.href;
}
