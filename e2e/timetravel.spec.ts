/**
 * Time travel, branches and share links, end to end in Chromium. The drawn state is read
 * the way a user (or a screen reader) reads it: the ring's node names ("n3, leader,
 * term 4"), the holders' names, the storage's write rows and the summary's counters.
 */
import { type Browser, expect, type Locator, type Page, test } from "@playwright/test";
import { leader, node, nodes, pause, shot, watchErrors } from "./support";

function slider(page: Page): Locator {
  return page.getByRole("slider", { name: "Time" });
}

async function play(page: Page, ms: number): Promise<void> {
  await page.getByRole("button", { name: "Play", exact: true }).click();
  await page.waitForTimeout(ms);
  await pause(page);
}

/** Everything the test compares between two moments, as drawn. */
async function drawn(page: Page): Promise<Record<string, unknown>> {
  const labels = async (l: Locator): Promise<(string | null)[]> => {
    const out: (string | null)[] = [];
    for (const x of await l.all()) out.push(await x.getAttribute("aria-label"));
    return out;
  };
  return {
    time: await slider(page).inputValue(),
    nodes: await labels(nodes(page)),
    holders: await labels(page.getByRole("button", { name: /^holder h\d+, / })),
    storage: await labels(page.locator("section.storage-panel tr[aria-label]")),
    leader: await page.getByTestId("leader").textContent(),
    events: await page.getByTestId("events").textContent(),
    violations: await page.getByTestId("violations").textContent(),
  };
}

/** Waits until what is drawn equals `want` (the page draws the worker's answer a moment later). */
async function expectDrawn(page: Page, want: Record<string, unknown>): Promise<void> {
  await expect.poll(() => drawn(page), { timeout: 15_000 }).toEqual(want);
}

async function seek(page: Page, time: string): Promise<void> {
  await slider(page).fill(time);
}

test("scrubbing back and forward shows exactly what was drawn at that moment; step back undoes one event", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto("/?seed=4&speed=1");
  await expect(nodes(page)).toHaveCount(5);
  await leader(page);
  await page.waitForTimeout(1500);
  await pause(page);
  const early = await drawn(page);
  expect(Number(early.time)).toBeGreaterThan(0);

  // Later: the leader is killed and a new one elected. (An action belongs to the moment it
  // was taken: seeking to that very moment shows its effect, so it is taken a little later.)
  await play(page, 500);
  const first = (await leader(page)).id;
  await node(page, first).click();
  await page.getByRole("button", { name: `Kill ${first}` }).click();
  await play(page, 2500);
  const late = await drawn(page);
  expect(late.nodes).not.toEqual(early.nodes);

  await seek(page, early.time as string);
  await expectDrawn(page, early);
  await expect(page.getByText(/Viewing the past/).first()).toBeVisible();
  await shot(page, "20-scrubbed-back", true);
  await seek(page, late.time as string);
  await expectDrawn(page, late);

  // Step forward, then back: the same picture again.
  await page.getByRole("button", { name: "Step", exact: true }).click();
  await expect(page.getByTestId("events")).not.toHaveText(late.events as string);
  await page.getByRole("button", { name: "Step back" }).click();
  await expect(page.getByTestId("events")).toHaveText(late.events as string);
  await expect.poll(async () => (await drawn(page)).nodes).toEqual(late.nodes);
  expect(errors).toEqual([]);
});

test("acting in the past starts a branch; the old future can be returned to", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto("/?seed=9&speed=1");
  await expect(nodes(page)).toHaveCount(5);
  await leader(page);
  await page.waitForTimeout(1000);
  await pause(page);
  const fork = await drawn(page);
  await play(page, 2000);
  const mainEnd = await drawn(page);

  await seek(page, fork.time as string);
  await expectDrawn(page, fork);
  const leaderId = (await leader(page)).id;
  await node(page, leaderId).click();
  await page.getByRole("button", { name: `Kill ${leaderId}` }).click();
  const branches = page.getByRole("list", { name: "Branches" });
  await expect(branches.getByRole("listitem")).toHaveCount(2);
  await expect(branches.locator('[aria-current="true"]')).toContainText("branch 2");
  await expect(node(page, leaderId)).toHaveAttribute("aria-label", new RegExp(`^${leaderId}, down, `));
  await shot(page, "21-branched", true);

  await branches.getByRole("button", { name: "Return to main" }).click();
  await expectDrawn(page, mainEnd);
  await expect(branches.locator('[aria-current="true"]')).toContainText("main");
  // And the branch is still there to go back to.
  await expect(branches.getByRole("button", { name: "Return to branch 2" })).toBeVisible();
  expect(errors).toEqual([]);
});

async function freshPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  return context.newPage();
}

test("a share link reproduces the same leader, terms and storage log in a fresh page", async ({ page, browser }) => {
  const errors = watchErrors(page);
  await page.goto("/?seed=13&speed=1");
  await expect(nodes(page)).toHaveCount(5);
  await leader(page);
  await page.waitForTimeout(1200);
  await pause(page);
  // A crash of the leader and the election after it: a run worth sharing.
  const first = (await leader(page)).id;
  await node(page, first).click();
  await page.getByRole("button", { name: `Kill ${first}` }).click();
  await play(page, 2500);
  const shared = await drawn(page);

  await page.getByRole("button", { name: "Share & export" }).click();
  await page.getByRole("button", { name: "Copy share link" }).click();
  const field = page.getByRole("textbox", { name: "Share link", exact: true });
  await expect(field).toHaveValue(/#run=1\./);
  const link = await field.inputValue();
  expect(link.length).toBeLessThan(2000);
  await shot(page, "22-share-dialog", true);

  const other = await freshPage(browser);
  const otherErrors = watchErrors(other);
  await other.goto(link);
  await expect(nodes(other)).toHaveCount(5);
  await expectDrawn(other, shared);
  await shot(other, "23-opened-share-link", true);
  expect(errors).toEqual([]);
  expect(otherErrors).toEqual([]);
});

test("a broken share link says what is wrong and the app stays usable", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto("/?seed=4&speed=1#run=1.this-is-not-a-run!!");
  await expect(page.getByRole("alert").filter({ hasText: /share link/i })).toBeVisible();
  // A normal run started instead: nodes, a leader, a time slider.
  await expect(nodes(page)).toHaveCount(5);
  await leader(page);
  await expect(slider(page)).toBeVisible();
  await shot(page, "24-broken-link", true);
  // An unknown version is named as such.
  await page.goto("/#run=9.abc");
  await expect(page.getByRole("alert").filter({ hasText: /version/i })).toBeVisible();
  await expect(nodes(page)).toHaveCount(5);
  expect(errors).toEqual([]);
});

test("exports: the scenario, the trace, the history and both diagrams as SVG and PNG", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto("/?seed=5&speed=1");
  await expect(nodes(page)).toHaveCount(5);
  await leader(page);
  await page.waitForTimeout(1000);
  await pause(page);
  await page.getByRole("button", { name: "Share & export" }).click();
  const download = async (name: string): Promise<{ file: string; text: string }> => {
    const [d] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name, exact: true }).click()]);
    const path = await d.path();
    const { readFileSync } = await import("node:fs");
    return { file: d.suggestedFilename(), text: readFileSync(path, name.endsWith("PNG") ? "latin1" : "utf8") };
  };
  const scenario = await download("Download scenario");
  expect(scenario.file).toBe("lease-lab-seed-5.json");
  const doc = JSON.parse(scenario.text);
  expect(doc.seed).toBe(5);
  expect(doc.ui.at).toMatch(/^\d+(ms|us)$/);
  const trace = await download("Export trace (NDJSON)");
  const lines = trace.text.trim().split("\n");
  expect(lines.length).toBeGreaterThan(100);
  expect(JSON.parse(lines[0] as string)).toMatchObject({ t: 0, n: 0 });
  const history = await download("Export client history (JSON)");
  expect(JSON.parse(history.text).seed).toBe(5);
  for (const what of ["ring", "space-time diagram"]) {
    const svg = await download(`Save ${what} as SVG`);
    expect(svg.text).toMatch(/^(<\?xml[^>]*>\s*)?<svg/);
    // Colours come along (inlined), so the picture looks as it does on screen.
    expect(svg.text).toMatch(/fill[:=]/);
    const png = await download(`Save ${what} as PNG`);
    expect(png.text.slice(1, 4)).toBe("PNG");
  }
  expect(errors).toEqual([]);
});

test("a scenario file from the CLI opens in the browser and reaches the CLI's trace hash", async ({ page }) => {
  const errors = watchErrors(page);
  const { readFileSync } = await import("node:fs");
  const { parseScenarioText } = await import("../src/core/scenario/schema");
  const { runScenario } = await import("../src/core/scenario/runner");
  const file = "scenarios/lease/03-gc-pause-fenced.json";
  const parsed = parseScenarioText(readFileSync(file, "utf8"));
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  const cli = runScenario(parsed.scenario);

  await page.goto("/?speed=1");
  await expect(nodes(page)).toHaveCount(5);
  await page.getByRole("button", { name: "Share & export" }).click();
  await page.getByLabel("Scenario file").setInputFiles(file);
  // The imported run is explored to its end (10 s) with its GC pause; go to the end.
  await expect(page.getByText("seed 13")).toBeVisible();
  await slider(page).focus();
  await page.keyboard.press("End");
  await expect(page.getByRole("button", { name: /^holder h1, / })).toBeVisible();
  await expect(page.getByTestId("leader")).toHaveText(cli.leader as string);
  await page.getByRole("button", { name: "Share & export" }).click();
  await expect(page.getByTestId("trace-hash")).toHaveText(cli.traceHash);
  // The storage rejected h1's late write, as the CLI's expectations say.
  await expect(page.locator("section.storage-panel tr[aria-label]").filter({ hasText: "rejected" }).first()).toBeVisible();
  expect(errors).toEqual([]);
});
