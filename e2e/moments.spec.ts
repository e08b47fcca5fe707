/**
 * Key moments, loud and on time: scenario 03 (a GC pause, fencing on) opened from a link,
 * "Pause on: a rejected write" chosen, Play; the run stops at the rejection and the ring
 * shows "⊘ token … < …" beside the storage, big enough for a projector and inside the
 * viewport. Then the speed keys and "Next moment" (N).
 */
import { readFileSync } from "node:fs";
import { expect, type Page, test } from "@playwright/test";
import { encodeRunHash } from "../src/app/sharing/link";
import { shot, watchErrors } from "./support";

test.use({ viewport: { width: 1920, height: 1080 } });

/** On-screen pixels of an SVG text's font (its CSS size times the drawing's scale). */
async function screenFontPx(page: Page, selector: string): Promise<number> {
  return page.locator(selector).first().evaluate((el) => {
    const t = el as SVGGraphicsElement;
    const scale = t.getScreenCTM()?.a ?? 1;
    return Number.parseFloat(getComputedStyle(t).fontSize) * scale;
  });
}

/** A link's run plays at once: pause it as soon as the page shows it. */
async function pauseOnceLoaded(page: Page): Promise<void> {
  const pause = page.getByRole("button", { name: "Pause", exact: true });
  await expect(pause.or(page.getByRole("button", { name: "Play", exact: true }))).toBeVisible();
  if (await pause.isVisible()) await pause.click();
}

async function expectInside(page: Page, selector: string): Promise<void> {
  const box = await page.locator(selector).first().boundingBox();
  const svg = await page.locator(".ring-svg").boundingBox();
  const vp = page.viewportSize();
  expect(box).not.toBeNull();
  expect(svg).not.toBeNull();
  if (box === null || svg === null || vp === null) return;
  expect(box.x).toBeGreaterThanOrEqual(svg.x - 0.5);
  expect(box.x + box.width).toBeLessThanOrEqual(svg.x + svg.width + 0.5);
  expect(box.y).toBeGreaterThanOrEqual(svg.y - 0.5);
  expect(box.x + box.width).toBeLessThanOrEqual(vp.width);
}

test("pause on a rejected write: the run stops at it, and the ring says ⊘ token … < … beside the storage", async ({ page }) => {
  const errors = watchErrors(page);
  const hash = await encodeRunHash(readFileSync("scenarios/lease/03-gc-pause-fenced.json", "utf8"));
  await page.goto(`/?speed=1${hash}`);
  await pauseOnceLoaded(page);
  await expect(page.getByRole("button", { name: "Play", exact: true })).toBeVisible();

  await page.getByText("Pause on ▾", { exact: true }).click();
  await page.getByRole("checkbox", { name: "a rejected write" }).check();
  await expect(page.getByRole("checkbox", { name: "Slow down around lease events (faster between them)" })).toBeChecked();
  await shot(page, "moments-01-pause-on-menu");
  await page.getByText("Pause on (1) ▾", { exact: true }).click();

  await page.getByRole("button", { name: "Play", exact: true }).click();
  const status = page.getByTestId("moment-status");
  await expect(status).toHaveText(/^Paused: The storage rejected h1's write: its token \d+ is older than the \d+ the storage has already seen\.$/, {
    timeout: 40_000,
  });
  await expect(page.getByRole("button", { name: "Play", exact: true })).toBeVisible();
  const callout = page.locator(".ring-svg g.moment[data-moment=write-rejected]");
  await expect(callout).toBeVisible();
  const main = callout.locator(".moment-main");
  await expect(main).toHaveText(/^⊘ token (\d+) < (\d+)$/);
  const [, low, high] = /token (\d+) < (\d+)/.exec((await main.textContent()) ?? "") ?? [];
  expect(Number(low)).toBeLessThan(Number(high));
  // Beside the storage: above it, overlapping it sideways; inside the drawing and the screen; big.
  const storage = await page.locator(".ring-svg g.storage").boundingBox();
  const box = await callout.locator(".moment-box").boundingBox();
  if (storage === null || box === null) throw new Error("no storage or callout drawn");
  expect(box.y + box.height).toBeLessThanOrEqual(storage.y + 8);
  expect(box.x).toBeLessThan(storage.x + storage.width);
  expect(box.x + box.width).toBeGreaterThan(storage.x);
  await expectInside(page, ".ring-svg g.moment .moment-box");
  expect(await screenFontPx(page, ".ring-svg g.moment .moment-main")).toBeGreaterThanOrEqual(18);
  // Message labels keep off the callout (it takes its spot on the labels' board first).
  const covered = await page.locator(".ring-svg").evaluate((svg) => {
    const c = svg.querySelector("g.moment .moment-box")?.getBoundingClientRect();
    if (c === undefined) return ["no callout"];
    return [...svg.querySelectorAll("g.msg text, g.drop text")]
      .filter((t) => getComputedStyle(t).display !== "none" && (t.textContent ?? "").trim() !== "")
      .map((t) => ({ t: t.textContent ?? "", r: t.getBoundingClientRect() }))
      .filter(({ r }) => r.width > 0 && r.x < c.x + c.width && c.x < r.x + r.width && r.y < c.y + c.height && c.y < r.y + r.height)
      .map(({ t }) => t);
  });
  expect(covered).toEqual([]);
  // The tallies: readable, the rejected count red.
  expect(await screenFontPx(page, ".ring-svg .storage .counts")).toBeGreaterThanOrEqual(16);
  const rejected = page.locator(".ring-svg .storage .rejected-count");
  await expect(rejected).toHaveText(/^⊘ 1 rejected$/);
  expect(await rejected.evaluate((el) => getComputedStyle(el).fill)).toBe("rgb(179, 38, 30)");
  await shot(page, "moments-02-rejected-1920");

  await page.setViewportSize({ width: 1280, height: 720 });
  await expect(callout).toBeVisible();
  await expectInside(page, ".ring-svg g.moment .moment-box");
  await shot(page, "moments-03-rejected-1280");
  expect(errors).toEqual([]);
});

test("speed keys step through the speeds, and N plays to the next key moment", async ({ page }) => {
  const errors = watchErrors(page);
  const hash = await encodeRunHash(readFileSync("scenarios/lease/03-gc-pause-fenced.json", "utf8"));
  await page.goto(`/?speed=0.5${hash}`);
  await pauseOnceLoaded(page);
  const speed = page.locator(".speed-value");
  await expect(speed).toHaveText("0.5×");
  await page.keyboard.press("=");
  await expect(speed).toHaveText("1×");
  await page.keyboard.press("-");
  await page.keyboard.press("-");
  await expect(speed).toHaveText("0.2×");
  await page.keyboard.press("=");
  await page.keyboard.press("=");
  await page.keyboard.press("=");
  await expect(speed).toHaveText("2×");
  // N: plays until the next key moment of any kind (none chosen) and stops there, saying which.
  await page.keyboard.press("n");
  await expect(page.getByTestId("moment-status")).toHaveText(/^Paused: /, { timeout: 20_000 });
  await expect(page.getByRole("button", { name: "Play", exact: true })).toBeVisible();
  await expect(page.locator(".ring-svg g.moment")).toBeVisible();
  await shot(page, "moments-04-next-moment");
  expect(errors).toEqual([]);
});
