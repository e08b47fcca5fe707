/**
 * Bugs an outside tester found, each checked the way they found it: scripted actions kept
 * across a branch, shortcuts after the time slider and the share dialog, Reset that asks,
 * Step back that says what it undid, the moment in the address, and every lease shown.
 */
import { expect, type Locator, type Page, test } from "@playwright/test";
import { nodes, pause, watchErrors } from "./support";

function slider(page: Page): Locator {
  return page.getByRole("slider", { name: "Time" });
}

async function importScenario(page: Page, file: string): Promise<void> {
  await page.getByRole("button", { name: "Share & export" }).click();
  await page.getByLabel("Scenario file").setInputFiles(file);
}

test("branching in the past keeps the scenario's scripted GC pause (scenario 03, fencing off at 0 s)", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto("/?speed=2");
  await expect(nodes(page)).toHaveCount(5);
  await importScenario(page, "scenarios/lease/03-gc-pause-fenced.json");
  await expect(page.getByText("seed 13")).toBeVisible();
  const keep = page.getByLabel("Keep the scenario's scripted action when I act in the past");
  await expect(keep).toBeChecked();
  await slider(page).fill("0");
  await expect(page.getByTestId("cursor-time")).toHaveText(/^0(\.0+)? s$/);
  await slider(page).blur();
  await page.keyboard.press("f");
  // The new branch has the user's "fencing off" and, still ahead, the scenario's own GC pause.
  const actions = page.getByRole("list", { name: "Actions on this branch" }).getByRole("listitem");
  await expect(actions).toHaveCount(2);
  await expect(actions.nth(0)).toContainText(/fencing off/i);
  await expect(actions.nth(1)).toContainText(/h1/);
  await expect(actions.nth(1)).toContainText("(scripted)");
  await page.locator("section.time-travel").screenshot({ path: "test-results/screens/bugs-keep-script-panel.png" });
  // Played on: h1 is frozen at 2 s, wakes after h2 took the lease, and (fencing off) its late write gets through.
  await page.getByRole("button", { name: "Play", exact: true }).click();
  await expect(page.getByTestId("violations")).not.toHaveText("0", { timeout: 30_000 });
  await expect(page.locator("section.storage-panel tr[aria-label]").filter({ hasText: "h1" }).first()).toBeVisible();
  expect(errors).toEqual([]);
});

test("the script can be dropped: then the branch holds only the user's action", async ({ page }) => {
  await page.goto("/?speed=2");
  await expect(nodes(page)).toHaveCount(5);
  await importScenario(page, "scenarios/lease/03-gc-pause-fenced.json");
  await expect(page.getByText("seed 13")).toBeVisible();
  const keep = page.getByLabel("Keep the scenario's scripted action when I act in the past");
  await keep.click();
  await expect(keep).not.toBeChecked();
  await slider(page).fill("0");
  await slider(page).blur();
  await page.keyboard.press("f");
  const actions = page.getByRole("list", { name: "Your actions on this branch" }).getByRole("listitem");
  await expect(actions).toHaveCount(1);
  await expect(actions.nth(0)).toContainText(/fencing off/i);
});

test("after Copy share link, Escape still closes the dialog and Space does not start the run behind it", async ({ page, context }) => {
  const errors = watchErrors(page);
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.goto("/?seed=4&speed=1");
  await expect(nodes(page)).toHaveCount(5);
  await pause(page);
  const time = await page.getByTestId("cursor-time").textContent();
  await page.getByRole("button", { name: "Share & export" }).click();
  const dialog = page.getByRole("dialog", { name: "Share & export" });
  await expect(dialog).toBeVisible();
  await dialog.getByRole("button", { name: "Copy share link" }).click();
  await expect(dialog.getByRole("status")).toContainText(/share link/);
  // Focus is back inside the dialog, so the keys are the dialog's.
  await expect.poll(() => page.evaluate(() => document.querySelector('[role="dialog"]')?.contains(document.activeElement) ?? false)).toBe(true);
  await page.keyboard.press(" ");
  await page.keyboard.press("k");
  await page.waitForTimeout(500);
  await expect(page.getByRole("button", { name: "Play", exact: true })).toBeVisible();
  await expect(page.getByTestId("cursor-time")).toHaveText(time as string);
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(page.getByRole("button", { name: "Share & export" })).toBeFocused();
  expect(errors).toEqual([]);
});

test("while a dialog is open, even with focus on the page behind it, shortcuts do not act on the run; Escape closes it", async ({ page }) => {
  await page.goto("/?seed=4&speed=1");
  await expect(nodes(page)).toHaveCount(5);
  await pause(page);
  const time = await page.getByTestId("cursor-time").textContent();
  await page.getByRole("button", { name: "Share & export" }).click();
  const dialog = page.getByRole("dialog", { name: "Share & export" });
  await expect(dialog).toBeVisible();
  // Focus dropped to the page (as a disabled button drops it).
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press(" ");
  await page.keyboard.press("s");
  await page.waitForTimeout(500);
  await expect(page.getByRole("button", { name: "Play", exact: true })).toBeVisible();
  await expect(page.getByTestId("cursor-time")).toHaveText(time as string);
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
});

test("after the time slider is clicked, B, S and Space are shortcuts again; its arrow keys still move it", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto("/?seed=4&speed=1");
  await expect(nodes(page)).toHaveCount(5);
  await page.waitForTimeout(1500);
  await pause(page);
  await slider(page).click();
  await expect(slider(page)).toBeFocused();
  const events = page.getByTestId("events");
  await expect.poll(async () => Number(await events.textContent())).toBeGreaterThan(1);
  const at = Number(await events.textContent());
  await page.keyboard.press("s");
  await expect.poll(async () => Number(await events.textContent())).toBe(at + 1);
  await page.keyboard.press("b");
  await expect.poll(async () => Number(await events.textContent())).toBe(at);
  // Step back says what it undid.
  const last = page.getByRole("region", { name: "Last step" });
  await expect(last).toContainText("Stepped back");
  await expect(last).toContainText("Undid:");
  await expect(last.getByRole("listitem").first()).not.toBeEmpty();
  await last.screenshot({ path: "test-results/screens/bugs-undid.png" });
  const value = Number(await slider(page).inputValue());
  await page.keyboard.press("ArrowLeft");
  await expect.poll(async () => Number(await slider(page).inputValue())).toBeLessThan(value);
  await page.keyboard.press(" ");
  await expect(page.getByRole("button", { name: "Pause", exact: true })).toBeVisible();
  await page.keyboard.press(" ");
  await expect(page.getByRole("button", { name: "Play", exact: true })).toBeVisible();
  expect(errors).toEqual([]);
});

test("Reset asks before it throws away the user's actions; Keep my run keeps them; with nothing to lose it resets at once", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto("/?seed=4&speed=1");
  await expect(nodes(page)).toHaveCount(5);
  await page.waitForTimeout(1500);
  await pause(page);
  const actions = page.getByRole("list", { name: "Your actions on this branch" }).getByRole("listitem");
  await page.keyboard.press("h");
  await expect(actions).toHaveCount(1);
  await page.keyboard.press("r");
  const ask = page.getByRole("alertdialog", { name: "Start this run again from 0 s?" });
  await expect(ask).toBeVisible();
  await expect(ask).toContainText("your 1 action on this branch");
  await expect(ask.getByRole("button", { name: "Keep my run" })).toBeFocused();
  await page.screenshot({ path: "test-results/screens/bugs-reset-ask.png" });
  await page.keyboard.press("Escape");
  await expect(ask).toBeHidden();
  await expect(actions).toHaveCount(1);
  // The toolbar's button asks too; this time the answer is yes.
  await page.getByRole("button", { name: "Reset", exact: true }).click();
  await ask.getByRole("button", { name: "Reset and lose them" }).click();
  await expect(ask).toBeHidden();
  await expect(actions).toHaveCount(0);
  // Nothing of the user's now: R starts again at once.
  await pause(page);
  await page.keyboard.press("r");
  await expect(ask).toBeHidden();
  await expect(page.getByRole("button", { name: "Pause", exact: true })).toBeVisible();
  expect(errors).toEqual([]);
});

test("the address keeps the paused moment: a reload opens the same moment; a bad t is explained", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto("/?seed=4&speed=1");
  await expect(nodes(page)).toHaveCount(5);
  await page.waitForTimeout(2000);
  await pause(page);
  await slider(page).fill("1234567");
  await expect(page).toHaveURL(/[?&]t=1\.234567(&|#|$)/);
  const time = await page.getByTestId("cursor-time").textContent();
  const leader = await page.getByTestId("leader").textContent();
  await page.reload();
  await expect(nodes(page)).toHaveCount(5);
  await expect(page.getByTestId("cursor-time")).toHaveText(time as string);
  await expect(page.getByTestId("leader")).toHaveText(leader as string);
  await expect(page.getByRole("button", { name: "Play", exact: true })).toBeVisible();
  // Playing drops t (a reload then starts the run as usual).
  await page.getByRole("button", { name: "Play", exact: true }).click();
  await expect(page).not.toHaveURL(/[?&]t=/);
  expect(errors).toEqual([]);

  await page.goto("/?seed=4&t=soon");
  await expect(page.getByText("Ignored ?t=soon: t must be a moment of the run in seconds")).toBeVisible();
  await expect(nodes(page)).toHaveCount(5);
});

test("the LEASE card shows every lease of a run with two lease names", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto("/?speed=1");
  await expect(nodes(page)).toHaveCount(5);
  const scenario = { name: "two leases", seed: 3, duration: "5s", holders: { count: 4, leaseNames: ["lock", "queue"] }, ui: { at: "5s" } };
  await page.getByRole("button", { name: "Share & export" }).click();
  await page.getByLabel("Scenario file").setInputFiles({ name: "two-leases.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(scenario)) });
  const card = page.getByTestId("lease-summary");
  await expect(card).toContainText("2 leases");
  await expect(card).toContainText(/lock: h\d · token \d+/);
  await expect(card).toContainText(/queue: h\d · token \d+/);
  for (const [w, h] of [
    [1920, 1080],
    [1280, 720],
  ] as const) {
    await page.setViewportSize({ width: w, height: h });
    await page.locator("section.summary").screenshot({ path: `test-results/screens/bugs-two-leases-${w}.png` });
  }
  expect(errors).toEqual([]);
});
