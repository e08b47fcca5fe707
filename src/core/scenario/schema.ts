/**
 * The scenario file format (documented in docs/scenarios.md): settings, a seed,
 * timed actions and expectations. Validated with zod; every error names the field.
 */
import { z } from "zod/mini";
import { MAX_NODES } from "../sim/config";
import { byMessageType, latencyRange, SETTING_SCHEMAS, TOP_SCHEMAS } from "../sim/configSchema";
import { ALL_FAULTS } from "../sim/nemesis";
import { clip } from "../sim/time";
import { fileForms } from "./actions";
import { at, duration, procRef, signedDuration } from "./fields";
import { LEASE_DENIALS, REFRESH_DENIALS } from "../lease/types";
import { TRACKER_EVENTS } from "./observer";

/** The nemesis may not act more often than this (µs): a storm of faults every microsecond only burns time. */
const MIN_NEMESIS_INTERVAL_US = 1000;
const nemesisInterval = z.pipe(
  duration,
  z.number().check(z.minimum(MIN_NEMESIS_INTERVAL_US, 'the nemesis acts at most once a millisecond (at least "1ms")')),
);

/** Every action's file forms, made with zod and the file's field types. */
export const actionSchema = fileForms({
  z: {
    _default: z._default,
    array: z.array,
    boolean: z.boolean,
    discriminatedUnion: z.discriminatedUnion,
    enum: z.enum,
    int: z.int,
    literal: z.literal,
    maximum: z.maximum,
    maxLength: z.maxLength,
    minimum: z.minimum,
    minLength: z.minLength,
    nullable: z.nullable,
    number: z.number,
    optional: z.optional,
    refine: z.refine,
    strictObject: z.strictObject,
    string: z.string,
  },
  at,
  duration,
  procRef,
  signedDuration,
  NET: SETTING_SCHEMAS.network,
  byMessageType,
  latencyRange,
});
const action = actionSchema;

/**
 * When an expectation is checked: `at` (default: the end of the run); with `within`, it must
 * come true at some moment from `at` to `at + within` (checked every 10 ms), as 6.824's
 * checkOneLeader and one() wait for a leader or a commit.
 */
const when = { at: z.optional(duration), within: z.optional(duration) };

/**
 * From when an expectation counts what happened: a time, or (in a lesson's conditions only)
 * "step", the moment the current step began.
 */
const since = z.optional(z.union([z.literal("step"), duration]));

/** A count's bounds; with neither, "at least one". */
const countBounds = { atLeast: z.optional(z.number().check(z.int(), z.minimum(0))), atMost: z.optional(z.number().check(z.int(), z.minimum(0))) };

/** Why the lease service refuses: a grant denied, or a refresh turned down. */
export const REFUSAL_REASONS = [...LEASE_DENIALS, ...REFRESH_DENIALS] as const;

export const expectationSchema = z.discriminatedUnion("that", [
  z.strictObject({ ...when, that: z.literal("leader-exists") }),
  z.strictObject({ ...when, that: z.literal("no-leader") }),
  z.strictObject({ ...when, that: z.literal("leader-count"), count: z.number().check(z.int(), z.minimum(0), z.maximum(MAX_NODES)), connected: z.optional(z.boolean()) }),
  z.strictObject({ ...when, that: z.literal("leader-is"), node: procRef }),
  z.strictObject({ ...when, that: z.literal("leader-is-not"), node: procRef }),
  z.strictObject({ ...when, that: z.literal("term-at-least"), term: z.number().check(z.int(), z.minimum(0)) }),
  /** Every running node is in the same term. */
  z.strictObject({ ...when, that: z.literal("terms-agree") }),
  /**
   * With `index`: every running node that holds that entry holds the same one (term and
   * command). Without: every running node's log ends at the same index, and the entries they
   * all still hold (not compacted away) are the same.
   */
  z.strictObject({ ...when, that: z.literal("logs-agree"), index: z.optional(z.number().check(z.int(), z.minimum(1))) }),
  /**
   * How many messages of a type (AppendEntries, RequestVote, TimeoutNow, InstallSnapshot,
   * ClientWrite, LeaseRefresh, StorageWrite, ... as in docs/trace.md) were sent since `since`
   * (default: the start), by `from` to `to` (default: anyone), and how many bytes (their JSON
   * length) at most. With `atOnce`, the count is the most sent at one virtual instant: "h1 sent
   * a LeaseRefresh to every server at once" (5 at once) rather than five one after another.
   */
  z.strictObject({
    ...when,
    that: z.literal("messages"),
    type: z.string().check(z.minLength(1)),
    since,
    from: z.optional(procRef),
    to: z.optional(procRef),
    atLeast: z.optional(z.number().check(z.int(), z.minimum(0))),
    atMost: z.optional(z.number().check(z.int(), z.minimum(0))),
    bytesAtMost: z.optional(z.number().check(z.int(), z.minimum(0))),
    atOnce: z.optional(z.boolean()),
  }),
  /** The leader's configuration has exactly these voters (any order). */
  z.strictObject({ ...when, that: z.literal("members"), nodes: z.array(z.string().check(z.minLength(1))).check(z.minLength(1), z.maxLength(MAX_NODES)) }),
  z.strictObject({ ...when, that: z.literal("term-at-most"), term: z.number().check(z.int(), z.minimum(0)) }),
  z.strictObject({
    ...when,
    that: z.literal("committed"),
    key: z.string().check(z.minLength(1)),
    value: z.optional(z.string()),
    onNodes: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(MAX_NODES))),
  }),
  z.strictObject({ ...when, that: z.literal("not-committed"), key: z.string().check(z.minLength(1)) }),
  z.strictObject({
    ...when,
    that: z.literal("commit-index-at-least"),
    index: z.number().check(z.int(), z.minimum(0)),
    onNodes: z.optional(z.number().check(z.int(), z.minimum(1))),
  }),
  z.strictObject({
    ...when,
    that: z.literal("client-acknowledged"),
    client: z._default(procRef, "c1"),
    count: z.number().check(z.int(), z.minimum(0)),
  }),
  z.strictObject({
    ...when,
    that: z.literal("lease-held"),
    name: z.string().check(z.minLength(1)),
    by: z.optional(procRef),
    onNodes: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(MAX_NODES))),
  }),
  z.strictObject({ ...when, that: z.literal("lease-not-held"), name: z.string().check(z.minLength(1)) }),
  z.strictObject({
    ...when,
    that: z.literal("lease-token-at-least"),
    name: z.string().check(z.minLength(1)),
    token: z.number().check(z.int(), z.minimum(0)),
  }),
  z.strictObject({
    ...when,
    that: z.literal("lease-transitions"),
    name: z.string().check(z.minLength(1)),
    count: z.number().check(z.int(), z.minimum(0)),
  }),
  z.strictObject({ ...when, that: z.literal("holder-state"), holder: procRef, state: z.string().check(z.minLength(1)) }),
  z.strictObject({ ...when, that: z.literal("holder-was-in"), holder: procRef, state: z.string().check(z.minLength(1)) }),
  z.strictObject({ ...when, that: z.literal("holder-never-in"), holder: procRef, state: z.string().check(z.minLength(1)) }),
  z
    .strictObject({
      ...when,
      that: z.literal("storage-writes"),
      accepted: z.boolean(),
      holder: z.optional(procRef),
      atLeast: z.optional(z.number().check(z.int(), z.minimum(0))),
      atMost: z.optional(z.number().check(z.int(), z.minimum(0))),
    })
    // Without either bound it would check nothing and always pass.
    .check(z.refine((e) => e.atLeast !== undefined || e.atMost !== undefined, "storage-writes needs atLeast or atMost (or both)")),
  z.strictObject({ ...when, that: z.literal("violation"), invariant: z.string().check(z.minLength(1)) }),
  /**
   * The TTL the service granted the lease's current (or last) holding, as the most recent
   * grant applied on any node records it: the holder's asked-for TTL, raised to minTtlMs, or
   * shortened by a pool running short.
   */
  z
    .strictObject({ ...when, that: z.literal("lease-ttl"), name: z.string().check(z.minLength(1)), atLeast: z.optional(duration), atMost: z.optional(duration) })
    .check(z.refine((e) => e.atLeast !== undefined || e.atMost !== undefined, "lease-ttl needs atLeast or atMost (or both)")),
  /**
   * The lease service refused a holder (any, or `holder`), for `reason`, since `since`: a
   * grant denied (held, lock-delay, pool-exhausted) or a refresh turned down (not-leader,
   * unknown-lease, expired, pool-short), as the answer was sent. Without bounds: at least once.
   */
  z.strictObject({
    ...when,
    that: z.literal("refused"),
    reason: z.enum(REFUSAL_REASONS),
    holder: z.optional(procRef),
    name: z.optional(z.string().check(z.minLength(1))),
    since,
    ...countBounds,
  }),
  /**
   * The leader's lease tracker reported `event` (for lease `name`, or any) since `since`:
   * timed (a new grant), refresh, refresh-denied, expiring (it proposed an Expire), extended
   * (a new leader gave a lease a fresh TTL). Without bounds: at least once.
   */
  z.strictObject({ ...when, that: z.literal("lease-event"), event: z.enum(TRACKER_EVENTS), name: z.optional(z.string().check(z.minLength(1))), since, ...countBounds }),
  /**
   * The lease checker found a broken clock bound (a clock ran faster against a holder's than
   * the holders' drift margin allows, and a holder outlived its lease by it), involving `node`
   * (a node or a holder) if given.
   */
  z.strictObject({ ...when, that: z.literal("clock-bound-broken"), node: z.optional(procRef) }),
  /**
   * The key-value clients' history so far is linearizable (the checker in core/lin), or with
   * `holds: false`, it is not: the checker finds an answer no order of the operations explains
   * (a stale read). An "unknown" verdict (the search ran out of steps) fails either way.
   */
  z.strictObject({ ...when, that: z.literal("linearizable"), holds: z._default(z.boolean(), true) }),
  /**
   * Reads served under a lease since `since`: `local` (at a follower holding a read lease),
   * `leader-lease` (by the leader, no heartbeat round), or either; at `node` if given.
   * Without bounds: at least one.
   */
  z.strictObject({
    ...when,
    that: z.literal("reads-served"),
    via: z._default(z.enum(["local", "leader-lease", "any"]), "any"),
    node: z.optional(procRef),
    since,
    ...countBounds,
  }),
  /**
   * The slowest completed (ok) operation of this kind (get, put, append, ...), by `client` if
   * given, called since `since`: its time from call to answer is within the bounds.
   */
  z
    .strictObject({
      ...when,
      that: z.literal("slowest-operation"),
      operation: z.string().check(z.minLength(1)),
      client: z.optional(procRef),
      since,
      atLeast: z.optional(duration),
      atMost: z.optional(duration),
    })
    .check(z.refine((e) => e.atLeast !== undefined || e.atMost !== undefined, "slowest-operation needs atLeast or atMost (or both)")),
  /**
   * Database replicas (holders.replicas): how many times two replicas, one of them `holder` if
   * given, were primary accepting writes at the same instant (the two-primaries checker, one
   * finding per pair). Without bounds: at least once; `"atMost": 0` says it never happened.
   */
  z.strictObject({ ...when, that: z.literal("two-primaries"), holder: z.optional(procRef), ...countBounds }),
  /** Database replicas: `holder` is the primary now (it holds the lease and takes the writes). */
  z.strictObject({ ...when, that: z.literal("primary-is"), holder: procRef }),
]);

/** Bounds on a scenario's lists: a link with 20,000 actions never opened (docs/scenarios.md). */
export const MAX_ACTIONS = 1000;
export const MAX_EXPECTATIONS = 1000;

/** A section of the settings as a file sets it: each field optional, without its default. */
function fileSection<T extends Record<string, z.ZodMiniDefault<z.ZodMiniType>>>(fields: T) {
  const shape = Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, z.optional(f._zod.def.innerType)]));
  return z.strictObject(shape as { [K in keyof T]: z.ZodMiniOptional<T[K]["_zod"]["def"]["innerType"]> });
}

/** The scenario format this Lease Lab reads and writes (`version` in a file; a file without one is version 1). */
export const SCENARIO_VERSION = 1;

/**
 * Why a file's version cannot be read (a scenario's, a recording's): a newer format, or not
 * a version at all.
 */
export function versionProblem(kind: string, reads: number, v: unknown): string {
  if (typeof v === "number" && Number.isInteger(v) && v > reads)
    return `this ${kind} is in format version ${v}, and this Lease Lab reads version ${reads}: it comes from a newer Lease Lab. Open it there, or update this one`;
  return `must be ${reads}, the ${kind} format this Lease Lab reads (got ${clip(JSON.stringify(v) ?? String(v))})`;
}

export const scenarioSchema = z.strictObject({
  $schema: z.optional(z.string()),
  version: z._default(z.literal(SCENARIO_VERSION, { error: (iss) => versionProblem("scenario", SCENARIO_VERSION, iss.input) }), SCENARIO_VERSION),
  name: z._default(z.string().check(z.minLength(1)), "untitled"),
  description: z._default(z.string(), ""),
  seed: TOP_SCHEMAS.seed,
  duration: z._default(duration, 10_000_000),
  // The settings' sections, derived from their one declaration (sim/config.ts): every field
  // optional, with the same type and range; what a file leaves out keeps its default.
  cluster: z._default(fileSection({ ...SETTING_SCHEMAS.raft, nodes: TOP_SCHEMAS.nodes, spares: TOP_SCHEMAS.spares }), {}),
  network: z._default(fileSection(SETTING_SCHEMAS.network), {}),
  clients: z._default(fileSection(SETTING_SCHEMAS.clients), {}),
  lease: z._default(fileSection(SETTING_SCHEMAS.lease), {}),
  holders: z._default(
    z.extend(fileSection(SETTING_SCHEMAS.holders), {
      /**
       * Presets from the seeds: etcd renews at 1/3 of the TTL; DHCP at 1/2 (T1) and rebinds at
       * 7/8 (T2); primary makes the holders database replicas (WSFC, docs/failover.md).
       */
      preset: z.optional(z.enum(["etcd", "dhcp", "primary"])),
    }),
    {},
  ),
  storage: z._default(fileSection(SETTING_SCHEMAS.storage), {}),
  nemesis: z.optional(
    z.strictObject({
      /** The kinds of fault, pinned (equally likely). Left out: swarm, each run draws its own mix from its seed. */
      faults: z.optional(z.array(z.enum(ALL_FAULTS as [string, ...string[]])).check(z.minLength(1))),
      intervalMin: z._default(nemesisInterval, 200_000),
      intervalMax: z._default(nemesisInterval, 1_000_000),
      quietAfter: z.optional(duration),
      includeClients: z._default(z.boolean(), false),
    }),
  ),
  actions: z._default(z.array(action).check(z.maxLength(MAX_ACTIONS, `a scenario has at most ${MAX_ACTIONS} actions`)), []),
  expect: z._default(z.array(expectationSchema).check(z.maxLength(MAX_EXPECTATIONS, `a scenario has at most ${MAX_EXPECTATIONS} expectations`)), []),
  /** How the browser shows the run (the CLI ignores it): the speed and where the time cursor stands. */
  ui: z.optional(
    z.strictObject({
      speed: z.optional(z.number().check(z.positive(), z.maximum(1000))),
      at: z.optional(duration),
    }),
  ),
});

export type Scenario = z.output<typeof scenarioSchema>;
export type ScenarioAction = Scenario["actions"][number];
export type Expectation = Scenario["expect"][number];

export type ParseResult = { ok: true; scenario: Scenario } | { ok: false; errors: string[] };

/** At most this many schema errors are reported (a file of 1,000 bad actions need not print 1,000). */
export const MAX_ERRORS = 50;

/**
 * A schema's issues as lines naming their field ("actions[2].node: ..."); `file` names the
 * whole file (an issue without a path). Clipped: an unknown key or a bad value may be
 * megabytes long, and messages may echo it.
 */
export function issueLines(issues: readonly { readonly path: readonly PropertyKey[]; readonly message: string }[], file: string): string[] {
  return issues.slice(0, MAX_ERRORS).map((i) => `${clip(formatPath(i.path) || file)}: ${clip(i.message, 200)}`);
}

/** Validates parsed JSON (or any value). Errors read like "actions[2].node: ...". */
export function parseScenario(input: unknown): ParseResult {
  const r = scenarioSchema.safeParse(input);
  if (!r.success) {
    return { ok: false, errors: issueLines(r.error.issues, "scenario") };
  }
  const s = r.data;
  const errors: string[] = [];
  s.actions.forEach((a, i) => {
    if (a.at > s.duration) errors.push(`actions[${i}].at: ${a.at / 1000}ms is after the end of the run (${s.duration / 1000}ms)`);
  });
  s.expect.forEach((e, i) => {
    if (e.at !== undefined && e.at > s.duration)
      errors.push(`expect[${i}].at: ${e.at / 1000}ms is after the end of the run (${s.duration / 1000}ms)`);
    if ("since" in e && e.since === "step") errors.push(`expect[${i}].since: "step" is for a lesson's conditions; a scenario's expectation gives a time`);
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

/** A field's path as a file's reader writes it: `actions[2].node`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const p of path) out += typeof p === "number" ? `[${p}]` : out === "" ? String(p) : `.${String(p)}`;
  return out;
}
