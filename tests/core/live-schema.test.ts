/**
 * Recording files: a live run's recording written by recordingToText reads back the same and
 * replays to the same digests; a malformed or hand-edited file is refused with a message that
 * names the field and the problem, and never with anything but a RecordingFileError.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { LiveRecording } from "../../src/core/live/recording";
import { ReplaySimulation } from "../../src/core/live/replay";
import { parseRecordingText, RecordingFileError, recordingToText } from "../../src/core/live/schema";
import { faultyRun } from "../support/liveRuns";

let rec: LiveRecording;
let text: string;
beforeAll(() => {
  rec = faultyRun(3, 2_500_000).recording();
  text = recordingToText(rec);
});

type Json = Record<string, unknown> & { script: { proc: string | null; input: Record<string, unknown> }[] };

/** A recording's file (`file`: the one above), changed by `edit`, read back: the problems it gives (none: "ok"). */
function problemsOf(edit: (j: Json) => void, file = text): string {
  const j = JSON.parse(file) as Json;
  edit(j);
  try {
    parseRecordingText(JSON.stringify(j));
    return "ok";
  } catch (e) {
    expect(e).toBeInstanceOf(RecordingFileError);
    return (e as Error).message;
  }
}

/** The index of the first script item that matches. */
function find(j: Json, test: (item: Json["script"][number]) => boolean): number {
  const i = j.script.findIndex(test);
  expect(i).toBeGreaterThanOrEqual(0);
  return i;
}

describe("a recording file", () => {
  it("reads back as the recording it was written from, writes the same text again, and replays to the same digests", () => {
    const back = parseRecordingText(text);
    expect(back).toEqual(rec);
    expect(recordingToText(back)).toBe(text);
    const replay = new ReplaySimulation(back.config, back);
    replay.advanceTo(back.endAt);
    expect(replay.violations.filter((v) => v.invariant === "assertion")).toEqual([]);
    expect(replay.digests()).toEqual(rec.digests);
    // One script item a line, so two recordings diff line by line.
    expect(text.split("\n").filter((l) => l.startsWith('  {"proc":')).length).toBe(rec.script.length);
  });

  it("the same recording, its keys in another order, is written the same", () => {
    const shuffled = JSON.parse(text, (_k, v) =>
      typeof v === "object" && v !== null && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).reverse()) : v,
    );
    expect(Object.keys(shuffled)[0]).not.toBe("version");
    expect(recordingToText(parseRecordingText(JSON.stringify(shuffled)))).toBe(text);
  });

  it("the unedited file is fine (the edits below are what is wrong)", () => {
    expect(problemsOf(() => {})).toBe("ok");
  });

  it("not JSON", () => {
    expect(() => parseRecordingText(text.slice(0, 200))).toThrow(/^not valid JSON, so not a recording/);
    expect(() => parseRecordingText("[1, 2]")).toThrow(/^recording: a recording is a JSON object, not a list/);
  });

  it("a newer format: says so, and nothing else", () => {
    const m = problemsOf((j) => {
      j.version = 2;
      j.speed = -1;
    });
    expect(m).toBe(
      "version: this recording is in format version 2, and this Lease Lab reads version 1: it comes from a newer Lease Lab. Open it there, or update this one",
    );
    expect(problemsOf((j) => (j.version = "1"))).toMatch(/^version: must be 1, the recording format this Lease Lab reads \(got "1"\)$/);
  });

  it("an input of a process the run does not have", () => {
    const m = problemsOf((j) => {
      j.script[find(j, (x) => x.proc === "n2")] = { proc: "n9", input: { at: 0, kind: "timer" } };
    });
    expect(m).toMatch(/^script\[\d+\]\.proc: no process named "n9" in this run \(its processes are n1, n2, n3, n4, n5, c1, h1, h2, s1\)$/m);
  });

  it("a network action naming a process the run does not have", () => {
    const m = problemsOf((j) => {
      const i = find(j, (x) => x.input.kind === "net" && (x.input.action as { type: string }).type === "partition");
      ((j.script[i] as Json["script"][number]).input.action as { groups: string[][] }).groups[0] = ["n1", "n7"];
    });
    expect(m).toMatch(/^script\[\d+\]\.input\.action\.groups\[0\]\[1\]: no process named "n7"/m);
  });

  it("a script out of time order", () => {
    const m = problemsOf((j) => {
      const i = find(j, (x) => x.input.kind === "timer" && (x.input.at as number) > 1_000_000);
      const a = j.script[i - 5] as Json["script"][number];
      j.script[i - 5] = j.script[i] as Json["script"][number];
      j.script[i] = a;
    });
    expect(m).toMatch(
      /^script\[\d+\]\.input\.at: [\d.]+ s comes before the item above it \([\d.]+ s\): the script must be in time order$/m,
    );
  });

  it("a digest that is not one, and a process without one", () => {
    expect(problemsOf((j) => ((j.digests as Record<string, string>).n1 = "12345"))).toBe(
      "digests.n1: must be a state digest: 16 hex digits (0-9, a-f)",
    );
    expect(problemsOf((j) => delete (j.digests as Record<string, string>).s1)).toBe(
      "digests.s1: missing (every process of the run has its digest)",
    );
  });

  it("a setting left out, a setting out of range, and settings that contradict each other", () => {
    expect(problemsOf((j) => delete (j.config as { raft: Record<string, unknown> }).raft.heartbeatIntervalMs)).toBe(
      "config.raft.heartbeatIntervalMs: missing (a recording lists the run's settings in full)",
    );
    expect(problemsOf((j) => ((j.config as { nodes: number }).nodes = 0))).toMatch(/^config\.nodes: /);
    expect(problemsOf((j) => ((j.config as { raft: Record<string, unknown> }).raft.heartbeatIntervalMs = 5000))).toMatch(
      /^config: heartbeatIntervalMs must be shorter than electionTimeoutMinMs/,
    );
  });

  it("a plan of zero copies, and a copy its plan does not have", () => {
    const key = rec.script.find((x) => x.input.kind === "message")?.input as { key: string; copy: number };
    expect(problemsOf((j) => ((j.plans as Record<string, number[]>)[key.key] = []))).toBe(
      `plans.${key.key}: a message has at least one copy: its plan lists when each copy arrives`,
    );
    expect(problemsOf((j) => ((j.plans as Record<string, number[]>)[key.key] = [-3]))).toMatch(/^plans\.\S+\[0\]: cannot be negative/);
    const m = problemsOf((j) => {
      const i = find(j, (x) => x.input.kind === "message" && x.input.key === key.key);
      (j.script[i] as Json["script"][number]).input.copy = 5;
    });
    expect(m).toMatch(/^script\[\d+\]\.input\.copy: \S+ was sent in 1 copy \(its plan\), so there is no copy 5/);
    expect(problemsOf((j) => delete (j.plans as Record<string, number[]>)[key.key])).toMatch(
      /^script\[\d+\]\.input\.key: no plan for the message/,
    );
  });

  it("an action of a type no process does, and a kind of input there is not", () => {
    const m = problemsOf((j) => {
      const i = find(j, (x) => x.input.kind === "act");
      (j.script[i] as Json["script"][number]).input.action = { type: "explode", proc: "n1" };
    });
    expect(m).toMatch(/^script\[\d+\]\.input\.action\.type: "explode" is not an action a process does \(one of clock, submit, /);
    // A network action is the router's: not one a process does.
    const net = problemsOf((j) => {
      const i = find(j, (x) => x.input.kind === "act");
      (j.script[i] as Json["script"][number]).input.action = { type: "heal" };
    });
    expect(net).toMatch(/"heal" is not an action a process does/);
    expect(problemsOf((j) => ((j.script[0] as Json["script"][number]).input.kind = "teleport"))).toMatch(
      /^script\[0\]\.input\.kind: "teleport" is not a kind of input \(one of message, timer, /,
    );
  });

  it("the router's inputs have no process, and a process's inputs have one", () => {
    expect(problemsOf((j) => ((j.script[find(j, (x) => x.input.kind === "net")] as Json["script"][number]).proc = "n1"))).toMatch(
      /^script\[\d+\]\.proc: a net is the router's: its proc is null \(got "n1"\)$/,
    );
    expect(problemsOf((j) => ((j.script[0] as Json["script"][number]).proc = null))).toMatch(
      /^script\[0\]\.proc: a \w+ is a process's input: name the process/,
    );
  });

  it("a run that checked every call: its digests after each call read back and write the same; a bad one, or one on the router's input, is refused", () => {
    const checked = faultyRun(4, 1_500_000, { verify: true }).recording();
    expect(checked.script.some((x) => x.proc !== null && x.after !== undefined)).toBe(true);
    const t = recordingToText(checked);
    expect(parseRecordingText(t)).toEqual(checked);
    expect(recordingToText(parseRecordingText(t))).toBe(t);
    type Item = Json["script"][number] & { after?: unknown };
    const item = (j: Json, test: (x: Item) => boolean): Item => j.script[find(j, test)] as Item;
    expect(problemsOf((j) => (item(j, (x) => x.after !== undefined).after = "xyz"), t)).toMatch(
      /^script\[\d+\]\.after: must be a state digest: 16 hex digits/,
    );
    expect(problemsOf((j) => (item(j, (x) => x.proc === null).after = "0123456789abcdef"), t)).toMatch(
      /^script\[\d+\]\.after: the router's inputs have no state digest after them/,
    );
  });

  it("a speed that is not above 0, an end before the last input, an unknown field", () => {
    expect(problemsOf((j) => (j.speed = 0))).toBe("speed: must be above 0 (virtual µs per real µs)");
    expect(problemsOf((j) => (j.endAt = 1000))).toMatch(/^endAt: the recording ends at 0\.001 s, before its last input \(2\.\d+ s\)$/);
    expect(problemsOf((j) => delete j.plans)).toBe("plans: missing");
    expect(problemsOf((j) => (j.comment = "hi"))).toMatch(/^recording: Unrecognized key: "comment"$/);
  });

  it("whatever an edit does to the file, reading it gives the recording or a RecordingFileError, and a recording read replays without throwing", () => {
    const small = recordingToText(faultyRun(5, 1_200_000).recording());
    const values = fc.oneof(
      fc.constant(null),
      fc.boolean(),
      fc.integer({ min: -5, max: 3_000_000 }),
      fc.double(),
      fc.constantFrom("n1", "n9", "", "leader", "others", "n1/0/0", "0123456789abcdef", "partition", "message", "act"),
      fc.constant([]),
      fc.constant({}),
    );
    fc.assert(
      fc.property(fc.nat(), fc.nat(), values, fc.boolean(), (pick, depthPick, value, remove) => {
        const j = JSON.parse(small) as unknown;
        // Walk to a random field and change or remove it.
        let parent = j as Record<string, unknown>;
        let key: string | number = "version";
        let seed = pick;
        for (let d = 0; d < 2 + (depthPick % 5); d++) {
          const keys = Object.keys(parent);
          if (keys.length === 0) break;
          key = keys[seed % keys.length] as string;
          seed = Math.floor(seed / keys.length) + 7;
          const next = parent[key];
          if (typeof next !== "object" || next === null) break;
          parent = next as Record<string, unknown>;
        }
        if (remove) delete parent[key];
        else parent[key] = value;
        let back: LiveRecording;
        try {
          back = parseRecordingText(JSON.stringify(j));
        } catch (e) {
          if (!(e instanceof RecordingFileError)) throw e;
          expect(e.message.length).toBeGreaterThan(0);
          return;
        }
        const replay = new ReplaySimulation(back.config, back);
        replay.advanceTo(back.endAt);
      }),
      { numRuns: 300 },
    );
  });
});
