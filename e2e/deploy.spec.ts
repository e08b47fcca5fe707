/**
 * The built dist/ deployed on a static host under a sub-path (/sub/lease-lab/), as a
 * course page would host it: the page, its worker and its files load from there, and
 * once loaded it opens offline. The config's web server has just built dist/.
 */
import { mkdirSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { expect, test } from "@playwright/test";
import { serveStatic } from "./static";
import { leader, nodes, watchErrors } from "./support";

let host: Awaited<ReturnType<typeof serveStatic>>;
/** The deployed lab's address (the host listens on a free port). */
let site = "";

test.beforeAll(async () => {
  // The static host's root is a folder above the build: dist/ is at /sub/lease-lab/.
  const root = mkdtempSync(join(tmpdir(), "lease-lab-host-"));
  mkdirSync(join(root, "sub"));
  symlinkSync(resolve("dist"), join(root, "sub", "lease-lab"));
  host = await serveStatic(root);
  site = `${host.origin}/sub/lease-lab/`;
});

test.afterAll(async () => {
  await new Promise((ok) => host.server.close(ok));
});

test("dist/ served from a sub-path runs the cluster: page, worker and files all load from the sub-path", async ({ page }) => {
  const errors = watchErrors(page);
  const failed: string[] = [];
  page.on("response", (r) => {
    if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
  });
  await page.goto(`${site}?seed=4&speed=1`);
  await expect(nodes(page)).toHaveCount(5);
  await expect.poll(() => page.workers().length).toBeGreaterThan(0);
  expect(page.workers()[0]?.url()).toMatch(new RegExp(`^${site}assets/sim\\.worker-[\\w-]+\\.js$`));
  await leader(page);
  // It runs: events keep being handled.
  const events = Number(await page.getByTestId("events").textContent());
  await expect.poll(async () => Number(await page.getByTestId("events").textContent())).toBeGreaterThan(events);
  // The icon, the manifest and the icons it names load from beside the page.
  const manifestHref = await page.locator('link[rel="manifest"]').evaluate((l: HTMLLinkElement) => l.href);
  expect(manifestHref).toBe(`${site}manifest.webmanifest`);
  const manifest = (await (await page.request.get(manifestHref)).json()) as { start_url: string; icons: { src: string }[] };
  expect(manifest.start_url).toBe("./");
  for (const icon of manifest.icons) expect((await page.request.get(new URL(icon.src, manifestHref).href)).status(), icon.src).toBe(200);
  expect((await page.request.get(await page.locator('link[rel="icon"]').first().evaluate((l: HTMLLinkElement) => l.href))).status()).toBe(200);
  // The preview image for shared links is there, 1200×630 as the page says.
  const og = await page.locator('meta[property="og:image"]').getAttribute("content");
  const preview = await page.request.get(new URL(og ?? "", page.url()).href);
  expect(preview.status()).toBe(200);
  const png = await preview.body();
  expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1200, 630]);
  // Nothing was asked of the host outside the sub-path, and nothing failed.
  expect(host.asked.filter((p) => !p.startsWith("/sub/lease-lab/"))).toEqual([]);
  expect(failed).toEqual([]);
  expect(errors).toEqual([]);
});

test.describe("offline", () => {
  test.use({ serviceWorkers: "allow" });

  test("once loaded, the page opens offline (another run, by its address) from the service worker's cache", async ({ page, context }) => {
    const errors = watchErrors(page);
    await page.goto(`${site}?seed=4&speed=1`);
    await expect(nodes(page)).toHaveCount(5);
    // The service worker is installed (it cached the whole build) and controls the page.
    await page.evaluate(() => navigator.serviceWorker.ready);
    await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
    const cached = await page.evaluate(async () => {
      const keys = await caches.keys();
      const c = await caches.open(keys[0] as string);
      return { names: keys, files: (await c.keys()).map((r) => new URL(r.url).pathname) };
    });
    expect(cached.names).toHaveLength(1);
    expect(cached.names[0]).toContain(site);
    expect(cached.files).toContain("/sub/lease-lab/");
    expect(cached.files.some((f) => /\/assets\/sim\.worker-[\w-]+\.js$/.test(f))).toBe(true);

    await context.setOffline(true);
    const before = host.asked.length;
    // What reached the host since going offline. The browser's own update check of sw.js may
    // (Chromium's offline emulation does not always cover it); the page and its files must not.
    const reachedHost = () => host.asked.slice(before).filter((p) => !p.endsWith("/sw.js"));
    await page.goto(`${site}?seed=9&nodes=3&speed=1`);
    await expect(nodes(page)).toHaveCount(3);
    await leader(page);
    await expect(page.getByTestId("seed")).toHaveText("9");
    // Served by the service worker, not the host.
    expect(reachedHost()).toEqual([]);

    // The lesson and scenario files are JSON files of the build, fetched when opened: cached too, so they open offline.
    expect(cached.files.filter((f) => /\/assets\/[\w-]+\.json$/.test(f)).length).toBeGreaterThanOrEqual(40);
    await page.goto(`${site}?lesson=fencing`);
    await expect(page.getByTestId("lesson-card")).toBeVisible();
    await page.goto(`${site}?seed=9&speed=1`);
    await page.getByRole("button", { name: "Scenarios", exact: true }).click();
    await expect(page.getByRole("dialog", { name: "Scenarios" }).getByTestId("library-item")).toHaveCount(35);
    expect(reachedHost()).toEqual([]);
    expect(errors).toEqual([]);
  });
});
