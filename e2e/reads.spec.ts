/**
 * The reads scenarios in the browser: the leader-lease stale read plays to its end with every
 * expectation ticked (the checker says the reads are NOT linearizable), and the event log
 * says in words when a read was answered under a lease.
 */
import { expect, test } from "@playwright/test";
import { shot, watchErrors } from "./support";

test("leader-lease drift: the card's expectations all hold, including the stale read the checker finds", async ({ page }) => {
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.goto("/?scenario=reads/leader-lease-drift");
  const card = page.getByTestId("scenario-card");
  await expect(card.getByRole("heading", { name: /leader lease: a slow clock/ })).toBeVisible();
  const items = card.getByTestId("expectation");
  await expect(items).toHaveCount(4);
  await expect(card).toContainText("NOT linearizable");
  const speed = page.getByRole("slider", { name: "Speed" });
  await speed.focus();
  await speed.press("End");
  await page.getByRole("button", { name: "Play", exact: true }).click();
  await expect(card.getByTestId("expect-tally")).toHaveText("4 of 4 held", { timeout: 30_000 });
  // The stale reads come between 3.1 and 4.7 s; the event log keeps the newest 1,000 lines at the
  // cursor, so they are read at 5 s, opened by address, not wherever a late pause would land.
  await page.goto("/?scenario=reads/leader-lease-drift&t=5");
  await expect(page.getByRole("slider", { name: "Time" })).toHaveAttribute("aria-valuetext", /^cursor at 5\.00 s/);
  await expect(page.getByText(/answered c1's read at once, under its leader lease/).first()).toBeAttached();
  await card.scrollIntoViewIfNeeded();
  await shot(page, "reads-lease-drift-1920");
  await page.setViewportSize({ width: 1280, height: 720 });
  await card.scrollIntoViewIfNeeded();
  await shot(page, "reads-lease-drift-1280");
  expect(errors).toEqual([]);
});

test("read leases: a follower's local reads are told in the event log", async ({ page }) => {
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.goto("/?scenario=reads/read-lease-partitioned-holder");
  const card = page.getByTestId("scenario-card");
  const speed = page.getByRole("slider", { name: "Speed" });
  await speed.focus();
  await speed.press("End");
  await page.getByRole("button", { name: "Play", exact: true }).click();
  await expect(card.getByTestId("expect-tally")).toHaveText("4 of 4 held", { timeout: 30_000 });
  // The event log keeps the newest 1,000 lines at the cursor: how far the run got before a pause
  // landed depends on the machine, so the story is read at a fixed moment, opened by its address.
  await page.goto("/?scenario=reads/read-lease-partitioned-holder&t=6");
  await expect(page.getByRole("slider", { name: "Time" })).toHaveAttribute("aria-valuetext", /^cursor at 6\.00 s/);
  const waiting = page.getByText(/holds the answer for entry \d+ until/).first();
  await expect(waiting).toBeAttached();
  await shot(page, "reads-partitioned-holder-1920");
  const filter = page.getByPlaceholder(/Filter events/);
  await filter.fill("lease");
  const ranOut = page.getByText(/read lease ran out/).first();
  await ranOut.scrollIntoViewIfNeeded();
  await expect(ranOut).toBeVisible();
  await shot(page, "reads-event-log-1920");
  expect(errors).toEqual([]);
});
