/**
 * Ship less (issue 15, part 4): the first screen loads only what it shows. The lesson and
 * scenario files (JSON data, fetched when opened), the share dialog and the settings load when opened; the
 * diagram and the statecharts arrive just after, in their places on the board.
 */
import { expect, type Page, test } from "@playwright/test";
import { leader, nodes, shot, watchErrors } from "./support";

/** The file names of every script (and JSON data file: the lessons and scenarios) the page and its worker requested so far. */
function scripts(page: Page): string[] {
  const seen: string[] = [];
  page.on("request", (r) => {
    if (r.resourceType() === "script" || r.url().endsWith(".js") || r.url().endsWith(".json")) seen.push(r.url().slice(r.url().lastIndexOf("/") + 1));
  });
  return seen;
}

const dataFiles = (seen: readonly string[]) => seen.filter((s) => s.endsWith(".json"));

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
  // zod and the scenario file's schema too: a run from the settings parses no file.
  for (const chunk of ["catalog", "link", "ResetDialog", "ShareMenu", "SettingsDialog", "LibraryDialog", "CourseDialog", "LessonCard", "ComparePage", "zod", "files", "linkCheck", "ClassroomBoard", "toolsPart", "lessonsPart"]) {
    expect(loaded(seen, chunk), `${chunk} loaded with the first screen`).toBe(false);
  }
  expect(dataFiles(seen), "lesson or scenario files fetched with the first screen").toEqual([]);
  expect(loaded(seen, "SpaceTime")).toBe(true);
  // The board's lower rows arrive the same way, in their places.
  await expect(page.getByRole("heading", { name: "Event log" })).toBeVisible();
  expect(loaded(seen, "widePanels") && loaded(seen, "LogGrid")).toBe(true);
  // Classroom mode's board and the reads' answer load when asked for.
  expect(loaded(seen, "ClassroomBoard")).toBe(false);
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.getByRole("heading", { name: "Event log" }).scrollIntoViewIfNeeded();
  await shot(page, "ship-05-lower-rows-1920", true);
  await page.getByRole("button", { name: "Classroom" }).click();
  await expect(page.getByTestId("classroom-caption")).toBeVisible();
  expect(loaded(seen, "ClassroomBoard")).toBe(true);
  await page.getByRole("button", { name: "Classroom" }).click();

  await page.getByRole("button", { name: "Share & export" }).click();
  await expect(page.getByRole("dialog", { name: "Share & export" })).toBeVisible();
  expect(loaded(seen, "ShareMenu")).toBe(true);
  await shot(page, "ship-02-share-opened");
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog", { name: "Share & export" })).toHaveCount(0);

  // The course fetches the lesson files (and the glossary), not the scenarios.
  await page.getByRole("button", { name: "Course" }).click();
  await expect(page.getByRole("link", { name: "The GC pause and the fencing token" })).toBeVisible();
  expect(dataFiles(seen).filter((f) => f.startsWith("glossary-"))).toHaveLength(1);
  expect(dataFiles(seen)).toHaveLength(14);
  expect(errors).toEqual([]);
});

test("a share link loads the scenario check when it opens, and the embed code shows the run in an 800×450 iframe", async ({ page, browser }) => {
  const errors = watchErrors(page);
  const seen = scripts(page);
  await page.goto("/?seed=4&speed=1");
  const first = await leader(page);
  expect(loaded(seen, "toolsPart")).toBe(false);
  await page.getByRole("button", { name: "Share & export" }).click();
  await page.getByRole("button", { name: "Copy embed code" }).click();
  const field = page.getByLabel("Embed code for slides (800×450)");
  await expect(field).toHaveValue(/^<iframe src="[^"]+\?embed=1#run=1\.[A-Za-z0-9_-]+" width="800" height="450" /);
  await expect(page.getByRole("dialog", { name: "Share & export" }).getByRole("status")).toContainText(/embed code/);
  await shot(page, "ship-03-embed-code");
  // The worker loaded its export tools for the link, not before.
  expect(loaded(seen, "toolsPart")).toBe(true);
  const snippet = await field.inputValue();
  const link = await page.getByLabel("Share link", { exact: true }).inputValue();
  expect(snippet).toContain(new URL(link).hash);

  // The shared link, opened on its own: the scenario check (and zod) load now, and the run opens.
  const other = await browser.newPage();
  const opened = scripts(other);
  await other.goto(link);
  await expect(nodes(other)).toHaveCount(5);
  expect(loaded(opened, "linkCheck") && loaded(opened, "zod")).toBe(true);
  await other.close();

  // A slide: a page holding only the snippet. The iframe shows the same run, embedded.
  const slide = await browser.newPage({ viewport: { width: 1000, height: 600 } });
  await slide.setContent(`<!doctype html><html lang="en"><title>Slide</title><body style="margin:0">${snippet}</body></html>`);
  const frame = slide.frameLocator("iframe");
  await expect(frame.getByRole("group", { name: "Cluster ring" })).toBeVisible();
  await expect(frame.getByRole("button", { name: "Settings…" })).toHaveCount(0);
  await expect(frame.getByRole("link", { name: /Open in Lease Lab/ })).toBeVisible();
  const box = await slide.locator("iframe").boundingBox();
  expect([box?.width, box?.height]).toEqual([800, 450]);
  await shot(slide, "ship-04-embed-in-slide");
  await slide.close();
  expect(first.id).toMatch(/^n\d$/);
  expect(errors).toEqual([]);
});
