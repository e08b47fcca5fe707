/** The lesson player in the host: steps, the learner's actions, Back and Next, and opening at a step. */
import { readFileSync } from "node:fs";
import { fakeHost } from "../support/host";
import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS } from "../../src/app/params";
import { lessonCatalog } from "../../src/app/lesson/catalog";
import { LessonEngine, runLesson, runStep } from "../../src/core/lesson/runner";
import { type Lesson, parseLesson, parseLessonText } from "../../src/core/lesson/schema";
import type { LessonView } from "../../src/worker/protocol";

function fencing(): Lesson {
  const r = parseLessonText(readFileSync("lessons/07-fencing.json", "utf8"));
  if (!r.ok) throw new Error(r.errors.join("; "));
  return r.lesson;
}

/** The host with a fake clock, and the lesson in its newest view. */
function harness() {
  const h = fakeHost();
  const lesson = (): LessonView => {
    const l = h.last().lesson;
    if (l === undefined) throw new Error("no lesson in the view");
    return l;
  };
  /** Runs the loop (250 ms of real time a tick) until it stops, at most `n` ticks. */
  const run = (n = 400): void => {
    for (let i = 0; i < n && h.timers() > 0; i++) h.tick(250);
  };
  return { ...h, lesson, run };
}

/** A three-node, one-holder lesson (seed 4) with these steps. */
function smallLesson(id: string, steps: unknown[]): Lesson {
  const p = parseLesson({
    seed: 4,
    duration: "20s",
    cluster: { nodes: 3 },
    holders: { count: 1 },
    lesson: { id, title: id, summary: "s", minutes: 3, order: 1, steps },
  });
  if (!p.ok) throw new Error(p.errors.join("; "));
  return p.lesson;
}

const settings = { ...DEFAULT_SETTINGS, autoplay: false };

/** Where a lesson's headless walk ends (virtual µs). */
function runLessonEnd(lesson: Lesson): number {
  const e = new LessonEngine(lesson);
  for (const step of lesson.lesson.steps) runStep(e, step);
  return e.sim.now;
}

describe("lesson player", () => {
  it("walks the fencing lesson: narrate, play, your turn by the learner's own action, predict", () => {
    const h = harness();
    h.host.handle({ type: "lesson-start", settings, lesson: fencing(), step: 0 });
    expect(h.lesson()).toMatchObject({ id: "fencing", index: 0, count: 7, status: "done" });
    expect(h.last().playing).toBe(false);
    h.host.handle({ type: "lesson-step", index: 1 });
    expect(h.lesson().status).toBe("playing");
    expect(h.last().playing).toBe(true);
    h.run();
    expect(h.lesson().status).toBe("done");
    expect(h.last().playing).toBe(false);
    expect(h.last().leases[0]?.holder).toBe("h1");
    h.host.handle({ type: "lesson-step", index: 2 });
    h.host.handle({ type: "lesson-step", index: 3 });
    expect(h.lesson()).toMatchObject({ index: 3, status: "waiting" });
    // Not the asked action: the step keeps waiting.
    h.host.handle({ type: "act", action: { type: "heal" } });
    expect(h.lesson().status).toBe("waiting");
    // The asked action with another length is not done: the step says what it asks for.
    const before = h.last().timeline.actions.length;
    h.host.handle({ type: "act", action: { type: "gc-pause", holder: "h1", durationUs: 1_000_000 } });
    expect(h.lesson()).toMatchObject({ status: "waiting" });
    expect(h.lesson().detail).toContain("asks you to GC pause h1 for 5 s");
    expect(h.lesson().detail).toContain("you asked to GC pause h1 for 1 s");
    expect(h.last().timeline.actions.length).toBe(before);
    h.host.handle({ type: "act", action: { type: "gc-pause", holder: "h1", durationUs: 5_000_000 } });
    expect(h.lesson().status).toBe("done");
    h.host.handle({ type: "lesson-step", index: 4 });
    h.run();
    expect(h.lesson()).toMatchObject({ index: 4, status: "done" });
    h.host.handle({ type: "lesson-step", index: 5 });
    expect(h.lesson().status).toBe("waiting");
    h.host.handle({ type: "lesson-choose", choice: 1 });
    expect(h.lesson()).toMatchObject({ status: "playing", choice: 1 });
    h.run();
    expect(h.lesson()).toMatchObject({ index: 5, status: "done", choice: 1 });
    expect(h.last().storage?.rejected).toBeGreaterThan(0);
    expect(h.errors()).toEqual([]);
  });

  it("a play step with a condition that must hold throughout ends, failed, at the event that breaks it", () => {
    const lesson = smallLesson("hold", [
        { kind: "play", for: "400ms", throughout: { that: "lease-not-held", name: "lock" } },
        { kind: "play", for: "5s", throughout: { that: "lease-not-held", name: "lock" } },
    ]);
    const h = harness();
    h.host.handle({ type: "lesson-start", settings, lesson: lesson, step: 0 });
    h.host.handle({ type: "play" });
    h.run();
    expect(h.lesson()).toMatchObject({ index: 0, status: "done", detail: "400 ms passed, and it stayed so." });
    h.host.handle({ type: "lesson-step", index: 1 });
    h.run();
    expect(h.lesson()).toMatchObject({ index: 1, status: "failed" });
    expect(h.lesson().detail).toMatch(/^It stopped being so after /);
    // It stopped at that event, well before the 5 s were up.
    expect(h.last().now).toBeLessThan(1_500_000);
    expect(h.last().leases[0]?.holder).toBe("h1");
  });

  it("Explore from here: the free lab on a branch of its own; Back to the lesson returns to the moment it left", () => {
    const h = harness();
    h.host.handle({ type: "lesson-start", settings, lesson: fencing(), step: 0 });
    h.host.handle({ type: "lesson-step", index: 1 });
    h.run();
    h.host.handle({ type: "lesson-step", index: 2 });
    h.host.handle({ type: "lesson-step", index: 3 });
    expect(h.lesson()).toMatchObject({ index: 3, status: "waiting", exploringFrom: null });
    const left = { now: h.last().now, events: h.last().eventsHandled, branch: h.last().timeline.branch };
    h.host.handle({ type: "lesson-explore" });
    expect(h.lesson().exploringFrom).toBe(left.now);
    // Free play: even the asked action does not count while exploring, and time runs on.
    h.host.handle({ type: "act", action: { type: "gc-pause", holder: "h1", durationUs: 5_000_000 } });
    h.host.handle({ type: "act", action: { type: "crash", proc: "n1" } });
    h.host.handle({ type: "play" });
    h.run(8);
    h.host.handle({ type: "pause" });
    expect(h.last().now).toBeGreaterThan(left.now);
    expect(h.lesson()).toMatchObject({ index: 3, status: "waiting" });
    const explored = h.last().timeline.branch;
    expect(explored).not.toBe(left.branch);
    h.host.handle({ type: "lesson-return" });
    expect(h.lesson()).toMatchObject({ index: 3, status: "waiting", exploringFrom: null });
    expect({ now: h.last().now, events: h.last().eventsHandled, branch: h.last().timeline.branch }).toEqual(left);
    // The exploration is an ordinary branch, kept; the lesson's own run has none of its actions.
    expect(h.last().timeline.branches.map((b) => b.id)).toContain(explored);
    expect(h.last().nodes.find((n) => n.id === "n1")?.status).toBe("up");
    h.host.handle({ type: "lesson-do-it-for-me" });
    expect(h.lesson().status).toBe("done");
    expect(h.errors()).toEqual([]);
  });

  it("Back returns to a step's recorded moment exactly; Next goes on without asking again", () => {
    const h = harness();
    h.host.handle({ type: "lesson-start", settings, lesson: fencing(), step: 0 });
    h.host.handle({ type: "lesson-step", index: 1 });
    h.run();
    h.host.handle({ type: "lesson-step", index: 2 });
    const at2 = { now: h.last().now, events: h.last().eventsHandled };
    h.host.handle({ type: "lesson-step", index: 3 });
    h.host.handle({ type: "lesson-do-it-for-me" });
    expect(h.lesson().status).toBe("done");
    const actions = h.last().timeline.actions.length;
    h.host.handle({ type: "lesson-step", index: 4 });
    h.run();
    const at5 = { now: h.last().now, events: h.last().eventsHandled };
    h.host.handle({ type: "lesson-step", index: 2 });
    expect(h.lesson()).toMatchObject({ index: 2, status: "done", startedAt: at2.now });
    expect({ now: h.last().now, events: h.last().eventsHandled }).toEqual(at2);
    h.host.handle({ type: "lesson-step", index: 3 });
    expect(h.lesson()).toMatchObject({ index: 3, status: "done" });
    h.host.handle({ type: "lesson-step", index: 4 });
    expect(h.lesson()).toMatchObject({ index: 4, status: "done" });
    h.host.handle({ type: "lesson-step", index: 5 });
    expect(h.lesson()).toMatchObject({ index: 5, status: "waiting" });
    expect({ now: h.last().now, events: h.last().eventsHandled }).toEqual(at5);
    expect(h.last().timeline.actions.length).toBe(actions);
    expect(h.last().timeline.branches.length).toBe(1);
  });

  it("opens at a step, playing the earlier ones headless", () => {
    const h = harness();
    h.host.handle({ type: "lesson-start", settings, lesson: fencing(), step: 5 });
    expect(h.lesson()).toMatchObject({ index: 5, status: "waiting", reached: 5 });
    expect(h.last().leases[0]?.holder).toBe("h2");
    expect(h.last().timeline.actions.map((a) => a.action.type)).toEqual(["gc-pause"]);
    expect(h.last().playing).toBe(false);
  });

  it("walks every bundled lesson in the page's way (Do it for me, the right answer) with every step done, each step beginning where the headless run's does", () => {
    const lessons = [...lessonCatalog().byId.values()];
    expect(lessons.length).toBeGreaterThan(0);
    for (const lesson of lessons) {
      const headless = runLesson(lesson);
      const h = harness();
      h.host.handle({ type: "lesson-start", settings, lesson, step: 0 });
      for (const [i, step] of lesson.lesson.steps.entries()) {
        if (i > 0) h.host.handle({ type: "lesson-step", index: i });
        // The page and the CLI play the same lesson the same way.
        expect(h.lesson().startedAt, `lesson ${lesson.lesson.id}, step ${i + 1} begins`).toBe(headless.steps[i]?.startUs);
        if (step.kind === "your-turn") h.host.handle({ type: "lesson-do-it-for-me" });
        if (step.kind === "predict") h.host.handle({ type: "lesson-choose", choice: step.choices.findIndex((c) => c.correct) });
        h.run(4000);
        const where = `lesson ${lesson.lesson.id}, step ${i + 1} (${step.kind}): ${h.lesson().detail}`;
        expect(h.lesson().index, where).toBe(i);
        expect(h.lesson().status, where).toBe("done");
      }
      expect(h.errors()).toEqual([]);
    }
  });

  it('a condition with "since": "step" counts from the step\'s recorded moment, as headless', () => {
    const lesson = smallLesson("since-step", [
        { kind: "play", until: { that: "lease-held", name: "lock", by: "h1" }, within: "3s" },
        { kind: "play", for: "2s" },
        { kind: "play", until: { that: "messages", type: "LeaseRefresh", since: "step", atLeast: 2 }, within: "5s" },
    ]);
    const headless = runLesson(lesson);
    expect(headless.ok).toBe(true);
    const h = harness();
    h.host.handle({ type: "lesson-start", settings, lesson: lesson, step: 0 });
    for (const i of [0, 1, 2]) {
      if (i > 0) h.host.handle({ type: "lesson-step", index: i });
      h.run(4000);
      expect(h.lesson()).toMatchObject({ index: i, status: "done" });
    }
    expect(h.lesson().detail).toMatch(/^It happened after /);
    // It waited for two refreshes of its own, ending where the headless run's step did.
    const third = headless.steps[2];
    expect(h.lesson().startedAt).toBe(third?.startUs);
    expect(h.last().now).toBeGreaterThan((third?.startUs ?? 0) + 100_000);
    expect(h.last().now).toBe(runLessonEnd(lesson));
  });

  it("a play step with `for` runs that long, then Next works", () => {
    const json = JSON.parse(readFileSync("lessons/07-fencing.json", "utf8"));
    json.lesson.steps[1] = { kind: "play", title: "Time passes", for: "1500ms" };
    const r = parseLesson(json);
    if (!r.ok) throw new Error(r.errors.join("; "));
    const h = harness();
    h.host.handle({ type: "lesson-start", settings, lesson: r.lesson, step: 1 });
    expect(h.lesson()).toMatchObject({ index: 1, status: "playing" });
    h.run();
    expect(h.lesson()).toMatchObject({ index: 1, status: "done", detail: "1.5 s passed." });
    expect(h.last().now).toBe(1_500_000);
  });
});
