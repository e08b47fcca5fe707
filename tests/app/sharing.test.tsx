/** Share links, opening a run from one at boot, keeping the address honest, file names and picture export helpers, the menu's names. */
import { renderToStaticMarkup } from "react-dom/server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { scenarioActionsOf, type TimedAction } from "../../src/core/scenario/record";
import { parseScenarioText } from "../../src/core/scenario/schema";
import { bootParams, DEFAULT_SETTINGS, parseParams } from "../../src/app/params";
import { safeFilename } from "../../src/app/sharing/download";
import {
  decodeRunHash,
  decodeRunPayload,
  deflateRaw,
  encodeRunHash,
  encodeRunPayload,
  MAX_SCENARIO_BYTES,
  parseShareInput,
  shareLink,
  toBase64Url,
} from "../../src/app/sharing/link";
import { runPayloadFromHash } from "../../src/app/sharing/linkHash";
import { type ComputedLike, inlineStyles, pictureBox, pictureFilename, pngScale, type StyledElement } from "../../src/app/sharing/pictures";
import { ShareMenu } from "../../src/app/sharing/ShareButton";
import { pictureButtonName, ShareDialog } from "../../src/app/sharing/ShareMenu";
import { SHARE_NAMES } from "../../src/app/sharing/names";
import { actionsKey, replaceMoment, startUrlSync } from "../../src/app/sharing/urlSync";
import { startMessage } from "../../src/app/simLink";
import { createLabStore, LabProvider, type LabStore } from "../../src/app/store";
import type { Action } from "../../src/core/sim/sim";
import type { SimView, TimedActionView, ToWorker } from "../../src/worker/protocol";
import { scenarioInputFromSettings } from "../../src/worker/settings";
import { installFakeWindow, removeFakeWindow } from "../support/window";

/** A run as the worker would export it: the page's settings, `n` user actions at odd µs times, the cursor and speed. */
function exportedScenario(n: number, extra: Record<string, unknown> = {}): string {
  const kinds: Action[] = [
    { type: "crash", proc: "n2" },
    { type: "restart", proc: "n2" },
    { type: "pause", proc: "n3", durationUs: 1_500_000 },
    { type: "partition", groups: [["n1", "n2"], ["n3", "n4", "n5"]] },
    { type: "heal" },
    { type: "gc-pause", holder: "h1", durationUs: 2_000_000 },
    { type: "drop-message", id: 4711 },
    { type: "clock", proc: "n4", driftPpm: 50_000 },
    { type: "timeout", proc: "n5" },
    { type: "fencing", on: false },
  ];
  const timed: TimedAction[] = Array.from({ length: n }, (_, i) => ({ at: 1_000_000 + i * 733_417, action: kinds[i % kinds.length] as Action }));
  const actions = timed.flatMap(scenarioActionsOf);
  const end = (timed.at(-1)?.at ?? 0) + 2_000_000;
  return JSON.stringify(
    {
      ...scenarioInputFromSettings({ ...DEFAULT_SETTINGS, seed: 7 }),
      duration: `${end}us`,
      actions,
      ui: { speed: 0.1, at: `${end - 1_000_123}us` },
      ...extra,
    },
    null,
    2,
  );
}

async function payloadOf(bytes: Uint8Array): Promise<string> {
  return `1.${toBase64Url(await deflateRaw(bytes))}`;
}

function errorsOf(r: Awaited<ReturnType<typeof decodeRunPayload>> | null): readonly string[] {
  if (r === null) throw new Error("no run in the hash");
  if (r.ok) throw new Error("expected the link to be refused");
  return r.errors;
}

describe("share links", () => {
  it("round trip: the decoded scenario is the exported one, µs times intact", async () => {
    const text = exportedScenario(20);
    const hash = await encodeRunHash(text);
    expect(hash).toMatch(/^#run=1\.[A-Za-z0-9_-]+$/);
    const r = await decodeRunHash(hash);
    if (r === null || !r.ok) throw new Error(`decode failed: ${JSON.stringify(r)}`);
    const want = parseScenarioText(text);
    if (!want.ok) throw new Error(want.errors.join("\n"));
    expect(r.scenario).toEqual(want.scenario);
    expect(r.scenario.actions).toHaveLength(20);
    expect(r.scenario.actions[3]?.at).toBe(1_000_000 + 3 * 733_417);
    expect(r.scenario.ui?.at).toBe(want.scenario.ui?.at);
    expect(r.scenario.seed).toBe(7);
  });

  it("a link for ~20 actions stays short", async () => {
    const link = await shareLink("https://example.org/lease-lab/", exportedScenario(20));
    console.info(`share link with 20 actions: ${link.length} characters`);
    expect(link.length).toBeLessThan(1200);
  });

  it("finds the run in a hash and in pasted links", async () => {
    expect(runPayloadFromHash("")).toBeNull();
    expect(runPayloadFromHash("#other=1")).toBeNull();
    expect(runPayloadFromHash("#run=1.abc")).toBe("1.abc");
    const text = exportedScenario(3);
    const link = await shareLink("http://localhost:4173/", text);
    for (const input of [link, `  ${link}\n`, link.slice(link.indexOf("#")), link.slice(link.indexOf("#") + 1), await encodeRunPayload(text), text]) {
      const r = await parseShareInput(input);
      expect(r.ok, input.slice(0, 60)).toBe(true);
    }
    expect(errorsOf(await parseShareInput("hello"))[0]).toMatch(/neither a share link .* nor a scenario/);
    expect(errorsOf(await parseShareInput("https://example.org/#seed=3"))[0]).toMatch(/carries no run/);
  });

  it("an unknown version says so", async () => {
    const good = await encodeRunPayload(exportedScenario(1));
    expect(errorsOf(await decodeRunPayload(`2${good.slice(1)}`))).toEqual([expect.stringMatching(/version 2, which this Lease Lab cannot read \(it reads version 1/)]);
    expect(errorsOf(await decodeRunPayload(good.slice(2)))[0]).toMatch(/has no version/);
  });

  it("data that is not base64url names the bad character", async () => {
    const errors = errorsOf(await decodeRunHash("#run=1.AAAA$AAA"));
    expect(errors).toEqual([expect.stringMatching(/not base64url \(it has "\$" at position 5/)]);
  });

  it("truncated compressed data: damaged or cut short", async () => {
    const full = await deflateRaw(new TextEncoder().encode(exportedScenario(20)));
    const cut = `1.${toBase64Url(full.slice(0, Math.floor(full.length / 2)))}`;
    expect(errorsOf(await decodeRunPayload(cut))).toEqual([expect.stringMatching(/damaged or cut short: its data cannot be decompressed/)]);
    // A link cut anywhere is refused with a "cut short" message, never accepted or thrown.
    const link = await encodeRunPayload(exportedScenario(20));
    for (const keep of [link.length - 1, link.length - 2, link.length - 7, 40, 3]) {
      expect(errorsOf(await decodeRunPayload(link.slice(0, keep)))[0], `cut at ${keep}`).toMatch(/cut short/);
    }
  });

  it("data that is not JSON, or not text", async () => {
    expect(errorsOf(await decodeRunPayload(await payloadOf(new TextEncoder().encode("seed=7, nodes=5"))))[0]).toMatch(
      /^The share link's data is not JSON/,
    );
    expect(errorsOf(await decodeRunPayload(await payloadOf(new Uint8Array([0xff, 0xfe, 0x00]))))[0]).toMatch(/not text/);
  });

  it("a scenario with a wrong field names the field, prefixed so it is clear it came from the link", async () => {
    const bad = JSON.parse(exportedScenario(3)) as { actions: Record<string, unknown>[]; cluster: Record<string, unknown> };
    (bad.actions[1] as Record<string, unknown>).do = "explode";
    bad.cluster.nodes = 42;
    const errors = errorsOf(await decodeRunHash(await encodeRunHash(JSON.stringify(bad))));
    expect(errors.length).toBeGreaterThanOrEqual(2);
    for (const e of errors) expect(e).toMatch(/^The share link's scenario is not valid: /);
    expect(errors.join("\n")).toMatch(/cluster\.nodes: /);
    expect(errors.join("\n")).toMatch(/actions\[1\]\.do: /);
  });

  it("settings that clash are refused before the simulator sees them", async () => {
    const clash = exportedScenario(1, { cluster: { heartbeatIntervalMs: 500 } });
    expect(errorsOf(await decodeRunHash(await encodeRunHash(clash)))[0]).toMatch(/cannot run together: .*heartbeatIntervalMs/);
  });

  it("too large: a small link that unpacks past the cap, and an oversize link", async () => {
    const bomb = new TextEncoder().encode(`{"name":"${" ".repeat(MAX_SCENARIO_BYTES + 10)}"}`);
    const payload = await payloadOf(bomb);
    expect(payload.length).toBeLessThan(10_000);
    expect(errorsOf(await decodeRunPayload(payload))).toEqual([expect.stringMatching(/too large: its scenario unpacks to more than 1 MB/)]);
    expect(errorsOf(await decodeRunPayload(`1.${"A".repeat(2_000_000)}`))[0]).toMatch(/too large: 2000000 characters/);
    // Just under the cap is fine.
    const fits = await payloadOf(new TextEncoder().encode(`{"name":"x${" ".repeat(MAX_SCENARIO_BYTES - 100)}"}`));
    expect((await decodeRunPayload(fits)).ok).toBe(true);
  });

  it("an empty link", async () => {
    expect(errorsOf(await decodeRunHash("#run="))[0]).toMatch(/empty/);
  });

  it("pasted scenario JSON with an error names the field", async () => {
    const errors = errorsOf(await parseShareInput('{"actions":[{"at":"1s","do":"crash"}]}'));
    expect(errors).toEqual([expect.stringMatching(/^The scenario is not valid: actions\[0\]\.node: /)]);
  });
});

describe("opening the page", () => {
  it("a link with a cursor position opens paused there, in the link's settings", async () => {
    const text = exportedScenario(5);
    const sc = parseScenarioText(text);
    if (!sc.ok) throw new Error(sc.errors.join());
    const p = await bootParams("?seed=3&nodes=3", await encodeRunHash(text));
    expect(p.problems).toEqual([]);
    expect(p.settings.autoplay).toBe(false);
    expect(p.settings.seed).toBe(7);
    expect(p.settings.nodes).toBe(5);
    expect(p.settings.speed).toBe(0.1);
    expect(p.run).toEqual(sc.scenario);
    expect(p.run?.ui?.at).toBeGreaterThan(0);
    const msg = startMessage(p.settings, p.run) as Extract<ToWorker, { type: "start" }>;
    expect(msg).toEqual({ type: "start", settings: p.settings, scenario: sc.scenario });
  });

  it("a link without a cursor position plays from the start", async () => {
    const noCursor = JSON.parse(exportedScenario(2)) as Record<string, unknown>;
    delete noCursor.ui;
    const p = await bootParams("?speed=0.2", await encodeRunHash(JSON.stringify(noCursor)));
    expect(p.settings.autoplay).toBe(true);
    expect(p.settings.speed).toBe(0.2);
    expect(p.run).toBeDefined();
    expect(p.run?.ui?.at).toBeUndefined();
  });

  it("a broken link: a notice saying what is wrong, and the default run", async () => {
    const p = await bootParams("", "#run=1.AAAA$AAA");
    expect(p.run).toBeUndefined();
    expect(p.settings).toEqual(DEFAULT_SETTINGS);
    expect(p.problems[0]).toMatch(/share link .* could not be opened, so a normal run started instead/);
    expect(p.problems[1]).toMatch(/not base64url/);
    expect(startMessage(p.settings, p.run)).toEqual({ type: "start", settings: DEFAULT_SETTINGS });
  });

  it("a broken link with query parameters: the query's run, and both sets of problems", async () => {
    const p = await bootParams("?seed=9&nodes=0", "#run=7.abc");
    expect(p.settings.seed).toBe(9);
    expect(p.problems.join("\n")).toMatch(/version 7/);
    expect(p.problems.join("\n")).toMatch(/Ignored \?nodes=0/);
  });

  it("no link: exactly the query parameters, as before", async () => {
    const search = "?seed=42&nodes=7&holders=10";
    expect(await bootParams(search, "")).toEqual(parseParams(search));
    expect(await bootParams(search, "#something-else")).toEqual(parseParams(search));
  });
});

describe("keeping the address honest", () => {
  let stop: (() => void) | null = null;
  let lab: LabStore;
  beforeEach(() => {
    lab = createLabStore();
  });
  afterEach(() => {
    stop?.();
    stop = null;
    removeFakeWindow();
  });

  function view(runId: number, actions: TimedActionView[], opened = false): SimView {
    return { runId, opened, timeline: { branch: 0, actions } } as unknown as SimView;
  }
  const act = (at: number, text: string): TimedActionView => ({ at, action: { type: "heal" }, text, scripted: false });
  const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it("follows the actions (debounced), drops a stale link on a new run, keeps an imported one", async () => {
    const { win, replaced } = installFakeWindow("/?seed=7");
    let exported = exportedScenario(1);
    let exports = 0;
    lab.setState({
      send: (m: ToWorker) => {
        if (m.type !== "export") return;
        exports++;
        setTimeout(() => lab.getState().receive({ type: "export", requestId: m.requestId, what: m.what, filename: "x.json", mime: "application/json", text: exported, note: null }), 1);
      },
    });
    stop = startUrlSync(lab, 30);
    lab.setState({ view: view(1, []) });
    expect(replaced).toEqual([]);
    // Two changes in quick succession: one export, after the delay.
    lab.setState({ view: view(1, [act(1000, "heal")]) });
    await wait(5);
    exported = exportedScenario(2);
    lab.setState({ view: view(1, [act(1000, "heal"), act(2000, "heal")]) });
    expect(replaced).toEqual([]);
    await wait(120);
    expect(exports).toBe(1);
    expect(win.location.search).toBe("?seed=7");
    expect(win.location.hash).toBe(await encodeRunHash(exportedScenario(2)));
    // The same actions again (a new view object): nothing to do.
    lab.setState({ view: view(1, [act(1000, "heal"), act(2000, "heal")]) });
    await wait(60);
    expect(exports).toBe(1);
    // Settings or Reset start a new run with no actions: the old link would reopen the wrong run.
    lab.setState({ view: view(2, []) });
    expect(win.location.hash).toBe("");
    expect(win.location.search).toBe("?seed=7");
    // An imported run keeps the link it was opened with.
    win.location.hash = "#run=1.imported";
    lab.setState({ view: view(3, [], true) });
    await wait(60);
    expect(win.location.hash).toBe("#run=1.imported");
  });

  it("the paused cursor's moment joins the query, and a scenario's name keeps its slash", () => {
    const { win } = installFakeWindow("/?scenario=lease/03-gc-pause-fenced");
    replaceMoment("0");
    expect(win.location.search).toBe("?scenario=lease/03-gc-pause-fenced&t=0");
    replaceMoment("1.5");
    expect(win.location.search).toBe("?scenario=lease/03-gc-pause-fenced&t=1.5");
    replaceMoment(null);
    expect(win.location.search).toBe("?scenario=lease/03-gc-pause-fenced");
  });

  it("action keys tell different action lists apart", () => {
    expect(actionsKey(0, [act(1, "a")])).not.toBe(actionsKey(0, [act(2, "a")]));
    expect(actionsKey(0, [act(1, "a")])).not.toBe(actionsKey(1, [act(1, "a")]));
    expect(actionsKey(0, [act(1, "a")])).toBe(actionsKey(0, [act(1, "a")]));
  });
});

describe("pictures and file names", () => {
  class Fake implements StyledElement {
    style: string | null = null;
    constructor(
      readonly computed: Record<string, string>,
      readonly children: Fake[] = [],
    ) {}
    getAttribute(name: string): string | null {
      return name === "style" ? this.style : null;
    }
    setAttribute(name: string, value: string): void {
      if (name === "style") this.style = value;
    }
    clone(): Fake {
      return new Fake({}, this.children.map((c) => c.clone()));
    }
  }
  const get = (el: StyledElement): ComputedLike => ({ getPropertyValue: (p) => (el as Fake).computed[p] ?? "" });
  const base = { fill: "rgb(0, 0, 0)", stroke: "none", "font-family": "sans-serif", "font-size": "12px", opacity: "1", display: "inline", visibility: "visible" };

  it("inlines computed styles on the clone: all on the top, only what differs below", () => {
    const leader = new Fake({ ...base, fill: "rgb(213, 94, 0)", "stroke-width": "2px", "stroke-dasharray": "4, 2" });
    const label = new Fake({ ...base, "text-anchor": "middle", opacity: "0.5" });
    const hidden = new Fake({ ...base, display: "none" });
    const root = new Fake(base, [new Fake(base, [leader, label]), hidden]);
    const copy = root.clone();
    copy.children[0]?.children[1]?.setAttribute("style", "transform: rotate(3deg);");
    inlineStyles(root, copy, get);
    expect(copy.style).toContain("fill: rgb(0, 0, 0)");
    expect(copy.style).toContain("font-family: sans-serif");
    expect(copy.style).toContain("display: inline");
    expect(copy.children[0]?.style).toBeNull();
    expect(copy.children[0]?.children[0]?.style).toBe("fill: rgb(213, 94, 0); stroke-width: 2px; stroke-dasharray: 4, 2");
    expect(copy.children[0]?.children[1]?.style).toBe("transform: rotate(3deg); opacity: 0.5; text-anchor: middle");
    expect(copy.children[1]?.style).toBe("display: none");
    // The page's own elements are untouched.
    expect(root.style).toBeNull();
    expect(leader.style).toBeNull();
  });

  it("the picture's box: its viewBox, else its size on screen", () => {
    expect(pictureBox("-10 -10 200 100", { width: 400, height: 200 })).toEqual({ viewBox: { x: -10, y: -10, width: 200, height: 100 }, width: 400, height: 200 });
    expect(pictureBox(null, { width: 640.4, height: 480 })).toEqual({ viewBox: { x: 0, y: 0, width: 640.4, height: 480 }, width: 640, height: 480 });
    expect(pictureBox("0 0 300 150", { width: 0, height: 0 })).toMatchObject({ width: 300, height: 150 });
    expect(pictureBox("nonsense", { width: 10, height: 20 }).viewBox).toEqual({ x: 0, y: 0, width: 10, height: 20 });
  });

  it("file names say the run, the picture and the moment", () => {
    expect(pictureFilename("ring", 7, 12_345_000, "svg")).toBe("lease-lab-seed-7-ring-at-12.345s.svg");
    expect(pictureFilename("spacetime", -3, 1, "png")).toBe("lease-lab-seed--3-spacetime-at-0.000001s.png");
    expect(safeFilename("lease lab/seed 7?.json")).toBe("lease-lab-seed-7.json");
    expect(safeFilename("../../etc/passwd")).toBe("etc-passwd");
    expect(safeFilename("///")).toBe("lease-lab-export");
  });

  it("PNG at 2x, less for huge pictures", () => {
    expect(pngScale(800, 600)).toBe(2);
    expect(pngScale(20_000, 300)).toBeCloseTo(16_384 / 20_000);
  });
});

describe("the share menu", () => {
  it("a header button that opens a dialog", () => {
    const html = renderToStaticMarkup(
      <LabProvider store={createLabStore()}>
        <ShareMenu />
      </LabProvider>,
    );
    expect(html).toContain(">Share &amp; export</button>");
    expect(html).toContain('aria-expanded="false"');
    expect(html).toContain('aria-haspopup="dialog"');
  });

  it("the dialog has every control, by its exact name; picture buttons say why they are off", () => {
    const html = renderToStaticMarkup(
      <LabProvider store={createLabStore()}>
        <ShareDialog onClose={() => {}} />
      </LabProvider>,
    );
    const esc = (s: string) => s.replace(/&/g, "&amp;");
    for (const name of [
      SHARE_NAMES.copyLink,
      SHARE_NAMES.downloadScenario,
      SHARE_NAMES.copyEmbed,
      SHARE_NAMES.importScenario,
      SHARE_NAMES.openPasted,
      SHARE_NAMES.exportTrace,
      SHARE_NAMES.exportHistory,
    ]) {
      expect(html).toContain(`>${esc(name)}</button>`);
    }
    for (const label of [SHARE_NAMES.linkField, SHARE_NAMES.embedField, SHARE_NAMES.scenarioFile, SHARE_NAMES.paste]) expect(html).toMatch(new RegExp(`<label for="[^"]+">${label.replace(/[()]/g, "\\$&")}</label>`));
    expect(html).toMatch(/<input id="[^"]+" type="text" readOnly=""[^>]* value=""/);
    expect(html).toContain('role="dialog"');
    for (const kind of ["ring", "spacetime"] as const) {
      for (const format of ["svg", "png"] as const) {
        const name = pictureButtonName(kind, format);
        expect(html).toMatch(new RegExp(`<button type="button" disabled="" title="The [a-z -]+ is not on the page yet">${name}</button>`));
      }
    }
    expect(pictureButtonName("spacetime", "png")).toBe("Save space-time diagram as PNG");
    expect(pictureButtonName("ring", "svg")).toBe("Save ring as SVG");
  });
});
