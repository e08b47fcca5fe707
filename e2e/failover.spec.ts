/**
 * Failover of a database primary (docs/failover.md): the hung-primary scenario with the
 * replicas' watchdog off, opened by its address. Played, it stops at the split brain: the
 * ring and the holders panel show two primaries at once, and the checker names it. Played
 * on, the storage rejects the old primary's write (fencing). Screenshots at two sizes.
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import { shot, watchErrors } from "./support";

/** Axe on part of the page; label-content-name-mismatch is off, as in a11y.spec.ts (the ring's boxes show data, their names say it in words). */
async function audit(page: Page, include: string): Promise<string[]> {
  const r = await new AxeBuilder({ page })
    .include(include)
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
    .disableRules(["label-content-name-mismatch"])
    .analyze();
  return r.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help} — e.g. ${v.nodes[0]?.target.join(" ")}`);
}

const ID = "failover/03-hung-primary-watchdog-off";
const NAME = "failover: a hung primary wakes up still primary (watchdog off), and fencing stops it";

test("watchdog off: two primaries at once, then fencing rejects the old primary's write", async ({ page }) => {
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.goto(`/?scenario=${ID}`);
  const card = page.getByTestId("scenario-card");
  await expect(card.getByRole("heading", { name: NAME })).toBeVisible();
  await expect(card).toContainText("Two primaries at once: split brain");
  const pause = page.getByRole("button", { name: "Pause", exact: true });
  if (await pause.isVisible()) await pause.click();

  // Before the hang: h1 is the only primary, the others secondaries.
  const time = page.getByRole("slider", { name: "Time" });
  const replicas = page.getByRole("button", { name: /^replica h\d+, / });
  await expect(replicas).toHaveCount(3);
  await expect(page.getByRole("heading", { name: "Database replicas (lease holders)" })).toBeVisible();

  const speed = page.getByRole("slider", { name: "Speed" });
  await speed.focus();
  await speed.press("End");
  await page.getByRole("button", { name: "Play", exact: true }).click();
  await expect(page.getByRole("button", { name: /^replica h1, primary, token \d+$/ })).toBeVisible({ timeout: 20_000 });

  // The checker stops the run at the split brain: h1 woke still primary while the new primary writes.
  const banner = page.getByRole("region", { name: "Safety violated" });
  await expect(banner).toContainText("two-primaries", { timeout: 30_000 });
  await expect(page.getByRole("button", { name: "Play", exact: true })).toBeVisible();
  const primaries = page.getByRole("button", { name: /^replica h\d+, primary, token \d+$/ });
  await expect(primaries).toHaveCount(2);
  const labels = await primaries.evaluateAll((els) => els.map((e) => e.getAttribute("aria-label") ?? ""));
  expect(labels.some((l) => l.startsWith("replica h1, "))).toBe(true);
  const tokens = labels.map((l) => Number(/token (\d+)$/.exec(l)?.[1]));
  expect(new Set(tokens).size).toBe(2);
  const panel = page.locator(".holders-panel");
  await expect(panel.locator(".replica-role.role-primary")).toHaveCount(2);
  expect(await audit(page, ".holders-panel")).toEqual([]);
  expect(await audit(page, ".ring-svg g.holder")).toEqual([]);
  // What that rule protects: each replica's name holds the id and the role its box shows.
  const shown = await page.locator(".ring-svg g.holder").evaluateAll((els) =>
    els.map((e) => ({ name: e.getAttribute("aria-label") ?? "", id: e.querySelector(".holder-id")?.textContent ?? "", word: e.querySelector(".holder-state")?.textContent ?? "" })),
  );
  expect(shown).toHaveLength(3);
  for (const b of shown) expect(b.name).toMatch(new RegExp(`^replica ${b.id}, ${b.word}`));
  await shot(page, "failover-two-primaries-1920");
  await page.setViewportSize({ width: 1280, height: 720 });
  await shot(page, "failover-two-primaries-1280");
  await panel.scrollIntoViewIfNeeded();
  await shot(page, "failover-holders-panel-1280");
  await page.setViewportSize({ width: 1920, height: 1080 });

  // Played on: the storage has seen the new primary's higher token and rejects h1's old one.
  await page.getByRole("button", { name: "Play", exact: true }).click();
  const h1Row = panel.getByRole("row", { name: /^replica h1, / });
  await expect(h1Row).toContainText(/✗[1-9]/, { timeout: 20_000 });
  if (await pause.isVisible()) await pause.click();
  await expect(page.getByRole("option", { name: /⊘ write by h1 \(token \d+\) rejected$/ }).first()).toBeAttached();
  await shot(page, "failover-fenced-1920");

  // At the end h1 has stepped down: one primary again, and every expectation held.
  await time.focus();
  await time.press("End");
  await expect(primaries).toHaveCount(1);
  await expect(card.getByTestId("expect-tally")).toHaveText("6 of 6 held");
  await page.setViewportSize({ width: 1280, height: 720 });
  await shot(page, "failover-end-1280");
  expect(errors).toEqual([]);
});

test("clean failover: the failover is a key moment, told on the ring beside the new primary", async ({ page }) => {
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.goto("/?scenario=failover/01-clean-failover");
  await expect(page.getByTestId("scenario-card")).toContainText("that is the failover");
  const pause = page.getByRole("button", { name: "Pause", exact: true });
  if (await pause.isVisible()) await pause.click();
  const speed = page.getByRole("slider", { name: "Speed" });
  await speed.focus();
  await speed.press("End");
  await speed.blur();
  const status = page.getByTestId("moment-status");
  // N plays to the next key moment: the first primary, the crash's expiry, the new grant, then the failover.
  for (let i = 0; i < 12; i++) {
    await page.keyboard.press("n");
    await expect(status).toHaveText(/^Paused: /, { timeout: 20_000 });
    if (/^Paused: Failover: /.test((await status.textContent()) ?? "")) break;
  }
  await expect(status).toHaveText(/^Paused: Failover: h[23] is the new primary of ag01, with a new lease and token \d+ \(h1 had token \d+\)\./);
  const callout = page.locator(".ring-svg g.moment[data-moment=failover]");
  await expect(callout).toBeVisible();
  await expect(callout.locator(".moment-main")).toHaveText(/^✓ new primary, token \d+$/);
  // Green, as a grant: a good thing happened.
  expect(await callout.locator(".moment-main").evaluate((el) => getComputedStyle(el).fill)).toBe("rgb(0, 107, 79)");
  await expect(page.getByRole("button", { name: /^holder h1, down$/ })).toBeVisible();
  await expect(page.getByRole("button", { name: /^replica h[23], primary, token \d+$/ })).toHaveCount(1);
  await shot(page, "failover-moment-1920");
  await page.setViewportSize({ width: 1280, height: 720 });
  await expect(callout).toBeVisible();
  await shot(page, "failover-moment-1280");
  expect(errors).toEqual([]);
});
