/**
 * Every lesson's key step (its first question) at 1920x1080, saved as a screenshot to look
 * at: the card's words fit (nothing cut off), and each highlighted panel is on the page.
 */
import { readdirSync, readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { PANEL_CLASS } from "../src/app/lesson/lessonUi";
import { shot, watchErrors } from "./support";

test.use({ viewport: { width: 1920, height: 1080 } });


const lessons = readdirSync("lessons")
  .filter((f) => f.endsWith(".json") && f !== "glossary.json")
  .sort()
  .map((f) => JSON.parse(readFileSync(`lessons/${f}`, "utf8")).lesson as { id: string; steps: { kind: string; highlight?: { panel?: string }[] }[] });

test("every lesson's question step: readable, nothing cut off, highlights on the page", async ({ page }) => {
  const errors = watchErrors(page);
  expect(lessons.length).toBeGreaterThanOrEqual(11);
  for (const l of lessons) {
    const i = l.steps.findIndex((s) => s.kind === "predict");
    await page.goto(`/?lesson=${l.id}&step=${i + 1}`);
    const card = page.getByTestId("lesson-card");
    await expect(page.getByTestId("lesson-step-count"), l.id).toHaveText(`Step ${i + 1} of ${l.steps.length}`);
    // Nothing in the card is clipped: every element's content fits its box.
    const clipped = await card.evaluate((el) =>
      [...el.querySelectorAll<HTMLElement>("h2, h3, p, button, legend, li")]
        .filter((e) => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1)
        .map((e) => e.textContent?.slice(0, 40)),
    );
    expect(clipped, l.id).toEqual([]);
    for (const choice of await card.locator(".lesson-choices button").all()) await expect(choice, l.id).toBeVisible();
    // Each panel the step highlights is on the page (a lesson shows only the panels it has needed).
    const panels = ((await page.evaluate(() => document.body.dataset.lessonPanels)) ?? "").split(" ").filter((x) => x !== "");
    for (const p of panels) await expect(page.locator(`.panel.${PANEL_CLASS[p as keyof typeof PANEL_CLASS] ?? "missing"}`), `${l.id}: ${p}`).toHaveCount(1);
    await shot(page, `lesson-key-${l.id}`);
  }
  expect(errors).toEqual([]);
});
