/**
 * Lesson 13 claims two causes: the write waits because the cut-off follower holds a read
 * lease, and the stale read happens because the leader's clock runs slow. Each is checked
 * by playing the same lesson without its cause: the step that shows the effect must fail.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runLesson } from "../../src/core/lesson/runner";
import { parseLesson } from "../../src/core/lesson/schema";

const file = join(import.meta.dirname, "../../lessons/13-read-leases.json");

interface Step {
  kind: string;
  title?: string;
  do?: Record<string, unknown>;
}

/** The lesson's file, changed by `edit` on its steps, played headless. */
function playWith(edit: (steps: Step[]) => void) {
  const json = JSON.parse(readFileSync(file, "utf8")) as { lesson: { steps: Step[] } };
  edit(json.lesson.steps);
  const p = parseLesson(json);
  if (!p.ok) throw new Error(p.errors.join("; "));
  return runLesson(p.lesson);
}

function step(steps: Step[], title: string): Step {
  const s = steps.find((x) => x.title === title);
  if (s === undefined) throw new Error(`no step ${title}`);
  return s;
}

describe("lesson 13, read leases and write leases", () => {
  it("plays to its end as written", () => {
    expect(playWith(() => {}).failure).toBeNull();
  });

  it("the write waits because n1 holds a read lease: cutting off n4, which holds none, costs no wait", () => {
    const r = playWith((steps) => {
      step(steps, "Cut off a read-lease holder").do = { do: "partition", groups: [["n4"], ["others"]] };
    });
    expect(r.failure).toMatch(/step 8 \(predict: What happens to the next write\?\): not within/);
  });

  it("the stale read comes from the slow clock: with n3's clock right, the same run stays linearizable", () => {
    const r = playWith((steps) => {
      step(steps, "Slow the leader's clock").do = { do: "drift", node: "n3", ppm: 0 };
    });
    expect(r.failure).toMatch(/step 15 \(predict: The old leader still has time\): not within 3 s: .*linearizable/);
  });
});
