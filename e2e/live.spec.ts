/**
 * Live mode (issue 16, docs/live.md): every process in a Web Worker of its own, on real time.
 * One run, in order: a leader is elected; killing it terminates its worker (the page's count
 * and the browser's own list of workers drop) and a new leader takes a higher term; restarted,
 * it comes back with its term and log from its disk; a GC pause of the holder that holds the
 * lease (longer than the lease's TTL) really stops its thread, and its late write is rejected
 * by the fenced storage; with fencing off the same pause corrupts the storage and the checker
 * says so; opened in the simulator, the replay ends every process in the state it ended live.
 *
 * Real threads on a loaded machine: every wait is on a condition, with generous timeouts.
 */
import { expect, type Locator, type Page, test } from "@playwright/test";
import { LEADER, parseLeader, shot, watchErrors } from "./support";

/** Waits on conditions of a live run; the CI machine is a loaded 2-core one. */
const LONG = 45_000;

/** The browser's own dedicated workers that run a live process (the router and the simulation worker are others). */
function processWorkers(page: Page): number {
  return page.workers().filter((w) => w.url().includes("process.worker")).length;
}

/** The leader the ring shows now, or null (none, or two at once during a change). */
async function currentLeader(page: Page): Promise<{ id: string; term: number } | null> {
  const labels = await page.getByRole("button", { name: LEADER }).evaluateAll((els) => els.map((e) => e.getAttribute("aria-label")));
  return labels.length === 1 ? parseLeader(labels[0] ?? null) : null;
}

/** A node's term as the ring shows it ("n3, follower, term 4"). */
async function ringTerm(page: Page, id: string): Promise<{ role: string; term: number } | null> {
  const l = page.getByRole("button", { name: new RegExp(`^${id}, [a-z-]+(, paused)?, term \\d+$`) });
  if ((await l.count()) !== 1) return null;
  const m = /^n\d+, ([a-z-]+)(?:, paused)?, term (\d+)$/.exec((await l.getAttribute("aria-label")) ?? "");
  return m === null ? null : { role: m[1] as string, term: Number(m[2]) };
}

/** The holder that holds the lease now, by the ring ("holder h1, holding, token 4"). */
async function holding(page: Page): Promise<string | null> {
  const labels = await page.getByRole("button", { name: /^holder h\d+, holding, token \d+$/ }).evaluateAll((els) => els.map((e) => e.getAttribute("aria-label")));
  return labels.length === 1 ? (/^holder (h\d+),/.exec(labels[0] ?? "")?.[1] ?? null) : null;
}

/** The storage panel's count of rejected writes. */
async function rejected(page: Page): Promise<number> {
  const text = (await page.locator(".storage-totals").first().textContent()) ?? "";
  return Number(/✗ (\d+) rejected/.exec(text)?.[1] ?? Number.NaN);
}

function thread(page: Page, id: string): Locator {
  return page.getByTestId(`thread-${id}`);
}

/** Selects a holder that holds the lease and GC-pauses it before its write, for `seconds`; returns it. */
async function gcPauseHolder(page: Page, seconds: number): Promise<string> {
  let h: string | null = null;
  await expect
    .poll(
      async () => {
        h = await holding(page);
        return h;
      },
      { timeout: LONG, message: "a holder holds the lease" },
    )
    .not.toBeNull();
  const id = h as unknown as string;
  await page.getByRole("button", { name: `Inspect holder ${id}`, exact: true }).first().click();
  const inspector = page.locator(".inspector");
  await inspector.getByLabel("seconds").fill(String(seconds));
  await inspector.getByRole("button", { name: `GC pause ${id} before its write` }).click();
  // The pause comes after its next lease check (a renewal comes every third of the TTL): then its thread really stops.
  await expect(thread(page, id)).toContainText("paused (stopped)", { timeout: LONG });
  return id;
}

/**
 * GC-pauses the holder that holds the lease for `seconds` (its thread row says it is stopped,
 * then running again), then waits for `done`; tries again with a longer pause, up to 3 times.
 */
async function pastExpiry(page: Page, seconds: number, done: () => Promise<boolean>, what: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const s = seconds * (attempt + 1);
    const id = await gcPauseHolder(page, s);
    if (attempt === 0) await shot(page, "live-gc-paused-1920");
    await expect(thread(page, id)).toContainText("running", { timeout: LONG + s * 1000 });
    try {
      await expect.poll(done, { timeout: 20_000, message: what }).toBe(true);
      return;
    } catch (e) {
      if (attempt === 2) throw e;
      console.log(`live.spec: no ${what} after a ${s} s GC pause of ${id}; again, longer`);
    }
  }
}

/** Runs a wait; when it fails, prints what the screen showed (the ring, the Live panel, the violations), then fails. */
async function saying(page: Page, wait: () => Promise<void>): Promise<void> {
  try {
    await wait();
  } catch (e) {
    const ring = await page.getByRole("button", { name: /^(n\d+|holder h\d+), / }).evaluateAll((els) => els.map((x) => x.getAttribute("aria-label")));
    const panel = await page.getByTestId("live-summary").textContent();
    const banner = await page.getByRole("region", { name: "Safety violated" }).allTextContents();
    console.log(`live.spec: the ring: ${ring.join(" | ")}\nthe Live panel: ${panel}\nviolations: ${banner.join(" | ") || "none"}`);
    throw e;
  }
}

test("live mode: real workers elect, die, come back from disk, pause past a lease, and replay exactly", async ({ page }) => {
  test.setTimeout(360_000);
  const errors = watchErrors(page);
  page.on("requestfailed", (r) => console.log("FAILED", r.url(), r.failure()?.errorText));
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.goto("/?seed=1");

  // The lease's TTL, from the settings.
  await page.getByRole("button", { name: "Settings…" }).click();
  const ttlMs = Number(await page.getByLabel("Lease TTL (ms)").inputValue());
  expect(ttlMs).toBeGreaterThan(0);
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toHaveCount(0);
  // Long enough to cross its expiry, another holder to take the lease and write, at 1× (real time).
  const pauseS = Math.max(5, Math.ceil((3 * ttlMs) / 1000));

  await page.getByRole("button", { name: "Live (real threads)" }).click();
  await page.getByLabel("Speed").fill("7");
  await expect(page.getByRole("slider", { name: "Speed" })).toHaveAttribute("aria-valuetext", /^1×/);
  // One worker per process (5 nodes, 2 clients, 3 holders, the storage) and the router.
  const workers = page.getByTestId("live-workers");
  await expect(workers).toHaveText("12", { timeout: LONG });
  await expect.poll(() => processWorkers(page), { timeout: LONG }).toBe(11);
  await expect(page.getByTestId("live-summary")).toContainText(/a pause really stops the thread/i);

  // A leader is elected.
  await expect(page.getByTestId("leader")).toHaveText(/^n\d+$/, { timeout: LONG });
  let first: { id: string; term: number } | null = null;
  await expect
    .poll(
      async () => {
        first = await currentLeader(page);
        return first;
      },
      { timeout: LONG },
    )
    .not.toBeNull();
  const old = first as unknown as { id: string; term: number };
  await expect(thread(page, old.id)).toContainText("running");
  await shot(page, "live-panel-1920");
  await page.setViewportSize({ width: 1280, height: 720 });
  await shot(page, "live-panel-1280");
  await page.setViewportSize({ width: 1920, height: 1080 });

  // Kill the leader: its worker is terminated, on the page and in the browser.
  await page.getByRole("button", { name: `Select ${old.id}`, exact: true }).click();
  const killedTerm = (await ringTerm(page, old.id))?.term ?? old.term;
  await page.locator(".inspector").getByRole("button", { name: `Kill ${old.id}` }).click();
  await expect(thread(page, old.id)).toContainText("terminated (killed)", { timeout: LONG });
  await expect(workers).toHaveText("11", { timeout: LONG });
  await expect.poll(() => processWorkers(page), { timeout: LONG }).toBe(10);
  // A new leader, in a higher term.
  await saying(page, () =>
    expect
      .poll(
        async () => {
          const l = await currentLeader(page);
          return l !== null && l.id !== old.id && l.term > killedTerm;
        },
        { timeout: LONG, message: "a new leader in a higher term" },
      )
      .toBe(true),
  );
  await shot(page, "live-killed-1920");

  // Restart it (the Inspector still has it): a second worker, with its term and log from its disk.
  await page.locator(".inspector").getByRole("button", { name: `Restart ${old.id}` }).click();
  await expect(thread(page, old.id)).toContainText("running", { timeout: LONG });
  await expect(thread(page, old.id)).toContainText("worker #2");
  await expect(workers).toHaveText("12", { timeout: LONG });
  await expect.poll(() => processWorkers(page), { timeout: LONG }).toBe(11);
  // The first the dashboard shows of it up again: its term and its log as it left them (or later).
  let back: { role: string; term: number } | null = null;
  await expect
    .poll(
      async () => {
        back = await ringTerm(page, old.id);
        return back !== null && back.role !== "down";
      },
      { timeout: LONG, intervals: [50], message: `${old.id} up again on the dashboard` },
    )
    .toBe(true);
  const lastIndex = Number(await page.locator(".inspector dt", { hasText: /^Last log index$/ }).locator("xpath=following-sibling::dd[1]").textContent());
  expect((back as unknown as { term: number }).term).toBeGreaterThanOrEqual(killedTerm);
  expect(lastIndex).toBeGreaterThan(0);

  // GC-pause the holder that holds the lease past its expiry: the fenced storage rejects its late write.
  // On a loaded machine another holder may not take the lease in time (an election meanwhile): then pause again, longer.
  const before = await rejected(page);
  await pastExpiry(page, pauseS, async () => (await rejected(page)) >= before + 1, "the late write is rejected");
  await expect(page.getByRole("region", { name: "Safety violated" })).toHaveCount(0);

  // Fencing off, and again: the late write is taken, and the checker reports the corruption.
  await page.getByRole("button", { name: "Inspect storage" }).click();
  await page.locator(".inspector").getByRole("button", { name: "Turn fencing off" }).click();
  await expect(page.locator(".inspector")).toContainText("storage s1: fencing off", { timeout: LONG });
  const banner = page.getByRole("region", { name: "Safety violated" });
  await pastExpiry(page, pauseS, async () => ((await banner.count()) === 1 ? ((await banner.textContent()) ?? "").includes("storage-corruption") : false), "storage-corruption");
  await shot(page, "live-violation-1920");

  // Open in the simulator: every live worker ends, and the replay is the same run.
  await page.getByRole("button", { name: "Open in the simulator" }).click();
  await expect(page.getByTestId("replay-check")).toHaveText(
    /^✓ The replay is the same run: all 11 processes end in exactly the state they ended in live \(their digests match\)\./,
    { timeout: 90_000 },
  );
  await expect.poll(() => processWorkers(page), { timeout: LONG }).toBe(0);
  expect(page.workers().some((w) => w.url().includes("router.worker"))).toBe(false);
  await page.getByTestId("replay-check").scrollIntoViewIfNeeded();
  await shot(page, "live-replay-check-1920");
  await page.setViewportSize({ width: 1280, height: 720 });
  await shot(page, "live-replay-check-1280");
  expect(errors).toEqual([]);
});
