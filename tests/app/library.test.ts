/** The scenario library: every shipped single-run scenario, with its name, story and what to watch. */
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildLibrary, scenarioLibrary, SWEEP_FOLDERS, whatToWatch } from "../../src/app/library/catalog";
import { bootScenario } from "../../src/app/library/open";
import { PAIRS, pairOf } from "../../src/app/library/pairs";
import { parseParams } from "../../src/app/params";
import { loadScenario } from "../support/scenarios";

/** Every scenario file on disk that is a single run (not a sweep's). */
function shippedIds(): string[] {
  return readdirSync("scenarios", { withFileTypes: true })
    .filter((d) => d.isDirectory() && !SWEEP_FOLDERS.has(d.name))
    .flatMap((d) => readdirSync(`scenarios/${d.name}`).filter((f) => f.endsWith(".json")).map((f) => `${d.name}/${f.slice(0, -5)}`))
    .sort();
}

describe("scenario library", () => {
  const lib = scenarioLibrary();
  const entries = lib.groups.flatMap((g) => g.entries);

  it("lists every shipped single-run scenario file (a new file appears by itself), and no sweep", () => {
    expect(entries.map((e) => e.id).sort()).toEqual(shippedIds());
    expect(shippedIds().length).toBeGreaterThan(20);
    expect(entries.some((e) => e.id.startsWith("sweeps/"))).toBe(false);
  });

  it("every entry parsed, with a name, a story and a line of what to watch", () => {
    for (const e of entries) {
      expect(e.errors, e.id).toEqual([]);
      expect(e.scenario?.name.length, e.id).toBeGreaterThan(3);
      expect(e.scenario?.description.length, e.id).toBeGreaterThan(10);
      expect(whatToWatch(e.scenario as never)).toMatch(/^Watch: |nothing scripted/);
    }
    const gc = lib.byId.get("lease/03-gc-pause-fenced");
    expect(gc?.name).toBe(loadScenario("scenarios/lease", "03-gc-pause-fenced.json").name);
    expect(whatToWatch(gc as never)).toContain("h1");
  });

  it("?scenario=…&t=… opens the scenario paused at that moment (the address the paused cursor writes)", () => {
    const search = "?scenario=lease/03-gc-pause-fenced&t=2.5";
    const opened = bootScenario(search, parseParams(search), () => lib);
    expect(opened.run?.name).toBe(lib.byId.get("lease/03-gc-pause-fenced")?.name);
    expect(opened.at).toBe(2_500_000);
    expect(opened.settings.autoplay).toBe(false);
    expect(bootScenario("?scenario=lease/03-gc-pause-fenced", parseParams("?scenario=lease/03-gc-pause-fenced"), () => lib).at).toBeUndefined();
  });

  it("groups by folder, in name order", () => {
    expect(lib.groups.map((g) => g.folder)).toEqual(["failover", "lease", "raft", "reads"]);
    const lease = lib.groups[1]?.entries.map((e) => e.id) ?? [];
    expect(lease).toEqual([...lease].sort());
  });

  it("a file that does not parse is listed with its errors; a sweep's folder is skipped", () => {
    const l = buildLibrary({
      "../../../scenarios/x/bad.json": { seed: "no" },
      "../../../scenarios/sweeps/s.json": { name: "sweep" },
      "../../../scenarios/x/good.json": { name: "good", description: "fine" },
    });
    expect(l.groups.map((g) => g.entries.map((e) => [e.id, e.errors.length > 0]))).toEqual([
      [
        ["x/bad", true],
        ["x/good", false],
      ],
    ]);
    expect([...l.byId.keys()]).toEqual(["x/good"]);
  });

  it("every declared pair names two shipped scenarios", () => {
    for (const [l, r] of PAIRS) {
      expect(lib.byId.has(l), l).toBe(true);
      expect(lib.byId.has(r), r).toBe(true);
    }
    expect(pairOf("lease/04-gc-pause-unfenced")?.left).toBe("lease/03-gc-pause-fenced");
    expect(pairOf("lease/01-acquire-renew-release")).toBeNull();
    expect(pairOf("failover/03-hung-primary-watchdog-off")?.right).toBe("failover/04-hung-primary-no-fencing");
  });
});
