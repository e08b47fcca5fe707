/**
 * Live mode's start and its "Check every call" (docs/live.md). A speed chosen while live mode's
 * code is still loading is the live run's speed. (The race this guards, seen once on a loaded
 * machine, was narrower: the code loaded before the worker had answered the speed change, and
 * the run started at the speed the dashboard showed before. Here the worker has answered by
 * the time the code loads, so this checks the speed is kept, not that narrow order.) With every
 * call checked, each thread reports its state's digest after each call, through the router,
 * and the replay compares its own at each one.
 */
import { expect, test } from "@playwright/test";
import { shot, watchErrors } from "./support";

const LONG = 45_000;

test("a speed chosen while live mode loads is the live run's speed", async ({ page }) => {
  const errors = watchErrors(page);
  // Hold live mode's code back until the speed has been changed.
  let release = (): void => {};
  const held = new Promise<void>((r) => {
    release = r;
  });
  await page.route(/\/cluster-[\w-]+\.js$/, async (route) => {
    await held;
    await route.continue();
  });
  await page.goto("/?seed=1");
  const slider = page.getByRole("slider", { name: "Speed" });
  await expect(slider).not.toHaveAttribute("aria-valuetext", /^1×/);
  await page.getByRole("button", { name: "Live (real threads)" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Starting one thread per process" })).toBeVisible();
  await page.getByLabel("Speed").fill("7");
  await expect(slider).toHaveAttribute("aria-valuetext", /^1×/);
  release();
  await expect(page.getByTestId("live-workers")).toHaveText("12", { timeout: LONG });
  // The live run's own view: still 1×, and its threads' clock goes at about real time.
  const at = async (): Promise<number> => Number(/threads are at ([\d.]+) s/.exec((await page.getByTestId("live-summary").textContent()) ?? "")?.[1] ?? Number.NaN);
  await expect.poll(at, { timeout: LONG }).toBeGreaterThan(0.5);
  const t0 = await at();
  await page.waitForTimeout(2000);
  expect(await at()).toBeGreaterThan(t0 + 1);
  await expect(slider).toHaveAttribute("aria-valuetext", /^1×/);
  expect(errors).toEqual([]);
});

test("Check every call: each thread's state after each call matches the replay's, through a kill and a restart", async ({ page }) => {
  test.setTimeout(120_000);
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.goto("/?seed=3");
  await page.getByRole("button", { name: "Live (real threads)" }).click();
  await page.getByLabel("Speed").fill("7");
  await expect(page.getByTestId("live-workers")).toHaveText("12", { timeout: LONG });
  const check = page.getByRole("checkbox", { name: "Check every call" });
  await expect(check).not.toBeChecked();
  await check.check();
  await expect(check).toBeChecked();
  await expect(page.getByTestId("leader")).toHaveText(/^n\d+$/, { timeout: LONG });
  await shot(page, "live-check-every-call-1920");
  // A follower killed and restarted: its new worker checks its calls too.
  const leader = (await page.getByTestId("leader").textContent()) as string;
  const follower = leader === "n2" ? "n3" : "n2";
  await page.getByRole("button", { name: `Select ${follower}`, exact: true }).click();
  await page.locator(".inspector").getByRole("button", { name: `Kill ${follower}` }).click();
  await expect(page.getByTestId(`thread-${follower}`)).toContainText("terminated", { timeout: LONG });
  await page.locator(".inspector").getByRole("button", { name: `Restart ${follower}` }).click();
  await expect(page.getByTestId(`thread-${follower}`)).toContainText("worker #2", { timeout: LONG });
  await page.waitForTimeout(3000);
  await expect(page.getByTestId("live-lost")).toHaveCount(0);
  await page.getByRole("button", { name: "Open in the simulator" }).click();
  await expect(page.getByTestId("replay-check")).toHaveText(/^✓ The replay is the same run: all 11 processes/, { timeout: 60_000 });
  // The recording carries the digests it was checked against.
  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Save recording" }).click();
  const file = await (await download).path();
  const { readFileSync } = await import("node:fs");
  const text = readFileSync(file, "utf8");
  expect((text.match(/"after":"[0-9a-f]{16}"/g) ?? []).length).toBeGreaterThan(100);
  expect(errors).toEqual([]);
});
