import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cachedFiles, listFiles, serviceWorkerSource, sitePreview } from "../../scripts/deploy";

describe("the offline build (scripts/deploy.ts)", () => {
  it("caches every built file and public/'s, but not source maps, index.html (it is ./) or the service worker itself", () => {
    const files = cachedFiles(
      ["index.html", "assets/index-abc.js", "assets/index-abc.js.map", "assets/sim.worker-def.js", "assets/SpaceTime-9.js", "assets/index-x.css"],
      ["icon.svg", "manifest.webmanifest", "sw.js"],
    );
    expect(files).toEqual(["assets/SpaceTime-9.js", "assets/index-abc.js", "assets/index-x.css", "assets/sim.worker-def.js", "icon.svg", "manifest.webmanifest"]);
  });

  it("lists public/ recursively with / separators", () => {
    const dir = mkdtempSync(join(tmpdir(), "pub-"));
    mkdirSync(join(dir, "img"));
    writeFileSync(join(dir, "a.txt"), "");
    writeFileSync(join(dir, "img", "b.png"), "");
    expect(listFiles(dir)).toEqual(["a.txt", "img/b.png"]);
  });

  it("the service worker caches the page and its files by relative paths, in a cache named by its scope and version", () => {
    const src = serviceWorkerSource(["assets/a.js"], "v123");
    expect(src).toContain('const FILES = ["./","assets/a.js"];');
    expect(src).toContain('PREFIX + "v123"');
    expect(src).toContain("self.registration.scope");
    // A new build waits for the old one's tabs to close, so they keep their lazily loaded chunks.
    expect(src).not.toContain("skipWaiting");
    expect(src).not.toMatch(/["']\/assets/); // nothing absolute: it must work from any sub-path
    // It parses as JavaScript.
    expect(() => new Function(src)).not.toThrow();
  });

  it("SITE_URL makes the link preview's image and address absolute; without it they stay relative", () => {
    const html = '<meta property="og:image" content="preview.png" /><meta property="og:url" content="./" />';
    const hook = (url: string | undefined): string => {
      const p = sitePreview(url);
      return (p.transformIndexHtml as (h: string) => string)(html);
    };
    expect(hook("https://example.edu/courses/ds/lease-lab")).toBe(
      '<meta property="og:image" content="https://example.edu/courses/ds/lease-lab/preview.png" /><meta property="og:url" content="https://example.edu/courses/ds/lease-lab/" />',
    );
    expect(hook(undefined)).toBe(html);
  });
});
