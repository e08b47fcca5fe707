/**
 * The scenario file format (documented in docs/scenarios.md): settings, a seed,
 * timed actions and expectations. Validated with zod; every error names the field.
 */
import { z } from "zod";
import { MAX_CLIENTS, MAX_HOLDERS, MAX_NODES, MIN_THINK_TIME_MS } from "../sim/config";
import { ALL_FAULTS } from "../sim/nemesis";
import { clip } from "../sim/time";
import { actionSchema } from "./actions";
import { at, duration, ms, procRef, rate } from "./fields";

/** The nemesis may not act more often than this (µs): a storm of faults every microsecond only burns time. */
const MIN_NEMESIS_INTERVAL_US = 1000;
const nemesisInterval = duration.pipe(z.number().min(MIN_NEMESIS_INTERVAL_US, 'the nemesis acts at most once a millisecond (at least "1ms")'));

const action = actionSchema;

/**
 * When an expectation is checked: `at` (default: the end of the run); with `within`, it must
 * come true at some moment from `at` to `at + within` (checked every 10 ms), as 6.824's
 * checkOneLeader and one() wait for a leader or a commit.
 */
const when = { at: duration.optional(), within: duration.optional() };

const expectation = z.discriminatedUnion("that", [
  z.strictObject({ ...when, that: z.literal("leader-exists") }),
  z.strictObject({ ...when, that: z.literal("no-leader") }),
  z.strictObject({ ...when, that: z.literal("leader-count"), count: z.number().int().min(0).max(MAX_NODES), connected: z.boolean().optional() }),
  z.strictObject({ ...when, that: z.literal("leader-is"), node: procRef }),
  z.strictObject({ ...when, that: z.literal("leader-is-not"), node: procRef }),
  z.strictObject({ ...when, that: z.literal("term-at-least"), term: z.number().int().min(0) }),
  /** Every running node is in the same term. */
  z.strictObject({ ...when, that: z.literal("terms-agree") }),
  /**
   * With `index`: every running node that holds that entry holds the same one (term and
   * command). Without: every running node's log ends at the same index, and the entries they
   * all still hold (not compacted away) are the same.
   */
  z.strictObject({ ...when, that: z.literal("logs-agree"), index: z.number().int().min(1).optional() }),
  /**
   * How many messages of a type (AppendEntries, RequestVote, TimeoutNow, InstallSnapshot,
   * ClientWrite, LeaseRefresh, StorageWrite, ... as in docs/trace.md) were sent since `since`
   * (default: the start), and how many bytes (their JSON length) at most.
   */
  z.strictObject({
    ...when,
    that: z.literal("messages"),
    type: z.string().min(1),
    since: duration.optional(),
    atLeast: z.number().int().min(0).optional(),
    atMost: z.number().int().min(0).optional(),
    bytesAtMost: z.number().int().min(0).optional(),
  }),
  /** The leader's configuration has exactly these voters (any order). */
  z.strictObject({ ...when, that: z.literal("members"), nodes: z.array(z.string().min(1)).min(1).max(MAX_NODES) }),
  z.strictObject({ ...when, that: z.literal("term-at-most"), term: z.number().int().min(0) }),
  z.strictObject({
    ...when,
    that: z.literal("committed"),
    key: z.string().min(1),
    value: z.string().optional(),
    onNodes: z.number().int().min(1).max(MAX_NODES).optional(),
  }),
  z.strictObject({ ...when, that: z.literal("not-committed"), key: z.string().min(1) }),
  z.strictObject({
    ...when,
    that: z.literal("commit-index-at-least"),
    index: z.number().int().min(0),
    onNodes: z.number().int().min(1).optional(),
  }),
  z.strictObject({
    ...when,
    that: z.literal("client-acknowledged"),
    client: procRef.default("c1"),
    count: z.number().int().min(0),
  }),
  z.strictObject({
    ...when,
    that: z.literal("lease-held"),
    name: z.string().min(1),
    by: procRef.optional(),
    onNodes: z.number().int().min(1).max(MAX_NODES).optional(),
  }),
  z.strictObject({ ...when, that: z.literal("lease-not-held"), name: z.string().min(1) }),
  z.strictObject({
    ...when,
    that: z.literal("lease-token-at-least"),
    name: z.string().min(1),
    token: z.number().int().min(0),
  }),
  z.strictObject({
    ...when,
    that: z.literal("lease-transitions"),
    name: z.string().min(1),
    count: z.number().int().min(0),
  }),
  z.strictObject({ ...when, that: z.literal("holder-state"), holder: procRef, state: z.string().min(1) }),
  z.strictObject({ ...when, that: z.literal("holder-was-in"), holder: procRef, state: z.string().min(1) }),
  z.strictObject({ ...when, that: z.literal("holder-never-in"), holder: procRef, state: z.string().min(1) }),
  z
    .strictObject({
      ...when,
      that: z.literal("storage-writes"),
      accepted: z.boolean(),
      holder: procRef.optional(),
      atLeast: z.number().int().min(0).optional(),
      atMost: z.number().int().min(0).optional(),
    })
    // Without either bound it would check nothing and always pass.
    .refine((e) => e.atLeast !== undefined || e.atMost !== undefined, "storage-writes needs atLeast or atMost (or both)"),
  z.strictObject({ ...when, that: z.literal("violation"), invariant: z.string().min(1) }),
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
