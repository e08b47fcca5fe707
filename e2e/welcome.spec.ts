/**
 * The way in: a first visit is greeted (what Lease Lab is, three ways in), the course lists
 * the lessons, a returning visitor goes back to the lesson they were in, and a lesson can be
 * walked with the keyboard alone (a presenter's clicker sends PageDown).
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import { shot, watchErrors } from "./support";

test.use({ viewport: { width: 1920, height: 1080 } });

const dialog = (page: Page) => page.getByRole("dialog");

test("a first visit is welcomed; the course opens a lesson; coming back returns to it; the lab remembers too", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto("/");
  await expect(dialog(page).getByRole("heading", { name: "Welcome to Lease Lab" })).toBeVisible();
  for (const way of ["Start the course", "Open the free lab", "Open a scenario or link"]) {
    await expect(dialog(page).getByRole("button", { name: way })).toBeVisible();
  }
  // The cluster is already running behind it.
  await expect(page.getByTestId("virtual-time")).not.toHaveText("0.000 s");
  await shot(page, "welcome");
  expect(
    (await new AxeBuilder({ page }).include("[role=dialog]").withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze()).violations.map(
      (v) => `${v.id}: ${v.help}`,
    ),
  ).toEqual([]);

  await dialog(page).getByRole("button", { name: "Start the course" }).click();
  await expect(dialog(page).getByRole("heading", { name: "The course" })).toBeVisible();
  const links = dialog(page).locator("a.course-link");
  expect(await links.count()).toBeGreaterThanOrEqual(11);
  await expect(links.first()).toHaveText("A lock that outlives its owner");
  await shot(page, "course");
  await dialog(page).getByRole("link", { name: "The GC pause and the fencing token" }).click();
  await expect(page).toHaveURL(/\?lesson=fencing$/);
  await expect(page.getByTestId("lesson-step-count")).toHaveText("Step 1 of 7");
  await page.getByRole("button", { name: "Next", exact: true }).click();
  await expect(page.getByTestId("lesson-step-count")).toHaveText("Step 2 of 7");

  // Back at the bare address: the lesson again, at the step reached.
  await page.goto("/");
  await expect(page).toHaveURL(/\?lesson=fencing&step=2$/);
  await expect(page.getByTestId("lesson-step-count")).toHaveText("Step 2 of 7");

  // Someone who last used the lab gets the lab, with no welcome.
  await page.goto("/?seed=3");
  await expect(page.getByTestId("virtual-time")).toBeVisible();
  await page.goto("/");
  await expect(page.getByTestId("virtual-time")).toBeVisible();
  await expect(page.getByRole("dialog")).toHaveCount(0);
  // The Course button opens the course and the glossary from the lab.
  await page.getByRole("button", { name: "Course" }).click();
  await dialog(page).getByRole("button", { name: "Glossary" }).click();
  await expect(dialog(page).locator("dfn", { hasText: /^fencing token$/ })).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toHaveCount(0);
  expect(errors).toEqual([]);
});

test("lesson 2 with the keyboard alone: PageDown, Tab and Enter", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto("/?lesson=consistent-core");
  const count = page.getByTestId("lesson-step-count");
  const total = Number(/of (\d+)/.exec((await count.textContent()) ?? "")?.[1]);
  expect(total).toBeGreaterThan(5);
  for (let step = 1; step < total; step++) {
    await expect(count).toHaveText(`Step ${step} of ${total}`);
    const card = page.getByTestId("lesson-card");
    const doIt = card.getByRole("button", { name: "Do it for me" });
    const choices = card.locator(".lesson-choices button");
    if ((await doIt.count()) > 0) {
      await doIt.focus();
      await page.keyboard.press("Enter");
    } else if ((await choices.count()) > 0) {
      // The first choice, by keyboard; the feedback says whether it was right.
      await choices.first().focus();
      await page.keyboard.press("Enter");
    }
    await expect(card.getByRole("button", { name: "Next", exact: true })).toBeEnabled({ timeout: 20_000 });
    await page.locator("body").press("PageDown");
  }
  await expect(count).toHaveText(`Step ${total} of ${total}`);
  await shot(page, "lesson-2-keyboard-end");
  expect(errors).toEqual([]);
});

test("Explore from here leaves the lesson for the free lab, and Back to the lesson returns to the moment", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto("/?lesson=fencing&step=3");
  await expect(page.getByTestId("lesson-step-count")).toHaveText("Step 3 of 7");
  const at = await page.getByTestId("virtual-time").textContent();
  await page.getByRole("button", { name: "Explore from here" }).click();
  await expect(page.getByText(/You are exploring freely from/)).toBeVisible();
  // The free lab: every panel, and the learner's own actions.
  await expect(page.getByRole("heading", { name: "Network", exact: true })).toBeVisible();
  await page.getByRole("button", { name: "Play", exact: true }).click();
  await expect(page.getByTestId("virtual-time")).not.toHaveText(at ?? "");
  await page.getByRole("button", { name: "Pause", exact: true }).click();
  await shot(page, "lesson-exploring");
  await page.getByRole("button", { name: "Back to the lesson" }).click();
  await expect(page.getByTestId("lesson-step-count")).toHaveText("Step 3 of 7");
  await expect(page.getByTestId("virtual-time")).toHaveText(at ?? "");
  await expect(page.getByRole("button", { name: "Explore from here" })).toBeVisible();
  expect(errors).toEqual([]);
});

test("the welcome's third way in opens the dialog for scenario files and links", async ({ page }) => {
  await page.goto("/");
  await dialog(page).getByRole("button", { name: "Open a scenario or link" }).click();
  await expect(page.getByRole("dialog", { name: "Share & export" })).toBeVisible();
});
