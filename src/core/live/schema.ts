/**
 * Recording files (docs/live.md, "Recordings"): a live run's recording as JSON, read back
 * with every field checked, so a malformed or hand-edited file gets a message naming the field
 * and the problem, never a crash halfway through a replay. The settings are checked with the
 * settings' own schemas (sim/configSchema.ts) and configProblems; the actions are the
 * simulator's (µs, `type`), not a scenario file's forms (durations, `do`), so they have their
 * own schemas here, made of the same field types and ranges.
 */
import { z } from "zod/mini";
import { MAX_CLOCK_JUMP_US, MAX_DRIFT_PPM } from "../sim/clock";
import { clusterIds } from "../sim/cluster";
import { ROLE_REFS } from "../sim/actions";
import { configProblems, LATENCY_RANGE, MAX_SLOW_LINK_US } from "../sim/config";
import { byMessageType, SETTING_SCHEMAS, TOP_SCHEMAS } from "../sim/configSchema";
import { clip, formatInstant } from "../sim/time";
import type { ProcId } from "../sim/trace";
import { procRef } from "../scenario/fields";
import { issueLines, MAX_ERRORS, versionProblem } from "../scenario/schema";
import { type LiveRecording, RECORDING_VERSION, type ScriptItem } from "./recording";

/** Files larger than this are refused before they are read (the page's file picker, the CLI). */
export const MAX_RECORDING_BYTES = 50 * 1024 * 1024;

/** A recording file that cannot be read: `problems` has one line per problem, each naming its field. */
export class RecordingFileError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join("\n"));
    this.name = "RecordingFileError";
  }
}

// ---- the fields ----

/** Virtual µs: a whole number, never negative. */
const instant = z.number().check(z.int("must be a whole number of µs"), z.minimum(0, "cannot be negative (µs since the run began)"));
const count = z.number().check(z.int("must be a whole number"), z.minimum(0, "cannot be negative"));
/** A message's name: sender/incarnation/count ("n1/0/12"), as recording.ts's sendKey makes it. */
const SEND_KEY = /^([a-z][a-z0-9-]*)\/(\d+)\/(\d+)$/;
const sendKeyField = z.string().check(z.regex(SEND_KEY, 'must name a message as sender/incarnation/count, like "n1/0/12"'));
/** A process's id as a key (its membership of the run is checked later, against the settings). */
const procKey = z.string().check(z.regex(/^[a-z][a-z0-9-]*$/, "must be a process id like n1, c1, h1 or s1"));
const digest = z.string().check(z.regex(/^[0-9a-f]{16}$/, "must be a state digest: 16 hex digits (0-9, a-f)"));
const text = z.string().check(z.minLength(1));

const kvOp = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("put"), key: text, value: z.string(), lease: z.optional(text) }),
  z.strictObject({ type: z.literal("append"), key: text, value: z.string() }),
  z.strictObject({ type: z.literal("delete"), key: text }),
  z.strictObject({ type: z.literal("cas"), key: text, expect: z.nullable(z.string()), value: z.string() }),
]);
const query = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("get"), key: text }),
  z.strictObject({ type: z.literal("lease-ttl"), name: text }),
  z.strictObject({ type: z.literal("lease-list") }),
]);
const as = { as: z.optional(z.string().check(z.minLength(1), z.maxLength(64))) };

const PROC_ACTION_TYPES = ["clock", "submit", "release", "gc-pause", "fencing", "timeout", "transfer", "add-node", "remove-node"];
const NET_ACTION_TYPES = ["partition", "heal", "cut", "disconnect", "connect", "slow-link", "network", "note"];

/** A discriminated union whose unknown tag is named, with the ones it may be. */
function tagged<const O extends readonly z.ZodMiniObject[]>(tag: string, options: O, what: string, known: readonly string[]) {
  return z.discriminatedUnion(tag, options as unknown as [O[number], ...O[number][]], {
    error: (iss) => {
      if (iss.code !== "invalid_union" || typeof iss.input !== "object" || iss.input === null) return undefined; // zod's words
      const v = (iss.input as Record<string, unknown>)[tag];
      if (v === undefined) return `missing: ${what} needs a "${tag}"`;
      return `${clip(JSON.stringify(v) ?? String(v))} is not ${what} (one of ${known.join(", ")})`;
    },
  });
}

/** Actions a process's own worker does (recording.ts ProcAction), as the simulator writes them. */
const procAction = tagged(
  "type",
  [
    z
      .strictObject({
        type: z.literal("clock"),
        proc: procRef,
        driftPpm: z.optional(z.number().check(z.int(), z.minimum(-MAX_DRIFT_PPM), z.maximum(MAX_DRIFT_PPM))),
        jumpUs: z.optional(z.number().check(z.int(), z.minimum(-MAX_CLOCK_JUMP_US), z.maximum(MAX_CLOCK_JUMP_US))),
      })
      .check(z.refine((a) => a.driftPpm !== undefined || a.jumpUs !== undefined, "a clock change needs driftPpm or jumpUs (or both)")),
    z.strictObject({
      type: z.literal("submit"),
      client: procRef,
      op: z.union([z.strictObject({ write: kvOp }), z.strictObject({ read: query })]),
    }),
    z.strictObject({ type: z.literal("release"), holder: procRef }),
    z.strictObject({
      type: z.literal("gc-pause"),
      holder: procRef,
      durationUs: z.number().check(z.int(), z.minimum(1, "must be at least 1µs")),
    }),
    z.strictObject({ type: z.literal("fencing"), on: z.boolean() }),
    z.strictObject({ type: z.literal("timeout"), proc: procRef, ...as }),
    z.strictObject({ type: z.literal("transfer"), to: procRef }),
    z.strictObject({ type: z.literal("add-node"), proc: procRef, ...as }),
    z.strictObject({ type: z.literal("remove-node"), proc: procRef, ...as }),
  ],
  "an action a process does",
  PROC_ACTION_TYPES,
);

const NET = SETTING_SCHEMAS.network;
const latencyUs = z.number().check(z.int(), z.minimum(0), z.maximum(LATENCY_RANGE.hi * 1000));

/** Actions on the network, which the router does (recording.ts NetAction). */
const netAction = tagged(
  "type",
  [
    z.strictObject({
      type: z.literal("partition"),
      groups: z.array(z.array(procRef).check(z.minLength(1))).check(z.minLength(2, "a partition needs at least two groups")),
    }),
    z.strictObject({ type: z.literal("heal") }),
    z.strictObject({ type: z.literal("cut"), from: procRef, to: procRef }),
    z.strictObject({ type: z.literal("disconnect"), proc: procRef, ...as }),
    z.strictObject({ type: z.literal("connect"), proc: procRef, ...as }),
    z.strictObject({
      type: z.literal("slow-link"),
      from: procRef,
      to: procRef,
      delayUs: z.number().check(z.int(), z.minimum(0), z.maximum(MAX_SLOW_LINK_US)),
    }),
    z.strictObject({
      type: z.literal("network"),
      dropRate: z.optional(NET.dropRate._zod.def.innerType),
      duplicateRate: z.optional(NET.duplicateRate._zod.def.innerType),
      latencyMinUs: z.optional(latencyUs),
      latencyMaxUs: z.optional(latencyUs),
      latencyByType: z.optional(byMessageType(z.nullable(z.strictObject({ minUs: latencyUs, maxUs: latencyUs })))),
    }),
    z.strictObject({ type: z.literal("note"), text: z.string() }),
  ],
  "an action on the network",
  NET_ACTION_TYPES,
);

const at = { at: instant };
const INPUT_KINDS = ["message", "timer", "act", "pause", "wake", "crash", "restart", "drop", "net"];

/** One input: a process's (recording.ts LiveInput) or the router's (RouterInput); which one is checked against `proc` later. */
const input = tagged(
  "kind",
  [
    z.strictObject({ ...at, kind: z.literal("message"), from: procKey, key: sendKeyField, copy: count }),
    z.strictObject({ ...at, kind: z.literal("timer") }),
    z.strictObject({ ...at, kind: z.literal("act"), action: procAction }),
    z.strictObject({ ...at, kind: z.literal("pause"), untilAt: instant }),
    z.strictObject({ ...at, kind: z.literal("wake") }),
    z.strictObject({ ...at, kind: z.literal("crash") }),
    z.strictObject({ ...at, kind: z.literal("restart") }),
    z.strictObject({
      ...at,
      kind: z.literal("drop"),
      to: procKey,
      key: sendKeyField,
      copy: count,
      reason: z.enum(["partition", "cut", "loss", "down", "user", "inbox-full"]),
    }),
    z.strictObject({ ...at, kind: z.literal("net"), action: netAction }),
  ],
  "a kind of input",
  INPUT_KINDS,
);

/** A section of the settings with every field required (a recording's settings are the run's, whole). */
function fullSection<T extends Record<string, z.ZodMiniDefault<z.ZodMiniType>>>(fields: T) {
  const shape = Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, f._zod.def.innerType]));
  return z.strictObject(shape as { [K in keyof T]: T[K]["_zod"]["def"]["innerType"] });
}

const configSchema = z.strictObject({
  ...fullSection(TOP_SCHEMAS).shape,
  raft: fullSection(SETTING_SCHEMAS.raft),
  network: fullSection(SETTING_SCHEMAS.network),
  clients: fullSection(SETTING_SCHEMAS.clients),
  lease: fullSection(SETTING_SCHEMAS.lease),
  holders: fullSection(SETTING_SCHEMAS.holders),
  storage: fullSection(SETTING_SCHEMAS.storage),
});

const recordingSchema = z.strictObject({
  version: z.literal(RECORDING_VERSION),
  config: configSchema,
  speed: z.number().check(z.positive("must be above 0 (virtual µs per real µs)")),
  script: z.array(z.strictObject({ proc: z.nullable(procKey), input, after: z.optional(digest) })),
  plans: z.record(
    sendKeyField,
    z.array(instant).check(z.minLength(1, "a message has at least one copy: its plan lists when each copy arrives")),
  ),
  endAt: instant,
  digests: z.record(procKey, digest),
});

// ---- reading ----

/** Whether the field at `path` is absent from the file (zod says "expected number, received undefined"). */
function absent(json: unknown, path: readonly PropertyKey[]): boolean {
  let v: unknown = json;
  for (const key of path) {
    if (typeof v !== "object" || v === null) return false;
    if (!Object.hasOwn(v, key as string)) return true;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return false;
}

/** Reads a recording file's text; throws a RecordingFileError naming each problem's field. */
export function parseRecordingText(textIn: string): LiveRecording {
  let json: unknown;
  try {
    json = JSON.parse(textIn);
  } catch (e) {
    throw new RecordingFileError([`not valid JSON, so not a recording: ${clip((e as Error).message, 200)}`]);
  }
  return parseRecording(json);
}

/** Checks parsed JSON (or any value) as a recording. */
export function parseRecording(json: unknown): LiveRecording {
  if (typeof json !== "object" || json === null || Array.isArray(json))
    throw new RecordingFileError([
      `recording: a recording is a JSON object, not ${Array.isArray(json) ? "a list" : json === null ? "null" : `a ${typeof json}`}`,
    ]);
  // A newer format may differ anywhere: say that alone.
  const version = (json as Record<string, unknown>).version;
  if (version !== RECORDING_VERSION) throw new RecordingFileError([`version: ${versionProblem("recording", RECORDING_VERSION, version)}`]);
  const r = recordingSchema.safeParse(json);
  if (!r.success) {
    const issues = r.error.issues.map((i) =>
      absent(json, i.path)
        ? { path: i.path, message: i.path[0] === "config" ? "missing (a recording lists the run's settings in full)" : "missing" }
        : i,
    );
    throw new RecordingFileError(issueLines(issues, "recording"));
  }
  const rec = r.data as unknown as LiveRecording;
  const problems = [...configProblems(rec.config).map((p) => `config: ${p}`), ...crossProblems(rec)];
  if (problems.length > 0) throw new RecordingFileError(problems.slice(0, MAX_ERRORS));
  return rec;
}

/** What zod cannot see alone: processes the settings do not have, times out of order, messages without a plan. */
function crossProblems(rec: LiveRecording): string[] {
  const ids = clusterIds(rec.config);
  const all: readonly ProcId[] = [...ids.nodeIds, ...ids.clientIds, ...ids.holderIds, ...(ids.storageId === null ? [] : [ids.storageId])];
  const known = new Set(all);
  const out: string[] = [];
  const unknownProc = (where: string, id: string): void => {
    out.push(`${where}: no process named ${clip(JSON.stringify(id))} in this run (its processes are ${all.join(", ")})`);
  };
  const plans = new Map(Object.entries(rec.plans));
  const names = new Set<string>();
  rec.script.forEach((item, i) => {
    if (out.length >= MAX_ERRORS) return;
    const here = `script[${i}]`;
    const prev = rec.script[i - 1];
    if (prev !== undefined && item.input.at < prev.input.at)
      out.push(
        `${here}.input.at: ${formatInstant(item.input.at)} comes before the item above it (${formatInstant(prev.input.at)}): the script must be in time order`,
      );
    itemProblems(out, item, here, known, names, plans, unknownProc);
  });
  const last = rec.script[rec.script.length - 1];
  if (last !== undefined && last.input.at > rec.endAt)
    out.push(`endAt: the recording ends at ${formatInstant(rec.endAt)}, before its last input (${formatInstant(last.input.at)})`);
  for (const id of Object.keys(rec.digests)) if (!known.has(id)) unknownProc(`digests.${id}`, id);
  for (const id of all) if (!Object.hasOwn(rec.digests, id)) out.push(`digests.${id}: missing (every process of the run has its digest)`);
  return out;
}

/** One script item's own problems: who handled it, the processes and messages it names. */
function itemProblems(
  out: string[],
  item: ScriptItem,
  here: string,
  known: ReadonlySet<ProcId>,
  names: Set<string>,
  plans: ReadonlyMap<string, readonly number[]>,
  unknownProc: (where: string, id: string) => void,
): void {
  const input = item.input;
  const router = input.kind === "drop" || input.kind === "net";
  if (router && "after" in item)
    out.push(`${here}.after: the router's inputs have no state digest after them (only a process's do)`);
  if (router && item.proc !== null)
    out.push(`${here}.proc: a ${input.kind} is the router's: its proc is null (got ${clip(JSON.stringify(item.proc))})`);
  if (!router && item.proc === null) out.push(`${here}.proc: a ${input.kind} is a process's input: name the process (null is the router)`);
  if (item.proc !== null && !known.has(item.proc)) unknownProc(`${here}.proc`, item.proc);
  /** A reference in an action: an id, a role, or a name given with `as` earlier. */
  const ref = (path: string, r: string): void => {
    if (!known.has(r) && !ROLE_REFS.includes(r) && !names.has(r)) unknownProc(`${here}.input.action.${path}`, r);
  };
  /** A message the item names: its plan, and the copy in it. */
  const message = (key: string, copy: number, sender: string | null): void => {
    const m = SEND_KEY.exec(key) as RegExpExecArray;
    if (!known.has(m[1] as string)) unknownProc(`${here}.input.key`, m[1] as string);
    if (sender !== null && sender !== m[1])
      out.push(`${here}.input.from: ${clip(sender)} did not send ${clip(key)} (its key names ${m[1]})`);
    const plan = plans.get(key);
    if (plan === undefined) out.push(`${here}.input.key: no plan for the message ${clip(key)} (plans lists every message sent)`);
    else if (copy >= plan.length)
      out.push(
        `${here}.input.copy: ${clip(key)} was sent in ${plan.length} cop${plan.length === 1 ? "y" : "ies"} (its plan), so there is no copy ${copy} (copies count from 0)`,
      );
  };
  switch (input.kind) {
    case "message":
      if (!known.has(input.from)) unknownProc(`${here}.input.from`, input.from);
      message(input.key, input.copy, input.from);
      break;
    case "drop":
      if (!known.has(input.to)) unknownProc(`${here}.input.to`, input.to);
      message(input.key, input.copy, null);
      break;
    case "pause":
      if (input.untilAt < input.at)
        out.push(
          `${here}.input.untilAt: a pause ends after it begins (${formatInstant(input.untilAt)} is before ${formatInstant(input.at)})`,
        );
      break;
    case "act": {
      const a = input.action;
      if (a.type === "transfer") ref("to", a.to);
      if (a.type === "add-node" || a.type === "remove-node") ref("proc", a.proc);
      break;
    }
    case "net": {
      const a = input.action;
      if (a.type === "partition") {
        a.groups.forEach((g, gi) => {
          g.forEach((r, ri) => {
            ref(`groups[${gi}][${ri}]`, r);
          });
        });
      }
      if (a.type === "cut" || a.type === "slow-link") {
        ref("from", a.from);
        ref("to", a.to);
      }
      if (a.type === "disconnect" || a.type === "connect") {
        ref("proc", a.proc);
        if (a.as !== undefined) names.add(a.as);
      }
      break;
    }
  }
}

// ---- writing ----

/** Keys written first, in this order (the rest alphabetically): a diff of two recordings lines up. */
const FIRST_KEYS = ["version", "seed", "nodes", "spares", "at", "kind", "type", "proc"];

function keyOrder(a: string, b: string): number {
  const ia = FIRST_KEYS.indexOf(a);
  const ib = FIRST_KEYS.indexOf(b);
  if (ia !== ib) return (ia < 0 ? FIRST_KEYS.length : ia) - (ib < 0 ? FIRST_KEYS.length : ib);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** One value as JSON with its objects' keys in keyOrder (undefined fields left out, as JSON does). */
function stable(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stable).join(",")}]`;
  if (typeof v !== "object" || v === null) return JSON.stringify(v) ?? "null";
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort(keyOrder);
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stable(o[k])}`).join(",")}}`;
}

/** Message keys in the order they were sent by each process: sender, incarnation, count (numbers as numbers). */
function keyCompare(a: string, b: string): number {
  const ma = SEND_KEY.exec(a);
  const mb = SEND_KEY.exec(b);
  if (ma === null || mb === null) return a < b ? -1 : a > b ? 1 : 0;
  if (ma[1] !== mb[1]) return (ma[1] as string) < (mb[1] as string) ? -1 : 1;
  return Number(ma[2]) - Number(mb[2]) || Number(ma[3]) - Number(mb[3]);
}

/**
 * A recording as the text of its file: JSON, the same text for the same recording, one script
 * item, one plan and one digest a line (so two recordings diff line by line).
 */
export function recordingToText(rec: LiveRecording): string {
  const lines = (entries: readonly string[]): string => (entries.length === 0 ? "" : `\n  ${entries.join(",\n  ")}\n `);
  const ids = clusterIds(rec.config);
  const order = [...ids.nodeIds, ...ids.clientIds, ...ids.holderIds, ...(ids.storageId === null ? [] : [ids.storageId])];
  const rank = (id: string): number => (order.includes(id) ? order.indexOf(id) : order.length);
  const digests = Object.keys(rec.digests)
    .sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0))
    .map((id) => `${JSON.stringify(id)}: ${JSON.stringify(rec.digests[id])}`);
  const plans = Object.keys(rec.plans)
    .sort(keyCompare)
    .map((k) => `${JSON.stringify(k)}: ${stable(rec.plans[k])}`);
  return [
    "{",
    ` "version": ${rec.version},`,
    ` "config": ${JSON.stringify(JSON.parse(stable(rec.config)), null, 1).replaceAll("\n", "\n ")},`,
    ` "speed": ${JSON.stringify(rec.speed)},`,
    ` "endAt": ${JSON.stringify(rec.endAt)},`,
    ` "digests": {${lines(digests)}},`,
    ` "script": [${lines(rec.script.map(stable))}],`,
    ` "plans": {${lines(plans)}}`,
    "}",
    "",
  ].join("\n");
}
