/**
 * Every lesson is a claim about behaviour: each is walked headless on the real engine, with
 * "Do it for me" for every "your turn", and the first step whose condition is not met fails
 * the test, naming the lesson and the step.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { judgeAction, LessonEngine, runLesson, runStep } from "../../src/core/lesson/runner";
import { type Lesson, parseLesson, parseLessonText } from "../../src/core/lesson/schema";
import { lessonTexts, markedTerms } from "../../src/core/lesson/steps";

const dir = join(import.meta.dirname, "../../lessons");
const files = readdirSync(dir).filter((f) => f.endsWith(".json") && f !== "glossary.json");
const glossary = JSON.parse(readFileSync(join(dir, "glossary.json"), "utf8")) as Record<string, string>;
const known = new Set(Object.keys(glossary).map((t) => t.toLowerCase()));

function load(file: string): Lesson {
  const p = parseLessonText(readFileSync(join(dir, file), "utf8"));
  if (!p.ok) throw new Error(`${file}: ${p.errors.join("; ")}`);
  return p.lesson;
}

describe("the course", () => {
  it("has lessons, with distinct ids and places", () => {
    const lessons = files.map(load);
    expect(lessons.length).toBeGreaterThanOrEqual(1);
    const ids = lessons.map((l) => l.lesson.id);
    expect(new Set(ids).size).toBe(ids.length);
    const orders = lessons.map((l) => l.lesson.order);
    expect(new Set(orders).size).toBe(orders.length);
  });

  it("defines every glossary term, briefly", () => {
    for (const [term, definition] of Object.entries(glossary)) {
      expect(definition.length, term).toBeGreaterThan(10);
      expect(definition.length, term).toBeLessThanOrEqual(400);
    }
  });

  for (const file of files) {
    describe(file, () => {
      it("asks the learner to predict and to act, takes 3 to 8 minutes, and marks only defined terms", () => {
        const { lesson } = load(file);
        const kinds = lesson.steps.map((s) => s.kind);
        expect(kinds, "a predict step").toContain("predict");
        expect(kinds, "a your-turn step").toContain("your-turn");
        expect(lesson.minutes).toBeGreaterThanOrEqual(3);
        expect(lesson.minutes).toBeLessThanOrEqual(8);
        const undefinedTerms = [...new Set(lessonTexts(lesson).flatMap(markedTerms))].filter((t) => !known.has(t));
        expect(undefinedTerms).toEqual([]);
      });

      it("plays from start to end on the engine, every condition met within its bound", () => {
        const r = runLesson(load(file));
        expect(r.failure).toBeNull();
        expect(r.steps.length).toBe(load(file).lesson.steps.length);
        // Steps only move forward in time: each starts where the one before it ended.
        const starts = r.steps.map((s) => s.startUs);
        expect([...starts].sort((a, b) => a - b)).toEqual(starts);
      });
    });
  }
});

/** A small lesson on three nodes, for the engine's own rules. */
function tiny(steps: unknown[], extra: Record<string, unknown> = {}): Lesson {
  const p = parseLesson({
    seed: 4,
    duration: "20s",
    cluster: { nodes: 3 },
    holders: { count: 1 },
    ...extra,
    lesson: { id: "tiny", title: "Tiny", summary: "A test lesson.", minutes: 3, order: 1, steps },
  });
  if (!p.ok) throw new Error(p.errors.join("; "));
  return p.lesson;
}

describe("the lesson engine", () => {
  it("a condition that never comes fails the run, naming the lesson, the step and what it saw", () => {
    const r = runLesson(
      tiny([
        { kind: "narrate", text: "Hello." },
        { kind: "play", title: "h1 gets the lease", until: { that: "lease-held", name: "lock", by: "h1" }, within: "3s" },
        { kind: "play", title: "Never", until: { that: "term-at-least", term: 50 }, within: "2s" },
        { kind: "narrate", text: "Never reached." },
      ]),
    );
    expect(r.ok).toBe(false);
    expect(r.steps.map((s) => s.ok)).toEqual([true, true, false]);
    expect(r.failure).toMatch(/^lesson tiny, step 3 \(play: Never\): not within 2 s: /);
  });

  it("a play step may run for a while instead of waiting on a condition, but not both", () => {
    const r = runLesson(tiny([{ kind: "play", for: "1500ms" }, { kind: "narrate", text: "Later." }]));
    expect(r.ok).toBe(true);
    expect(r.steps[1]?.startUs).toBe(1_500_000);
    const p = parseLesson({
      lesson: { id: "x", title: "X", summary: "s", minutes: 3, order: 1, steps: [{ kind: "play", for: "1s", until: { that: "leader-exists" }, within: "1s" }] },
    });
    expect(p.ok ? [] : p.errors).toEqual([expect.stringMatching(/a play step either waits `until` a condition \(with `within`\), or runs `for` a while/)]);
  });

  it("a play step may require a condition to hold throughout, and fails at the moment it stops", () => {
    // Lock stays free while h1 is still starting (it asks at 500 ms): so for 400 ms, not for 3 s.
    const free = { that: "lease-not-held", name: "lock" };
    const ok = runLesson(tiny([{ kind: "play", for: "400ms", throughout: free }]));
    expect(ok.ok).toBe(true);
    expect(ok.steps[0]?.detail).toBe("400 ms passed, and it stayed so");
    const broke = runLesson(tiny([{ kind: "play", title: "Free for a while", for: "3s", throughout: free }]));
    expect(broke.failure).toMatch(/^lesson tiny, step 1 \(play: Free for a while\): stopped being so after \d+(\.\d+)? ms: /);
    const p = parseLesson({
      lesson: { id: "x", title: "X", summary: "s", minutes: 3, order: 1, steps: [{ kind: "play", until: free, within: "1s", throughout: free }] },
    });
    expect(p.ok ? [] : p.errors).toEqual([expect.stringMatching(/`throughout` goes with `for`/)]);
  });

  it("stops a play step at the very event that made its condition true", () => {
    const lesson = tiny([{ kind: "narrate", text: "x" }]);
    const e = new LessonEngine(lesson);
    expect(e.playUntil({ that: "leader-exists" }, 5_000_000).ok).toBe(true);
    const at = e.sim.now;
    expect(at).toBeGreaterThan(0);
    expect(e.holds({ that: "leader-exists" }).ok).toBe(true);
    // A microsecond earlier there was no leader: the engine did not run on past the moment.
    const before = new LessonEngine(lesson);
    before.sim.advanceTo(at - 1);
    expect(before.holds({ that: "leader-exists" }).ok).toBe(false);
  });

  it("accepts the learner's own way of doing a 'your turn': the same kind on the same target, roles resolved now", () => {
    const e = new LessonEngine(tiny([{ kind: "narrate", text: "x" }]));
    e.playUntil({ that: "leader-exists" }, 5_000_000);
    const leader = e.sim.leader() as string;
    const follower = e.sim.nodeIds.find((id) => id !== leader) as string;
    const crashLeader = { at: 0, do: "crash", node: "leader" } as const;
    expect(e.matches(crashLeader, { type: "crash", proc: leader })).toBe(true);
    expect(e.matches(crashLeader, { type: "crash", proc: follower })).toBe(false);
    expect(e.matches(crashLeader, { type: "pause", proc: leader, durationUs: 1000 })).toBe(false);
    const pause = { at: 0, do: "gc-pause", holder: "h1", for: 5_000_000 } as const;
    expect(e.matches(pause, { type: "gc-pause", holder: "h1", durationUs: 5_000_000 })).toBe(true);
    expect(e.matches({ at: 0, do: "crash", node: "any-node" }, { type: "crash", proc: follower })).toBe(true);
    expect(e.matches({ at: 0, do: "crash", node: "follower" }, { type: "crash", proc: follower })).toBe(true);
    expect(e.matches({ at: 0, do: "crash", node: "follower" }, { type: "crash", proc: leader })).toBe(false);
  });

  it("asks for the step's own values: a pause of another length, or fencing turned on, is near but not it", () => {
    const e = new LessonEngine(tiny([{ kind: "narrate", text: "x" }]));
    e.playUntil({ that: "leader-exists" }, 5_000_000);
    const pause = { at: 0, do: "gc-pause", holder: "h1", for: 5_000_000 } as const;
    expect(judgeAction(e.sim, pause, { type: "gc-pause", holder: "h1", durationUs: 5_000_000 })).toEqual({ kind: "match" });
    const short = judgeAction(e.sim, pause, { type: "gc-pause", holder: "h1", durationUs: 2_000_000 });
    expect(short.kind).toBe("near");
    expect(short.kind === "near" && [short.asked, short.done]).toEqual([
      "GC pause h1 for 5 s between check and write",
      "GC pause h1 for 2 s between check and write",
    ]);
    expect(judgeAction(e.sim, pause, { type: "gc-pause", holder: "h2", durationUs: 5_000_000 }).kind).toBe("other");
    const off = { at: 0, do: "fencing", on: false } as const;
    expect(judgeAction(e.sim, off, { type: "fencing", on: true }).kind).toBe("near");
    expect(judgeAction(e.sim, off, { type: "fencing", on: false }).kind).toBe("match");
    // Only the values asked for count: the inspector's drift change also says "no jump".
    const drift = { at: 0, do: "drift", node: "n3", ppm: 400_000 } as const;
    expect(judgeAction(e.sim, drift, { type: "clock", proc: "n3", driftPpm: 400_000, jumpUs: 0 }).kind).toBe("match");
    expect(judgeAction(e.sim, drift, { type: "clock", proc: "n3", driftPpm: 100_000 }).kind).toBe("near");
  });

  it("a partition matches when it splits the processes the same way, however its groups are written", () => {
    const e = new LessonEngine(tiny([{ kind: "narrate", text: "x" }]));
    e.playUntil({ that: "leader-exists" }, 5_000_000);
    const leader = e.sim.leader() as string;
    const rest = e.sim.nodeIds.filter((id) => id !== leader);
    const isolate = { at: 0, do: "partition" as const, groups: [["leader"], ["others"]] };
    expect(e.matches(isolate, { type: "partition", groups: [rest, [leader]] })).toBe(true);
    expect(e.matches(isolate, { type: "partition", groups: [[leader, leader], ["others"]] })).toBe(true);
    // Another split (the leader with a follower) is not the one asked for.
    expect(e.matches(isolate, { type: "partition", groups: [[leader, rest[0] as string], ["others"]] })).toBe(false);
    expect(e.matches(isolate, { type: "partition", groups: [["n9"], ["others"]] })).toBe(false);
  });
});

describe("conditions counted from the step's start", () => {
  const steps = (refresh: Record<string, unknown>) => [
    { kind: "play", until: { that: "lease-held", name: "lock", by: "h1" }, within: "3s" },
    { kind: "play", for: "2s" },
    { kind: "play", until: { that: "messages", type: "LeaseRefresh", atLeast: 1, ...refresh }, within: "3s" },
  ];

  it('"since": "step" waits for a refresh sent during this step; without it, the earlier ones make it already so', () => {
    const relative = runLesson(tiny(steps({ since: "step" })));
    expect(relative.ok).toBe(true);
    expect(relative.steps[2]?.detail).toMatch(/^after \d/);
    const absolute = runLesson(tiny(steps({})));
    expect(absolute.steps[2]?.detail).toMatch(/^already so at /);
  });

  it("the engine counts from the step's beginning, and only that step's", () => {
    const lesson = tiny(steps({ since: "step" }));
    const e = new LessonEngine(lesson);
    for (const step of lesson.lesson.steps.slice(0, 2)) runStep(e, step);
    e.beginStep();
    expect(e.stepStartUs).toBe(e.sim.now);
    const sinceStep = { that: "messages", type: "LeaseRefresh", since: "step", atLeast: 1 } as const;
    expect(e.holds(sinceStep).ok).toBe(false);
    expect(e.holds({ ...sinceStep, since: 0 }).ok).toBe(true);
  });
});

describe("clock-bound-broken in the clocks-lie lesson", () => {
  it("not broken while clocks are honest; broken, involving n3, once n3's fast clock expired h2's lease", () => {
    const lesson = load("06-clocks-lie.json");
    const e = new LessonEngine(lesson);
    const steps = lesson.lesson.steps;
    const drift = steps.findIndex((s) => s.kind === "your-turn" && s.do.do === "drift");
    for (const step of steps.slice(0, drift)) expect(runStep(e, step).ok).toBe(true);
    expect(e.holds({ that: "clock-bound-broken" })).toEqual({ ok: false, detail: "no bound broken" });
    for (const step of steps.slice(drift)) expect(runStep(e, step).ok).toBe(true);
    expect(e.holds({ that: "clock-bound-broken", node: "n3" }).detail).toMatch(/^clock-rate: h2 still believed it held lock/);
    expect(e.holds({ that: "clock-bound-broken", node: "n3" }).ok).toBe(true);
    expect(e.holds({ that: "clock-bound-broken", node: "h2" }).ok).toBe(true);
    expect(e.holds({ that: "clock-bound-broken", node: "n1" }).ok).toBe(false);
  });
});

describe("the lesson format", () => {
  const errorsOf = (steps: unknown[]): string[] => {
    const p = parseLesson({ lesson: { id: "x", title: "X", summary: "s", minutes: 3, order: 1, steps } });
    return p.ok ? [] : p.errors;
  };

  it("refuses what a lesson cannot mean, naming the field", () => {
    expect(errorsOf([{ kind: "act", do: { at: "1s", do: "heal" } }])).toEqual([expect.stringMatching(/^lesson\.steps\.0\.do: a lesson's action has no `at`/)]);
    expect(errorsOf([{ kind: "play", until: { that: "leader-exists", within: "1s" }, within: "2s" }])).toEqual([
      expect.stringMatching(/^lesson\.steps\.0\.until: a lesson's condition has no `at` or `within`/),
    ]);
    const choices = [
      { text: "a", correct: true, feedback: "yes" },
      { text: "b", correct: true, feedback: "also yes" },
    ];
    expect(errorsOf([{ kind: "predict", text: "?", choices, reveal: { until: { that: "leader-exists" }, within: "1s" } }])).toEqual([
      "lesson.steps.0.choices: exactly one choice is correct",
    ]);
    expect(errorsOf([{ kind: "narrate", text: "x", highlight: [{ panel: "everything" }] }])).toHaveLength(1);
    expect(parseLesson({ seed: 1 })).toEqual({ ok: false, errors: ["lesson: missing (a lesson file is a scenario with a `lesson` section)"] });
    expect(parseLessonText("{").ok).toBe(false);
  });

  it("finds the glossary terms a text marks", () => {
    expect(markedTerms("A [[lease]] has a [[TTL|time to live]]; [[ Fencing token ]].")).toEqual(["lease", "ttl", "fencing token"]);
  });
});
