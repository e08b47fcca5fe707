/** What the end-to-end specs share: finding nodes by their names, the leader, pausing, screenshots, and page errors. */
import { expect, type Locator, type Page } from "@playwright/test";

export const LEADER = /^(n\d+), leader, term (\d+)$/;

/** "n3, leader, term 4" -> { id: "n3", term: 4 } */
export function parseLeader(label: string | null): { id: string; term: number } {
  const m = LEADER.exec(label ?? "");
  if (!m) throw new Error(`not a leader's label: ${label}`);
  return { id: m[1] as string, term: Number(m[2]) };
}

/** The ring's node buttons, named exactly "n3, leader, term 4" (other panels' buttons say more). */
export function nodes(page: Page): Locator {
  return page.getByRole("button", { name: /^n\d+, [a-z-]+(, paused)?, term \d+$/ });
}

export function node(page: Page, id: string): Locator {
  return page.getByRole("button", { name: new RegExp(`^${id}, [a-z-]+(, paused)?, term \\d+$`) });
}

export async function leader(page: Page): Promise<{ id: string; term: number }> {
  const l = page.getByRole("button", { name: LEADER });
  await expect(l).toHaveCount(1);
  return parseLeader(await l.getAttribute("aria-label"));
}

/** Fails the test on any uncaught error in the page or its worker. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  return errors;
}

export async function shot(page: Page, name: string, fullPage = false): Promise<void> {
  await page.screenshot({ path: `test-results/screens/${name}.png`, fullPage });
}

export async function pause(page: Page): Promise<void> {
  await page.getByRole("button", { name: "Pause", exact: true }).click();
  await expect(page.getByRole("button", { name: "Play", exact: true })).toBeVisible();
}
