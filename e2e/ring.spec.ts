/**
 * The cluster ring at lecture sizes (1920×1080 and 1280×720): no text covers other text,
 * the "Lease story" view hides Raft's traffic, partition outlines take in holders, and the
 * type reads from the back row. Screenshots go to test-results/screens/ring-*.png.
 */
import { expect, type Page, test } from "@playwright/test";
import { pause, shot, watchErrors } from "./support";

interface TextBox {
  readonly cls: string;
  readonly text: string;
  readonly owner: number;
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
  /** Font size in CSS px as drawn (the SVG's scale included). */
  readonly px: number;
}

/** Every visible text on the ring (symbols like ✕ aside), with the process or message it belongs to. */
async function ringTexts(page: Page): Promise<TextBox[]> {
  return page.locator(".ring-svg").evaluate((svg) => {
    const owners = new Map<Element, number>();
    const scale = (svg as SVGSVGElement).getScreenCTM()?.a ?? 1;
    const out: TextBox[] = [];
    for (const t of svg.querySelectorAll("text")) {
      const text = (t.textContent ?? "").trim();
      if (text === "" || /^[✕●★?…‖]$/.test(text)) continue;
      let opacity = 1;
      let hidden = false;
      for (let e: Element | null = t; e !== null && e !== svg; e = e.parentElement) {
        const cs = getComputedStyle(e);
        if (cs.display === "none" || cs.visibility === "hidden") hidden = true;
        opacity *= Number(e.getAttribute("opacity") ?? "1") * Number(cs.opacity);
      }
      const r = t.getBoundingClientRect();
      if (hidden || opacity < 0.1 || r.width === 0) continue;
      const ownerEl = t.closest("g.node, g.holder, g.storage, g.msg, g.drop, g.client, g.group-badge") ?? t;
      if (!owners.has(ownerEl)) owners.set(ownerEl, owners.size);
      out.push({
        cls: t.getAttribute("class") ?? "",
        text,
        owner: owners.get(ownerEl) as number,
        x: r.x,
        y: r.y,
        w: r.width,
        h: r.height,
        px: Number.parseFloat(getComputedStyle(t).fontSize) * scale,
      });
    }
    return out;
  });
}

/** Pairs of texts of different owners whose boxes intersect (by more than half a pixel). */
function overlaps(ts: readonly TextBox[]): string[] {
  const bad: string[] = [];
  const e = 0.5;
  for (let i = 0; i < ts.length; i++) {
    for (let j = i + 1; j < ts.length; j++) {
      const a = ts[i] as TextBox;
      const b = ts[j] as TextBox;
      if (a.owner === b.owner) continue;
      if (a.x + e < b.x + b.w && b.x + e < a.x + a.w && a.y + e < b.y + b.h && b.y + e < a.y + a.h)
        bad.push(`"${a.text}" (${a.cls}) × "${b.text}" (${b.cls})`);
    }
  }
  return bad;
}

for (const [w, h, name, query, holders] of [
  [1920, 1080, "default", "?seed=3&speed=0.1&holders=3", 3],
  [1280, 720, "default", "?seed=3&speed=0.1&holders=3", 3],
  [1920, 1080, "crowded", "?seed=5&speed=0.1&nodes=7&holders=6&clients=4", 6],
  [1280, 720, "crowded", "?seed=5&speed=0.1&nodes=7&holders=6&clients=4", 6],
] as const) {
  test(`${w}×${h}, ${name}: no ring text covers another while the cluster runs with holders`, async ({ page }) => {
    const errors = watchErrors(page);
    await page.setViewportSize({ width: w, height: h });
    await page.goto(query);
    await expect(page.locator(".ring-svg g.holder")).toHaveCount(holders);
    let labelled = 0;
    for (let k = 0; k < 8; k++) {
      await page.waitForTimeout(k === 0 ? 1500 : 700);
      const ts = await ringTexts(page);
      labelled += ts.filter((t) => t.cls.includes("mlabel")).length;
      expect(overlaps(ts), `moment ${k}`).toEqual([]);
      if (k === 3) await shot(page, `ring-after-${name}-${w}`);
    }
    // Messages were labelled: the check above is not vacuous.
    expect(labelled).toBeGreaterThan(0);
    expect(errors).toEqual([]);
  });
}

test("1920×1080: ring text is at least 18 px as drawn in the default layout", async ({ page }) => {
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.goto("/?seed=3&speed=0.1&holders=3");
  await expect(page.locator(".ring-svg g.holder")).toHaveCount(3);
  await page.waitForTimeout(1500);
  const ts = await ringTexts(page);
  for (const cls of ["node-id", "clock", "holder-id", "holder-state", "holder-token", "storage-id", "fencing", "counts", "client-id", "clients-caption"])
    expect(ts.some((t) => t.cls.includes(cls)), cls).toBe(true);
  const small = ts.filter((t) => t.px < 18).map((t) => `${t.cls} "${t.text}" ${t.px.toFixed(1)} px`);
  expect(small).toEqual([]);
});

test("the Lease story view hides Raft's traffic and keeps the lease's", async ({ page }) => {
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 1920, height: 1080 });
  // Slow links (60-80 ms) keep each message in flight long enough to pause on it.
  await page.goto("/?seed=3&speed=0.1&holders=3&latency=60-80");
  const story = page.getByRole("button", { name: "Lease story" });
  const all = page.getByRole("button", { name: "All messages" });
  await expect(all).toHaveAttribute("aria-pressed", "true");
  // With every message drawn, Raft's appends and heartbeats are there.
  await expect.poll(async () => page.locator(".ring-svg g.msg title").filter({ hasText: /^(append|heartbeat)/ }).count()).toBeGreaterThan(0);
  await story.click();
  await expect(story).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByText("Raft traffic hidden")).toBeVisible();
  // Watch until a lease or storage message is in flight, then pause there: it is drawn, with its words.
  let found = false;
  for (let k = 0; k < 120 && !found; k++) {
    await page.waitForTimeout(100);
    const titles = await page.locator(".ring-svg g.msg title").allTextContents();
    for (const t of titles) expect(t).not.toMatch(/^(append|heartbeat|vote|pre-vote|snapshot)/);
    found = titles.some((t) => /^(acquire|granted|refresh|refreshed|write)/.test(t));
  }
  expect(found).toBe(true);
  await pause(page);
  await page.waitForTimeout(300);
  // Between lease events the run goes faster (the automatic slow-down), so the message may have
  // arrived by the time the pause lands: step, one event at a time, until one is in flight again.
  const leaseInFlight = async () => (await page.locator(".ring-svg g.msg title").allTextContents()).some((t) => /^(acquire|granted|refresh|refreshed|write)/.test(t));
  for (let k = 0; k < 200 && !(await leaseInFlight()); k++) await page.keyboard.press("s");
  expect(await leaseInFlight()).toBe(true);
  // Its label is placed on the next drawn frame.
  const shownLabels = async () => (await page.locator(".ring-svg .mlabel:not(.no-room)").allTextContents()).filter((l) => l !== "");
  await expect.poll(async () => (await shownLabels()).length).toBeGreaterThan(0);
  for (const l of await shownLabels()) expect(l).not.toMatch(/append|heartbeat|vote/);
  await shot(page, "ring-lease-story-1920");
  await all.click();
  await expect(page.getByText("Raft traffic hidden")).toHaveCount(0);
  expect(errors).toEqual([]);
});

test("a partition's outline takes in the holders and the storage of its group", async ({ page }) => {
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.goto("/?seed=3&speed=0.25&holders=3");
  await expect(page.locator(".ring-svg g.holder")).toHaveCount(3);
  await page.getByText("Partition into groups…").click();
  for (const id of ["n1", "n2", "h1", "h2"]) await page.getByRole("radio", { name: `${id} in group A` }).check();
  for (const id of ["n3", "n4", "n5", "h3", "s1"]) await page.getByRole("radio", { name: `${id} in group B` }).check();
  await page.getByRole("button", { name: "Apply partition" }).click();
  await expect(page.getByTestId("network-status")).toContainText("Partitioned");
  // Each holder and the storage: inside an outline of its own group's colour, and badged with its letter.
  // (Scrolled off screen by the controls, the ring catches up within a second: frames.spec.ts.)
  const inside = () => page.locator(".ring-svg").evaluate((svg) => {
    const out: Record<string, string[]> = {};
    const groups = [...svg.querySelectorAll("g.group")];
    const centre = (sel: string): DOMPoint => {
      const m = /translate\(([-\d.]+),([-\d.]+)\)/.exec(svg.querySelector(sel)?.getAttribute("transform") ?? "");
      return new DOMPoint(Number(m?.[1]), Number(m?.[2]));
    };
    const ids = ["h1", "h2", "h3", "s1"];
    for (const id of ids) {
      const sel = id === "s1" ? "g.storage" : `g.holder[aria-label^="holder ${id},"]`;
      const p = centre(sel);
      out[id] = groups.flatMap((g, i) =>
        [...g.querySelectorAll<SVGPathElement>("path.hull")].some((path) => path.isPointInFill(p)) ? [String.fromCharCode(65 + i)] : [],
      );
    }
    return out;
  });
  await expect.poll(inside, { timeout: 3000 }).toEqual({ h1: ["A"], h2: ["A"], h3: ["B"], s1: ["B"] });
  await expect(page.locator(".ring-svg g.group-badge")).toHaveCount(4);
  expect(await page.locator(".ring-svg g.group-badge text").allTextContents()).toEqual(["A", "A", "B", "B"]);
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, "ring-partition-1920");
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForTimeout(500);
  expect(overlaps(await ringTexts(page))).toEqual([]);
  await shot(page, "ring-partition-1280");
});

test("a storage write rides round the nodes: its dot never passes over a node it does not involve", async ({ page }) => {
  await page.setViewportSize({ width: 1920, height: 1080 });
  // Slow links keep each write in flight for many frames.
  await page.goto("/?seed=3&speed=0.1&holders=3&latency=60-80");
  const near: number[] = [];
  let writes = 0;
  for (let k = 0; k < 200 && writes < 12; k++) {
    await page.waitForTimeout(80);
    const seen = await page.locator(".ring-svg").evaluate((svg) => {
      const at = (g: Element): [number, number] => {
        const m = /translate\(([-\d.]+),([-\d.]+)\)/.exec(g.getAttribute("transform") ?? "");
        return [Number(m?.[1]), Number(m?.[2])];
      };
      const nodes = [...svg.querySelectorAll("g.node")].map(at);
      return [...svg.querySelectorAll("g.msg")]
        .filter((g) => /^write/.test(g.querySelector("title")?.textContent ?? ""))
        .map((g) => {
          const [x, y] = at(g);
          return Math.min(...nodes.map(([nx, ny]) => Math.hypot(nx - x, ny - y)));
        });
    });
    writes += seen.length;
    near.push(...seen);
  }
  expect(writes).toBeGreaterThan(3);
  // A node is 30 across its radius plus its timer ring: a write keeps more than 45 from every centre.
  expect(Math.min(...near)).toBeGreaterThan(45);
  await shot(page, "ring-write-1920");
});

test("playing at top speed, a new message reuses the element of one delivered before: no element is made, none written twice over", async ({ page }) => {
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.goto("/?seed=1&nodes=7&holders=10&speed=5");
  await expect(page.getByRole("button", { name: /, leader, term \d+$/ })).toHaveCount(1);
  // Past the first moments: by then the spare elements are there.
  await page.waitForTimeout(2500);
  const r = (await page.evaluate(`new Promise((resolve) => {
    const g = document.querySelector(".ring-svg g.ring-messages");
    const seen = new WeakSet(g.querySelectorAll("g.msg"));
    const out = { inserted: 0, made: 0, parts: 0, classWrites: 0, classChanges: 0 };
    const mo = new MutationObserver((list) => {
      for (const m of list) {
        if (m.type === "attributes") {
          out.classWrites++;
          if (m.oldValue !== m.target.getAttribute("class")) out.classChanges++;
          continue;
        }
        for (const n of m.addedNodes) {
          if (n.nodeType !== 1) continue;
          if (n.matches("g.msg")) { out.inserted++; if (!seen.has(n)) { seen.add(n); out.made++; } }
          else out.parts++;
        }
        for (const n of m.removedNodes) if (n.nodeType === 1) seen.add(n);
      }
    });
    mo.observe(g, { subtree: true, childList: true, attributes: true, attributeFilter: ["class"], attributeOldValue: true });
    setTimeout(() => { mo.disconnect(); resolve(out); }, 3000);
  })`)) as { inserted: number; made: number; parts: number; classWrites: number; classChanges: number };
  // Messages came and went (the check is not vacuous)...
  expect(r.inserted).toBeGreaterThan(100);
  // ...in elements made before: a new element would be a new dot with its parts appended one by one.
  expect(r.made).toBeLessThan(r.inserted / 5);
  expect(r.parts).toBe(0);
  // A class is written only to change it.
  expect(r.classWrites - r.classChanges).toBeLessThanOrEqual(r.classWrites / 20);
  expect(errors).toEqual([]);
});
