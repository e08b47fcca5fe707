/**
 * Issue 14 in the dashboard: the leader-lease stale read found by "Check the reads" and drawn
 * (the red read, the write it should have seen), the same run again with ReadIndex checked
 * clean, the Reads panel's figures side by side, and a follower's read lease on the ring.
 */
import { expect, type Page, test } from "@playwright/test";
import { shot, watchErrors } from "./support";

async function playToEnd(page: Page, tally: string): Promise<void> {
  const card = page.getByTestId("scenario-card");
  const speed = page.getByRole("slider", { name: "Speed" });
  await speed.focus();
  await speed.press("End");
  await page.getByRole("button", { name: "Play", exact: true }).click();
  await expect(card.getByTestId("expect-tally")).toHaveText(tally, { timeout: 30_000 });
  const pauseButton = page.getByRole("button", { name: "Pause", exact: true });
  if (await pauseButton.isVisible()) await pauseButton.click();
}

test("the leader-lease stale read: the check draws it, and the same run with ReadIndex is linearizable", async ({ page }) => {
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.goto("/?scenario=reads/leader-lease-drift");
  await playToEnd(page, "4 of 4 held");

  await page.getByRole("button", { name: "Check the reads" }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog.getByRole("heading")).toHaveText("✗ Not linearizable: a read returned an old value");
  const timeline = dialog.getByTestId("reads-timeline");
  await expect(timeline.locator(".op.stuck")).toHaveCount(1);
  await expect(timeline.locator(".op.missed")).toHaveCount(1);
  // The sentence names the write the read should have seen: c2's append of "b".
  await expect(dialog.locator(".read-check-sentence")).toContainText("c2");
  await shot(page, "reads-ui-violation-1920");
  await page.setViewportSize({ width: 1280, height: 720 });
  await shot(page, "reads-ui-violation-1280");
  await page.setViewportSize({ width: 1920, height: 1080 });
  await dialog.getByRole("button", { name: "Close" }).click();

  // The figures: this run (the leader's lease) beside the same seed and actions with ReadIndex.
  const panel = page.locator(".read-check-panel");
  // Its two clients only do what the file says (no random workload): they are clients all the same.
  await expect(panel.getByText(/no key-value clients/)).toHaveCount(0);
  await panel.getByRole("button", { name: "Compare with ReadIndex" }).click();
  const table = panel.getByRole("table", { name: /^Reads and writes up to/ });
  await expect(table.getByRole("columnheader")).toHaveText([/^From 0 to/, "This run: the leader's lease", "Same run: ReadIndex"]);
  const leaseRow = table.getByRole("row", { name: /Answered by the leader's lease alone/ });
  await expect(leaseRow.getByRole("cell").nth(1)).toHaveText("0");
  expect(Number(await leaseRow.getByRole("cell").nth(0).textContent())).toBeGreaterThan(0);
  await panel.scrollIntoViewIfNeeded();
  await shot(page, "reads-ui-figures-1920");

  // The same run again, with ReadIndex: the file's expectations are dropped, the reads are checked clean.
  await panel.getByRole("button", { name: "Run again with ReadIndex" }).click();
  await expect(panel.getByRole("button", { name: "Run again with the leader's lease" })).toBeVisible();
  // The figures were the other run's: gone until measured again.
  await expect(table).toHaveCount(0);
  await expect
    .poll(async () => Number.parseFloat((await page.getByTestId("virtual-time").textContent()) ?? "0"), { timeout: 30_000 })
    .toBeGreaterThanOrEqual(8);
  const pauseButton = page.getByRole("button", { name: "Pause", exact: true });
  if (await pauseButton.isVisible()) await pauseButton.click();
  await page.getByRole("button", { name: "Check the reads" }).click();
  await expect(dialog.getByRole("heading")).toHaveText(/^✓ All \d+ reads? and \d+ writes on 1 key are linearizable$/);
  await shot(page, "reads-ui-readindex-ok-1920");
  await dialog.getByRole("button", { name: "Close" }).click();
  await panel.getByRole("button", { name: "Measure" }).click();
  await expect(table.getByRole("columnheader")).toHaveText([/^From 0 to/, "This run: ReadIndex"]);
  await panel.scrollIntoViewIfNeeded();
  await shot(page, "reads-ui-measure-1920");
  await page.setViewportSize({ width: 1280, height: 720 });
  await panel.scrollIntoViewIfNeeded();
  await shot(page, "reads-ui-measure-1280");
  expect(errors).toEqual([]);
});

test("read leases on the ring: a follower's badge says until when it holds one", async ({ page }) => {
  const errors = watchErrors(page);
  for (const [width, height] of [
    [1920, 1080],
    [1280, 720],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.goto("/?scenario=reads/read-lease-partitioned-holder");
    // The file opens explored to its end, at time zero: go to 3.2 s, while c1's append waits for the cut-off holder.
    const time = page.getByRole("slider", { name: "Time" });
    await time.fill("3200000");
    await time.blur();
    await expect(page.getByTestId("virtual-time")).toHaveText(/^3\.2\d* s$/);
    const lines = page.locator(".ring-svg .reads-line");
    await expect(lines.filter({ hasText: /^read lease until \d+\.\d s$/ }).first()).toBeVisible();
    await expect(lines.filter({ hasText: /^write waits for n\d to apply$/ })).toHaveCount(1);
    await expect(lines.filter({ hasText: /^or its lease to end: \d+\.\d s$/ })).toHaveCount(1);
    await expect(page.locator(".ring-svg .has-reads .reads-icon").first()).toBeVisible();
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot(page, `reads-ui-ring-${width}`);
    const now = page.getByRole("table", { name: "Leases for reads now" });
    await expect(now.getByRole("row", { name: /^n\d \(leader\) write waits for n\d to apply; or its lease to end: \d+\.\d s$/ })).toHaveCount(1);
    await now.scrollIntoViewIfNeeded();
    await shot(page, `reads-ui-leases-now-${width}`);
  }
  expect(errors).toEqual([]);
});

test("Settings: the leader's lease and two read-lease followers, shown on the ring", async ({ page }) => {
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.goto("/?seed=2&speed=0.1&clients=2");
  await page.getByRole("button", { name: "Settings…" }).click();
  const dialog = page.getByRole("dialog", { name: "Settings" });
  const reads = dialog.getByRole("group", { name: "Reads" });
  await reads.getByLabel("Reads at the leader").selectOption("leader-lease");
  await reads.getByLabel("Read-lease followers").selectOption("2");
  await reads.getByLabel("Read lease (ms)").fill("800");
  await reads.scrollIntoViewIfNeeded();
  await shot(page, "reads-ui-settings-1920");
  await dialog.getByRole("button", { name: "Start this run" }).click();
  const lines = page.locator(".ring-svg .reads-line");
  await expect(lines.filter({ hasText: /^leader lease until \d+\.\d s$/ })).toHaveCount(1, { timeout: 15_000 });
  await expect(lines.filter({ hasText: /^read lease until \d+\.\d s$/ })).toHaveCount(2, { timeout: 15_000 });
  await expect(page.locator(".ring-legend")).toContainText("a lease for reads");
  await page.getByRole("button", { name: "Pause", exact: true }).click();
  await shot(page, "reads-ui-settings-ring-1920");
  // The trade-off of read leases: the same run with 0, 2 and 4 read-lease followers.
  const panel = page.locator(".read-check-panel");
  await panel.getByRole("button", { name: "Compare 0, 2, 4 read-lease followers" }).click();
  const table = panel.getByRole("table", { name: /^Reads and writes up to/ });
  await expect(table.getByRole("columnheader")).toHaveText([
    /^From 0 to/,
    "Same run: no read-lease followers",
    "This run: 2 read-lease followers",
    "Same run: 4 read-lease followers",
  ]);
  await expect(table.getByRole("row", { name: /Answered by a follower's read lease/ }).getByRole("cell").first()).toHaveText("0");
  await panel.scrollIntoViewIfNeeded();
  await shot(page, "reads-ui-holders-1920");
  await page.setViewportSize({ width: 1280, height: 720 });
  await panel.scrollIntoViewIfNeeded();
  await shot(page, "reads-ui-holders-1280");
  await page.setViewportSize({ width: 1920, height: 1080 });
  // The run's settings say so when the dialog opens again.
  await page.getByRole("button", { name: "Settings…" }).click();
  await expect(reads.getByLabel("Reads at the leader")).toHaveValue("leader-lease");
  await expect(reads.getByLabel("Read lease (ms)")).toHaveValue("800");
  expect(errors).toEqual([]);
});

test("a follower answering a read from its own copy flashes on the ring", async ({ page }) => {
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.goto("/?scenario=reads/read-lease-local-reads");
  const time = page.getByRole("slider", { name: "Time" });
  await time.fill("1500000");
  await time.blur();
  const serving = page.locator(".ring-svg g.node.is-serving");
  for (let i = 0; i < 200 && (await serving.count()) === 0; i++) await page.getByRole("button", { name: "Step", exact: true }).click();
  await expect(serving.first()).toBeVisible();
  await expect(serving.first().locator(".reads-flash")).toBeVisible();
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, "reads-ui-local-read-1920");
  expect(errors).toEqual([]);
});
