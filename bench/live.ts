/**
 * Live mode benchmark (issue 16): the built page in real Chromium, a live run (one Web Worker
 * per process, src/live/), driven through a test hook: with `?bench` in the address the page
 * puts the live run's LiveCluster at `globalThis.leaseLabLive` (src/app/live/liveMode.ts), so
 * this script can inject faults and set speeds the UI does not offer.
 *
 * 1. The soak: random faults (kill/restart nodes and holders, pauses, partitions and heal,
 *    clock drift, GC pauses of holders), fencing on: LIVE_SOAK_MINUTES at each speed of
 *    LIVE_SOAK_SPEEDS (1× then the toolbar's top speed). A run that fills its recording opens in
 *    the simulator, has its replay checked, and a new live run goes on. It prints the violations
 *    the dashboard's checkers found (expected: 0); the page's JS heap and each worker's (measured
 *    with performance.measureUserAgentSpecificMemory, which the page's cross-origin isolation
 *    allows) every minute, with the inputs recorded: the bytes per input, and whether a fresh run
 *    starts where the first did; at the end, the last run opened in the simulator (its replay
 *    check) and the browser's own count of dedicated workers (only the simulation worker should
 *    remain). A run whose replay is not the live run has its recording saved in dist/bench/.
 * 2. The speed figure: for each speed in LIVE_SPEEDS (default 1,2,5,10,20,50,100), a fresh live
 *    run with no faults for LIVE_SPEED_SECONDS (default 20) real seconds after its first
 *    leader: the processes' timer lateness in virtual ms (p95 and max of each thread's worst
 *    per half second), the elections (leader changes, term changes), how far the dashboard's
 *    shadow trails the live run, and how busy the page's main thread is (CDP's TaskDuration). A speed "falls behind" when the p95 lateness is over 10% of the
 *    heartbeat interval, or when any election happens with no fault. It prints the highest speed
 *    that does not fall behind (and every speed below it does not either).
 *
 * Figures only, no pass/fail. Environment: LIVE_SOAK_MINUTES (default 10 at each speed; 0 skips the soak),
 * LIVE_SOAK_SPEEDS (default "1,5": the soak's phases),
 * LIVE_SPEEDS, LIVE_SPEED_SECONDS, LIVE_VERIFY (1: every run checks every call), BENCH_PORT (default 4329), CHROMIUM_PATH.
 * Needs a build (`vite build`); `npm run bench:live` does that first.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { type Browser, chromium, type Page } from "@playwright/test";
import { MAX_RECORDED_INPUTS } from "../src/core/live/recording";
import { decideBrowser, probeBrowser } from "../e2e/browser";

const PORT = Number(process.env.BENCH_PORT ?? 4329);
const SOAK_MINUTES = Number(process.env.LIVE_SOAK_MINUTES ?? 10);
const SPEEDS = (process.env.LIVE_SPEEDS ?? "1,2,5,10,20,50,100").split(",").map(Number).filter((x) => x > 0);
const SPEED_SECONDS = Number(process.env.LIVE_SPEED_SECONDS ?? 20);
/** LIVE_VERIFY=1: every run checks every call (the Live panel's "Check every call"), to measure what that costs. */
const VERIFY = process.env.LIVE_VERIFY === "1";
const BASE = `http://localhost:${PORT}/?seed=1&bench`;
/** The toolbar's speeds (SPEEDS in worker/protocol.ts): its top one. */
const TOP_UI_SPEED = 5;
/** The soak's phases: LIVE_SOAK_MINUTES at each of these speeds, in order. */
const SOAK_SPEEDS = (process.env.LIVE_SOAK_SPEEDS ?? `1,${TOP_UI_SPEED}`).split(",").map(Number).filter((x) => x > 0);

// ---- in the page (strings: tsx's name-keeping helper does not exist there) ----

/** The leader and its term as the ring shows them, the checkers' violations, the dashboard's time and the live run's. */
const PROBE = `(() => {
  const c = globalThis.leaseLabLive;
  let leader = null, term = null;
  for (const el of document.querySelectorAll("[aria-label]")) {
    const m = /^(n\\d+), leader, term (\\d+)$/.exec(el.getAttribute("aria-label"));
    if (m) { leader = m[1]; term = Number(m[2]); }
  }
  const banner = document.querySelector('[aria-label="Safety violated"]');
  const s = c ? c.state() : null;
  const shown = document.querySelector('[data-testid="virtual-time"]')?.textContent ?? "";
  return {
    leader, term,
    violations: banner ? (/\\((\\d+) violations\\)/.exec(banner.textContent)?.[1] ?? "1") : "0",
    shownS: Number.parseFloat(shown),
    liveUs: s ? s.now : null,
    threads: s ? s.threads.map((t) => ({ id: t.id, kind: t.kind, status: t.status })) : [],
    workers: s ? s.workers : null,
    inputs: s ? s.inputs : null,
    rebuilds: Number(/replayed again (\\d+)/.exec(document.querySelector('[data-testid="live-rebuilds"]')?.textContent ?? "")?.[1] ?? 0),
  };
})()`;

/** Each thread's worst timer lateness per half second since the last call (LiveCluster keeps the last 3 s of them). */
const TAKE_LATE = `(() => {
  const c = globalThis.leaseLabLive;
  if (!c) return [];
  const seen = globalThis.__benchLateSeen ?? 0;
  const fresh = c.late.filter((l) => l.at > seen);
  if (fresh.length > 0) globalThis.__benchLateSeen = Math.max(...fresh.map((l) => l.at));
  return fresh.map((l) => l.virtualMs);
})()`;

/** The heap of the page and of each of its workers (bytes), by kind of worker. */
const MEMORY = `(async () => {
  const out = { page: performance.memory ? performance.memory.usedJSHeapSize : null, workers: {}, total: null, how: "performance.memory" };
  if (typeof performance.measureUserAgentSpecificMemory === "function") {
    try {
      const r = await performance.measureUserAgentSpecificMemory();
      out.total = r.bytes;
      out.how = "measureUserAgentSpecificMemory";
      let page = 0;
      for (const b of r.breakdown) {
        for (const a of b.attribution) {
          const url = a.url ?? "";
          const kind = a.scope === "DedicatedWorkerGlobalScope" ? url.replace(/^.*\\//, "").replace(/-[\\w-]{8}\\.js$/, "") : "page";
          if (kind === "page") page += b.bytes / b.attribution.length;
          else (out.workers[kind] ??= []).push(b.bytes / b.attribution.length);
        }
      }
      out.page = page;
    } catch (e) { out.how = "measureUserAgentSpecificMemory failed: " + e.message; }
  }
  return out;
})()`;

interface Probe {
  leader: string | null;
  term: number | null;
  violations: string;
  shownS: number;
  liveUs: number | null;
  threads: { id: string; kind: string; status: string }[];
  workers: number | null;
  inputs: number | null;
  /** Times the dashboard's shadow went back to take a report that came late (a thread slower than the watermark's lag). */
  rebuilds: number;
}

interface Memory {
  page: number | null;
  total: number | null;
  workers: Record<string, number[]>;
  how: string;
}

const probe = (page: Page): Promise<Probe> => page.evaluate(PROBE) as Promise<Probe>;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const mb = (b: number | null | undefined): string => (b === null || b === undefined ? "?" : `${(b / 1e6).toFixed(1)} MB`);

function percentile(xs: number[], p: number): number {
  const s = xs.slice().sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : (s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number);
}

async function act(page: Page, action: unknown): Promise<string | null> {
  return (await page.evaluate(`globalThis.leaseLabLive.act(${JSON.stringify(action)}, (r) => r)`)) as string | null;
}

async function setSpeed(page: Page, speed: number): Promise<void> {
  await page.evaluate(`globalThis.leaseLabLive.setSpeed(${speed})`);
}

/** Opens the page, starts a live run, waits for its first leader. */
async function startLive(browser: Browser, speed: number): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
  page.on("pageerror", (e) => console.log(`  page error: ${e.message}`));
  try {
    await page.goto(BASE);
    await page.getByRole("button", { name: "Live (real threads)" }).click();
    await page.waitForFunction("globalThis.leaseLabLive !== undefined", undefined, { timeout: 60_000 });
    await setSpeed(page, speed);
    if (VERIFY) await page.evaluate("globalThis.leaseLabLive.setVerify(true)");
    await page.waitForFunction(PROBE.replace(/\)\(\)$/, ")().leader !== null"), undefined, { timeout: 60_000, polling: 200 });
    return page;
  } catch (e) {
    // Its workers must not go on using the machine through the cases that follow.
    await page.close();
    throw e;
  }
}

/** The leader, the threads not running, and any message the page shows (an error, a refused action). */
async function health(page: Page, p: Probe): Promise<string> {
  const notRunning = p.threads.filter((t) => t.status !== "running").map((t) => `${t.id} ${t.status}`);
  const alerts = (await page.getByRole("alert").allTextContents()).map((x) => x.trim()).filter((x) => x !== "");
  return `leader ${p.leader ?? "none"} (term ${p.term ?? "?"}); not running: ${notRunning.length === 0 ? "none" : notRunning.join(", ")}${alerts.length > 0 ? `; the page says: ${alerts.join(" | ").slice(0, 400)}` : ""}`;
}

/** Waits for the replay check of a live run opened in the simulator, and returns it. */
async function replayCheck(page: Page): Promise<string> {
  const check = page.getByTestId("replay-check");
  await check.filter({ hasText: /digests|differently|could not follow/ }).waitFor({ timeout: 300_000 });
  return (await check.textContent()) ?? "";
}

/** A replay that is not the live run: its recording is kept for `npm run sim -- --replay FILE`. */
async function keepIfDifferent(page: Page, check: string, name: string): Promise<void> {
  if (check.startsWith("✓")) return;
  const [d] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Save recording" }).click()]);
  const file = `dist/bench/${name}.json`;
  mkdirSync("dist/bench", { recursive: true });
  await d.saveAs(file);
  console.log(`    its recording: ${file} (npm run sim -- --replay ${file})`);
}

function dedicatedWorkers(page: Page): { sim: number; router: number; process: number } {
  const urls = page.workers().map((w) => w.url());
  return { sim: urls.filter((u) => u.includes("sim.worker")).length, router: urls.filter((u) => u.includes("router.worker")).length, process: urls.filter((u) => u.includes("process.worker")).length };
}

function memLine(label: string, m: Memory): string {
  const ws = Object.entries(m.workers)
    .map(([k, v]) => `${k} ${v.length}× (max ${mb(Math.max(...v))}, sum ${mb(v.reduce((a, b) => a + b, 0))})`)
    .join(", ");
  return `  heap ${label}: page ${mb(m.page)}${m.total !== null ? `, all ${mb(m.total)}` : ""}${ws !== "" ? `; workers: ${ws}` : ""} [${m.how}]`;
}

// ---- the soak ----

interface Rng {
  next(): number;
  pick<T>(xs: readonly T[]): T;
}

function rng(seed: number): Rng {
  let s = seed >>> 0;
  const next = (): number => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, pick: (xs) => xs[Math.floor(next() * xs.length)] as (typeof xs)[number] };
}

/** One random fault (or its repair), keeping at most two of the five nodes down. */
async function fault(page: Page, r: Rng, p: Probe, speed: number, counts: Record<string, number>): Promise<void> {
  const nodes = p.threads.filter((t) => t.kind === "node");
  const holders = p.threads.filter((t) => t.kind === "holder");
  const downNodes = nodes.filter((t) => t.status === "terminated");
  const downHolders = holders.filter((t) => t.status === "terminated");
  const upNodes = nodes.filter((t) => t.status === "running");
  const upHolders = holders.filter((t) => t.status === "running");
  const us = (realS: number): number => Math.round(realS * 1e6 * speed);
  const choices: [string, () => unknown][] = [];
  if (downNodes.length < 2 && upNodes.length > 0) choices.push(["kill node", () => ({ type: "crash", proc: r.pick(upNodes).id })]);
  if (p.leader !== null && downNodes.length < 2) choices.push(["kill leader", () => ({ type: "crash", proc: p.leader })]);
  if (downNodes.length > 0) choices.push(["restart node", () => ({ type: "restart", proc: r.pick(downNodes).id })]);
  if (upHolders.length > 0) choices.push(["kill holder", () => ({ type: "crash", proc: r.pick(upHolders).id })]);
  if (downHolders.length > 0) choices.push(["restart holder", () => ({ type: "restart", proc: r.pick(downHolders).id })]);
  if (upNodes.length > 0) choices.push(["pause node", () => ({ type: "pause", proc: r.pick(upNodes).id, durationUs: us(0.3 + 1.5 * r.next()) })]);
  if (upHolders.length > 0) choices.push(["gc-pause holder", () => ({ type: "gc-pause", holder: r.pick(upHolders).id, durationUs: us(1 + 4 * r.next()) })]);
  if (p.leader !== null) choices.push(["partition leader", () => ({ type: "partition", groups: [[p.leader], ["others"]] })]);
  choices.push(["heal", () => ({ type: "heal" })]);
  if (upNodes.length > 0) choices.push(["drift", () => ({ type: "clock", proc: r.pick(upNodes).id, driftPpm: Math.round((r.next() - 0.5) * 100_000) })]);
  const [name, make] = r.pick(choices);
  const why = await act(page, make());
  counts[why === null ? name : `${name} (refused)`] = (counts[why === null ? name : `${name} (refused)`] ?? 0) + 1;
}

interface Sample {
  readonly label: string;
  readonly inputs: number | null;
  readonly bytes: number;
}

async function soak(browser: Browser): Promise<void> {
  const phase = SOAK_MINUTES * 60_000;
  console.log(`\n== Soak: random faults, fencing on: ${SOAK_MINUTES} min at each of ${SOAK_SPEEDS.map((x) => `${x}×`).join(", then ")} (${TOP_UI_SPEED}× is the toolbar's top speed) ==`);
  let speed = SOAK_SPEEDS[0] as number;
  const page = await startLive(browser, speed);
  const r = rng(16);
  const counts: Record<string, number> = {};
  const start = Date.now();
  const samples: Sample[] = [];
  const sample = async (label: string, speedNow: number): Promise<void> => {
    const mem = (await page.evaluate(MEMORY)) as Memory;
    const p = await probe(page);
    samples.push({ label, inputs: p.inputs, bytes: mem.total ?? mem.page ?? 0 });
    console.log(memLine(`${label} (${((Date.now() - start) / 60_000).toFixed(1)} min, ${speedNow}×, ${p.inputs ?? "?"} inputs recorded)`, mem));
    console.log(`    ${await health(page, p)}`);
  };
  await sample("start", speed);
  let nextSample = Date.now() + 60_000;
  /** Runs that filled their recording and ended, and the violations found in them. */
  const ended: string[] = [];
  let earlierViolations = 0;
  let last: Probe = await probe(page);
  let phaseAt = 0;
  while (Date.now() - start < SOAK_SPEEDS.length * phase) {
    const due = Math.floor((Date.now() - start) / phase);
    if (due > phaseAt) {
      phaseAt = due;
      await act(page, { type: "heal" });
      await sample(`end of ${speed}×`, speed);
      speed = SOAK_SPEEDS[due] as number;
      await setSpeed(page, speed);
    }
    // A run whose recording filled up (MAX_RECORDED_INPUTS) ended and opened in the simulator: count it, start a new one.
    if (await page.evaluate("document.querySelector('[data-testid=live-workers]') === null && document.querySelector('[data-testid=replay-check]') !== null")) {
      const check = await replayCheck(page);
      const v = Number((await probe(page)).violations);
      ended.push(`${ended.length + 1}: ${check.slice(0, 60)}…, ${v} violation(s)`);
      await keepIfDifferent(page, check, `live-soak-run-${ended.length}`);
      earlierViolations += Number.isFinite(v) ? v : 0;
      await page.evaluate("globalThis.leaseLabLive = undefined");
      await page.getByRole("button", { name: "New live run" }).click();
      await page.waitForFunction("globalThis.leaseLabLive !== undefined", undefined, { timeout: 60_000 });
      await setSpeed(page, speed);
      await page.waitForFunction(PROBE.replace(/\)\(\)$/, ")().leader !== null"), undefined, { timeout: 60_000, polling: 200 });
      await sample(`new run ${ended.length + 1}`, speed);
    }
    if (Date.now() >= nextSample) {
      nextSample = Date.now() + 60_000;
      await sample("every minute", speed);
    }
    last = await probe(page);
    await fault(page, r, last, speed, counts);
    await sleep(1000 + 2000 * r.next());
  }
  // Repair everything, let it settle, then look.
  await act(page, { type: "heal" });
  for (const t of (await probe(page)).threads) if (t.status === "terminated") await act(page, { type: "restart", proc: t.id });
  await sleep(5000);
  last = await probe(page);
  await sample("end", speed);
  console.log(`  faults: ${Object.entries(counts).map(([k, v]) => `${k} ${v}`).join(", ")}`);
  if (ended.length > 0) console.log(`  runs that filled their recording and ended (then a new live run went on): ${ended.join("; ")}`);
  console.log(
    `  violations found by the checkers: ${Number(last.violations) + earlierViolations} (expected 0 with fencing on); leader at the end ${last.leader ?? "none"}, term ${last.term ?? "?"}`,
  );
  console.log(`  the dashboard's shadow went back ${last.rebuilds} time(s) in the last run to take a report that came after it had played past its time`);
  // Memory: a live run's recording grows with it until it is full (then the run ends), so the heap grows within a run; what must not grow is what a fresh run starts with.
  const first = samples[0] as Sample;
  const largest = samples.reduce((a, b) => (b.bytes > a.bytes ? b : a), first);
  console.log(`  memory: largest ${mb(largest.bytes)} (${largest.label}, ${largest.inputs ?? "?"} inputs recorded); at the start ${mb(first.bytes)}`);
  // The sample with the most inputs recorded: the heap over the start's, per input (early samples carry the warm-up's fixed cost).
  const fullest = samples.reduce((a, b) => ((b.inputs ?? 0) > (a.inputs ?? 0) ? b : a), first);
  if ((fullest.inputs ?? 0) > 10_000) {
    const perInput = (fullest.bytes - first.bytes) / (fullest.inputs as number);
    console.log(
      `  the recording's cost: ${perInput.toFixed(0)} bytes per input over the start's heap (router, shadow and page together, at ${fullest.inputs} inputs), so a full recording (${MAX_RECORDED_INPUTS.toLocaleString("en")} inputs) holds about ${mb(first.bytes + perInput * MAX_RECORDED_INPUTS)}`,
    );
  }
  const fresh = samples.filter((x) => x.label.startsWith("new run"));
  if (fresh.length === 0) console.log("  no run filled its recording, so no fresh run to compare with the start");
  else {
    const worst = Math.max(...fresh.map((x) => x.bytes));
    const ok = worst <= first.bytes + 30e6;
    console.log(
      `  fresh runs after a full recording start at ${fresh.map((x) => mb(x.bytes)).join(", ")} against ${mb(first.bytes)} at the start: ${ok ? "bounded (nothing kept from one run to the next, within 30 MB)" : "GREW from one run to the next"}`,
    );
  }
  // End the last run the way a user would: open it in the simulator, which replays it whole and compares every digest.
  const before = dedicatedWorkers(page);
  await page.getByRole("button", { name: "Open in the simulator" }).click();
  const check = await replayCheck(page);
  console.log(`  the last run opened in the simulator: ${check}`);
  await keepIfDifferent(page, check, "live-soak-last-run");
  console.log(`    ${await health(page, await probe(page))}`);
  let after = dedicatedWorkers(page);
  for (let i = 0; i < 50 && after.process + after.router > 0; i++) {
    await sleep(200);
    after = dedicatedWorkers(page);
  }
  console.log(
    `  dedicated workers in live mode: ${before.process} process + ${before.router} router + ${before.sim} simulation; after it ended: ${after.process} process + ${after.router} router + ${after.sim} simulation: ${after.process + after.router === 0 && after.sim === 1 ? "every live worker terminated" : "LIVE WORKERS LEFT"}`,
  );
  await page.close();
}

// ---- the speed figure ----

interface SpeedResult {
  speed: number;
  p95: number;
  max: number;
  samples: number;
  elections: number;
  shadowLagMs: number;
  /** Share of real time the page's main thread spent in tasks (drawing the dashboard, mostly). */
  pageBusy: number;
  behind: boolean;
}

async function speedCase(browser: Browser, speed: number, heartbeatMs: number): Promise<SpeedResult> {
  let page: Page;
  try {
    page = await startLive(browser, speed);
  } catch {
    // No leader within a minute: the run cannot even elect one at this speed.
    return { speed, p95: Number.NaN, max: Number.NaN, samples: 0, elections: Number.NaN, shadowLagMs: Number.NaN, pageBusy: Number.NaN, behind: true };
  }
  try {
    // Let the first election settle, then count.
    await sleep(2000);
    await page.evaluate(TAKE_LATE);
    const first = await probe(page);
    let term = first.term;
    let leader = first.leader;
    let elections = 0;
    const late: number[] = [];
    const lags: number[] = [];
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Performance.enable");
    const taskSeconds = async (): Promise<number> =>
      (await cdp.send("Performance.getMetrics")).metrics.find((m) => m.name === "TaskDuration")?.value ?? Number.NaN;
    const busy0 = await taskSeconds();
    const start = Date.now();
    const until = Date.now() + SPEED_SECONDS * 1000;
    while (Date.now() < until) {
      await sleep(250);
      late.push(...((await page.evaluate(TAKE_LATE)) as number[]));
      const p = await probe(page);
      if (p.term !== null && term !== null && p.term !== term) elections++;
      else if (p.leader !== null && leader !== null && p.leader !== leader) elections++;
      if (p.term !== null) term = p.term;
      if (p.leader !== null) leader = p.leader;
      if (p.liveUs !== null && Number.isFinite(p.shownS)) lags.push(p.liveUs / 1000 - p.shownS * 1000);
    }
    const pageBusy = ((await taskSeconds()) - busy0) / ((Date.now() - start) / 1000);
    const p95 = percentile(late, 95);
    const max = late.length === 0 ? Number.NaN : Math.max(...late);
    const behind = !(p95 <= heartbeatMs * 0.1) || elections > 0;
    return { speed, p95, max, samples: late.length, elections, shadowLagMs: percentile(lags, 50), pageBusy, behind };
  } finally {
    await page.close();
  }
}

async function speedFigure(browser: Browser): Promise<void> {
  const heartbeatMs = 50;
  console.log(`\n== Speed: ${SPEED_SECONDS} s per speed, no faults; falls behind = p95 timer lateness over ${heartbeatMs * 0.1} virtual ms (10% of the ${heartbeatMs} ms heartbeat) or any election ==`);
  if (VERIFY) console.log("  (every call checked: LIVE_VERIFY=1)");
  console.log("  speed  late p95 (virtual ms)  late max  samples  elections  shadow trails by (virtual ms, median)  page busy  verdict");
  const results: SpeedResult[] = [];
  for (const speed of SPEEDS) {
    const r = await speedCase(browser, speed, heartbeatMs);
    results.push(r);
    console.log(
      `  ${`${speed}×`.padStart(5)}  ${r.p95.toFixed(1).padStart(21)}  ${r.max.toFixed(1).padStart(8)}  ${String(r.samples).padStart(7)}  ${String(r.elections).padStart(9)}  ${r.shadowLagMs.toFixed(0).padStart(37)}  ${`${(r.pageBusy * 100).toFixed(0)}%`.padStart(9)}  ${r.behind ? "falls behind" : "keeps up"}`,
    );
  }
  const highest = (ok: (r: SpeedResult) => boolean): string => {
    let best: number | null = null;
    for (const r of results) {
      if (!ok(r)) break;
      best = r.speed;
    }
    return best === null ? "none" : `${best}×`;
  };
  console.log(`  highest speed that keeps up (and every speed below it too): ${highest((r) => !r.behind)}`);
  console.log(`  highest speed with no election (leaders stable; lateness aside): ${highest((r) => r.elections === 0)}`);
  console.log("  (NaN: no leader was elected within a minute at that speed)");
}

// ---- main ----

function serve(port: number): ChildProcess {
  return spawn("npx", ["vite", "preview", "--port", String(port), "--strictPort"], { stdio: "ignore", detached: true });
}

async function waitForServer(url: string): Promise<void> {
  const until = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > until) throw new Error(`the preview server did not answer at ${url}`);
    await sleep(200);
  }
}

async function main(): Promise<void> {
  const server = serve(PORT);
  try {
    await waitForServer(`http://localhost:${PORT}/`);
    const d = decideBrowser(probeBrowser(chromium.executablePath()));
    if (d.kind !== "use") throw new Error(d.kind === "none" ? d.message : "No Chromium: set CHROMIUM_PATH.");
    const browser = await chromium.launch({
      executablePath: d.executablePath,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--enable-blink-features=ForceEagerMeasureMemory"],
    });
    console.log(`Lease Lab live-mode benchmark (Chromium at ${d.executablePath}), seed 1, 5 nodes, 2 clients, 3 holders, the storage`);
    try {
      await speedFigure(browser);
      if (SOAK_MINUTES > 0) await soak(browser);
    } finally {
      await browser.close();
    }
  } finally {
    if (server.pid !== undefined) {
      try {
        process.kill(-server.pid);
      } catch {
        server.kill();
      }
    }
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
