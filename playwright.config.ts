import { chromium, defineConfig, devices } from "@playwright/test";
import { decideBrowser, NO_BROWSER_YET, probeBrowser } from "./e2e/browser";

/**
 * Chromium: $CHROMIUM_PATH, else the system's (/usr/bin/chromium, `chromium` on PATH), else
 * Playwright's own (`npm run test:e2e` downloads it first when missing; e2e/browser.ts).
 * Without one, this stops with one line instead of every test failing.
 */
function chromiumPath(): string | undefined {
  const choice = decideBrowser(probeBrowser(chromium.executablePath()));
  if (choice.kind === "use") return choice.executablePath;
  // One line, not a stack trace from loading this file.
  console.error(choice.kind === "none" ? choice.message : NO_BROWSER_YET);
  process.exit(1);
}

/** E2E_PORT lets two checkouts run their end-to-end tests at once. */
const PORT = Number(process.env.E2E_PORT ?? 4173);
const executablePath = chromiumPath();

export default defineConfig({
  testDir: "e2e",
  outputDir: "test-results",
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: [["list"]],
  use: {
    baseURL: `http://localhost:${PORT}`,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    // The built page registers a service worker (offline use); it would intercept every test's requests. e2e/deploy.spec.ts allows it.
    serviceWorkers: "block",
  },
  projects: [
    {
      name: "chromium",
      use: {
        ...devices["Desktop Chrome"],
        viewport: { width: 1280, height: 900 },
        launchOptions: {
          ...(executablePath ? { executablePath } : {}),
          args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
        },
      },
    },
  ],
  webServer: {
    command: `npm run build && npx vite preview --port ${PORT} --strictPort`,
    url: `http://localhost:${PORT}`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: "ignore",
    stderr: "pipe",
  },
});
