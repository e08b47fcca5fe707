/**
 * `npm run sim -- --replay FILE`: a live run's recording (docs/live.md, "Recordings") replayed
 * by the deterministic engine to its end. Each process's state digest is printed next to the
 * one its worker computed live, with the violations the checkers found on the way (the live
 * run's, since the replay is that run). Exit 0: every digest the same and no violation; 1: a
 * safety rule broke; 3: a digest differs or the replay diverged (its violations are then not
 * the live run's: this comes first); 2: the file cannot be read.
 */
import { createWriteStream } from "node:fs";
import type { LiveRecording } from "../core/live/recording";
import { isDivergence } from "../core/live/diverged";
import { ReplaySimulation } from "../core/live/replay";
import { MAX_RECORDING_BYTES, parseRecordingText, RecordingFileError } from "../core/live/schema";
import type { Violation } from "../core/sim/checkers";
import { clip, formatInstant } from "../core/sim/time";
import { type TraceEvent, toNdjson } from "../core/sim/trace";
import { EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, EXIT_VIOLATION, readInput, UsageError } from "./files";

export interface ReplayOptions {
  readonly file: string;
  readonly json: boolean;
  /** Where to write the replay's trace as NDJSON. */
  readonly trace: string | undefined;
}

export interface ReplayOutcome {
  readonly seed: number;
  readonly endAt: number;
  readonly digests: Record<string, { live: string; replay: string | null; same: boolean }>;
  /** What the checkers found (the divergence itself is not among them). */
  readonly violations: readonly Violation[];
  /** Where and how the replay left the recording, or null. */
  readonly diverged: string | null;
}

/** Reads a recording file; bad input (unreadable, too large, malformed) is a UsageError naming the file and each problem. */
export function readRecording(file: string): LiveRecording {
  const text = readInput("recording", file, MAX_RECORDING_BYTES);
  try {
    return parseRecordingText(text);
  } catch (e) {
    if (!(e instanceof RecordingFileError)) throw e;
    const shown = e.problems.slice(0, 20).map((p) => clip(p, 300));
    if (e.problems.length > shown.length) shown.push(`... and ${e.problems.length - shown.length} more`);
    throw new UsageError(`recording ${clip(file)} is not valid:\n  ${shown.join("\n  ")}`);
  }
}

/** Replays a recording to its end, with every checker on and nothing stopping it early. */
export function replayRecording(rec: LiveRecording, onTrace?: (e: TraceEvent) => void): ReplayOutcome {
  let sim: ReplaySimulation | null = null;
  let crashed: string | null = null;
  try {
    sim = new ReplaySimulation({ ...rec.config, checkers: true, stopOnViolation: false }, rec, onTrace);
    sim.advanceTo(rec.endAt);
  } catch (e) {
    // The file passed its schema: a replay that throws left the recording somewhere.
    crashed = `the replay stopped${sim === null ? " before it began" : ` at ${formatInstant(sim.now)}`}: ${clip((e as Error).message, 300)}`;
  }
  const replayed: Record<string, string> = sim?.digests() ?? {};
  const digests: ReplayOutcome["digests"] = {};
  for (const [id, live] of Object.entries(rec.digests)) {
    const replay = replayed[id] ?? null;
    digests[id] = { live, replay, same: replay === live };
  }
  const all = sim?.violations ?? [];
  const divergence = all.find(isDivergence);
  return {
    seed: rec.config.seed,
    endAt: rec.endAt,
    digests,
    violations: all.filter((v) => v !== divergence),
    diverged: crashed ?? (divergence === undefined ? null : `at ${formatInstant(divergence.time)}: ${divergence.detail}`),
  };
}

/** The exit status of an outcome: 3 when the replay is not the live run, else 1 on a violation, else 0. */
export function replayStatus(r: ReplayOutcome): number {
  if (r.diverged !== null || Object.values(r.digests).some((d) => !d.same)) return EXIT_FAILED;
  return r.violations.length > 0 ? EXIT_VIOLATION : EXIT_OK;
}

/** The CLI's --replay: reads, replays, prints (words or one JSON document); returns the exit status. */
export function runReplay(o: ReplayOptions): number {
  let rec: LiveRecording;
  try {
    rec = readRecording(o.file);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    console.error(`sim: ${e.message}`);
    return EXIT_BAD_INPUT;
  }
  const trace = o.trace === undefined ? undefined : createWriteStream(o.trace);
  const r = replayRecording(rec, trace === undefined ? undefined : (e) => trace.write(`${toNdjson(e)}\n`));
  trace?.end();
  const status = replayStatus(r);
  if (o.json) {
    const doc = {
      file: o.file,
      ok: status === EXIT_OK,
      seed: r.seed,
      endAt: r.endAt,
      digests: r.digests,
      violations: r.violations,
      diverged: r.diverged,
    };
    process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
  } else printReplay(o.file, rec, r, status);
  return status;
}

function printReplay(file: string, rec: LiveRecording, r: ReplayOutcome, status: number): void {
  const ids = Object.keys(r.digests);
  console.log(
    `replay of ${clip(file)}: seed ${r.seed}, ${ids.length} processes, ${rec.script.length} inputs, to ${formatInstant(r.endAt)} (run live at ${rec.speed}x)`,
  );
  const width = Math.max(7, ...ids.map((id) => id.length));
  console.log(`  ${"process".padEnd(width)}  ${"live".padEnd(16)}  ${"replay".padEnd(16)}`);
  for (const id of ids) {
    const d = r.digests[id] as ReplayOutcome["digests"][string];
    console.log(`  ${id.padEnd(width)}  ${d.live}  ${(d.replay ?? "-").padEnd(16)}  ${d.same ? "same" : "DIFFERENT"}`);
  }
  for (const v of r.violations) console.log(`  VIOLATION ${v.invariant} at ${formatInstant(v.time)} [${v.nodes.join(", ")}]: ${v.detail}`);
  if (r.diverged !== null) console.log(`  DIVERGED ${r.diverged}`);
  const differ = ids.filter((id) => !r.digests[id]?.same);
  if (status === EXIT_OK) console.log("ok: every process ended in the state it ended in live, and no safety rule broke");
  else if (status === EXIT_VIOLATION)
    console.log(
      `the replay is the live run (every digest the same), and ${r.violations.length} safety violation(s) happened in it (seed ${r.seed})`,
    );
  else
    console.log(
      `FAIL: the replay is not the live run (seed ${r.seed}): ${differ.length > 0 ? `${differ.join(", ")} ended in another state` : "every digest the same"}` +
        `${r.diverged !== null ? ", and the replay diverged" : ""}; its violations, if any, may not be the live run's`,
    );
}
