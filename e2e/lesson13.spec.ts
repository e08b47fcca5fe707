/**
 * Lesson 13 (?lesson=read-leases) walked to its end in Chromium, with the page's own
 * controls for both "your turn" steps: the partition editor cuts off the read-lease holder
 * n1, and the Inspector slows the leader's clock. Both predictions are answered, the write
 * that waited and the stale read are seen, and "Check the reads" draws the stale read of
 * this very run. Screenshots at 1920x1080 and 1280x720, and in classroom mode.
 */
import { expect, type Page, test } from "@playwright/test";
import { shot, watchErrors } from "./support";

test.use({ viewport: { width: 1920, height: 1080 } });

const TITLE = "Read leases and write leases";
const STEPS = 17;
const card = (page: Page) => page.getByRole("region", { name: TITLE });
const next = (page: Page) => card(page).getByRole("button", { name: "Next", exact: true });
const count = (page: Page) => page.getByTestId("lesson-step-count");
const status = (page: Page) => page.getByTestId("lesson-status");

/** Next, to step `n`; a step that plays must finish before Next works again. */
async function goTo(page: Page, n: number): Promise<void> {
  await expect(next(page)).toBeEnabled({ timeout: 30_000 });
  await next(page).click();
  await expect(count(page)).toHaveText(`Step ${n} of ${STEPS}`);
}

async function done(page: Page): Promise<void> {
  await expect(next(page)).toBeEnabled({ timeout: 30_000 });
}

test("lesson 13: reads under leases, a write waiting out a cut-off holder, the slow clock's stale read", async ({ page }) => {
  test.setTimeout(180_000);
  const errors = watchErrors(page);
  await page.goto("/?lesson=read-leases");
  await expect(count(page)).toHaveText(`Step 1 of ${STEPS}`);
  await expect(card(page).getByRole("heading", { name: "Most requests are reads" })).toBeVisible();
  const term = card(page).locator("dfn", { hasText: "linearizable" }).first();
  await term.focus();
  await expect(term.getByRole("tooltip")).toContainText("every read shows every write");
  await shot(page, "lesson13-1-narrate-1920");

  await goTo(page, 2);
  await expect(status(page)).toContainText("It happened after", { timeout: 30_000 });
  await goTo(page, 3);
  await goTo(page, 4);
  await expect(card(page).getByRole("heading", { name: "The leader's lease" })).toBeVisible();
  await done(page);
  await goTo(page, 5);
  await done(page);
  await shot(page, "lesson13-5-local-reads-1920");
  await goTo(page, 6);

  // Your turn: the partition editor, n1 alone in group A, the other servers in group B.
  await goTo(page, 7);
  await expect(next(page)).toBeDisabled();
  await expect(card(page).getByRole("button", { name: "Do it for me" })).toBeVisible();
  await page.getByText("Partition into groups…").click();
  await page.getByRole("radio", { name: "n1 in group A" }).check();
  for (const n of ["n2", "n3", "n4", "n5"]) await page.getByRole("radio", { name: `${n} in group B` }).check();
  await shot(page, "lesson13-7-your-turn-1920");
  await page.getByRole("button", { name: "Apply partition" }).click();
  await expect(status(page)).toHaveText("You did it.");
  await expect(page.getByTestId("network-status")).toContainText("Partitioned: {n1} | {n2, n3, n4, n5}");

  // Predict: a tempting wrong answer first would be final, so the right one.
  await goTo(page, 8);
  await expect(card(page).getByRole("heading", { name: "What happens to the next write?" })).toBeVisible();
  await card(page).getByRole("button", { name: /^It waits until n1's read lease runs out/ }).click();
  await expect(card(page).getByText("Right.")).toBeVisible();
  await done(page);
  await shot(page, "lesson13-8-predict-1920");

  await goTo(page, 9);
  await done(page);
  await goTo(page, 10);
  await expect(page.getByTestId("network-status")).toHaveText("No partition: every process reaches every other.");
  await goTo(page, 11);
  await done(page);
  await goTo(page, 12);

  // Your turn: the leader's clock at half speed, through the Inspector.
  await goTo(page, 13);
  await expect(next(page)).toBeDisabled();
  await page.getByRole("button", { name: "Select n3" }).click();
  const inspector = page.getByRole("region", { name: "Inspector" });
  await inspector.getByLabel(/drift \(%\)/).fill("-50");
  await shot(page, "lesson13-13-drift-1920");
  await inspector.getByRole("button", { name: "Set drift of n3" }).click();
  await expect(status(page)).toHaveText("You did it.");

  await goTo(page, 14);
  await goTo(page, 15);
  await expect(card(page).getByRole("heading", { name: "The old leader still has time" })).toBeVisible();
  await card(page).getByRole("button", { name: /^The old value/ }).click();
  await expect(card(page).getByText("Right.")).toBeVisible();
  await done(page);
  await expect(status(page)).toContainText("It happened after");
  await shot(page, "lesson13-15-stale-read-1920");

  // The checker's drawing of this run's stale read: c3's read at n3.
  await goTo(page, 16);
  await expect(card(page).getByRole("heading", { name: "Caught by the check" })).toBeVisible();
  await page.getByRole("button", { name: "Check the reads" }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog.getByRole("heading")).toHaveText("✗ Not linearizable: a read returned an old value", { timeout: 30_000 });
  // What step 16 says: c2's append had finished when c3's read began, and the read missed it.
  await expect(dialog).toContainText(/c3's read of k\d at [\d.]+ s returned '[^']*', but c2's append of '[^']*' had already finished/);
  await expect(page.getByTestId("read-op-stuck")).toHaveCount(1);
  await expect(page.getByTestId("read-op-stuck").locator("text")).toContainText("✗ read");
  await shot(page, "lesson13-check-reads-1920");
  await dialog.getByRole("button", { name: "Close" }).click();

  await goTo(page, 17);
  await expect(card(page).getByRole("heading", { name: "Write lease, read leases" })).toBeVisible();
  await shot(page, "lesson13-16-closing-1920");
  const progress = await page.evaluate(() => localStorage.getItem("lease-lab.lesson.read-leases"));
  expect(JSON.parse(progress ?? "{}")).toMatchObject({ reached: STEPS - 1 });
  expect(errors).toEqual([]);
});

for (const [width, height] of [
  [1920, 1080],
  [1280, 720],
] as const) {
  test(`lesson 13's questions at ${width}x${height}, and in classroom mode`, async ({ page }) => {
    const errors = watchErrors(page);
    await page.setViewportSize({ width, height });
    for (const step of [8, 15]) {
      await page.goto(`/?lesson=read-leases&step=${step}`);
      await expect(count(page)).toHaveText(`Step ${step} of ${STEPS}`, { timeout: 30_000 });
      // Nothing in the card is clipped.
      const clipped = await card(page).evaluate((el) =>
        [...el.querySelectorAll<HTMLElement>("h2, h3, p, button, legend, li")]
          .filter((e) => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1)
          .map((e) => e.textContent?.slice(0, 40)),
      );
      expect(clipped).toEqual([]);
      for (const choice of await card(page).locator(".lesson-choices button").all()) await expect(choice).toBeInViewport();
      await shot(page, `lesson13-step${step}-${width}`);
      await page.locator("body").press("c");
      await expect(page.getByRole("button", { name: "Leave classroom" })).toHaveAttribute("aria-pressed", "true");
      await expect(card(page)).toBeVisible();
      // On the projector the question and its choices are on screen, not scrolled away inside the card.
      const words = await card(page).locator(".lesson-words").boundingBox();
      for (const choice of await card(page).locator(".lesson-choices button").all()) {
        const box = await choice.boundingBox();
        expect((box?.y ?? 0) + (box?.height ?? 0), `${await choice.textContent()} is hidden`).toBeLessThanOrEqual((words?.y ?? 0) + (words?.height ?? 0) + 1);
      }
      await shot(page, `lesson13-step${step}-classroom-${width}`);
      await page.locator("body").press("c");
    }
    expect(errors).toEqual([]);
  });
}
