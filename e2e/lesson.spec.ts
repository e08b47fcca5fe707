/**
 * The lesson player (?lesson=fencing) on a projector-sized screen: narration, a step that
 * plays, the learner's own GC pause through the Inspector, a prediction, Back to an earlier
 * step's exact moment, and the card's accessibility.
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import { shot, watchErrors } from "./support";

test.use({ viewport: { width: 1920, height: 1080 } });

const card = (page: Page) => page.getByRole("region", { name: "The GC pause and the fencing token" });
const next = (page: Page) => card(page).getByRole("button", { name: "Next", exact: true });
const back = (page: Page) => card(page).getByRole("button", { name: "Back", exact: true });
const count = (page: Page) => page.getByTestId("lesson-step-count");
const time = (page: Page) => page.getByTestId("virtual-time");

test("a lesson: narrate, play, your turn, predict, Back to a step's moment", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto("/?lesson=fencing");
  await expect(count(page)).toHaveText("Step 1 of 7");
  await expect(card(page).getByRole("heading", { name: "Two holders, one lock" })).toBeVisible();
  // A glossary term shows its definition on keyboard focus.
  const term = card(page).locator("dfn", { hasText: "fencing token" }).first();
  await term.focus();
  await expect(term.getByRole("tooltip")).toBeVisible();
  await expect(term.getByRole("tooltip")).toContainText("only ever grows");
  await shot(page, "lesson-1-narrate");

  // A play step: the engine runs until h1 holds the lease, then Next works again.
  await next(page).click();
  await expect(count(page)).toHaveText("Step 2 of 7");
  await expect(page.getByTestId("lesson-status")).toContainText("It happened after");
  await expect(next(page)).toBeEnabled();
  await next(page).click();
  await expect(count(page)).toHaveText("Step 3 of 7");
  // The address follows the step, so a reload or a copied address opens this step.
  await expect(page).toHaveURL(/[?&]step=3(&|$)/);
  const at3 = await time(page).textContent();

  // Your turn, with the page's own controls: select h1, then GC pause.
  await next(page).click();
  await expect(count(page)).toHaveText("Step 4 of 7");
  await expect(next(page)).toBeDisabled();
  await expect(card(page).getByRole("button", { name: "Do it for me" })).toBeVisible();
  await shot(page, "lesson-4-your-turn");
  await page.getByRole("button", { name: "Select h1" }).click();
  // Another length is not the step's action: the card says what it asks for, and nothing is done.
  await page.getByRole("region", { name: "Inspector" }).getByLabel("seconds").fill("2");
  await page.getByRole("button", { name: "GC pause h1 before its write" }).click();
  await expect(page.getByTestId("lesson-status")).toContainText("asks you to GC pause h1 for 5 s");
  await page.getByRole("region", { name: "Inspector" }).getByLabel("seconds").fill("5");
  await page.getByRole("button", { name: "GC pause h1 before its write" }).click();
  await expect(page.getByTestId("lesson-status")).toHaveText("You did it.");
  await next(page).click();
  await expect(count(page)).toHaveText("Step 5 of 7");
  await expect(next(page)).toBeEnabled({ timeout: 20_000 });

  // Predict: pick an answer, read its feedback, watch the reveal.
  await next(page).click();
  await expect(count(page)).toHaveText("Step 6 of 7");
  await card(page).getByRole("button", { name: /^Rejects it/ }).click();
  await expect(card(page).getByText("Right.")).toBeVisible();
  await expect(next(page)).toBeEnabled({ timeout: 20_000 });
  await shot(page, "lesson-6-predict");
  expect(
    (
      await new AxeBuilder({ page })
        .include("[data-testid=lesson-card]")
        .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
        .analyze()
    ).violations.map((v) => `${v.id}: ${v.help}`),
  ).toEqual([]);

  // Back, three times (once with the keyboard), to step 3's very moment.
  await back(page).click();
  await expect(count(page)).toHaveText("Step 5 of 7");
  await back(page).click();
  await expect(count(page)).toHaveText("Step 4 of 7");
  await expect(page.getByTestId("lesson-status")).toHaveText("You did it. Next goes on from where this step ended.");
  await page.locator("body").press("PageUp");
  await expect(count(page)).toHaveText("Step 3 of 7");
  await expect(time(page)).toHaveText(at3 ?? "");
  await expect(card(page).getByRole("heading", { name: "Check, then write" })).toBeVisible();
  // Next does not ask again for what the learner already did.
  await page.locator("body").press("ArrowRight");
  await expect(count(page)).toHaveText("Step 4 of 7");
  await expect(next(page)).toBeEnabled();
  await expect(card(page).getByRole("button", { name: "Do it for me" })).toHaveCount(0);
  await shot(page, "lesson-back");
  const progress = await page.evaluate(() => localStorage.getItem("lease-lab.lesson.fencing"));
  expect(JSON.parse(progress ?? "{}")).toMatchObject({ reached: 5 });
  expect(errors).toEqual([]);
});

test("an unknown lesson says so, and the normal lab opens", async ({ page }) => {
  await page.goto("/?lesson=no-such-lesson");
  await expect(page.getByRole("alert")).toContainText('There is no lesson "no-such-lesson"');
  await expect(page.getByRole("heading", { name: "Lease Lab" })).toBeVisible();
  await expect(page.getByTestId("lesson-card")).toHaveCount(0);
});

test("?step=N opens a lesson at its step", async ({ page }) => {
  await page.goto("/?lesson=fencing&step=6");
  await expect(count(page)).toHaveText("Step 6 of 7");
  await expect(card(page).getByRole("button", { name: /^Rejects it/ })).toBeEnabled();
});
