/**
 * Embed mode (?embed=1), as a slide shows it: an 800×450 iframe with the cluster and its
 * controls, nothing else, nothing cut off, and a link to the same run in the full lab.
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import { leader, node, nodes, shot, watchErrors } from "./support";

/** Everything on the page fits the viewport: no scrolling, and the cluster's drawing and controls inside it. */
async function fits(page: Page, width: number, height: number): Promise<void> {
  const size = await page.evaluate(() => ({ w: document.documentElement.scrollWidth, h: document.documentElement.scrollHeight }));
  expect(size.w).toBeLessThanOrEqual(width);
  expect(size.h).toBeLessThanOrEqual(height);
  for (const target of [page.getByRole("group", { name: "Cluster ring" }), page.getByRole("button", { name: /^(Pause|Play)$/ }), page.getByRole("link", { name: /Open in Lease Lab/ }), page.getByTestId("virtual-time")]) {
    const box = await target.boundingBox();
    expect(box).not.toBeNull();
    if (box === null) return;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(width + 0.5);
    expect(box.y + box.height).toBeLessThanOrEqual(height + 0.5);
  }
  // The controls take one line at this size.
  const play = await page.getByRole("button", { name: /^(Pause|Play)$/ }).boundingBox();
  const clock = await page.getByTestId("virtual-time").boundingBox();
  expect(Math.abs((play?.y ?? 0) + (play?.height ?? 0) / 2 - ((clock?.y ?? 0) + (clock?.height ?? 0) / 2))).toBeLessThan(8);
  // The ring is big enough to read from the back of a room: most of the frame's height.
  const ring = await page.getByRole("group", { name: "Cluster ring" }).boundingBox();
  expect(ring?.height ?? 0).toBeGreaterThan(height * 0.6);
}

test.describe("embed mode", () => {
  test.use({ viewport: { width: 800, height: 450 } });

  test("?embed=1 shows only the cluster and its controls, fits 800×450, and links to the same run", async ({ page }) => {
    const errors = watchErrors(page);
    await page.goto("/?embed=1&seed=4&nodes=5&speed=1");
    await expect(nodes(page)).toHaveCount(5);
    await leader(page);
    // The run's controls are there, and they work.
    await page.getByRole("button", { name: "Pause", exact: true }).click();
    await expect(page.getByRole("button", { name: "Play", exact: true })).toBeVisible();
    await expect(page.getByRole("button", { name: "Step", exact: true })).toBeVisible();
    await expect(page.getByRole("slider", { name: "Speed" })).toBeVisible();
    // Everything else is not.
    for (const name of ["Settings…", "Course", "Scenarios", "Help", "Classroom"])
      await expect(page.getByRole("button", { name, exact: true })).toHaveCount(0);
    await expect(page.getByRole("heading", { name: "Lease Lab", level: 1 })).toHaveCount(0);
    await expect(page.getByRole("region", { name: "Summary" })).toHaveCount(0);
    await expect(page.getByRole("heading", { name: "Event log" })).toHaveCount(0);
    await fits(page, 800, 450);
    // The link opens this run (its seed and settings) in the full lab, in a new tab.
    const link = page.getByRole("link", { name: /Open in Lease Lab/ });
    await link.hover();
    const href = new URL((await link.getAttribute("href")) ?? "");
    expect(href.searchParams.get("embed")).toBeNull();
    expect(href.searchParams.get("seed")).toBe("4");
    expect(await link.getAttribute("target")).toBe("_blank");
    await shot(page, "embed-800x450");
    // No serious accessibility findings (the rules of e2e/a11y.spec.ts; the ring's nodes are named in words there too).
    const axe = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).disableRules(["label-content-name-mismatch"]).analyze();
    expect(axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.help}`)).toEqual([]);
    // Still embedded after the page rewrote its address to name the run (?seed=…, no embed).
    await page.getByRole("button", { name: "Step", exact: true }).click();
    await expect(page.getByRole("button", { name: "Settings…" })).toHaveCount(0);
    expect(errors).toEqual([]);
  });

  test("in an 800×450 iframe of a slide, a shared run's link (#run=…) opens embedded and the link out keeps it", async ({ page, baseURL }) => {
    // A run with an action, as a share link: open the full lab, kill the leader, wait for the address to carry #run=….
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto("/?seed=4&speed=1");
    const first = await leader(page);
    await node(page, first.id).click();
    await page.getByRole("button", { name: `Kill ${first.id}` }).click();
    await expect.poll(() => new URL(page.url()).hash).toMatch(/^#run=/);
    const shared = new URL(page.url());
    shared.searchParams.set("embed", "1");

    await page.setViewportSize({ width: 960, height: 540 });
    await page.setContent(
      `<body style="margin:0;background:#333"><h1 style="color:#fff;font:24px sans-serif;margin:8px 16px">Slide 12: a leader dies</h1><iframe title="Lease Lab" src="${shared.href}" width="800" height="450" style="border:0;margin-left:16px"></iframe></body>`,
    );
    const frame = page.frameLocator('iframe[title="Lease Lab"]');
    await expect(frame.getByRole("button", { name: new RegExp(`^${first.id}, down, term \\d+$`) })).toBeVisible();
    await expect(frame.getByRole("button", { name: "Settings…" })).toHaveCount(0);
    const link = frame.getByRole("link", { name: /Open in Lease Lab/ });
    await link.hover();
    const out = new URL((await link.getAttribute("href")) ?? "");
    expect(out.origin).toBe(new URL(baseURL ?? "").origin);
    expect(out.hash).toBe(shared.hash);
    expect(out.searchParams.get("embed")).toBeNull();
    await page.waitForTimeout(1000);
    await shot(page, "embed-iframe-slide");
  });
});

test("embed mode fills larger frames too (a slide shown full screen at 1280×720 and 1920×1080)", async ({ page }) => {
  for (const [width, height] of [
    [1280, 720],
    [1920, 1080],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.goto("/?embed=1&seed=4&speed=1");
    await leader(page);
    await fits(page, width, height);
    await shot(page, `embed-${width}x${height}`);
  }
});

test("an embedded lab is not a visit: the bare address still returns to the unfinished lesson", async ({ page }) => {
  await page.goto("/?lesson=fencing");
  await expect(page.getByTestId("lesson-step-count")).toHaveText("Step 1 of 7");
  await page.getByRole("button", { name: "Next", exact: true }).click();
  await expect(page.getByTestId("lesson-step-count")).toHaveText("Step 2 of 7");
  // A course page on the same site shows the lab in an iframe (here: the embed address itself).
  await page.goto("/?embed=1&seed=3");
  await leader(page);
  await page.goto("/");
  await expect(page).toHaveURL(/\?lesson=fencing&step=2$/);
  await expect(page.getByTestId("lesson-step-count")).toHaveText("Step 2 of 7");
});
