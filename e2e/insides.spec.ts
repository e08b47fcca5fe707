/**
 * The lease's insides, end to end: log cells marked by kind (checkpoints, grants with their
 * token), the lease timeline zoomed and scrolled, a lease policy setting in the URL, and a
 * key-value client selected in the inspector. Screenshots at 1920×1080 and 1280×720.
 */
import { expect, test } from "@playwright/test";
import { shot, watchErrors } from "./support";

for (const size of [
  { width: 1920, height: 1080 },
  { width: 1280, height: 720 },
]) {
  test(`checkpoints in the log, a zoomable timeline, lock-delay in the URL, client c1 (${size.width}×${size.height})`, async ({ page }) => {
    const errors = watchErrors(page);
    await page.setViewportSize(size);
    await page.goto("/?seed=3&speed=1&checkpoint=on&checkpointevery=300");
    const tag = `insides-${size.width}`;

    // The log grid: checkpoint cells say C, grant cells show their token, with a legend.
    const log = page.locator(".log-grid");
    await expect(log.locator("td .lg-kind-checkpoint").first()).toBeVisible({ timeout: 20_000 });
    await expect(log.locator("td .lg-kind-checkpoint").first()).toHaveText("C");
    await expect(log.getByRole("list", { name: "Kinds of entry" })).toContainText("checkpoint");
    const cp = log.locator("td:has(.lg-kind-checkpoint)").first();
    await expect(cp).toHaveAttribute("aria-label", /checkpoint of the leases' remaining time/);
    await log.scrollIntoViewIfNeeded();
    await shot(page, `${tag}-log`);

    // The lease timeline zooms in and scrolls back, then follows now again.
    const tl = page.locator(".lease-timeline");
    await tl.scrollIntoViewIfNeeded();
    const span = tl.locator(".lt-zoom-span");
    await expect(span).toHaveText("8 s shown");
    await tl.getByRole("button", { name: "Lease timeline: zoom in" }).click();
    await expect(span).toHaveText("5.33 s shown");
    const follow = tl.getByRole("button", { name: /follow/ });
    await expect(follow).toHaveAttribute("aria-pressed", "true");
    const tracks = tl.getByRole("group", { name: /Lease chart: \+ and − zoom/ });
    await tracks.focus();
    await page.keyboard.press("-");
    await expect(span).toHaveText("8 s shown");
    await page.keyboard.press("ArrowLeft");
    await expect(follow).toHaveAttribute("aria-pressed", "false");
    await expect(follow).toHaveText("follow now");
    await shot(page, `${tag}-timeline-scrolled`);
    await follow.click();
    await expect(follow).toHaveAttribute("aria-pressed", "true");

    // A lease policy set in the dialog lands in the address.
    await page.getByRole("button", { name: "Settings…" }).click();
    const dialog = page.getByRole("dialog", { name: "Settings" });
    await dialog.getByLabel("Lock-delay (ms)").fill("-3");
    await expect(dialog.getByRole("alert")).toContainText("Lock-delay (ms) must be between 0 and 3600000 (got -3).");
    await dialog.getByLabel("Lock-delay (ms)").fill("500");
    await expect(dialog.getByLabel("Checkpoints")).toBeChecked();
    await shot(page, `${tag}-settings`);
    await dialog.getByRole("button", { name: "Start this run" }).click();
    await expect(page).toHaveURL(/lockdelay=500/);
    await expect(page).toHaveURL(/checkpoint=on/);

    // Client c1 is selectable, and says what a client is.
    await page.getByRole("button", { name: "Select c1" }).click();
    const inspector = page.locator(".inspector");
    await expect(inspector.getByRole("heading", { name: /c1: a key-value client/ })).toBeVisible();
    await expect(inspector).toContainText("it sends puts and reads through the leader");
    await expect(inspector.getByText("Requests made")).toBeVisible();
    await inspector.scrollIntoViewIfNeeded();
    await shot(page, `${tag}-client`);
    await shot(page, `${tag}-full`, true);
    expect(errors).toEqual([]);
  });
}
