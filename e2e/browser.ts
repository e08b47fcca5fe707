/**
 * Which Chromium the end-to-end tests run in, decided once from plain facts so that
 * every case is unit-tested (tests/e2e/browser.test.ts):
 *
 * 1. `CHROMIUM_PATH`, when set (it must exist);
 * 2. a system Chromium: Debian's /usr/bin/chromium, or `chromium` on PATH;
 * 3. Playwright's own Chromium, when it is already downloaded;
 * 4. otherwise, once: `playwright install chromium` (scripts/e2e-browser.ts, run by
 *    `npm run test:e2e` before Playwright), then Playwright's own Chromium;
 * 5. and when that download fails (no internet), one line saying how to get a browser,
 *    instead of every test failing with "Executable doesn't exist".
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync } from "node:fs";
import { delimiter, join } from "node:path";

/** What the decision looks at. `install` is whether `playwright install chromium` was tried, and how it went. */
export interface BrowserFacts {
  readonly envPath: string | undefined;
  readonly envPathExists: boolean;
  /** /usr/bin/chromium, or `chromium` found on PATH; undefined when neither is there. */
  readonly systemChromium: string | undefined;
  /** Playwright's own Chromium (chromium.executablePath()), and whether it is downloaded. */
  readonly playwrightPath: string;
  readonly playwrightExists: boolean;
  readonly install: "not-tried" | "ok" | "failed";
}

export type BrowserDecision =
  /** Run in this executable. `executablePath` is undefined for Playwright's own browser (Playwright finds it, headless shell included). */
  | { readonly kind: "use"; readonly source: "CHROMIUM_PATH" | "system" | "playwright"; readonly path: string; readonly executablePath: string | undefined }
  /** Nothing yet: try `playwright install chromium` once, then decide again. */
  | { readonly kind: "install" }
  /** No browser: stop with this one line. */
  | { readonly kind: "none"; readonly message: string };

export const NO_BROWSER =
  "No Chromium for the end-to-end tests, and Playwright could not download its own (no internet?). Install one with `sudo apt-get install chromium` (Debian/Ubuntu), or point CHROMIUM_PATH at a Chromium or Chrome executable, then run `npm test` again.";

export function decideBrowser(f: BrowserFacts): BrowserDecision {
  if (f.envPath !== undefined && f.envPath !== "") {
    if (f.envPathExists) return { kind: "use", source: "CHROMIUM_PATH", path: f.envPath, executablePath: f.envPath };
    return {
      kind: "none",
      message: `CHROMIUM_PATH=${f.envPath} does not exist. Point it at a Chromium or Chrome executable (Debian: /usr/bin/chromium), or unset it to use the system's or Playwright's Chromium.`,
    };
  }
  if (f.systemChromium !== undefined) return { kind: "use", source: "system", path: f.systemChromium, executablePath: f.systemChromium };
  if (f.playwrightExists) return { kind: "use", source: "playwright", path: f.playwrightPath, executablePath: undefined };
  if (f.install === "not-tried") return { kind: "install" };
  return { kind: "none", message: NO_BROWSER };
}

/** A file that exists and may be executed. */
function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Debian's /usr/bin/chromium, else the first executable `chromium` on PATH. */
export function findSystemChromium(pathVar = process.env.PATH ?? "", debian = "/usr/bin/chromium"): string | undefined {
  if (executable(debian)) return debian;
  for (const dir of pathVar.split(delimiter)) {
    if (dir === "") continue;
    const p = join(dir, "chromium");
    if (executable(p)) return p;
  }
  return undefined;
}

/** The facts of this machine now. `playwrightPath` is chromium.executablePath() (given, so this module does not load Playwright). */
export function probeBrowser(playwrightPath: string, install: BrowserFacts["install"] = "not-tried"): BrowserFacts {
  const envPath = process.env.CHROMIUM_PATH;
  return {
    envPath,
    envPathExists: envPath !== undefined && envPath !== "" && existsSync(envPath),
    systemChromium: findSystemChromium(),
    playwrightPath,
    playwrightExists: existsSync(playwrightPath),
    install,
  };
}

/** `playwright install chromium`; true when it succeeded. Its output (a stack trace when offline) is kept back: the caller says what happened in one line. */
export function installPlaywrightChromium(): boolean {
  console.log("No Chromium found: downloading Playwright's own once (`npx playwright install chromium`, about 170 MB)…");
  const r = spawnSync("npx", ["playwright", "install", "chromium"], { stdio: ["ignore", "pipe", "pipe"], encoding: "utf8", timeout: 15 * 60_000 });
  return r.status === 0;
}

/** What playwright.config.ts says when Playwright is started directly (not by `npm run test:e2e`) and there is no browser yet. */
export const NO_BROWSER_YET =
  "No Chromium for the end-to-end tests. Run `npm run test:e2e` (it downloads Playwright's own once), or install one with `sudo apt-get install chromium`, or set CHROMIUM_PATH to a Chromium or Chrome executable.";
