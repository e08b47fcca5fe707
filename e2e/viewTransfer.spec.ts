/**
 * The space-time diagram's messages cross from the worker in packed columns, as deltas
 * while the run plays and whole after a jump in time. The arrows drawn from the deltas must
 * be exactly those drawn from a full send at the same moment (a seek away and back).
 */
import { expect, type Page, test } from "@playwright/test";
import { leader, pause, shot, watchErrors } from "./support";

/** Every finished or in-flight arrow drawn in the diagram: its message id and its path, sorted (off screen it is not drawn: it is scrolled into view first). */
async function arrows(page: Page): Promise<string[]> {
  await page.getByRole("region", { name: "Space-time diagram" }).evaluate((el) => el.scrollIntoView({ block: "start" }));
  const out = await page.locator("svg.st-svg path.st-msg").evaluateAll((els) => els.map((e) => `${e.getAttribute("data-id")} ${e.getAttribute("class")} ${e.getAttribute("d")}`));
  return out.sort();
}

test("the diagram drawn from deltas equals the one drawn after a jump to the same moment", async ({ page }) => {
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.goto("/?seed=2&nodes=3&holders=1&speed=1");
  await leader(page);
  await page.waitForTimeout(1500);
  await pause(page);
  const slider = page.getByRole("slider", { name: "Time" });
  const at = await slider.inputValue();
  await expect.poll(async () => (await arrows(page)).length, { timeout: 10_000 }).toBeGreaterThan(5);
  // Let the paused drawing settle, then read it.
  await page.waitForTimeout(500);
  const fromDeltas = await arrows(page);
  await shot(page, "transfer-deltas");

  await slider.fill(String(Math.floor(Number(at) / 2)));
  // Another moment, another window of arrows (its count may be higher or lower).
  await expect.poll(() => arrows(page)).not.toEqual(fromDeltas);
  await slider.fill(at);
  await expect.poll(() => arrows(page), { timeout: 15_000 }).toEqual(fromDeltas);
  await shot(page, "transfer-after-jump");
  expect(errors).toEqual([]);
});
