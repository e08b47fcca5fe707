/**
 * Offline once loaded: at build time, a service worker (dist/sw.js) that caches the whole
 * build on first visit (every chunk, lazy ones included, the worker and public/), and the
 * few lines in index.html that register it. Only in `vite build`: `npm run dev` has none.
 *
 * - Pages (navigations) go to the network first, so a new deploy shows at once; offline,
 *   the cached page answers, whatever its query (?embed=1, ?seed=…).
 * - Everything else comes from the cache first (file names carry content hashes).
 * - Caches are named by the service worker's scope and the build's contents, so two
 *   deploys on one host (two sub-paths) keep apart, and a new build replaces the old cache
 *   once no tab runs the old one (the browser's usual update cycle; no skipWaiting).
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import type { Plugin } from "vite";

/** Registers ./sw.js, relative to the page, so it works from any sub-path. Not on file:// (no service workers there). */
export const REGISTER_SW = `if ("serviceWorker" in navigator && location.protocol !== "file:") addEventListener("load", () => { navigator.serviceWorker.register("./sw.js").catch(() => {}); });`;

/** The service worker's source: `files` are paths relative to it ("assets/index-abc.js"); `version` names its cache. */
export function serviceWorkerSource(files: readonly string[], version: string): string {
  return `// Lease Lab's service worker: built by scripts/deploy.ts. Caches the app so it opens offline once loaded.
const FILES = ${JSON.stringify(["./", ...files])};
const PREFIX = "lease-lab:" + self.registration.scope + ":";
const CACHE = PREFIX + ${JSON.stringify(version)};
self.addEventListener("install", (e) => {
  // No skipping the wait: a tab still running the previous build keeps its cache (its lazy chunks) until every tab of it is closed.
  e.waitUntil(caches.open(CACHE).then((c) => c.addAll(FILES)));
});
self.addEventListener("activate", (e) => {
  e.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith(PREFIX) && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});
self.addEventListener("fetch", (e) => {
  const req = e.request;
  if (req.method !== "GET" || !req.url.startsWith(self.registration.scope)) return;
  if (req.mode === "navigate") {
    e.respondWith(fetch(req).catch(() => caches.open(CACHE).then((c) => c.match("./")).then((hit) => hit || Response.error())));
    return;
  }
  e.respondWith(caches.open(CACHE).then((c) => c.match(req, { ignoreSearch: true })).then((hit) => hit || fetch(req)));
});
`;
}

/** Every file under `dir`, as "/"-separated paths relative to it. */
export function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(dir, p).split(sep).join("/"));
    }
  };
  walk(dir);
  return out.sort();
}

/** The files the service worker caches: the build's output (no source maps, not index.html: it is "./") and public/'s files. */
export function cachedFiles(bundleFiles: readonly string[], publicFiles: readonly string[]): string[] {
  const keep = (f: string): boolean => !f.endsWith(".map") && f !== "index.html" && f !== "sw.js";
  return [...new Set([...bundleFiles, ...publicFiles].filter(keep))].sort();
}

export function offline(): Plugin {
  let publicDir = "";
  return {
    name: "lease-lab:offline",
    apply: "build",
    enforce: "post",
    configResolved(config) {
      publicDir = config.publicDir;
    },
    transformIndexHtml: () => [{ tag: "script", children: REGISTER_SW, injectTo: "body" }],
    generateBundle(_options, bundle) {
      const publicFiles = publicDir === "" ? [] : listFiles(publicDir);
      const files = cachedFiles(Object.keys(bundle), publicFiles);
      const hash = createHash("sha256");
      for (const f of files) hash.update(f).update("\0");
      for (const f of publicFiles) hash.update(readFileSync(join(publicDir, f)));
      const index = bundle["index.html"];
      if (index !== undefined && index.type === "asset") hash.update(index.source);
      this.emitFile({ type: "asset", fileName: "sw.js", source: serviceWorkerSource(files, hash.digest("hex").slice(0, 16)) });
    },
  };
}

/**
 * Link previews (a course page, a chat) need the preview image's absolute address, which a
 * relative build cannot know. `SITE_URL=https://host/path/ npm run build` writes it into
 * og:image and og:url; without it they stay relative (most previews then show the text only).
 */
export function sitePreview(siteUrl = process.env.SITE_URL): Plugin {
  return {
    name: "lease-lab:site-preview",
    apply: "build",
    transformIndexHtml(html) {
      if (siteUrl === undefined || siteUrl === "") return html;
      const base = siteUrl.endsWith("/") ? siteUrl : `${siteUrl}/`;
      return html.replace('content="preview.png"', `content="${new URL("preview.png", base).href}"`).replace('content="./"', `content="${base}"`);
    },
  };
}
