/** The share dialog's embed code, and the versions a link and its scenario carry. */
import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS } from "../../src/app/params";
import { decodeRunPayload, EMBED_HEIGHT, EMBED_WIDTH, embedSnippet, embedUrl, encodeRunPayload, shareLink } from "../../src/app/sharing/link";
import { parseScenario, SCENARIO_VERSION } from "../../src/core/scenario/schema";
import { scenarioInputFromSettings } from "../../src/worker/settings";

const scenarioText = (extra: Record<string, unknown> = {}): string => JSON.stringify({ ...scenarioInputFromSettings(DEFAULT_SETTINGS), ...extra });
const errorsOf = (r: { ok: boolean; errors?: readonly string[] }): readonly string[] => (r.ok ? [] : (r.errors ?? []));

describe("the embed code", () => {
  it("is an 800x450 iframe of the same run in embed mode", async () => {
    const link = await shareLink("https://teach.example.org/lab/", scenarioText());
    const hash = link.slice(link.indexOf("#"));
    expect(embedUrl(link)).toBe(`https://teach.example.org/lab/?embed=1${hash}`);
    const html = embedSnippet(link);
    expect(html).toMatch(/^<iframe src="https:\/\/teach\.example\.org\/lab\/\?embed=1#run=1\.[A-Za-z0-9_-]+" /);
    expect(html).toContain(`width="${EMBED_WIDTH}" height="${EMBED_HEIGHT}"`);
    expect([EMBED_WIDTH, EMBED_HEIGHT]).toEqual([800, 450]);
    expect(html).toMatch(/ title="[^"]+"/);
    expect(html.endsWith("></iframe>")).toBe(true);
    // The run the iframe opens is the run the link carries.
    const decoded = await decodeRunPayload(new URL(embedUrl(link)).hash.slice("#run=".length));
    expect(decoded.ok).toBe(true);
  });

  it("keeps only embed=1 in the query, and escapes what would end the attribute", () => {
    expect(embedUrl("https://h.example/p/?seed=7&nodes=3#run=1.abc")).toBe("https://h.example/p/?embed=1#run=1.abc");
    const html = embedSnippet("https://h.example/p/#run=1.abc", 'a "quoted" <title> & more');
    expect(html).toContain('title="a &quot;quoted&quot; &lt;title&gt; &amp; more"');
    expect(html.match(/"/g)?.length).toBe(2 * 6); // src, width, height, title, style, loading: each opened and closed once, none cut short
  });
});

describe("versions", () => {
  it("a new link says its link version and its scenario's format version", async () => {
    const payload = await encodeRunPayload(scenarioText());
    expect(payload.startsWith("1.")).toBe(true);
    const r = await decodeRunPayload(payload);
    expect(r.ok && r.scenario.version).toBe(SCENARIO_VERSION);
    expect(r.ok && JSON.parse(r.text).version).toBe(SCENARIO_VERSION);
  });

  it("a scenario from a newer Lease Lab is refused in words that say so", async () => {
    expect(errorsOf(parseScenario({ version: 2 }))).toEqual([
      "version: this scenario is in format version 2, and this Lease Lab reads version 1: it comes from a newer Lease Lab. Open it there, or update this one",
    ]);
    const link = await decodeRunPayload(await encodeRunPayload(scenarioText({ version: 3 })));
    expect(errorsOf(link)).toEqual([expect.stringMatching(/^The share link's scenario is not valid: version: .*format version 3.*newer Lease Lab/)]);
    expect(errorsOf(parseScenario({ version: "one" }))).toEqual(['version: must be 1, the scenario format this Lease Lab reads (got "one")']);
  });

  it("a scenario without a version opens as version 1, as before versions were written", async () => {
    const { version: _v, ...old } = JSON.parse(scenarioText()) as Record<string, unknown>;
    expect("version" in old).toBe(false);
    const r = await decodeRunPayload(await encodeRunPayload(JSON.stringify(old)));
    expect(r.ok && r.scenario.version).toBe(1);
  });
});
