/**
 * Headless runner: scenarios, seed sweeps, the random nemesis, NDJSON traces and
 * JSON results. Exit 0 when every run is clean, 1 when a safety rule broke (an
 * invariant violation the scenario does not expect, or with `--check linearizability`
 * a clients' history that is not linearizable), 3 when no rule broke but the
 * cluster did not do what was expected (a failed expectation, e.g. no leader after the
 * nemesis's quiet period, or an action that could not be done), printing the seed that
 * reproduces it; 2 on bad input, before anything runs.
 */
import { createWriteStream, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { Lesson } from "../core/lesson/schema";
import { checkLinearizability, DEFAULT_MAX_STEPS, describeLinResult, describeOp, type LinResult } from "../core/lin/check";
import type { HistoryOp } from "../core/scenario/history";
import type { StorageLogEntry } from "../core/storage/storage";
import { parseLessonText } from "../core/lesson/schema";
import { type RunResult, runScenario, unexpected } from "../core/scenario/runner";
import { parseScenario, parseScenarioText, type Scenario } from "../core/scenario/schema";
import { MAX_HOLDERS, MAX_NODES } from "../core/sim/config";
import { clip, formatInstant, MAX_DURATION_US, parseDuration } from "../core/sim/time";
import { type TraceEvent, toNdjson } from "../core/sim/trace";
import { checkWritable, EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, EXIT_VIOLATION, readInput, UsageError } from "./files";
import { runLessonFiles } from "./lessons";
import { type ReplayOptions, runReplay } from "./replay";
import { smallestOffending } from "./offending";

const USAGE = `Usage: npm run sim -- [options]

  --scenario FILE     run a scenario file (repeatable); without it, a default run
  --lesson FILE       walk a lesson file step by step (repeatable), doing every
                      "your turn" step; fails at the first step whose condition
                      is not met (format: docs/lessons.md)
  --seed N            the seed (overrides the scenario's)
  --seeds A..B        a sweep over seeds A to B inclusive
  --nodes N           cluster size, 1 to ${MAX_NODES}
  --duration D        run length, e.g. 30s, 1500ms, 2m
  --clients N         clients with a random workload (default run only; default 2)
  --holders N         lease holders contending for one lease, writing to fenced
                      storage (default run only; default 3)
  --nemesis random    swarm nemesis: each seed draws its own fault mix (crashes,
                      restart storms, leader crashes, partitions, pauses, drift,
                      delays, loss; holder crashes near expiry) and prints it
  --trace FILE        write every trace event as NDJSON (one run only)
  --history FILE      write the clients' operation history as JSON (one run only;
                      format in docs/history.md)
  --check linearizability
                      after each run, check that the key-value clients' history
                      is linearizable (each key a register); a violation fails
                      the run (exit 1) and prints the seed and the smallest set
                      of operations found that cannot be ordered; a search that
                      runs out of steps prints "unknown" and does not fail the
                      run. On by default with --seeds (a sweep)
  --check none        no linearizability check (the default without --seeds)
  --check-steps N     the search's step budget per key (default ${DEFAULT_MAX_STEPS})
  --replay FILE       replay a live run's recording (format: docs/live.md) to its
                      end; print each process's state digest next to the one
                      recorded live ("same" or "DIFFERENT") and the violations
                      the checkers found in it (the live run's). With --json:
                      { digests: {proc: {live, replay, same}}, violations,
                      diverged, endAt, seed, ok }. Goes with --trace
  --json              print one JSON document on stdout (with every storage
                      write of each run in its storageLog)
  --no-checkers       turn the invariant checkers off (faster, for benchmarks)
  --quiet             print failures and the summary only
  --help              this text

Exit status: 0 all clean; 1 a safety rule broke (an invariant violation, or a
history that is not linearizable with --check);
3 no rule broke but a run failed (an expectation, e.g. a leader after the faults
stopped, or an action that could not be done), or with --replay a digest differs
or the replay left the recording; 2 bad input (nothing ran).`;

/** Scenario files larger than this are refused before reading (a file, not /dev/zero). */
const MAX_SCENARIO_FILE_BYTES = 10 * 1024 * 1024;

interface Options {
  scenarios: { file: string; scenario: Scenario }[];
  lessons: { file: string; lesson: Lesson }[];
  seeds: number[] | null;
  nodes: number | undefined;
  durationUs: number | undefined;
  clients: number;
  holders: number;
  nemesis: boolean;
  trace: string | undefined;
  history: string | undefined;
  /** --check linearizability: the step budget per key, or null without the check. */
  checkSteps: number | null;
  json: boolean;
  checkers: boolean;
  quiet: boolean;
}

function parseOptions(argv: string[]): Options | ReplayOptions | "help" {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        scenario: { type: "string", multiple: true },
        lesson: { type: "string", multiple: true },
        seed: { type: "string" },
        seeds: { type: "string" },
        nodes: { type: "string" },
        duration: { type: "string" },
        clients: { type: "string" },
        holders: { type: "string" },
        history: { type: "string" },
        nemesis: { type: "string" },
        trace: { type: "string" },
        check: { type: "string" },
        "check-steps": { type: "string" },
        json: { type: "boolean", default: false },
        "no-checkers": { type: "boolean", default: false },
        quiet: { type: "boolean", default: false },
        help: { type: "boolean", default: false },
        replay: { type: "string" },
      },
      allowPositionals: false,
    });
  } catch (e) {
    throw new UsageError(clip((e as Error).message, 200));
  }
  const v = parsed.values as Record<string, string | string[] | boolean | undefined>;
  if (v.help) return "help";
  if (typeof v.replay === "string") return replayOptions(v, v.replay);

  const int = (name: string, text: string | undefined, lo: number, hi: number): number | undefined => {
    if (text === undefined) return undefined;
    if (!/^-?\d+$/.test(text.trim())) throw new UsageError(`--${name} must be a whole number, got "${clip(text)}"`);
    const n = Number(text);
    if (!Number.isSafeInteger(n) || n < lo || n > hi) throw new UsageError(`--${name} must be from ${lo} to ${hi}, got ${clip(text)}`);
    return n;
  };

  let seeds: number[] | null = null;
  if (v.seed !== undefined && v.seeds !== undefined) throw new UsageError("give --seed or --seeds, not both");
  const seed = int("seed", v.seed as string | undefined, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  if (seed !== undefined) seeds = [seed];
  if (typeof v.seeds === "string") {
    const m = /^\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*$/.exec(v.seeds);
    if (!m) throw new UsageError(`--seeds takes a range like 1..500, got "${clip(v.seeds)}"`);
    const a = Number(m[1]);
    const b = Number(m[2]);
    if (b < a) throw new UsageError(`--seeds: ${b} is below ${a}`);
    if (b - a >= 1_000_000) throw new UsageError("--seeds: at most 1,000,000 seeds in one sweep");
    seeds = Array.from({ length: b - a + 1 }, (_, i) => a + i);
  }

  let durationUs: number | undefined;
  if (typeof v.duration === "string") {
    const d = parseDuration(v.duration);
    if (!d.ok) throw new UsageError(`--duration: ${d.error}`);
    if (d.us <= 0 || d.us > MAX_DURATION_US) throw new UsageError("--duration must be between 1µs and 24h");
    durationUs = d.us;
  }

  if (v.nemesis !== undefined && v.nemesis !== "random" && v.nemesis !== "none") {
    throw new UsageError(`--nemesis takes "random" or "none", got "${clip(String(v.nemesis))}"`);
  }

  if (v.check !== undefined && v.check !== "linearizability" && v.check !== "none") {
    throw new UsageError(`--check takes "linearizability" or "none", got "${clip(String(v.check))}"`);
  }
  // A sweep checks linearizability unless told not to: it is a standing invariant.
  const check = v.check === "linearizability" || (v.check === undefined && typeof v.seeds === "string");
  if (v["check-steps"] !== undefined && !check) throw new UsageError("--check-steps goes with --check linearizability");

  const files = (v.scenario as string[] | undefined) ?? [];
  const scenarios = files.map((file) => {
    const r = parseScenarioText(readInput("scenario", file, MAX_SCENARIO_FILE_BYTES));
    if (!r.ok) throw new UsageError(`scenario ${clip(file)} is not valid:\n  ${shownErrors(r.errors)}`);
    return { file, scenario: r.scenario };
  });
  const lessons = ((v.lesson as string[] | undefined) ?? []).map((file) => {
    const r = parseLessonText(readInput("lesson", file, MAX_SCENARIO_FILE_BYTES));
    if (!r.ok) throw new UsageError(`lesson ${clip(file)} is not valid:\n  ${shownErrors(r.errors)}`);
    return { file, lesson: r.lesson };
  });
  if (lessons.length > 0 && (scenarios.length > 0 || seeds !== null || v.trace !== undefined || v.history !== undefined || v.nemesis !== undefined || check)) {
    throw new UsageError("--lesson runs lessons as they are written: give it alone (with --json or --quiet)");
  }

  const opts: Options = {
    scenarios,
    lessons,
    seeds,
    nodes: int("nodes", v.nodes as string | undefined, 1, MAX_NODES),
    durationUs,
    clients: int("clients", v.clients as string | undefined, 0, 50) ?? 2,
    holders: int("holders", v.holders as string | undefined, 0, MAX_HOLDERS) ?? 3,
    nemesis: v.nemesis === "random",
    trace: v.trace as string | undefined,
    history: v.history as string | undefined,
    checkSteps: !check ? null : (int("check-steps", v["check-steps"] as string | undefined, 1, 1_000_000_000) ?? DEFAULT_MAX_STEPS),
    json: v.json === true,
    checkers: v["no-checkers"] !== true,
    quiet: v.quiet === true,
  };
  const runs = Math.max(1, scenarios.length) * (seeds?.length ?? 1);
  if (opts.trace !== undefined && runs > 1) throw new UsageError("--trace writes one run: give one scenario and one seed");
  if (opts.history !== undefined && runs > 1) throw new UsageError("--history writes one run: give one scenario and one seed");
  if (opts.trace !== undefined) checkWritable("--trace", opts.trace);
  if (opts.history !== undefined) checkWritable("--history", opts.history);
  return opts;
}

/** --replay FILE: the recording's settings are the run's, so only --json and --trace go with it. */
function replayOptions(v: Record<string, string | string[] | boolean | undefined>, file: string): ReplayOptions {
  const others = Object.keys(v).filter((k) => !["replay", "json", "trace", "help"].includes(k) && v[k] !== undefined && v[k] !== false);
  if (others.length > 0)
    throw new UsageError(`--replay replays the recording as it was made: give it alone, with --json or --trace (not --${others.join(", --")})`);
  const trace = v.trace as string | undefined;
  if (trace !== undefined) checkWritable("--trace", trace);
  return { file, json: v.json === true, trace };
}

/** The run used when no scenario file is given: clients writing, optionally the nemesis. */
function defaultScenario(o: Options): Scenario {
  const r = parseScenario({
    name: o.nemesis ? "random nemesis" : "default",
    duration: o.durationUs === undefined ? "10s" : `${o.durationUs}us`,
    clients: { count: o.clients, workload: "random" },
    holders: { count: o.holders },
    ...(o.nemesis ? { nemesis: { includeClients: true } } : {}),
    // After the nemesis's quiet period (the last quarter of the run) the cluster must have recovered.
    expect: [{ that: "leader-exists" }],
  });
  if (!r.ok) throw new Error(`internal: default scenario invalid: ${r.errors.join("; ")}`);
  return r.scenario;
}

function reproduce(file: string | null, seed: number, o: Options): string {
  const parts = ["npm run sim --"];
  if (file !== null) parts.push(`--scenario ${file}`);
  parts.push(`--seed ${seed}`);
  if (o.nodes !== undefined) parts.push(`--nodes ${o.nodes}`);
  if (o.durationUs !== undefined) parts.push(`--duration ${o.durationUs}us`);
  if (file === null && o.nemesis) parts.push("--nemesis random");
  if (file === null && o.clients !== 2) parts.push(`--clients ${o.clients}`);
  if (file === null && o.holders !== 3) parts.push(`--holders ${o.holders}`);
  // A reproduction runs one seed, where the check is off by default: name it.
  if (o.checkSteps !== null) parts.push(o.checkSteps === DEFAULT_MAX_STEPS ? "--check linearizability" : `--check linearizability --check-steps ${o.checkSteps}`);
  return parts.join(" ");
}

function shownErrors(errors: readonly string[]): string {
  const shown = errors.slice(0, 20).map((x) => clip(x, 300));
  if (errors.length > shown.length) shown.push(`... and ${errors.length - shown.length} more`);
  return shown.join("\n  ");
}

type FullResult = RunResult & {
  file: string | null;
  reproduce: string;
  brokeSafety: boolean;
  linearizability: LinResult | null;
  /** For a history that is not linearizable: the smallest set of operations found that is not either. */
  offending: HistoryOp[] | null;
};

/** One run of one scenario with one seed, checked; null when it cannot run (bad input, reported). */
function runJob(job: { file: string | null; scenario: Scenario }, seed: number, o: Options): FullResult | null {
  const trace = o.trace === undefined ? undefined : createWriteStream(o.trace);
  // --json reports every storage write, from the trace (the storage itself keeps only the latest).
  const storageLog: StorageLogEntry[] | null = o.json ? [] : null;
  const onTrace =
    trace === undefined && storageLog === null
      ? undefined
      : (e: TraceEvent) => {
          trace?.write(`${toNdjson(e)}\n`);
          if (storageLog !== null && e.kind === "storage") storageLog.push(storageEntry(e));
        };
  let r: RunResult;
  try {
    r = runScenario(job.scenario, {
      seed,
      ...(o.nodes !== undefined ? { nodes: o.nodes } : {}),
      ...(o.durationUs !== undefined ? { durationUs: o.durationUs } : {}),
      checkers: o.checkers,
      history: o.history !== undefined || o.checkSteps !== null,
      ...(onTrace !== undefined ? { onTrace } : {}),
    });
  } catch (e) {
    console.error(`sim: ${job.file ?? job.scenario.name} cannot run with seed ${seed}: ${clip((e as Error).message, 500)}`);
    return null;
  }
  trace?.end();
  if (o.history !== undefined && r.history !== null) writeFileSync(o.history, `${JSON.stringify(r.history, null, 1)}\n`);
  const ops = r.history?.operations ?? [];
  const lin = o.checkSteps === null || r.history === null ? null : checkLinearizability(ops, o.checkSteps, { leaseEndsRecorded: true });
  const bad = lin?.keys.find((k) => k.verdict === "violation");
  const notLinearizable = bad !== undefined;
  return {
    ...r,
    ...(storageLog !== null ? { storageLog } : {}),
    ok: r.ok && !notLinearizable,
    linearizability: lin,
    offending: bad === undefined ? null : smallestOffending(ops, bad, true),
    file: job.file,
    reproduce: reproduce(job.file, seed, o),
    brokeSafety: unexpected(job.scenario, r.violations).length > 0 || notLinearizable,
  };
}

function storageEntry(e: TraceEvent & { kind: "storage" }): StorageLogEntry {
  return {
    reqId: e.reqId,
    holder: e.holder,
    resource: e.resource,
    token: e.token,
    value: e.value,
    accepted: e.accepted,
    reason: e.accepted ? null : "stale-token",
    highestAfter: e.highest,
    atUs: e.atUs,
  };
}

function main(argv: string[]): number {
  let o: Options;
  try {
    const p = parseOptions(argv);
    if (p === "help") {
      console.log(USAGE);
      return 0;
    }
    if ("file" in p) return runReplay(p);
    o = p;
  } catch (e) {
    if (e instanceof UsageError) {
      console.error(`sim: ${e.message}\n\n${USAGE}`);
      return EXIT_BAD_INPUT;
    }
    throw e;
  }
  if (o.lessons.length > 0) return runLessonFiles(o.lessons, o.json, o.quiet) ? EXIT_OK : EXIT_FAILED;

  const jobs: { file: string | null; scenario: Scenario }[] =
    o.scenarios.length > 0 ? o.scenarios : [{ file: null, scenario: defaultScenario(o) }];
  const results: FullResult[] = [];
  const started = performance.now();

  for (const job of jobs) {
    for (const seed of o.seeds ?? [job.scenario.seed]) {
      const full = runJob(job, seed, o);
      if (full === null) return EXIT_BAD_INPUT;
      results.push(full);
      if (!o.json) printRun(full, o.quiet);
    }
  }

  const wallS = (performance.now() - started) / 1000;
  const violations = results.flatMap((r) => r.violations.map((v) => ({ ...v, scenario: r.name, reproduce: r.reproduce })));
  const failedExpectations = results.flatMap((r) =>
    r.expectations.filter((x) => !x.ok).map((x) => ({ seed: r.seed, scenario: r.name, ...x, reproduce: r.reproduce })),
  );
  const ok = results.every((r) => r.ok);
  if (o.json) {
    const doc = {
      ok,
      runs: results.map((r) => ({
        scenario: r.name,
        file: r.file,
        seed: r.seed,
        ok: r.ok,
        traceHash: r.traceHash,
        durationUs: r.durationUs,
        events: r.events,
        leader: r.leader,
        nodes: r.nodes,
        leases: r.leases,
        holders: r.holders,
        storageLog: r.storageLog,
        expectations: r.expectations,
        violations: r.violations,
        boundsBroken: r.boundsBroken,
        actionFailures: r.actionFailures,
        nemesisMix: r.nemesisMix,
        ...(r.linearizability !== null ? { linearizability: r.linearizability } : {}),
        ...(r.offending !== null ? { offending: r.offending } : {}),
      })),
      violations,
      failedExpectations,
      wallSeconds: Number(wallS.toFixed(3)),
    };
    process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
  } else {
    const simS = results.reduce((s, r) => s + r.durationUs, 0) / 1e6;
    console.log(
      `\n${results.length} run(s), ${results.filter((r) => !r.ok).length} failed, ${violations.length} violation(s)${linSummary(results)}; ` +
        `${simS.toFixed(1)} simulated s in ${wallS.toFixed(2)} s wall`,
    );
    for (const r of results.filter((x) => !x.ok).slice(0, 10)) console.log(`  reproduce: ${r.reproduce}`);
  }
  return ok ? EXIT_OK : results.some((r) => r.brokeSafety) ? EXIT_VIOLATION : EXIT_FAILED;
}

/** With --check: how many runs' histories were not linearizable, or could not be decided. */
function linSummary(results: readonly { linearizability: LinResult | null }[]): string {
  const checked = results.map((r) => r.linearizability).filter((x) => x !== null);
  if (checked.length === 0) return "";
  const bad = checked.filter((x) => x.verdict === "violation").length;
  const unknown = checked.filter((x) => x.verdict === "unknown").length;
  return `, ${bad} not linearizable${unknown > 0 ? `, ${unknown} unknown` : ""}`;
}

function printRun(r: FullResult, quiet: boolean): void {
  const head = `${r.ok ? "ok  " : "FAIL"} ${r.name} seed=${r.seed} hash=${r.traceHash} events=${r.events} leader=${r.leader ?? "-"}`;
  if (quiet && r.ok) return;
  console.log(head);
  if (r.nemesisMix !== null) console.log(`     nemesis: ${r.nemesisMix}`);
  for (const x of r.expectations) if (!x.ok || !quiet) console.log(`     ${x.ok ? "pass" : "FAIL"} ${x.description} (${x.detail})`);
  for (const v of r.violations)
    console.log(`     VIOLATION ${v.invariant} at ${formatInstant(v.time)} [${v.nodes.join(", ")}]: ${v.detail}`);
  for (const b of r.boundsBroken)
    console.log(`     bound broken (${b.bound}) at ${formatInstant(b.time)} [${b.nodes.join(", ")}]: ${b.detail}`);
  for (const f of r.actionFailures) console.log(`     action ${f.action.type} at ${formatInstant(f.time)} skipped: ${f.error}`);
  const lin = r.linearizability;
  if (lin !== null && (!quiet || lin.verdict !== "ok")) for (const line of describeLinResult(lin)) console.log(`     ${line}`);
  if (r.offending !== null) {
    console.log(`     seed ${r.seed}: the smallest set of operations found that no order fits (${r.offending.length}):`);
    for (const op of r.offending) console.log(`       ${describeOp(op)}`);
  }
  if (!r.ok) console.log(`     reproduce: ${r.reproduce}`);
}

process.exitCode = main(process.argv.slice(2));
