/**
 * The scenario file format (documented in docs/scenarios.md): settings, a seed,
 * timed actions and expectations. Validated with zod; every error names the field.
 */
import { z } from "zod";
import { MAX_CLOCK_JUMP_US } from "../sim/clock";
import { MAX_CLIENTS, MAX_HOLDERS, MAX_NODES, MIN_THINK_TIME_MS } from "../sim/config";
import { ALL_FAULTS } from "../sim/nemesis";
import { clip, MAX_DURATION_US, parseDuration } from "../sim/time";

/** "250ms", "1.5s", "2m" or a number of milliseconds; becomes microseconds. Never negative, at most 24 h (MAX_DURATION_US). */
const duration = z.union([z.string(), z.number()]).transform((v, ctx) => {
  // "-0.001us" rounds to -0: refuse the sign itself, not only a negative result.
  if ((typeof v === "string" && v.trim().startsWith("-")) || (typeof v === "number" && (v < 0 || Object.is(v, -0)))) {
    ctx.addIssue({ code: "custom", message: `durations cannot be negative (got ${clip(JSON.stringify(v))})` });
    return z.NEVER;
  }
  const r = parseDuration(v);
  if (!r.ok) {
    ctx.addIssue({ code: "custom", message: r.error });
    return z.NEVER;
  }
  if (r.us > MAX_DURATION_US) {
    ctx.addIssue({ code: "custom", message: `durations are at most 24h (got ${clip(JSON.stringify(v))})` });
    return z.NEVER;
  }
  return r.us;
});

/** Like duration, but may be negative (clock jumps): within ±24 h (MAX_CLOCK_JUMP_US). */
const signedDuration = z.union([z.string(), z.number()]).transform((v, ctx) => {
  const r = parseDuration(v);
  if (!r.ok) {
    ctx.addIssue({ code: "custom", message: r.error });
    return z.NEVER;
  }
  if (Math.abs(r.us) > MAX_CLOCK_JUMP_US) {
    ctx.addIssue({ code: "custom", message: `a clock jump is at most 24h either way (got ${clip(JSON.stringify(v))})` });
    return z.NEVER;
  }
  return r.us;
});

const procRef = z.string().min(1, "name a process: n1..n9, c1.., or leader / follower / any-node / any-client");
const rate = z.number().min(0).max(1);
const ms = z.number().min(0).max(600_000);

const at = { at: duration };

/** The nemesis may not act more often than this (µs): a storm of faults every microsecond only burns time. */
const MIN_NEMESIS_INTERVAL_US = 1000;
const nemesisInterval = duration.pipe(z.number().min(MIN_NEMESIS_INTERVAL_US, 'the nemesis acts at most once a millisecond (at least "1ms")'));

const action = z.discriminatedUnion("do", [
  z.strictObject({ ...at, do: z.literal("crash"), node: procRef }),
  z.strictObject({ ...at, do: z.literal("restart"), node: procRef }),
  z.strictObject({ ...at, do: z.literal("pause"), node: procRef, for: duration }),
  z.strictObject({ ...at, do: z.literal("resume"), node: procRef }),
  z.strictObject({
    ...at,
    do: z.literal("partition"),
    groups: z.array(z.array(procRef).min(1)).min(2, "a partition needs at least two groups"),
  }),
  z.strictObject({ ...at, do: z.literal("heal") }),
  z.strictObject({ ...at, do: z.literal("cut"), from: procRef, to: procRef }),
  z.strictObject({ ...at, do: z.literal("drift"), node: procRef, ppm: z.number().int().min(-500_000).max(500_000) }),
  z.strictObject({ ...at, do: z.literal("clock-jump"), node: procRef, by: signedDuration }),
  z.strictObject({
    ...at,
    do: z.literal("network"),
    dropRate: rate.optional(),
    duplicateRate: rate.optional(),
    latencyMinMs: ms.optional(),
    latencyMaxMs: ms.optional(),
  }),
  z.strictObject({
    ...at,
    do: z.literal("propose"),
    client: procRef.default("c1"),
    op: z.enum(["put", "append", "delete"]).default("put"),
    key: z.string().min(1),
    value: z.string().default(""),
  }),
  z.strictObject({ ...at, do: z.literal("read"), client: procRef.default("c1"), key: z.string().min(1) }),
  /** A client asks for a lease's time to live and attached keys (with `name`), or for the list of leases. */
  z.strictObject({ ...at, do: z.literal("lease-query"), client: procRef.default("c1"), name: z.string().min(1).optional() }),
  z.strictObject({ ...at, do: z.literal("timeout"), node: procRef }),
  /** The leader hands leadership to `to` (a node id, or "follower" / "any-node"). */
  z.strictObject({ ...at, do: z.literal("transfer-leadership"), to: procRef }),
  /** The leader adds a server (a spare, or one removed before) to the configuration, or removes one. */
  z.strictObject({ ...at, do: z.literal("add-node"), node: procRef }),
  z.strictObject({ ...at, do: z.literal("remove-node"), node: procRef }),
  z.strictObject({ ...at, do: z.literal("release"), holder: procRef }),
  z.strictObject({ ...at, do: z.literal("gc-pause"), holder: procRef, for: duration }),
  z.strictObject({ ...at, do: z.literal("fencing"), on: z.boolean() }),
  z.strictObject({ ...at, do: z.literal("note"), text: z.string() }),
  /** Drops one message in flight, by its id (ids are deterministic: the same run numbers its messages the same way). */
  z.strictObject({ ...at, do: z.literal("drop-message"), id: z.number().int().min(0) }),
]);

const expectation = z.discriminatedUnion("that", [
  z.strictObject({ at: duration.optional(), that: z.literal("leader-exists") }),
  z.strictObject({ at: duration.optional(), that: z.literal("no-leader") }),
  z.strictObject({ at: duration.optional(), that: z.literal("leader-count"), count: z.number().int().min(0).max(MAX_NODES) }),
  z.strictObject({ at: duration.optional(), that: z.literal("leader-is"), node: procRef }),
  z.strictObject({ at: duration.optional(), that: z.literal("leader-is-not"), node: procRef }),
  z.strictObject({ at: duration.optional(), that: z.literal("term-at-least"), term: z.number().int().min(0) }),
  /** The leader's configuration has exactly these voters (any order). */
  z.strictObject({ at: duration.optional(), that: z.literal("members"), nodes: z.array(z.string().min(1)).min(1).max(MAX_NODES) }),
  z.strictObject({ at: duration.optional(), that: z.literal("term-at-most"), term: z.number().int().min(0) }),
  z.strictObject({
    at: duration.optional(),
    that: z.literal("committed"),
    key: z.string().min(1),
    value: z.string().optional(),
    onNodes: z.number().int().min(1).max(MAX_NODES).optional(),
  }),
  z.strictObject({ at: duration.optional(), that: z.literal("not-committed"), key: z.string().min(1) }),
  z.strictObject({
    at: duration.optional(),
    that: z.literal("commit-index-at-least"),
    index: z.number().int().min(0),
    onNodes: z.number().int().min(1).optional(),
  }),
  z.strictObject({
    at: duration.optional(),
    that: z.literal("client-acknowledged"),
    client: procRef.default("c1"),
    count: z.number().int().min(0),
  }),
  z.strictObject({
    at: duration.optional(),
    that: z.literal("lease-held"),
    name: z.string().min(1),
    by: procRef.optional(),
    onNodes: z.number().int().min(1).max(MAX_NODES).optional(),
  }),
  z.strictObject({ at: duration.optional(), that: z.literal("lease-not-held"), name: z.string().min(1) }),
  z.strictObject({
    at: duration.optional(),
    that: z.literal("lease-token-at-least"),
    name: z.string().min(1),
    token: z.number().int().min(0),
  }),
  z.strictObject({
    at: duration.optional(),
    that: z.literal("lease-transitions"),
    name: z.string().min(1),
    count: z.number().int().min(0),
  }),
  z.strictObject({ at: duration.optional(), that: z.literal("holder-state"), holder: procRef, state: z.string().min(1) }),
  z.strictObject({ at: duration.optional(), that: z.literal("holder-was-in"), holder: procRef, state: z.string().min(1) }),
  z.strictObject({ at: duration.optional(), that: z.literal("holder-never-in"), holder: procRef, state: z.string().min(1) }),
  z
    .strictObject({
      at: duration.optional(),
      that: z.literal("storage-writes"),
      accepted: z.boolean(),
      holder: procRef.optional(),
      atLeast: z.number().int().min(0).optional(),
      atMost: z.number().int().min(0).optional(),
    })
    // Without either bound it would check nothing and always pass.
    .refine((e) => e.atLeast !== undefined || e.atMost !== undefined, "storage-writes needs atLeast or atMost (or both)"),
  z.strictObject({ at: duration.optional(), that: z.literal("violation"), invariant: z.string().min(1) }),
]);

/** Bounds on a scenario's lists: a link with 20,000 actions never opened (docs/scenarios.md). */
export const MAX_ACTIONS = 1000;
export const MAX_EXPECTATIONS = 1000;

export const scenarioSchema = z.strictObject({
  $schema: z.string().optional(),
  version: z.literal(1).default(1),
  name: z.string().min(1).default("untitled"),
  description: z.string().default(""),
  seed: z.number().int().refine(Number.isSafeInteger, "seed must be a safe integer").default(1),
  duration: duration.default(10_000_000),
  cluster: z
    .strictObject({
      nodes: z.number().int().min(1).max(MAX_NODES).optional(),
      /** Spare servers, outside the first configuration, for add-node (dissertation 4). */
      spares: z.number().int().min(0).max(MAX_NODES - 1).optional(),
      electionTimeoutMinMs: ms.optional(),
      electionTimeoutMaxMs: ms.optional(),
      heartbeatIntervalMs: ms.optional(),
      preVote: z.boolean().optional(),
      checkQuorum: z.boolean().optional(),
      maxEntriesPerAppend: z.number().int().min(1).max(10_000).optional(),
      snapshotEveryEntries: z.number().int().min(0).max(1_000_000).optional(),
      snapshotKeepEntries: z.number().int().min(0).max(1_000_000).optional(),
    })
    .default({}),
  network: z
    .strictObject({ latencyMinMs: ms.optional(), latencyMaxMs: ms.optional(), dropRate: rate.optional(), duplicateRate: rate.optional() })
    .default({}),
  clients: z
    .strictObject({
      count: z.number().int().min(0).max(MAX_CLIENTS).optional(),
      workload: z.enum(["none", "random"]).optional(),
      keys: z.number().int().min(1).max(1000).optional(),
      readFraction: rate.optional(),
      thinkTimeMinMs: z
        .number()
        .min(MIN_THINK_TIME_MS, `clients think at least ${MIN_THINK_TIME_MS} ms between operations, or with no latency time never moves`)
        .max(600_000)
        .optional(),
      thinkTimeMaxMs: ms.optional(),
      requestTimeoutMs: ms.optional(),
      retryBackoffMs: ms.optional(),
      maxAttempts: z.number().int().min(1).optional(),
    })
    .default({}),
  lease: z
    .strictObject({
      minTtlMs: ms.optional(),
      expiryCheckIntervalMs: ms.optional(),
      expirySlackFactor: z.number().min(1).max(10).optional(),
      lockDelayMs: ms.optional(),
      checkpoint: z.boolean().optional(),
      checkpointIntervalMs: ms.optional(),
      leaderChangeExtensionMs: ms.optional(),
      poolSize: z.number().int().min(0).max(10_000).optional(),
      poolShortenAt: rate.optional(),
      poolShortTtlMs: ms.optional(),
      poolDenyRenewalsWhenFull: z.boolean().optional(),
    })
    .default({}),
  holders: z
    .strictObject({
      count: z.number().int().min(0).max(MAX_HOLDERS).optional(),
      /** Renewal presets from the seeds: etcd renews at 1/3 of the TTL; DHCP at 1/2 (T1) and rebinds at 7/8 (T2). */
      preset: z.enum(["etcd", "dhcp"]).optional(),
      leaseNames: z.array(z.string().min(1).max(64)).min(1).optional(),
      ttlMs: ms.optional(),
      renewFraction: z.number().min(0.01).max(0.99).optional(),
      rebindFraction: z.number().min(0).max(0.99).optional(),
      renewJitter: z.number().min(0).max(0.5).optional(),
      driftMarginPpm: z.number().int().min(0).max(500_000).optional(),
      gracePeriodMs: ms.optional(),
      requestTimeoutMs: ms.optional(),
      retryBackoffMinMs: ms.optional(),
      retryBackoffMaxMs: ms.optional(),
      acquireRetryMs: ms.optional(),
      workIntervalMs: ms.optional(),
      workGapMs: ms.optional(),
      holdForMs: ms.optional(),
      startAfterMs: ms.optional(),
      startStaggerMs: ms.optional(),
      registerKey: z.boolean().optional(),
    })
    .default({}),
  storage: z.strictObject({ fencing: z.boolean().optional() }).default({}),
  nemesis: z
    .strictObject({
      /** The kinds of fault, pinned (equally likely). Left out: swarm, each run draws its own mix from its seed. */
      faults: z
        .array(z.enum(ALL_FAULTS as [string, ...string[]]))
        .min(1)
        .optional(),
      intervalMin: nemesisInterval.default(200_000),
      intervalMax: nemesisInterval.default(1_000_000),
      quietAfter: duration.optional(),
      includeClients: z.boolean().default(false),
    })
    .optional(),
  actions: z.array(action).max(MAX_ACTIONS, `a scenario has at most ${MAX_ACTIONS} actions`).default([]),
  expect: z.array(expectation).max(MAX_EXPECTATIONS, `a scenario has at most ${MAX_EXPECTATIONS} expectations`).default([]),
  /** How the browser shows the run (the CLI ignores it): the speed and where the time cursor stands. */
  ui: z
    .strictObject({
      speed: z.number().positive().max(1000).optional(),
      at: duration.optional(),
    })
    .optional(),
});

export type Scenario = z.output<typeof scenarioSchema>;
export type ScenarioAction = Scenario["actions"][number];
export type Expectation = Scenario["expect"][number];

export type ParseResult = { ok: true; scenario: Scenario } | { ok: false; errors: string[] };

/** At most this many schema errors are reported (a file of 1,000 bad actions need not print 1,000). */
const MAX_ERRORS = 50;

/** Validates parsed JSON (or any value). Errors read like "actions[2].node: ...". */
export function parseScenario(input: unknown): ParseResult {
  const r = scenarioSchema.safeParse(input);
  if (!r.success) {
    return {
      ok: false,
      // Clipped: an unknown key or a bad value may be megabytes long, and messages may echo it.
      errors: r.error.issues.slice(0, MAX_ERRORS).map((i) => `${clip(formatPath(i.path) || "scenario")}: ${clip(i.message, 200)}`),
    };
  }
  const s = r.data;
  const errors: string[] = [];
  s.actions.forEach((a, i) => {
    if (a.at > s.duration) errors.push(`actions[${i}].at: ${a.at / 1000}ms is after the end of the run (${s.duration / 1000}ms)`);
  });
  s.expect.forEach((e, i) => {
    if (e.at !== undefined && e.at > s.duration)
      errors.push(`expect[${i}].at: ${e.at / 1000}ms is after the end of the run (${s.duration / 1000}ms)`);
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, scenario: s };
}

/** Parses scenario text (JSON). */
export function parseScenarioText(text: string): ParseResult {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { ok: false, errors: [`not valid JSON: ${clip((e as Error).message, 200)}`] };
  }
  return parseScenario(json);
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const p of path) out += typeof p === "number" ? `[${p}]` : out === "" ? String(p) : `.${String(p)}`;
  return out;
}
