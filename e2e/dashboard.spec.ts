/**
 * The dashboard, end to end in Chromium: selected by role and accessible name, as a
 * user (or a screen reader) would find things. Runs at 1x speed so waits stay short.
 * Screenshots of the main states go to test-results/screens/.
 */
import { expect, type Page, test } from "@playwright/test";
import { leader, node, nodes, parseLeader, pause, shot, watchErrors } from "./support";

test("a leader appears; killing it brings a new leader with a higher term", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto("/?seed=4&speed=1");
  await expect(nodes(page)).toHaveCount(5);
  // The simulation runs in a worker, not on the page's thread.
  await expect.poll(() => page.workers().length).toBeGreaterThan(0);
  const first = await leader(page);
  await expect(page.getByTestId("leader")).toHaveText(first.id);
  await shot(page, "01-running");

  await node(page, first.id).click();
  await page.getByRole("button", { name: `Kill ${first.id}` }).click();
  await expect(page.getByRole("button", { name: `${first.id}, down, term ${first.term}`, exact: true })).toBeVisible();

  const next = page.getByRole("button", { name: new RegExp(`^(?!${first.id},)n\\d+, leader, term \\d+$`) });
  await expect(next).toHaveCount(1);
  const second = parseLeader(await next.getAttribute("aria-label"));
  expect(second.term).toBeGreaterThan(first.term);
  await shot(page, "02-leader-killed");

  // The old leader comes back as a follower of the new term.
  await page.getByRole("button", { name: `Restart ${first.id}` }).click();
  await expect(page.getByRole("button", { name: new RegExp(`^${first.id}, follower, term ${second.term}$`) })).toBeVisible();
  await expect(page.getByTestId("violations")).toHaveText("0");
  expect(errors).toEqual([]);
});

test("Transfer leadership hands the leader's role to the chosen follower in the next term, and the event log says how", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto("/?seed=4&speed=1");
  await expect(nodes(page)).toHaveCount(5);
  const first = await leader(page);
  const target = first.id === "n2" ? "n3" : "n2";
  await node(page, target).click();
  await page.getByRole("button", { name: `Transfer leadership to ${target}` }).click();
  await expect(page.getByRole("button", { name: `${target}, leader, term ${first.term + 1}`, exact: true })).toBeVisible();
  await expect(page.getByRole("button", { name: new RegExp(`^${first.id}, follower, term ${first.term + 1}$`) })).toBeVisible();
  await expect(page.getByText(`${first.id} tells ${target} to start an election now (TimeoutNow)`).first()).toBeAttached();
  await shot(page, "02b-leadership-transferred");
  await expect(page.getByTestId("violations")).toHaveText("0");
  expect(errors).toEqual([]);
});

test("a spare server added to the cluster becomes a voter; removing a follower makes it a spare", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto("/?seed=4&speed=1&spares=1");
  // n6 runs outside the configuration: it is named so, and is no voter.
  const n6 = page.getByRole("button", { name: /^n6, follower, not a member, term \d+$/ });
  await expect(n6).toBeVisible();
  await expect(nodes(page)).toHaveCount(5);
  const first = await leader(page);
  await n6.click();
  await expect(page.getByText("no: a spare or removed server, it votes in no majority")).toBeVisible();
  await shot(page, "02c-spare");
  await page.getByRole("button", { name: "Add n6 to the cluster" }).click();
  await expect(page.getByRole("button", { name: /^n6, follower, term \d+$/ })).toBeVisible();
  await expect(nodes(page)).toHaveCount(6);
  await shot(page, "02d-spare-added");
  const follower = first.id === "n2" ? "n3" : "n2";
  // One change at a time: give the addition (a round trip) time to commit.
  await page.waitForTimeout(1000);
  await node(page, follower).click();
  await page.getByRole("button", { name: `Remove ${follower} from the cluster` }).click();
  // It never hears of its removal (the leader stops writing to it at once), so it may go on
  // to pre-vote: PreVote keeps it from disturbing the others (dissertation 4.2.3).
  await expect(page.getByRole("button", { name: new RegExp(`^${follower}, [a-z-]+, not a member, term \\d+$`) })).toBeVisible();
  await expect(page.getByText(/now uses the configuration \{/).first()).toBeAttached();
  await expect(page.getByTestId("violations")).toHaveText("0");
  expect(errors).toEqual([]);
});

test("a minority partition cannot elect a leader or commit", async ({ page }) => {
  await page.goto("/?seed=8&speed=1&holders=0&clients=2");
  const old = await leader(page);
  const others = (await nodes(page).evaluateAll((els) => els.map((e) => e.getAttribute("aria-label") ?? "")))
    .map((l) => l.split(",")[0] as string)
    .filter((id) => id !== old.id);
  const buddy = others[0] as string;
  const majority = others.slice(1);

  // The leader and one follower on one side, the other three on the other.
  await page.getByText("Partition into groups…").click();
  for (const id of [old.id, buddy]) await page.getByRole("radio", { name: `${id} in group A` }).check();
  for (const id of majority) await page.getByRole("radio", { name: `${id} in group B` }).check();
  await page.getByRole("button", { name: "Apply partition" }).click();
  await expect(page.getByTestId("network-status")).toContainText("Partitioned");

  // The majority elects a new leader in a higher term.
  const fresh = page.getByRole("button", { name: new RegExp(`^(${majority.join("|")}), leader, term \\d+$`) });
  await expect(fresh).toHaveCount(1, { timeout: 20_000 });
  expect(parseLeader(await fresh.getAttribute("aria-label")).term).toBeGreaterThan(old.term);

  // The minority's commit index is stuck while the majority's grows, and the minority never leads.
  const commitOf = async (id: string): Promise<number> => {
    await node(page, id).click();
    return Number(await page.getByTestId("commit-index").textContent());
  };
  const minorityBefore = await commitOf(buddy);
  const majorityBefore = await commitOf(majority[0] as string);
  await page.waitForTimeout(2500);
  expect(await commitOf(buddy)).toBe(minorityBefore);
  expect(await commitOf(majority[0] as string)).toBeGreaterThan(majorityBefore);
  for (const id of [old.id, buddy]) {
    await expect(page.getByRole("button", { name: new RegExp(`^${id}, leader, term (?!${old.term}$)\\d+$`) })).toHaveCount(0);
  }
  await shot(page, "03-minority-partition");

  await page.getByRole("button", { name: "Heal network" }).click();
  await expect(page.getByTestId("network-status")).toContainText("No partition");
});

/** Waits for a holder that holds the lease; returns its id and token. */
async function holderWithLease(page: Page): Promise<{ id: string; token: number }> {
  const h = page.getByRole("button", { name: /^holder h\d+, holding, token \d+/ }).first();
  await expect(h).toBeVisible({ timeout: 20_000 });
  const m = /^holder (h\d+), holding, token (\d+)/.exec((await h.getAttribute("aria-label")) ?? "");
  if (!m) throw new Error("no holder label");
  return { id: m[1] as string, token: Number(m[2]) };
}

test("a holder paused across its expiry writes late, and fenced storage rejects the stale token", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto("/?seed=2&speed=1&holders=2&clients=0");
  const h = await holderWithLease(page);
  await page.getByRole("button", { name: new RegExp(`^holder ${h.id}, `) }).click();
  await page.getByLabel("seconds").fill("5");
  await page.getByRole("button", { name: `GC pause ${h.id} before its write` }).click();

  const storage = page.getByRole("region", { name: "Storage" });
  await expect(storage.getByRole("row", { name: new RegExp(`rejected.*${h.id}|${h.id}.*rejected`) }).first()).toBeVisible({
    timeout: 30_000,
  });
  await shot(page, "04-stale-write-rejected");
  await expect(page.getByTestId("violations")).toHaveText("0");
  expect(errors).toEqual([]);
});

test("with fencing off the same pause corrupts storage, and the checker panel reports it", async ({ page }) => {
  await page.goto("/?seed=2&speed=1&holders=2&clients=0");
  await page.getByRole("switch", { name: /Fencing/ }).click();
  await expect(page.getByRole("switch", { name: /Fencing/ })).toHaveAttribute("aria-checked", "false");
  const h = await holderWithLease(page);
  await page.getByRole("button", { name: new RegExp(`^holder ${h.id}, `) }).click();
  await page.getByLabel("seconds").fill("5");
  await page.getByRole("button", { name: `GC pause ${h.id} before its write` }).click();

  const checkers = page.getByTestId("checker-panel");
  await expect(checkers.getByRole("alert")).toContainText("storage-corruption", { timeout: 30_000 });
  await expect(page.getByTestId("violations")).not.toHaveText("0");
  // The run paused at the violation so the user can look at it.
  await expect(page.getByRole("button", { name: "Play", exact: true })).toBeVisible();
  await checkers.scrollIntoViewIfNeeded();
  await shot(page, "05-fencing-off-violation");
});

test("Step advances exactly one event", async ({ page }) => {
  await page.goto("/?seed=3&speed=1");
  await leader(page);
  await pause(page);
  const events = page.getByTestId("events");
  const time = page.getByTestId("virtual-time");
  const before = Number(await events.textContent());
  const pausedTime = await time.textContent();
  await page.waitForTimeout(300);
  await expect(events).toHaveText(String(before));
  await expect(time).toHaveText(pausedTime ?? "");
  for (let i = 1; i <= 3; i++) {
    await page.getByRole("button", { name: "Step", exact: true }).click();
    await expect(events).toHaveText(String(before + i));
    await expect(page.getByRole("region", { name: "Last step" })).toContainText(`Step ${before + i}`);
  }
  await page.keyboard.press("s");
  await expect(events).toHaveText(String(before + 4));
  await shot(page, "06-step");
});

test("the same ?seed= gives the same first leader and term in two fresh pages", async ({ browser }) => {
  const results: { id: string; term: number }[] = [];
  for (let i = 0; i < 2; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto("/?seed=20240611&speed=1");
    await expect(page.getByTestId("seed")).toHaveText("20240611");
    results.push(await leader(page));
    await context.close();
  }
  expect(results[1]).toEqual(results[0]);
});

test("bad URL parameters show a clear message and the run goes on with defaults", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto("/?seed=abc&nodes=3&election=300-100&speed=1");
  const alert = page.getByRole("alert").filter({ hasText: "ignored" });
  await expect(alert).toContainText("Ignored ?seed=abc");
  await expect(alert).toContainText("Using seed 1 instead");
  await expect(alert).toContainText("Ignored ?election=300-100");
  await expect(page.getByTestId("seed")).toHaveText("1");
  await expect(nodes(page)).toHaveCount(3);
  await leader(page);
  await shot(page, "07-bad-params");
  expect(errors).toEqual([]);
});

test("keyboard: ? opens the shortcut help, Esc closes it, Space pauses", async ({ page }) => {
  await page.goto("/?seed=5&speed=1");
  await leader(page);
  await page.locator("body").click({ position: { x: 5, y: 5 } });
  await page.keyboard.press("?");
  await expect(page.getByRole("dialog", { name: "Keyboard shortcuts" })).toBeVisible();
  await shot(page, "08-help");
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await page.keyboard.press(" ");
  await expect(page.getByRole("button", { name: "Play", exact: true })).toBeVisible();

  // A node can be reached and chosen with the keyboard alone; 2 selects n2, K kills it.
  await node(page, "n1").focus();
  await page.keyboard.press("Enter");
  const inspector = page.getByRole("region", { name: "Inspector" });
  await expect(inspector.getByRole("heading", { name: /^n1: / })).toBeVisible();
  await page.locator("body").click({ position: { x: 5, y: 5 } });
  await page.keyboard.press("2");
  await expect(inspector.getByRole("heading", { name: /^n2: / })).toBeVisible();
  await page.keyboard.press("k");
  await expect(page.getByRole("button", { name: /^n2, down, term \d+$/ })).toBeVisible();
});

test("settings: bad values are refused with a reason, good ones start a new run named in the URL", async ({ page }) => {
  await page.goto("/?seed=5&speed=1");
  await leader(page);
  await page.getByRole("button", { name: "Settings…" }).click();
  const dialog = page.getByRole("dialog", { name: "Settings" });
  await dialog.getByLabel("Heartbeat (ms)").fill("900");
  await expect(dialog.getByRole("alert")).toContainText("heartbeatIntervalMs must be shorter");
  await expect(dialog.getByRole("button", { name: "Start this run" })).toBeDisabled();
  await dialog.getByLabel("Heartbeat (ms)").fill("50");
  await dialog.getByLabel("Cluster size").selectOption("7");
  await dialog.getByLabel("Seed").fill("77");
  await dialog.getByRole("button", { name: "Start this run" }).click();
  await expect(nodes(page)).toHaveCount(7);
  await expect(page.getByTestId("seed")).toHaveText("77");
  expect(page.url()).toContain("seed=77");
  expect(page.url()).toContain("nodes=7");
  await leader(page);
});

test("a message in flight can be inspected and dropped; the event log says so", async ({ page }) => {
  await page.goto("/?seed=6&speed=0.05&holders=0&clients=0");
  await leader(page);
  // Step until a message's dot is clear of the nodes (one just sent sits on its sender), then click it.
  await pause(page);
  const clickable = async (): Promise<{ x: number; y: number } | null> =>
    page.evaluate(() => {
      for (const dot of document.querySelectorAll("svg g.msg circle.dot")) {
        const r = dot.getBoundingClientRect();
        const x = r.x + r.width / 2;
        const y = r.y + r.height / 2;
        if (document.elementFromPoint(x, y)?.closest("g.msg") === dot.closest("g.msg")) return { x, y };
      }
      return null;
    });
  let at = await clickable();
  for (let i = 0; i < 80 && at === null; i++) {
    await page.getByRole("button", { name: "Step", exact: true }).click();
    at = await clickable();
  }
  if (at === null) throw new Error("no message could be clicked");
  await page.mouse.click(at.x, at.y);
  const inspector = page.getByRole("region", { name: "Inspector" });
  await expect(inspector).toContainText(/ from n\d+ to n\d+/);
  await inspector.getByRole("button", { name: "Show full state" }).click();
  await expect(inspector.locator("pre")).toContainText('"payload"');
  await inspector.getByRole("button", { name: "Drop this message" }).click();
  const log = page.getByRole("region", { name: "Event log" });
  await log.getByRole("checkbox", { name: /message/ }).check();
  await expect(log.getByRole("list")).toContainText("dropped by you");
});

test("without a pointer: a message in flight is picked from the inspector's list", async ({ page }) => {
  await page.goto("/?seed=6&speed=0.05&holders=0&clients=0");
  await leader(page);
  await pause(page);
  const inspector = page.getByRole("region", { name: "Inspector" });
  const summary = inspector.locator("summary", { hasText: /messages? in flight/ });
  for (let i = 0; i < 50 && (await summary.count()) === 0; i++) await page.keyboard.press("s");
  await summary.focus();
  await page.keyboard.press("Enter");
  const first = inspector.getByRole("button", { name: /→/ }).first();
  const name = (await first.textContent()) ?? "";
  await first.focus();
  await page.keyboard.press("Enter");
  await expect(inspector.getByRole("heading", { name: new RegExp(`from ${name.split(" ").at(-3)} to ${name.split(" ").at(-1)}$`) })).toBeVisible();
  await expect(inspector.getByRole("button", { name: "Drop this message" })).toBeVisible();
});

test("a hidden tab runs nothing; showing it again resumes", async ({ page }) => {
  await page.goto("/?seed=3&speed=1");
  await leader(page);
  const time = page.getByTestId("virtual-time");
  const setHidden = (hidden: boolean) =>
    page.evaluate((h) => {
      Object.defineProperty(document, "visibilityState", { configurable: true, get: () => (h ? "hidden" : "visible") });
      document.dispatchEvent(new Event("visibilitychange"));
    }, hidden);
  await setHidden(true);
  await page.waitForTimeout(300);
  const frozen = await time.textContent();
  await page.waitForTimeout(600);
  await expect(time).toHaveText(frozen ?? "");
  await setHidden(false);
  await expect(time).not.toHaveText(frozen ?? "");
});
