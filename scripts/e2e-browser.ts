/**
 * Run by `npm run test:e2e` before Playwright: finds the Chromium the end-to-end tests
 * use (e2e/browser.ts), downloads Playwright's own once when there is none, and when
 * that is impossible stops with one line saying how to get a browser.
 */
import { chromium } from "@playwright/test";
import { decideBrowser, installPlaywrightChromium, probeBrowser } from "../e2e/browser";

let choice = decideBrowser(probeBrowser(chromium.executablePath()));
if (choice.kind === "install") {
  const ok = installPlaywrightChromium();
  choice = decideBrowser(probeBrowser(chromium.executablePath(), ok ? "ok" : "failed"));
}
if (choice.kind === "use") {
  const from = { CHROMIUM_PATH: "from CHROMIUM_PATH", system: "the system's", playwright: "Playwright's own" }[choice.source];
  console.log(`End-to-end tests run in ${from} Chromium: ${choice.path}`);
} else {
  console.error(choice.kind === "none" ? choice.message : "No Chromium found.");
  process.exit(1);
}
