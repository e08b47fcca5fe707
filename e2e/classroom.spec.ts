/**
 * Classroom mode at the two projector sizes: the cluster and the panels of the moment on one
 * screen, text big enough for the back row, a caption, the blank screen, and clicker keys.
 */
import { expect, type Page, test } from "@playwright/test";
import { shot, watchErrors } from "./support";

/** The smallest font size (CSS px) of any visible HTML text in the classroom layout. */
async function smallestHtmlText(page: Page): Promise<{ px: number; text: string }> {
  return page.evaluate(() => {
    let best = { px: Number.POSITIVE_INFINITY, text: "" };
    for (const el of document.querySelectorAll<HTMLElement>(".top *, .classroom-board *")) {
      if (el instanceof SVGElement || el.closest("svg") !== null) continue;
      if (![...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && (n.textContent ?? "").trim() !== "")) continue;
      const box = el.getBoundingClientRect();
      if (box.width === 0 || box.height === 0 || box.bottom <= 0 || box.top >= innerHeight) continue;
      const px = Number.parseFloat(getComputedStyle(el).fontSize);
      if (px < best.px) best = { px, text: (el.textContent ?? "").trim().slice(0, 40) };
    }
    return best;
  });
}

for (const [width, height, body, label] of [
  [1920, 1080, 24, 18],
  [1280, 720, 16, 12],
] as const) {
  test(`classroom mode at ${width}×${height}: cluster and the moment's panels on one screen, big text`, async ({ page }) => {
    const errors = watchErrors(page);
    await page.setViewportSize({ width, height });
    await page.goto("/?seed=3&holders=2&speed=1");
    await page.getByRole("button", { name: "Classroom" }).click();
    await expect(page.getByRole("button", { name: "Leave classroom" })).toHaveAttribute("aria-pressed", "true");
    const caption = page.getByTestId("classroom-caption");
    await expect(caption).toContainText(/^At \d/);
    // The caption is body text; every other text is at least label size.
    expect(Number.parseFloat(await caption.evaluate((e) => getComputedStyle(e).fontSize))).toBeGreaterThanOrEqual(body);
    const smallest = await smallestHtmlText(page);
    expect(smallest.px, `"${smallest.text}" is ${smallest.px}px`).toBeGreaterThanOrEqual(label);
    // The toolbar is one row, and nothing needs scrolling: the ring and each panel of the moment are on screen.
    const bar = await page.getByRole("region", { name: "Controls" }).boundingBox();
    expect(bar?.height ?? 0).toBeLessThan(height * 0.08);
    for (const b of await page.getByRole("region", { name: "Controls" }).getByRole("button").all()) {
      const box = await b.boundingBox();
      expect((box?.x ?? 0) + (box?.width ?? 0), `${await b.textContent()} is cut off`).toBeLessThanOrEqual(width);
    }
    expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeLessThanOrEqual(height);
    const ring = await page.getByRole("group", { name: "Cluster ring" }).boundingBox();
    expect(ring).not.toBeNull();
    expect((ring?.y ?? 0) + (ring?.height ?? 0)).toBeLessThanOrEqual(height);
    expect(ring?.width ?? 0).toBeGreaterThan(width * 0.45);
    const panels = page.getByTestId("classroom-side").locator(".classroom-panel");
    await expect(panels).toHaveCount(2);
    for (const p of await panels.all()) {
      const box = await p.boundingBox();
      expect(box).not.toBeNull();
      expect((box?.y ?? 0) + (box?.height ?? 0)).toBeLessThanOrEqual(height + 1);
      await expect(p.getByRole("heading", { level: 2 })).toBeInViewport();
    }
    await shot(page, `classroom-${width}`);
    // C again leaves: the full board is back.
    await page.keyboard.press("c");
    await expect(page.getByRole("button", { name: "Classroom", exact: true })).toHaveAttribute("aria-pressed", "false");
    await expect(page.getByTestId("classroom-caption")).toHaveCount(0);
    expect(errors).toEqual([]);
  });
}

test("paused on a key moment in classroom mode: the caption says so, and the controls stay one row", async ({ page }) => {
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.addInitScript(() => localStorage.setItem("lease-lab:moment-options", JSON.stringify({ pauseOn: ["grant"], autoSlow: true })));
  await page.goto("/?seed=3&holders=2&speed=1");
  await expect(page.getByRole("button", { name: "Classroom" })).toBeVisible();
  await page.keyboard.press("c");
  await expect(page.getByTestId("classroom-caption")).toContainText(/^Paused: At \d[^:]*: The lease service granted/);
  const bar = await page.getByRole("region", { name: "Controls" }).boundingBox();
  expect(bar?.height ?? 0).toBeLessThan(1080 * 0.08);
  await shot(page, "classroom-paused-1920");
  expect(errors).toEqual([]);
});

test("'.' blanks the screen and any key brings it back; PageDown and PageUp step between markers", async ({ page }) => {
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.goto("/?seed=3&holders=2&speed=1");
  await expect(page.getByRole("button", { name: "Classroom" })).toBeVisible();
  await page.keyboard.press("c");
  await expect(page.getByTestId("classroom-caption")).toBeVisible();
  await page.keyboard.press(".");
  const blank = page.getByTestId("blank");
  await expect(blank).toBeVisible();
  const box = await blank.boundingBox();
  expect(box).toEqual({ x: 0, y: 0, width: 1920, height: 1080 });
  await page.keyboard.press("x");
  await expect(blank).toHaveCount(0);
  // The key that brought the screen back did nothing else: still in classroom mode.
  await expect(page.getByTestId("classroom-caption")).toBeVisible();

  // Let an election happen and pause: a clicker's PageUp jumps back to it, and PageDown forward again.
  const time = page.getByTestId("virtual-time");
  await expect(page.getByTestId("classroom-caption")).toContainText(/^At /);
  await page.keyboard.press(" ");
  await expect(page.getByRole("button", { name: "Play" })).toBeVisible();
  const paused = await time.textContent();
  await page.keyboard.press("PageUp");
  await expect(time).not.toHaveText(paused ?? "");
  const election = await time.textContent();
  // The caption is the moment the clicker landed on.
  await expect(page.getByTestId("classroom-caption")).toContainText(`At ${election}: n`);
  await page.keyboard.press("PageDown");
  await expect(time).not.toHaveText(election ?? "");
  expect(errors).toEqual([]);
});

test("a lesson in classroom mode: the card and the step's panel beside the cluster, Back and Next on screen", async ({ page }) => {
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto("/?lesson=fencing&step=6");
  const card = page.getByTestId("lesson-card");
  await expect(page.getByTestId("lesson-step-count")).toHaveText("Step 6 of 7");
  await page.keyboard.press("c");
  await expect(page.getByTestId("classroom-caption")).toBeVisible();
  for (const name of ["Back", "Next", "Explore from here"]) await expect(card.getByRole("button", { name, exact: true })).toBeInViewport({ ratio: 1 });
  await expect(page.getByTestId("classroom-side").getByRole("heading", { name: "Storage", exact: true })).toBeInViewport();
  await expect(page.getByRole("group", { name: "Cluster ring" })).toBeInViewport({ ratio: 1 });
  // The clicker's PageUp is the lesson's Back here, not a marker jump.
  await page.keyboard.press("PageUp");
  await expect(page.getByTestId("lesson-step-count")).toHaveText("Step 5 of 7");
  await shot(page, "classroom-lesson-1280");
  expect(errors).toEqual([]);
});
