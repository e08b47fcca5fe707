/**
 * The scenario library: open it from the toolbar, open scenario 03, play until its
 * expectations tick, time-travel back, reload; and the compare page of 03/04 with one
 * clock for both runs. Axe audits the dialog and the card; screenshots at two sizes.
 */
import AxeBuilder from "@axe-core/playwright";
import { readFileSync } from "node:fs";
import { expect, type Page, test } from "@playwright/test";
import { shot, watchErrors } from "./support";

async function audit(page: Page, include: string): Promise<string[]> {
  const r = await new AxeBuilder({ page }).include(include).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return r.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help} — e.g. ${v.nodes[0]?.target.join(" ")}`);
}

const GC = "GC pause with fencing: the late write is rejected";

test("the library lists the scenarios; 03 opens with a card whose expectations tick as it plays", async ({ page }) => {
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.goto("/?seed=3");
  await page.getByRole("button", { name: "Scenarios", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Scenarios" });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole("heading", { name: "Leases" })).toBeVisible();
  await expect(dialog.getByRole("heading", { name: "Raft" })).toBeVisible();
  await expect(dialog.getByRole("heading", { name: "Reads" })).toBeVisible();
  await expect(dialog.getByTestId("library-item")).toHaveCount(35);
  const item = dialog.locator('[data-id="lease/03-gc-pause-fenced"]');
  await expect(item).toContainText("Kleppmann's story");
  await expect(item).toContainText("Watch: at 2.000 s");
  expect(await audit(page, ".library-dialog")).toEqual([]);
  await shot(page, "library-dialog-1920");
  await page.setViewportSize({ width: 1280, height: 720 });
  await shot(page, "library-dialog-1280");
  await page.setViewportSize({ width: 1920, height: 1080 });

  await dialog.getByRole("button", { name: `Open ${GC}` }).click();
  await expect(dialog).toBeHidden();
  // Paused at its start, the address may also gain the cursor's moment (&t=0) after a moment (urlSync.ts).
  await expect(page).toHaveURL(/\?scenario=lease\/03-gc-pause-fenced(&t=0)?$/);
  const card = page.getByTestId("scenario-card");
  await expect(card.getByRole("heading", { name: GC })).toBeVisible();
  await expect(card).toContainText("h1 checks that its lease is valid");
  const items = card.getByTestId("expectation");
  await expect(items).toHaveCount(5);
  await expect(card.getByTestId("expect-tally")).toHaveText("0 of 5 held");
  await expect(card.getByRole("list", { name: "Scripted actions" })).toContainText("(ahead)");

  // Fast: 5 virtual seconds per real second.
  const speed = page.getByRole("slider", { name: "Speed" });
  await speed.focus();
  await speed.press("End");
  await page.getByRole("button", { name: "Play", exact: true }).click();
  await expect(card.getByTestId("expect-tally")).toHaveText("5 of 5 held", { timeout: 20_000 });
  await expect(items.first()).toHaveAttribute("data-status", "ok");
  await expect(items.first()).toContainText("✓");
  await expect(card).toContainText("storage rejected at least 1 write(s) from h1");
  await expect(card.getByRole("list", { name: "Scripted actions" })).toContainText("(done)");
  const pauseButton = page.getByRole("button", { name: "Pause", exact: true });
  if (await pauseButton.isVisible()) await pauseButton.click();
  expect(await audit(page, "[data-testid=scenario-card]")).toEqual([]);
  await card.scrollIntoViewIfNeeded();
  await shot(page, "scenario-card-1920");
  await page.setViewportSize({ width: 1280, height: 720 });
  await card.scrollIntoViewIfNeeded();
  await shot(page, "scenario-card-1280");

  // Back to 0: every expectation is pending again (the statuses are those at the cursor).
  const time = page.getByRole("slider", { name: "Time" });
  await time.focus();
  await time.press("Home");
  await expect(card.getByTestId("expect-tally")).toHaveText("0 of 5 held");
  await expect(items.nth(3)).toHaveAttribute("data-status", "pending");

  // The address reopens it.
  await page.reload();
  await expect(page.getByTestId("scenario-card").getByRole("heading", { name: GC })).toBeVisible();
  expect(errors).toEqual([]);
});

test("an unknown scenario name is explained and the normal lab opens", async ({ page }) => {
  await page.goto("/?scenario=lease/99-nope");
  await expect(page.getByRole("alert").filter({ hasText: 'There is no scenario "lease/99-nope"' })).toBeVisible();
  await expect(page.getByTestId("scenario-card")).toHaveCount(0);
  await expect(page.getByTestId("seed")).toBeVisible();
});

test("compare 03/04: one clock, and each side reaches its outcome at the same virtual time", async ({ page }) => {
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.goto("/?scenario=lease/03-gc-pause-fenced");
  await page.getByTestId("scenario-card").getByRole("button", { name: /^Compare/ }).click();
  await expect(page).toHaveURL(/\?compare=lease\/03-gc-pause-fenced,lease\/04-gc-pause-unfenced$/);
  const left = page.getByTestId("compare-left");
  const right = page.getByTestId("compare-right");
  await expect(left.getByTestId("side-time")).toHaveText("0.000 s");
  await expect(right.getByTestId("side-time")).toHaveText("0.000 s");
  await expect(page.getByRole("button", { name: "Play both" })).toBeEnabled();
  await page.getByLabel("Speed").selectOption("5");
  await page.getByRole("button", { name: "Play both" }).click();
  await expect(page.getByRole("button", { name: "Play both" })).toBeVisible({ timeout: 20_000 });
  const end = await page.getByTestId("compare-time").textContent();
  expect(end).toBe("10.000 s");
  await expect(left.getByTestId("side-time")).toHaveText("10.000 s");
  await expect(right.getByTestId("side-time")).toHaveText("10.000 s");
  // With fencing the storage rejects h1's late write; without, the checker reports the corruption: at the same moment.
  await expect(left.getByTestId("side-rejected")).toHaveText("1");
  await expect(left.getByTestId("side-violations")).toHaveText("0");
  await expect(right.getByTestId("side-rejected")).toHaveText("0");
  await expect(right.getByTestId("side-violations")).not.toHaveText("0");
  const rejectedAt = (await left.getByTestId("side-rejection").locator("strong").textContent()) ?? "";
  const violatedAt = (await right.getByTestId("side-violation").locator("strong").textContent()) ?? "";
  expect(rejectedAt).toMatch(/^\d+\.\d{3} s$/);
  expect(violatedAt).toBe(rejectedAt);
  await expect(left.getByTestId("expect-tally")).toHaveText("5 of 5 held");
  await expect(right.getByTestId("expect-tally")).toHaveText("3 of 3 held");
  await shot(page, "compare-1920");
  await page.setViewportSize({ width: 1280, height: 720 });
  await shot(page, "compare-1280");

  // Dragging the shared time moves both.
  await page.getByLabel("Time of both runs").fill("3000");
  await expect(left.getByTestId("side-time")).toHaveText("3.000 s");
  await expect(right.getByTestId("side-time")).toHaveText("3.000 s");
  await expect(left.getByTestId("side-rejected")).toHaveText("0");
  await expect(right.getByTestId("side-violations")).toHaveText("0");
  expect(await audit(page, ".compare-controls")).toEqual([]);
  expect(errors).toEqual([]);
});

test("a scenario opened by Import gets the same card, its expectations ticking", async ({ page }) => {
  await page.goto("/?seed=3");
  await page.getByRole("button", { name: "Share & export" }).click();
  const dialog = page.getByRole("dialog", { name: "Share & export" });
  await dialog.getByLabel("Paste a share link or scenario").fill(readFileSync("scenarios/lease/04-gc-pause-unfenced.json", "utf8"));
  await dialog.getByRole("button", { name: "Open", exact: true }).click();
  const card = page.getByTestId("scenario-card");
  await expect(card.getByRole("heading", { name: "the same GC pause without fencing: corruption" })).toBeVisible();
  await expect(card.getByTestId("expect-tally")).toHaveText(/^[0-3] of 3 held$/);
  const time = page.getByRole("slider", { name: "Time" });
  await time.focus();
  await time.press("End");
  await expect(card.getByTestId("expect-tally")).toHaveText("3 of 3 held");
  await expect(card.getByTestId("expectation").last()).toContainText("the checker reports storage-corruption");
});
