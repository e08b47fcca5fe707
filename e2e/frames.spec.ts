/**
 * Every view within a frame (issue 15): while a run plays, a panel off screen is not
 * redrawn on every panel update (at most about once a second), and it catches up as soon
 * as it is scrolled into view. The ring off screen stops animating the same way.
 */
import { expect, type Page, test } from "@playwright/test";
import { watchErrors } from "./support";

test.use({ viewport: { width: 1920, height: 1080 } });

/** How many times the region's DOM changed (one count per React commit or drawing pass) in `ms`. */
async function redraws(page: Page, selector: string, ms: number): Promise<number> {
  return page.evaluate(
    `new Promise((resolve) => {
      const el = document.querySelector(${JSON.stringify(selector)});
      let n = 0;
      const mo = new MutationObserver(() => { n++; });
      mo.observe(el, { subtree: true, childList: true, attributes: true, characterData: true });
      setTimeout(() => { mo.disconnect(); resolve(n); }, ${ms});
    })`,
  ) as Promise<number>;
}

test("panels and the ring off screen are not redrawn on every update while playing, and catch up when scrolled to", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto("/?seed=1&nodes=5&holders=3&speed=1");
  await expect(page.getByRole("button", { name: /^n\d+, leader, term \d+$/ })).toHaveCount(1);
  const log = page.getByRole("region", { name: "Event log" });
  await log.scrollIntoViewIfNeeded();
  // On screen: the event log follows the panel updates (about ten a second).
  expect(await redraws(page, "section.event-log", 3000)).toBeGreaterThanOrEqual(8);
  // Scrolled to the top, the log is far off screen: at most about one redraw a second.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForTimeout(300);
  expect(await redraws(page, "section.event-log", 3000)).toBeLessThanOrEqual(5);
  // And the ring, off screen below the fold of the log: at most about one redraw a second too.
  await log.scrollIntoViewIfNeeded();
  await page.waitForTimeout(300);
  const ringOff = await redraws(page, "svg.ring-svg", 3000);
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForTimeout(300);
  const ringOn = await redraws(page, "svg.ring-svg", 3000);
  expect(ringOn).toBeGreaterThanOrEqual(30);
  // Off screen, each redraw is one pass: its messages do not go on moving for a moment after it.
  expect(ringOff).toBeLessThanOrEqual(6);
  // Back on screen, the log shows the latest time at once.
  const now = (await page.getByTestId("virtual-time").textContent()) ?? "";
  await log.scrollIntoViewIfNeeded();
  // Newest first: the first line's time.
  const newest = log.locator("ul.event-list li .t").first();
  const seconds = (s: string): number => Number(/([\d.]+)\s*s/.exec(s)?.[1] ?? Number.NaN);
  await expect.poll(async () => seconds((await newest.textContent()) ?? ""), { timeout: 1500 }).toBeGreaterThanOrEqual(seconds(now) - 1);
  expect(errors).toEqual([]);
});
