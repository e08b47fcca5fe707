/**
 * Ship less (issue 15, part 4): the first screen loads only what it shows. The bundled
 * lesson and scenario files, the share dialog and the settings load when opened; the
 * diagram and the statecharts arrive just after, in their places on the board.
 */
import { expect, type Page, test } from "@playwright/test";
import { leader, nodes, shot, watchErrors } from "./support";

/** The file names of every script the page and its worker requested so far. */
function scripts(page: Page): string[] {
  const seen: string[] = [];
  page.on("request", (r) => {
    if (r.resourceType() === "script" || r.url().endsWith(".js")) seen.push(r.url().slice(r.url().lastIndexOf("/") + 1));
  });
  return seen;
}

const loaded = (seen: readonly string[], chunk: string) => seen.some((s) => s.startsWith(`${chunk}-`));

test("the first screen leaves the lessons, the library and the dialogs out; they load when opened", async ({ page }) => {
  const errors = watchErrors(page);
  const seen = scripts(page);
  await page.goto("/?seed=4&speed=1");
  await expect(nodes(page)).toHaveCount(5);
  await leader(page);
  // The diagram and the statecharts are on the board, loaded after the first frame.
  await expect(page.getByRole("heading", { name: "Space-time diagram" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Lease holders" })).toBeVisible();
  await shot(page, "ship-01-first-screen");
  for (const chunk of ["catalog", "ShareMenu", "SettingsDialog", "LibraryDialog", "CourseDialog", "LessonCard", "ComparePage"]) {
    expect(loaded(seen, chunk), `${chunk} loaded with the first screen`).toBe(false);
  }
  expect(loaded(seen, "SpaceTime")).toBe(true);

  await page.getByRole("button", { name: "Share & export" }).click();
  await expect(page.getByRole("dialog", { name: "Share & export" })).toBeVisible();
  expect(loaded(seen, "ShareMenu")).toBe(true);
  await shot(page, "ship-02-share-opened");
  expect(errors).toEqual([]);
});
