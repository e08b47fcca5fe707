/**
 * Draws public/'s PNGs from public/icon.svg in Chromium (run by hand when the icon changes:
 * `npx tsx scripts/make-images.ts`): the app icons (192, 512, a maskable 512 with the
 * safe zone, 180 for iOS). With a URL argument (a served build, `?embed=1`), it also takes
 * public/preview.png, the 1200×630 picture shown for links shared in a course page.
 */
import { readFileSync } from "node:fs";
import { chromium } from "@playwright/test";
import { decideBrowser, probeBrowser } from "../e2e/browser";

const choice = decideBrowser(probeBrowser(chromium.executablePath()));
if (choice.kind !== "use") throw new Error("no Chromium: see e2e/browser.ts");
const browser = await chromium.launch({ executablePath: choice.executablePath, args: ["--no-sandbox"] });
const svg = readFileSync("public/icon.svg", "utf8");
const icon = async (size: number, file: string, maskable = false): Promise<void> => {
  const page = await browser.newPage({ viewport: { width: size, height: size } });
  // A maskable icon is cropped to a circle of 80 %: full-bleed background, the drawing inside the safe zone.
  const inner = maskable ? Math.round(size * 0.8) : size;
  const body = maskable ? "background:#0072b2;display:grid;place-items:center" : "background:transparent";
  await page.setContent(`<html><body style="margin:0;width:${size}px;height:${size}px;${body}"><div style="width:${inner}px;height:${inner}px">${svg.replace("<svg ", `<svg width="${inner}" height="${inner}" `)}</div></body></html>`);
  await page.screenshot({ path: `public/${file}`, omitBackground: !maskable });
  await page.close();
};
await icon(192, "icon-192.png");
await icon(512, "icon-512.png");
await icon(512, "icon-maskable-512.png", true);
await icon(180, "apple-touch-icon.png", true);
const url = process.argv[2];
if (url !== undefined) {
  const page = await browser.newPage({ viewport: { width: 1200, height: 630 } });
  await page.goto(url);
  await page.getByRole("button", { name: /leader, term/ }).first().waitFor();
  await page.waitForTimeout(2500);
  await page.screenshot({ path: "public/preview.png" });
}
await browser.close();
