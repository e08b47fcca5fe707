/** The moment in the address (?t=SECONDS): read on load, written while paused, dropped while playing. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bootParams, MAX_MOMENT_S, momentText, parseParams } from "../../src/app/params";
import { encodeRunHash } from "../../src/app/sharing/link";
import { startUrlSync } from "../../src/app/sharing/urlSync";
import { startMessage } from "../../src/app/simLink";
import { createLabStore, type LabStore } from "../../src/app/store";
import { MAX_OPEN_US } from "../../src/worker/host";
import type { SimView } from "../../src/worker/protocol";
import { viewFixture } from "../support/views";
import { installFakeWindow, removeFakeWindow } from "../support/window";

describe("?t= in the address", () => {
  it("opens a run from the settings paused at that moment, exact to the µs", () => {
    const p = parseParams("?seed=4&t=12.345678");
    expect(p.problems).toEqual([]);
    expect(p.at).toBe(12_345_678);
    expect(p.settings.autoplay).toBe(false);
    expect(startMessage(p.settings, undefined, p.at)).toEqual({ type: "start", settings: p.settings, at: 12_345_678 });
    expect(parseParams("?seed=4&t=3").at).toBe(3_000_000);
    expect(parseParams("?seed=4").at).toBeUndefined();
    expect(parseParams("?seed=4").settings.autoplay).toBe(true);
  });

  it("a bad moment is ignored with a sentence saying what t must be; the run starts as usual", () => {
    for (const bad of ["abc", "-1", "1e3", "12.3456789", String(MAX_MOMENT_S + 1), ""]) {
      const p = parseParams(`?seed=4&t=${bad}`);
      expect(p.at).toBeUndefined();
      expect(p.settings.autoplay).toBe(true);
      expect(p.problems).toEqual([expect.stringMatching(/^Ignored \?t=.*: t must be a moment of the run in seconds, from 0 to 3600/)]);
    }
    expect(MAX_MOMENT_S * 1_000_000).toBe(MAX_OPEN_US);
  });

  it("with a share link, t wins over the moment the link was made at; a bad t is reported", async () => {
    const text = JSON.stringify({ seed: 7, duration: "20s", ui: { at: "2s" } });
    const hash = await encodeRunHash(text);
    const p = await bootParams("?t=5.5", hash);
    expect(p.at).toBe(5_500_000);
    expect(p.settings.autoplay).toBe(false);
    expect(p.run?.ui?.at).toBe(2_000_000);
    const bad = await bootParams("?t=x", hash);
    expect(bad.at).toBeUndefined();
    expect(bad.problems).toEqual([expect.stringMatching(/^Ignored \?t=x/)]);
  });

  it("momentText writes seconds without trailing zeros", () => {
    expect(momentText(12_345_000)).toBe("12.345");
    expect(momentText(3_000_000)).toBe("3");
    expect(momentText(1)).toBe("0.000001");
    expect(parseParams(`?t=${momentText(987_654_321)}`).at).toBe(987_654_321);
  });
});

describe("the address follows the paused cursor", () => {
  let stop: (() => void) | null = null;
  let lab: LabStore;
  let replaced: string[];
  beforeEach(() => {
    lab = createLabStore();
    lab.setState({ send: () => {} });
    replaced = installFakeWindow("/?seed=7#run=1.abc").replaced;
  });
  afterEach(() => {
    stop?.();
    stop = null;
    removeFakeWindow();
  });
  const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const at = (now: number, playing: boolean): SimView => viewFixture({ runId: 1, now, playing, opened: true });

  it("writes t once the cursor rests (not for every move), drops it while playing, and keeps the rest of the address", async () => {
    stop = startUrlSync(lab, 10_000, 30);
    lab.setState({ view: at(1_000_000, true) });
    lab.setState({ view: at(1_040_000, true) });
    await wait(60);
    expect(replaced).toEqual([]);
    lab.setState({ view: at(2_000_000, false) });
    lab.setState({ view: at(2_500_000, false) });
    lab.setState({ view: at(3_250_000, false) });
    await wait(80);
    expect(replaced).toEqual(["/?seed=7&t=3.25#run=1.abc"]);
    // The same moment again: nothing to write.
    lab.setState({ view: at(3_250_000, false) });
    await wait(60);
    expect(replaced).toHaveLength(1);
    // Playing: t goes, once.
    lab.setState({ view: at(3_300_000, true) });
    lab.setState({ view: at(3_340_000, true) });
    expect(replaced).toEqual(["/?seed=7&t=3.25#run=1.abc", "/?seed=7#run=1.abc"]);
  });
});
