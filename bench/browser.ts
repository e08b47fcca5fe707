/**
 * Browser benchmark (issue 15, "every view within a frame"): the built page in real
 * Chromium at 1920x1080 with 7 nodes and 10 lease holders, with each panel in view in
 * turn (the space-time diagram, the lease timeline, a lesson open) at 1x and at top speed.
 *
 * For each case it prints, against the targets (frame p95 <= 17 ms, no long task over 50 ms):
 * - frame times (requestAnimationFrame intervals) p50 / p95 and the share of late frames
 *   (over 20 ms: a frame the display had to skip), and the longest long task;
 * - the main thread's CPU per frame (Chromium's own counters in thread time, through the
 *   DevTools protocol: script, style, layout, and all tasks). On a shared machine the
 *   frame times count other processes' load; the CPU figures much less so.
 *
 * Environment:
 * - BENCH_BROWSER_SECONDS (default 10): seconds of frames per case;
 * - BENCH_CASES: a comma list of case names to run (default all; see CASES);
 * - BENCH_ROUNDS (default 1): runs every case this many times, interleaved, and reports each;
 * - BENCH_BASELINE_DIST: another build's folder (for example main's `dist`), served next
 *   to this one; every case then runs on both, interleaved (A, B, A, B...), for
 *   before/after figures measured under the same load;
 * - BENCH_PROFILE=<case>: records a CPU profile (DevTools Profiler) of that case and
 *   prints the functions with the most self time (build with `--minify false` for names);
 * - BENCH_SHOTS=<folder>: saves a screenshot of each case's view there;
 * - BENCH_DIST (default dist): the build to measure;
 * - BENCH_PORT (default 4319): the first preview server's port (the baseline's is the next);
 * - CHROMIUM_PATH: the browser, found as the end-to-end tests find it (e2e/browser.ts).
 *
 * Service workers are blocked, so a worker installed by an earlier build never serves old code.
 * Needs a build (`vite build`); `npm run bench:browser` does that first.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { type BrowserContext, type CDPSession, chromium, type Page } from "@playwright/test";
import { decideBrowser, probeBrowser } from "../e2e/browser";

const PORT = Number(process.env.BENCH_PORT ?? 4319);
const SECONDS = Number(process.env.BENCH_BROWSER_SECONDS ?? 10);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 1));
const PROFILE = process.env.BENCH_PROFILE ?? "";
const SHOTS = process.env.BENCH_SHOTS ?? "";
const WIDTH = 1920;
const HEIGHT = 1080;
/** Targets (issue 15). */
const P95_TARGET_MS = 17;
const LONG_TASK_TARGET_MS = 50;
/** A frame later than this missed the display's refresh (16.7 ms) at least once. */
const LATE_MS = 20;
/** The top speed the toolbar offers (SPEEDS in worker/protocol.ts). */
const TOP_SPEED = 5;

interface Case {
  readonly name: string;
  readonly what: string;
  readonly query: string;
  /** Brings the case's panel into view (and starts the run where it does not start by itself). */
  readonly show: (page: Page) => Promise<void>;
}

const RUN = "seed=1&nodes=7&holders=10";

async function scrollTo(page: Page, region: string): Promise<void> {
  await page.getByRole("button", { name: /, leader, term \d+$/ }).first().waitFor({ timeout: 30_000 });
  const r = page.getByRole("region", { name: region });
  await r.waitFor({ timeout: 30_000 });
  await r.evaluate((el) => el.scrollIntoView({ block: "start" }));
}

async function openLesson(page: Page): Promise<void> {
  await page.getByTestId("lesson-card").waitFor({ timeout: 30_000 });
  // A lesson opens paused: play it as the learner would with the toolbar.
  await page.getByRole("button", { name: "Play", exact: true }).click();
  await page.getByTestId("lesson-card").evaluate((el) => el.scrollIntoView({ block: "start" }));
}

function cases(): Case[] {
  const out: Case[] = [];
  for (const speed of [1, TOP_SPEED]) {
    const x = `${speed}x`;
    out.push(
      { name: `diagram-${x}`, what: `space-time diagram in view, ${x}`, query: `?${RUN}&speed=${speed}`, show: (p) => scrollTo(p, "Space-time diagram") },
      { name: `timeline-${x}`, what: `lease timeline in view, ${x}`, query: `?${RUN}&speed=${speed}`, show: (p) => scrollTo(p, "Lease timeline") },
      { name: `lesson-${x}`, what: `a lesson open (fencing, its own cluster), playing at ${x}`, query: `?lesson=fencing&speed=${speed}`, show: openLesson },
    );
  }
  const only = (process.env.BENCH_CASES ?? "").split(",").filter((s) => s !== "");
  return only.length === 0 ? out : out.filter((c) => only.includes(c.name));
}

async function waitForServer(url: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > until) throw new Error(`the preview server did not answer at ${url}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Runs in the page: requestAnimationFrame intervals and long tasks for SECONDS seconds. */
const MEASURE = `new Promise((resolve) => {
  const longTasks = [];
  const obs = new PerformanceObserver((list) => { for (const e of list.getEntries()) longTasks.push(e.duration); });
  obs.observe({ type: "longtask", buffered: false });
  const frames = [];
  let start = 0;
  let prev = 0;
  const loop = (t) => {
    frames.push(t - prev);
    prev = t;
    if (t - start < SECONDS * 1000) requestAnimationFrame(loop);
    else { obs.disconnect(); resolve({ frames, longTasks, wallMs: t - start }); }
  };
  requestAnimationFrame((t) => { start = t; prev = t; requestAnimationFrame(loop); });
})`;

interface PageSample {
  readonly frames: number[];
  readonly longTasks: number[];
  readonly wallMs: number;
}

/** Chromium's main-thread counters, in thread (CPU) time, seconds. */
type Counters = Record<"TaskDuration" | "ScriptDuration" | "LayoutDuration" | "RecalcStyleDuration", number>;

async function counters(cdp: CDPSession): Promise<Counters> {
  const { metrics } = (await cdp.send("Performance.getMetrics")) as { metrics: { name: string; value: number }[] };
  const get = (n: string): number => metrics.find((m) => m.name === n)?.value ?? 0;
  return {
    TaskDuration: get("TaskDuration"),
    ScriptDuration: get("ScriptDuration"),
    LayoutDuration: get("LayoutDuration"),
    RecalcStyleDuration: get("RecalcStyleDuration"),
  };
}

interface Result {
  readonly build: string;
  readonly c: Case;
  readonly s: PageSample;
  /** Main-thread CPU ms per frame. */
  readonly cpu: { task: number; script: number; layout: number; style: number };
  readonly profile: ProfileRow[] | null;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

export interface ProfileRow {
  readonly name: string;
  readonly selfMs: number;
  readonly share: number;
}

/** Self time per function (name, file and line), most first. */
function topSelf(profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }, n = 25): ProfileRow[] {
  const byId = new Map(profile.nodes.map((x) => [x.id, x]));
  const self = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    if (node === undefined) return;
    const f = node.callFrame;
    if (f.functionName === "(idle)") return;
    const file = f.url === "" ? "" : ` ${f.url.replace(/^.*\//, "").replace(/-[\w-]{8}\.js$/, ".js")}:${f.lineNumber + 1}`;
    const key = `${f.functionName || "(anonymous)"}${file}`;
    const dt = (profile.timeDeltas[i] ?? 0) / 1000;
    total += dt;
    self.set(key, (self.get(key) ?? 0) + dt);
  });
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, ms]) => ({ name, selfMs: ms, share: total > 0 ? ms / total : 0 }));
}

async function runCase(context: BrowserContext, base: string, build: string, c: Case): Promise<Result> {
  const page = await context.newPage();
  try {
    await page.goto(base + c.query);
    await c.show(page);
    // Let the lease holders start, the lazy parts load and the JIT warm up.
    await page.waitForTimeout(3000);
    const cdp = await context.newCDPSession(page);
    await cdp.send("Performance.enable", { timeDomain: "threadTicks" });
    const profiling = PROFILE === c.name;
    if (profiling) {
      await cdp.send("Profiler.enable");
      await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
      await cdp.send("Profiler.start");
    }
    const before = await counters(cdp);
    // A string, not a function: tsx's name-keeping helper (__name) does not exist in the page.
    const s = (await page.evaluate(MEASURE.replace("SECONDS", String(SECONDS)))) as PageSample;
    const after = await counters(cdp);
    let profile: ProfileRow[] | null = null;
    if (profiling) {
      const r = (await cdp.send("Profiler.stop")) as { profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] } };
      profile = topSelf(r.profile);
    }
    if (SHOTS !== "") {
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: join(SHOTS, `${build}-${c.name}.png`) });
    }
    await cdp.detach();
    const n = Math.max(1, s.frames.length);
    const per = (k: keyof Counters): number => ((after[k] - before[k]) * 1000) / n;
    return {
      build,
      c,
      s,
      cpu: { task: per("TaskDuration"), script: per("ScriptDuration"), layout: per("LayoutDuration"), style: per("RecalcStyleDuration") },
      profile,
    };
  } finally {
    await page.close();
  }
}

function line(r: Result): string {
  const sorted = r.s.frames.slice().sort((a, b) => a - b);
  const p95 = percentile(sorted, 95);
  const late = r.s.frames.filter((f) => f > LATE_MS).length / Math.max(1, r.s.frames.length);
  const longest = r.s.longTasks.length === 0 ? 0 : Math.max(...r.s.longTasks);
  const ok = p95 <= P95_TARGET_MS && longest <= LONG_TASK_TARGET_MS;
  const cells = [
    r.c.name.padEnd(13),
    r.build.padEnd(9),
    `${String(r.s.frames.length).padStart(4)}`,
    `${percentile(sorted, 50).toFixed(1).padStart(5)}`,
    `${p95.toFixed(1).padStart(5)}`,
    `${(100 * late).toFixed(1).padStart(5)}%`,
    `${String(r.s.longTasks.length).padStart(3)} ${longest.toFixed(0).padStart(4)}`,
    `${r.cpu.task.toFixed(1).padStart(5)}`,
    `${((r.cpu.task * r.s.frames.length) / (r.s.wallMs / 1000)).toFixed(0).padStart(7)}`,
    `${r.cpu.script.toFixed(1).padStart(5)}`,
    `${r.cpu.style.toFixed(1).padStart(5)}`,
    `${r.cpu.layout.toFixed(1).padStart(5)}`,
    ok ? "meets" : "MISSES",
  ];
  return cells.join("  ");
}

const HEADER = [
  "case".padEnd(13),
  "build".padEnd(9),
  "frms",
  "  p50",
  "  p95",
  " late",
  "long max",
  " task",
  "  cpu/s",
  "scrpt",
  "style",
  "layout",
  "targets",
].join("  ");

function median(xs: number[]): number {
  const s = xs.slice().sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : (s[Math.floor((s.length - 1) / 2)] as number);
}

/** Each case's medians over the rounds, build by build. */
function summary(results: readonly Result[]): void {
  console.log(`\nmedians over ${ROUNDS} rounds`);
  console.log(["case".padEnd(13), "build".padEnd(9), "  p95", " late", "long max", " task", "  cpu/s"].join("  "));
  const keys = [...new Set(results.map((r) => `${r.c.name}\u0000${r.build}`))];
  for (const k of keys) {
    const [name, build] = k.split("\u0000") as [string, string];
    const rs = results.filter((r) => r.c.name === name && r.build === build);
    const p95 = median(rs.map((r) => percentile(r.s.frames.slice().sort((a, b) => a - b), 95)));
    const late = median(rs.map((r) => r.s.frames.filter((f) => f > LATE_MS).length / Math.max(1, r.s.frames.length)));
    const longest = median(rs.map((r) => (r.s.longTasks.length === 0 ? 0 : Math.max(...r.s.longTasks))));
    const task = median(rs.map((r) => r.cpu.task));
    const perS = median(rs.map((r) => (r.cpu.task * r.s.frames.length) / (r.s.wallMs / 1000)));
    console.log(
      [
        name.padEnd(13),
        build.padEnd(9),
        p95.toFixed(1).padStart(5),
        `${(100 * late).toFixed(1).padStart(5)}%`,
        longest.toFixed(0).padStart(8),
        task.toFixed(1).padStart(5),
        perS.toFixed(0).padStart(7),
      ].join("  "),
    );
  }
}

function serve(dir: string, port: number): ChildProcess {
  return spawn("npx", ["vite", "preview", "--outDir", dir, "--port", String(port), "--strictPort"], { stdio: "ignore", detached: true });
}

function stop(server: ChildProcess): void {
  if (server.pid === undefined) return;
  try {
    process.kill(-server.pid);
  } catch {
    server.kill();
  }
}

function launchPath(): string | undefined {
  const d = decideBrowser(probeBrowser(chromium.executablePath()));
  if (d.kind === "use") return d.executablePath;
  throw new Error(d.kind === "none" ? d.message : "No Chromium: run `npm run test:e2e` once (it downloads Playwright's own), or set CHROMIUM_PATH.");
}

async function main(): Promise<void> {
  const builds: { label: string; dir: string; port: number }[] = [{ label: "this", dir: process.env.BENCH_DIST || "dist", port: PORT }];
  const baseline = process.env.BENCH_BASELINE_DIST;
  if (baseline !== undefined && baseline !== "") {
    if (!existsSync(join(baseline, "index.html"))) throw new Error(`BENCH_BASELINE_DIST=${baseline} holds no built page (index.html)`);
    builds.unshift({ label: "baseline", dir: baseline, port: PORT + 1 });
  }
  const servers = builds.map((b) => serve(b.dir, b.port));
  try {
    for (const b of builds) await waitForServer(`http://localhost:${b.port}`, 30_000);
    const executablePath = launchPath();
    const browser = await chromium.launch({
      ...(executablePath ? { executablePath } : {}),
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
    console.log(
      `Lease Lab browser benchmark: ${WIDTH}x${HEIGHT}, ${SECONDS} s of frames per case, ${ROUNDS} round(s) (Chromium${executablePath ? ` at ${executablePath}` : ""})`,
    );
    console.log(`targets: frame p95 <= ${P95_TARGET_MS} ms and no long task over ${LONG_TASK_TARGET_MS} ms; late = frames over ${LATE_MS} ms`);
    console.log("task, scrpt, style, layout: the main thread's CPU per frame (ms, thread time: less sensitive to other load); cpu/s: its CPU ms per second\n");
    console.log(HEADER);
    const results: Result[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const c of cases()) {
        for (const b of builds) {
          const context = await browser.newContext({ viewport: { width: WIDTH, height: HEIGHT }, serviceWorkers: "block" });
          try {
            const r = await runCase(context, `http://localhost:${b.port}/`, b.label, c);
            results.push(r);
            console.log(line(r));
          } finally {
            await context.close();
          }
        }
      }
    }
    await browser.close();
    if (ROUNDS > 1) summary(results);
    for (const r of results) {
      if (r.profile === null) continue;
      console.log(`\nCPU profile, ${r.c.what} (${r.build}): self time, top ${r.profile.length}`);
      for (const row of r.profile) console.log(`${row.selfMs.toFixed(0).padStart(7)} ms ${(100 * row.share).toFixed(1).padStart(5)}%  ${row.name}`);
    }
  } finally {
    for (const s of servers) stop(s);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
