/** The page's side of lessons: the bundled catalog, prose with glossary terms, the card's controls and keys, progress, and ?lesson=. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { LessonStep } from "../../src/core/lesson/schema";
import { bootLesson } from "../../src/app/lesson/boot";
import { buildCatalog, buildGlossary, glossary, lessonCatalog } from "../../src/app/lesson/catalog";
import { lessonFocus, lessonKey, stepControls } from "../../src/app/lesson/lessonUi";
import { lessonParams, loadProgress, saveProgress, stepAddress } from "../../src/app/lesson/progress";
import { prosePieces } from "../../src/app/lesson/prose";
import { DEFAULT_SETTINGS } from "../../src/app/params";
import type { LessonView } from "../../src/worker/protocol";

const fencing = JSON.parse(readFileSync("lessons/07-fencing.json", "utf8")) as Record<string, unknown>;

describe("lesson catalog", () => {
  it("bundles every lesson file in lessons/, fencing among them, and not the glossary", () => {
    const c = lessonCatalog();
    expect(c.byId.get("fencing")?.lesson.title).toBe("The GC pause and the fencing token");
    expect(c.entries.map((e) => e.file)).not.toContain("glossary.json");
    expect(glossary().get("fencing token")).toContain("only ever grows");
  });

  it("lists a file that does not parse with its errors, and keeps the others", () => {
    const c = buildCatalog({
      "/lessons/07-fencing.json": fencing,
      "/lessons/99-broken.json": { seed: 1, lesson: { id: "Bad Id" } },
      "/lessons/98-not-object.json": [1, 2],
      "/lessons/glossary.json": { lease: "a lock that expires" },
    });
    expect([...c.byId.keys()]).toEqual(["fencing"]);
    expect(c.entries.map((e) => e.file)).toEqual(["07-fencing.json", "98-not-object.json", "99-broken.json"]);
    const broken = c.entries.find((e) => e.file === "99-broken.json");
    expect(broken?.lesson).toBeNull();
    expect(broken?.errors.some((e) => e.startsWith("lesson.id"))).toBe(true);
  });

  it("refuses a second lesson with the same id", () => {
    const c = buildCatalog({ "/a/07-fencing.json": fencing, "/a/08-copy.json": fencing });
    expect(c.entries[1]?.errors[0]).toContain('"fencing" is already the id');
  });

  it("reads a glossary without regard to case, ignoring what is not a definition", () => {
    const g = buildGlossary({ TTL: "time to live", n: 3 });
    expect(g.get("ttl")).toBe("time to live");
    expect(g.has("n")).toBe(false);
    expect(buildGlossary(null).size).toBe(0);
  });
});

describe("lesson prose", () => {
  const g = new Map([["fencing token", "a number that only grows"]]);
  it("splits [[term]] and [[term|words]] marks, with their definitions", () => {
    expect(prosePieces("The [[Fencing token]] and [[fencing token|its token]] and [[nope]].", g)).toEqual([
      { kind: "text", text: "The " },
      { kind: "term", term: "Fencing token", text: "Fencing token", definition: "a number that only grows" },
      { kind: "text", text: " and " },
      { kind: "term", term: "fencing token", text: "its token", definition: "a number that only grows" },
      { kind: "text", text: " and " },
      { kind: "term", term: "nope", text: "nope", definition: null },
      { kind: "text", text: "." },
    ]);
    expect(prosePieces("plain", g)).toEqual([{ kind: "text", text: "plain" }]);
  });
});

const view = (over: Partial<LessonView>): LessonView => ({
  id: "x",
  index: 1,
  count: 5,
  status: "done",
  detail: "",
  choice: null,
  reached: 1,
  startedAt: 0,
  exploringFrom: null,
  ...over,
});
const yourTurn: LessonStep = { kind: "your-turn", text: "do it", do: { do: "heal", at: 0 } as never };
const narrate: LessonStep = { kind: "narrate", text: "read", highlight: [{ proc: "h1" }, { panel: "storage" }, { lease: "lock" }, { message: "write" }] };

describe("lesson card decisions", () => {
  it("Next once a step is done or failed, Back after the first, Do it for me while a your-turn waits", () => {
    expect(stepControls(view({ index: 0 }), narrate)).toEqual({ canBack: false, canNext: true, doItForMe: false });
    expect(stepControls(view({ status: "waiting" }), yourTurn)).toEqual({ canBack: true, canNext: false, doItForMe: true });
    expect(stepControls(view({ status: "playing" }), narrate).canNext).toBe(false);
    expect(stepControls(view({ status: "failed" }), narrate).canNext).toBe(true);
    expect(stepControls(view({ index: 4 }), narrate).canNext).toBe(false);
  });

  it("PageDown / ArrowRight go on, PageUp / ArrowLeft go back, not in a text field", () => {
    const back = () => {};
    const next = () => {};
    const key = (k: string, target: unknown = null, mods = {}) =>
      lessonKey({ key: k, target: target as EventTarget, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, ...mods }, back, next);
    expect(key("PageDown")).toBe(next);
    expect(key("ArrowRight")).toBe(next);
    expect(key("PageUp")).toBe(back);
    expect(key("ArrowLeft")).toBe(back);
    expect(key("a")).toBeNull();
    expect(key("ArrowRight", { closest: () => ({}) })).toBeNull();
    expect(key("ArrowRight", { closest: () => null })).toBe(next);
    expect(key("ArrowRight", null, { ctrlKey: true })).toBeNull();
    expect(lessonKey({ key: "ArrowRight", target: null, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false }, back, null)).toBeNull();
  });

  it("outlines the step's processes and panels (a lease: the lease timeline; a message: the space-time diagram)", () => {
    expect(lessonFocus(narrate)).toEqual({ procs: ["h1"], panels: ["lease-timeline", "storage", "space-time"] });
    expect(lessonFocus(yourTurn)).toEqual({ procs: [], panels: [] });
  });
});

describe("lesson progress and address", () => {
  const memory = () => {
    const m = new Map<string, string>();
    return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v), m };
  };
  it("keeps the furthest step reached, and done once the last step is reached", () => {
    const s = memory();
    expect(loadProgress("fencing", s)).toBeNull();
    saveProgress("fencing", 3, 7, s);
    saveProgress("fencing", 1, 7, s);
    expect(loadProgress("fencing", s)).toEqual({ reached: 3, done: false });
    saveProgress("fencing", 6, 7, s);
    expect(loadProgress("fencing", s)).toEqual({ reached: 6, done: true });
    s.m.set("lease-lab.lesson.x", "not json");
    expect(loadProgress("x", s)).toBeNull();
  });

  it("reads ?lesson=ID&step=N", () => {
    expect(lessonParams("?seed=3")).toBeNull();
    expect(lessonParams("?lesson=fencing")).toEqual({ id: "fencing", step: null, problem: null });
    expect(lessonParams("?lesson=fencing&step=4")).toEqual({ id: "fencing", step: 4, problem: null });
    expect(lessonParams("?lesson=fencing&step=0")?.problem).toContain("Ignored ?step=0");
  });

  it("writes the step into the address (from 1), keeping the rest, and reads back the same step", () => {
    const at = stepAddress({ pathname: "/lab/", search: "?lesson=fencing&step=2&x=1", hash: "#h" }, "fencing", 4);
    expect(at).toBe("/lab/?lesson=fencing&step=5&x=1#h");
    expect(lessonParams(at.slice("/lab/".length, at.indexOf("#")))).toEqual({ id: "fencing", step: 5, problem: null });
    expect(stepAddress({ pathname: "/", search: "", hash: "" }, "raft-basics", 0)).toBe("/?lesson=raft-basics&step=1");
  });

  it("opens a known lesson with its scenario's settings, and explains an unknown one", () => {
    const params = { settings: DEFAULT_SETTINGS, problems: [] };
    const ok = bootLesson("?lesson=fencing&step=3", params, lessonCatalog);
    expect(ok.lesson?.step).toBe(2);
    expect(ok.params.settings).toMatchObject({ seed: 13, holders: 2, autoplay: false });
    const far = bootLesson("?lesson=fencing&step=99", params, lessonCatalog);
    expect(far.lesson?.step).toBe(6);
    expect(far.params.problems[0]).toContain("7 steps");
    const unknown = bootLesson("?lesson=nope", params, lessonCatalog);
    expect(unknown.lesson).toBeUndefined();
    expect(unknown.params.problems[0]).toContain('There is no lesson "nope"');
    expect(bootLesson("", params, lessonCatalog)).toEqual({ params });
  });
});

describe("the panels a lesson shows", () => {
  it("the cluster and the Inspector always; a panel from the first step that needs it on, and then for good", async () => {
    const { panelsNeeded } = await import("../../src/app/lesson/panels");
    const { parseLesson } = await import("../../src/core/lesson/schema");
    const p = parseLesson({
      holders: { count: 1 },
      lesson: {
        id: "p",
        title: "P",
        summary: "s",
        minutes: 3,
        order: 1,
        steps: [
          { kind: "narrate", text: "Hello." },
          { kind: "narrate", text: "The lease.", highlight: [{ lease: "lock" }] },
          { kind: "your-turn", text: "Split it.", do: { do: "partition", groups: [["n1"], ["others"]] } },
          { kind: "play", until: { that: "storage-writes", accepted: true, atLeast: 1 }, within: "5s" },
          { kind: "narrate", text: "Done." },
        ],
      },
    });
    if (!p.ok) throw new Error(p.errors.join("; "));
    const at = (i: number) => [...panelsNeeded(p.lesson.lesson, i)].sort();
    expect(at(0)).toEqual(["cluster", "inspector"]);
    expect(at(1)).toEqual(["cluster", "inspector", "lease-timeline"]);
    expect(at(2)).toEqual(["cluster", "inspector", "lease-timeline", "network"]);
    expect(at(4)).toEqual(["cluster", "inspector", "lease-timeline", "network", "storage"]);
  });
});
