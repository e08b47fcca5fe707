import { expect, type Locator, type Page, test } from "@playwright/test";

/** "n3, leader, term 4" -> { id: "n3", term: 4 } */
function parseRow(label: string | null): { id: string; term: number } {
  const m = /^(n\d+), leader, term (\d+)$/.exec(label ?? "");
  if (!m) throw new Error(`not a leader row label: ${label}`);
  return { id: m[1] as string, term: Number(m[2]) };
}

function leaderRows(page: Page): Locator {
  return page.getByRole("row", { name: /leader/ });
}

async function firstLeader(page: Page): Promise<{ id: string; term: number }> {
  const row = leaderRows(page).first();
  await expect(row).toBeVisible();
  return parseRow(await row.getAttribute("aria-label"));
}

/** Fails the test on any uncaught error in the page or its worker. */
function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  return errors;
}

test("a leader is elected, and killing it elects a new one in a higher term", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Lease Lab" })).toBeVisible();
  await expect(page.getByRole("row", { name: /^n\d+, / })).toHaveCount(5);

  // The simulation runs in a worker, not on the page's thread.
  await expect.poll(() => page.workers().length).toBeGreaterThan(0);

  const first = await firstLeader(page);
  await expect(page.getByTestId("leader")).toHaveText(first.id);
  await page.getByRole("button", { name: `Kill ${first.id}` }).click();
  await expect(page.getByRole("row", { name: `${first.id}, down, term ${first.term}` })).toBeVisible();
  await expect(page.getByRole("button", { name: `Restart ${first.id}` })).toBeEnabled();

  const next = page.getByRole("row", { name: new RegExp(`^(?!${first.id},)n\\d+, leader, term \\d+$`) });
  await expect(next).toHaveCount(1);
  const second = parseRow(await next.getAttribute("aria-label"));
  expect(second.id).not.toBe(first.id);
  expect(second.term).toBeGreaterThan(first.term);
  await expect(page.getByTestId("violations")).toHaveText("0");

  await page.screenshot({ path: "test-results/smoke.png", fullPage: true });

  // Bring the old leader back: it rejoins as a follower of the new term.
  await page.getByRole("button", { name: `Restart ${first.id}` }).click();
  await expect(page.getByRole("row", { name: new RegExp(`^${first.id}, follower, term ${second.term}$`) })).toBeVisible();
  expect(errors).toEqual([]);
});

test("the same ?seed= gives the same first leader and term in two fresh pages", async ({ browser }) => {
  const results: { id: string; term: number }[] = [];
  for (let i = 0; i < 2; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto("/?seed=20240611");
    await expect(page.getByText("seed 20240611", { exact: true })).toBeVisible();
    results.push(await firstLeader(page));
    await context.close();
  }
  expect(results[1]).toEqual(results[0]);
});

test("Pause stops virtual time, Step processes one event, Play resumes", async ({ page }) => {
  await page.goto("/?seed=3");
  await firstLeader(page);
  await page.getByRole("button", { name: "Pause" }).click();
  await expect(page.getByRole("button", { name: "Play" })).toBeEnabled();
  const time = page.getByTestId("virtual-time");
  const events = page.getByTestId("events");
  const pausedTime = (await time.textContent()) ?? "";
  const pausedEvents = Number(await events.textContent());
  await page.waitForTimeout(500);
  await expect(time).toHaveText(pausedTime);
  await expect(events).toHaveText(String(pausedEvents));

  await page.getByRole("button", { name: "Step" }).click();
  await expect.poll(async () => Number(await events.textContent())).toBeGreaterThan(pausedEvents);
  await expect(page.getByRole("button", { name: "Play" })).toBeEnabled();

  await page.getByRole("button", { name: "Play" }).click();
  await expect(page.getByRole("button", { name: "Pause" })).toBeEnabled();
  await expect(time).not.toHaveText(pausedTime);
});

test("a bad ?seed= shows a clear message and the run still goes on with defaults", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto("/?seed=abc&nodes=3");
  const alert = page.getByRole("alert");
  await expect(alert).toContainText("Ignored ?seed=abc");
  await expect(alert).toContainText("Using seed 1 instead");
  await expect(page.getByText("seed 1", { exact: true })).toBeVisible();
  await expect(page.getByRole("row", { name: /^n\d+, / })).toHaveCount(3);
  await firstLeader(page);
  await page.screenshot({ path: "test-results/bad-seed.png", fullPage: true });
  expect(errors).toEqual([]);
});

test("a bad ?nodes= falls back to five nodes", async ({ page }) => {
  await page.goto("/?nodes=42");
  await expect(page.getByRole("alert")).toContainText("Ignored ?nodes=42");
  await expect(page.getByRole("row", { name: /^n\d+, / })).toHaveCount(5);
  await firstLeader(page);
});
