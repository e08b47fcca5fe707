import { mkdtempSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type BrowserFacts, decideBrowser, findSystemChromium, NO_BROWSER } from "../../e2e/browser";

const NOTHING: BrowserFacts = {
  envPath: undefined,
  envPathExists: false,
  systemChromium: undefined,
  playwrightPath: "/home/u/.cache/ms-playwright/chromium-1255/chrome-linux64/chrome",
  playwrightExists: false,
  install: "not-tried",
};

describe("decideBrowser: which Chromium the end-to-end tests run in", () => {
  it("CHROMIUM_PATH wins over everything else", () => {
    const d = decideBrowser({ ...NOTHING, envPath: "/opt/chrome/chrome", envPathExists: true, systemChromium: "/usr/bin/chromium", playwrightExists: true });
    expect(d).toEqual({ kind: "use", source: "CHROMIUM_PATH", path: "/opt/chrome/chrome", executablePath: "/opt/chrome/chrome" });
  });

  it("a CHROMIUM_PATH that does not exist stops with a line naming it (no silent fallback, no download)", () => {
    const d = decideBrowser({ ...NOTHING, envPath: "/nope/chromium", systemChromium: "/usr/bin/chromium" });
    expect(d.kind).toBe("none");
    expect(d.kind === "none" && d.message).toMatch(/^CHROMIUM_PATH=\/nope\/chromium does not exist\./);
  });

  it("an empty CHROMIUM_PATH counts as unset", () => {
    expect(decideBrowser({ ...NOTHING, envPath: "", systemChromium: "/usr/bin/chromium" })).toMatchObject({ kind: "use", source: "system" });
  });

  it("a system Chromium comes before Playwright's own", () => {
    const d = decideBrowser({ ...NOTHING, systemChromium: "/usr/bin/chromium", playwrightExists: true });
    expect(d).toEqual({ kind: "use", source: "system", path: "/usr/bin/chromium", executablePath: "/usr/bin/chromium" });
  });

  it("Playwright's own Chromium, already downloaded: Playwright launches it itself", () => {
    const d = decideBrowser({ ...NOTHING, playwrightExists: true });
    expect(d).toEqual({ kind: "use", source: "playwright", path: NOTHING.playwrightPath, executablePath: undefined });
  });

  it("no browser at all: try the download once", () => {
    expect(decideBrowser(NOTHING)).toEqual({ kind: "install" });
  });

  it("the download worked: Playwright's own Chromium", () => {
    expect(decideBrowser({ ...NOTHING, install: "ok", playwrightExists: true })).toMatchObject({ kind: "use", source: "playwright" });
  });

  it("the download failed: one clear line saying how to get a browser, and no second attempt", () => {
    const d = decideBrowser({ ...NOTHING, install: "failed" });
    expect(d).toEqual({ kind: "none", message: NO_BROWSER });
    expect(NO_BROWSER).not.toContain("\n");
    expect(NO_BROWSER).toContain("apt-get install chromium");
    expect(NO_BROWSER).toContain("CHROMIUM_PATH");
  });

  it("a download that reports success but left no browser does not loop", () => {
    expect(decideBrowser({ ...NOTHING, install: "ok" })).toEqual({ kind: "none", message: NO_BROWSER });
  });
});

describe("findSystemChromium", () => {
  const bin = (mode: number): string => {
    const dir = mkdtempSync(join(tmpdir(), "bin-"));
    writeFileSync(join(dir, "chromium"), "#!/bin/sh\n");
    chmodSync(join(dir, "chromium"), mode);
    return dir;
  };

  it("finds an executable `chromium` on PATH, skipping one that is not executable", () => {
    const notExec = bin(0o644);
    const good = bin(0o755);
    expect(findSystemChromium(`${notExec}:${good}`, "/nowhere/chromium")).toBe(join(good, "chromium"));
    expect(findSystemChromium(notExec, "/nowhere/chromium")).toBeUndefined();
    expect(findSystemChromium("", "/nowhere/chromium")).toBeUndefined();
  });

  it("prefers Debian's /usr/bin/chromium to one on PATH", () => {
    const debian = join(bin(0o755), "chromium");
    expect(findSystemChromium(bin(0o755), debian)).toBe(debian);
  });
});
