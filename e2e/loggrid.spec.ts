/**
 * The Raft logs panel while a run plays: as its window of indexes slides, the cells of
 * the indexes still shown are the same elements (keyed by log index), only the indexes
 * that enter are new (issue 15: every view within a frame).
 */
import { expect, test } from "@playwright/test";
import { watchErrors } from "./support";

test.use({ viewport: { width: 1920, height: 1080 } });

test("as the log window slides, the cells of indexes still shown are kept, not remade", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto("/?seed=1&nodes=7&holders=10&speed=1");
  await expect(page.getByRole("button", { name: /, leader, term \d+$/ })).toHaveCount(1);
  const grid = page.locator("section.log-grid");
  await grid.evaluate((el) => el.scrollIntoView({ block: "center" }));
  await expect(grid.locator("td.lg-cell").first()).toBeVisible();
  // Each cell of the first row by its index, now and as soon as the window has slid (in the page: no round trips between).
  const r = await grid.evaluate(
    (el) =>
      new Promise<{ kept: number; remade: number; entered: number }>((resolve) => {
        const cellsByIndex = (): Map<string, Element> => {
          const out = new Map<string, Element>();
          for (const td of el.querySelectorAll("tbody tr:first-child td.lg-cell")) out.set(/^index (\d+)/.exec(td.getAttribute("aria-label") ?? "")?.[1] ?? "", td);
          return out;
        };
        const before = cellsByIndex();
        const caption = el.querySelector("caption")?.textContent;
        const look = (): void => {
          if (el.querySelector("caption")?.textContent === caption) {
            requestAnimationFrame(look);
            return;
          }
          let kept = 0;
          let remade = 0;
          let entered = 0;
          for (const [i, td] of cellsByIndex()) {
            const old = before.get(i);
            if (old === undefined) entered++;
            else if (old === td) kept++;
            else remade++;
          }
          resolve({ kept, remade, entered });
        };
        requestAnimationFrame(look);
      }),
  );
  // The window slid (new indexes came in) and some indexes stayed in it: the check is not vacuous.
  expect(r.entered).toBeGreaterThan(0);
  expect(r.kept).toBeGreaterThan(0);
  expect(r.remade).toBe(0);
  expect(errors).toEqual([]);
});
