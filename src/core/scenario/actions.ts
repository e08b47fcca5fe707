/**
 * Every action, declared once. For each simulator action (sim.ts `Action`), one entry says:
 * - `files`: its forms in a scenario file (a `do`, with its zod schema). Most have one; a
 *   clock change is written `drift` or `clock-jump`, a client request `propose`, `read` or
 *   `lease-query`;
 * - `fromFile`: how a file form becomes the simulator action;
 * - `toFile`: how a recorded action is written back to a file (exact times, so the CLI runs
 *   the very run the browser made);
 * - `describe`: one line in plain words (the branch list, the action list of a run).
 *
 * The file schema's union (schema.ts), toSimAction, scenarioActionsOf (record.ts) and
 * describeAction are derived from this table. A new member of `Action` without an entry
 * here does not compile (`satisfies ActionTable`), nor does an entry that forgets a part.
 */
import type { z } from "zod/mini";
import type { byMessageType, latencyRange, SETTING_SCHEMAS } from "../sim/configSchema";
import type { Action } from "../sim/sim";
import { formatDuration, formatExactDuration } from "../sim/time";
import type { at, duration, procRef, signedDuration } from "./fields";

/**
 * What the file forms are made of: zod and the scenario file's field types. schema.ts,
 * which parses files, hands them in (fileForms), so a run that parses no file (the
 * worker's, the page's) loads no schema library: this table's other parts are plain code.
 */
export interface FormKit {
  /** The parts of zod/mini the forms use (not the whole namespace, so the bundle keeps only these). */
  readonly z: Pick<
    typeof z,
    | "_default"
    | "array"
    | "boolean"
    | "discriminatedUnion"
    | "enum"
    | "int"
    | "literal"
    | "maximum"
    | "maxLength"
    | "minimum"
    | "minLength"
    | "nullable"
    | "number"
    | "optional"
    | "refine"
    | "strictObject"
    | "string"
  >;
  readonly at: typeof at;
  readonly duration: typeof duration;
  readonly procRef: typeof procRef;
  readonly signedDuration: typeof signedDuration;
  readonly NET: (typeof SETTING_SCHEMAS)["network"];
  readonly byMessageType: typeof byMessageType;
  readonly latencyRange: typeof latencyRange;
}

/** A scenario action as written in a file (the input side of the schema). */
export type ScenarioActionInput = { readonly at: string; readonly do: string } & Record<string, unknown>;

type ActionOf<T extends Action["type"]> = Extract<Action, { type: T }>;

/** A file form: a strict object with `at` and a literal `do`. */
type FileForm = z.ZodMiniObject<{ at: typeof duration; do: z.ZodMiniLiteral<string> } & z.core.$ZodShape>;

interface ActionDecl<T extends Action["type"], F extends readonly FileForm[]> {
  readonly type: T;
  /** Its forms, made from the kit when a file is parsed. */
  readonly files: (kit: FormKit) => F;
  /** The `do` of each form, in order, when it is not the action's own type (transfer is written "transfer-leadership"). */
  readonly does?: readonly string[];
  readonly fromFile: (a: z.output<F[number]>) => ActionOf<T>;
  readonly toFile: (a: ActionOf<T>, at: string) => ScenarioActionInput[];
  readonly describe: (a: ActionOf<T>) => string;
}

function decl<T extends Action["type"], const F extends readonly FileForm[]>(type: T, d: Omit<ActionDecl<T, F>, "type">): ActionDecl<T, F> {
  return { type, ...d };
}

function signedExact(us: number): string {
  return us < 0 ? `-${formatExactDuration(-us)}` : formatExactDuration(us);
}

/** Actions on one process named `node` in files and `proc` in the simulator. */
function onNode<T extends "crash" | "restart" | "resume" | "timeout" | "add-node" | "remove-node" | "disconnect" | "connect">(type: T, sentence: (proc: string) => string) {
  return decl(type, {
    /** `as`: name the process `node` resolved to, for later actions (crash "leader" as "old", then restart "old"). */
    files: ({ z, at, procRef }) => [z.strictObject({ ...at, do: z.literal(type), node: procRef, as: z.optional(z.string().check(z.minLength(1), z.maxLength(64))) })],
    fromFile: (a) => (a.as === undefined ? { type, proc: a.node } : { type, proc: a.node, as: a.as }) as ActionOf<T>,
    toFile: (a, when) => {
      const named = a as { proc: string; as?: string };
      return [named.as === undefined ? { at: when, do: type, node: named.proc } : { at: when, do: type, node: named.proc, as: named.as }];
    },
    describe: (a) => sentence((a as { proc: string }).proc),
  });
}

export const ACTIONS = {
  crash: onNode("crash", (p) => `crash ${p}`),
  restart: onNode("restart", (p) => `restart ${p}`),
  resume: onNode("resume", (p) => `resume ${p}`),
  timeout: onNode("timeout", (p) => `force an election timeout on ${p}`),
  "add-node": onNode("add-node", (p) => `add ${p} to the cluster`),
  "remove-node": onNode("remove-node", (p) => `remove ${p} from the cluster`),
  /** One process cut off from every other, both ways, without restating a partition; heal joins it back too. */
  disconnect: onNode("disconnect", (p) => `disconnect ${p} from every other process`),
  connect: onNode("connect", (p) => `connect ${p} again`),
  pause: decl("pause", {
    files: ({ z, at, procRef, duration }) => [z.strictObject({ ...at, do: z.literal("pause"), node: procRef, for: duration })],
    fromFile: (a) => ({ type: "pause", proc: a.node, durationUs: a.for }),
    toFile: (a, when) => [{ at: when, do: "pause", node: a.proc, for: formatExactDuration(a.durationUs) }],
    describe: (a) => `pause ${a.proc} for ${formatDuration(a.durationUs)}`,
  }),
  transfer: decl("transfer", {
    does: ["transfer-leadership"],
    /** The leader hands leadership to `to` (a node id, or "follower" / "any-node"). */
    files: ({ z, at, procRef }) => [z.strictObject({ ...at, do: z.literal("transfer-leadership"), to: procRef })],
    fromFile: (a) => ({ type: "transfer", to: a.to }),
    toFile: (a, when) => [{ at: when, do: "transfer-leadership", to: a.to }],
    describe: (a) => `hand leadership to ${a.to}`,
  }),
  partition: decl("partition", {
    files: ({ z, at, procRef }) => [
      z.strictObject({
        ...at,
        do: z.literal("partition"),
        groups: z.array(z.array(procRef).check(z.minLength(1))).check(z.minLength(2, "a partition needs at least two groups")),
      }),
    ],
    fromFile: (a) => ({ type: "partition", groups: a.groups }),
    toFile: (a, when) => [{ at: when, do: "partition", groups: a.groups.map((g) => [...g]) }],
    describe: (a) => `partition ${a.groups.map((g) => `[${g.join(", ")}]`).join(" | ")}`,
  }),
  heal: decl("heal", {
    files: ({ z, at }) => [z.strictObject({ ...at, do: z.literal("heal") })],
    fromFile: () => ({ type: "heal" }),
    toFile: (_a, when) => [{ at: when, do: "heal" }],
    describe: () => "heal the network",
  }),
  cut: decl("cut", {
    files: ({ z, at, procRef }) => [z.strictObject({ ...at, do: z.literal("cut"), from: procRef, to: procRef })],
    fromFile: (a) => ({ type: "cut", from: a.from, to: a.to }),
    toFile: (a, when) => [{ at: when, do: "cut", from: a.from, to: a.to }],
    describe: (a) => `cut the link ${a.from} → ${a.to}`,
  }),
  "slow-link": decl("slow-link", {
    /** Messages from `from` to `to` take `delay` longer, one way ("0ms": back to normal); heal clears it. */
    files: ({ z, at, procRef, duration }) => [z.strictObject({ ...at, do: z.literal("slow-link"), from: procRef, to: procRef, delay: duration })],
    fromFile: (a) => ({ type: "slow-link", from: a.from, to: a.to, delayUs: a.delay }),
    toFile: (a, when) => [{ at: when, do: "slow-link", from: a.from, to: a.to, delay: formatExactDuration(a.delayUs) }],
    describe: (a) => (a.delayUs === 0 ? `the link ${a.from} → ${a.to} back to normal speed` : `slow the link ${a.from} → ${a.to} by ${formatDuration(a.delayUs)}`),
  }),
  clock: decl("clock", {
    does: ["drift", "clock-jump"],
    files: ({ z, at, procRef, signedDuration }) => [
      z.strictObject({ ...at, do: z.literal("drift"), node: procRef, ppm: z.number().check(z.int(), z.minimum(-500_000), z.maximum(500_000)) }),
      z.strictObject({ ...at, do: z.literal("clock-jump"), node: procRef, by: signedDuration }),
    ],
    fromFile: (a) => (a.do === "drift" ? { type: "clock", proc: a.node, driftPpm: a.ppm } : { type: "clock", proc: a.node, jumpUs: a.by }),
    /**
     * A change that both drifts and jumps becomes two file actions, drift first (the file has
     * no such action; the two give the same clock, with one trace event more, so the
     * dashboard, which never makes one, does not either).
     */
    toFile: (a, when) => {
      const out: ScenarioActionInput[] = [];
      if (a.driftPpm !== undefined) out.push({ at: when, do: "drift", node: a.proc, ppm: a.driftPpm });
      if (a.jumpUs !== undefined) out.push({ at: when, do: "clock-jump", node: a.proc, by: signedExact(a.jumpUs) });
      return out;
    },
    describe: (a) =>
      [
        a.driftPpm === undefined ? null : `set ${a.proc}'s clock drift to ${a.driftPpm} ppm`,
        a.jumpUs === undefined ? null : `jump ${a.proc}'s clock by ${formatDuration(a.jumpUs)}`,
      ]
        .filter((x) => x !== null)
        .join(", "),
  }),
  network: decl("network", {
    files: ({ z, at, NET, byMessageType, latencyRange }) => [
      z.strictObject({
        ...at,
        do: z.literal("network"),
        // The same fields, types and ranges as the settings' network section (sim/config.ts).
        dropRate: z.optional(NET.dropRate._zod.def.innerType),
        duplicateRate: z.optional(NET.duplicateRate._zod.def.innerType),
        latencyMinMs: z.optional(NET.latencyMinMs._zod.def.innerType),
        latencyMaxMs: z.optional(NET.latencyMaxMs._zod.def.innerType),
        /** Latency by type of message; null puts a type back on the range above. */
        latencyByType: z.optional(
          byMessageType(z.nullable(latencyRange)).check(
            z.refine((t) => Object.values(t).every((r) => r === null || r === undefined || r.maxMs >= r.minMs), "maxMs must be at least minMs"),
          ),
        ),
      }),
    ],
    fromFile: (a) => {
      const out: { -readonly [K in keyof ActionOf<"network">]: ActionOf<"network">[K] } = { type: "network" };
      if (a.dropRate !== undefined) out.dropRate = a.dropRate;
      if (a.duplicateRate !== undefined) out.duplicateRate = a.duplicateRate;
      if (a.latencyMinMs !== undefined) out.latencyMinUs = Math.round(a.latencyMinMs * 1000);
      if (a.latencyMaxMs !== undefined) out.latencyMaxUs = Math.round(a.latencyMaxMs * 1000);
      if (a.latencyByType !== undefined) {
        out.latencyByType = Object.fromEntries(
          Object.entries(a.latencyByType).map(([type, r]) => [type, r == null ? null : { minUs: Math.round(r.minMs * 1000), maxUs: Math.round(r.maxMs * 1000) }]),
        );
      }
      return out;
    },
    toFile: (a, when) => {
      const out: Record<string, unknown> = { at: when, do: "network" };
      if (a.dropRate !== undefined) out.dropRate = a.dropRate;
      if (a.duplicateRate !== undefined) out.duplicateRate = a.duplicateRate;
      if (a.latencyMinUs !== undefined) out.latencyMinMs = a.latencyMinUs / 1000;
      if (a.latencyMaxUs !== undefined) out.latencyMaxMs = a.latencyMaxUs / 1000;
      if (a.latencyByType !== undefined) {
        out.latencyByType = Object.fromEntries(
          Object.entries(a.latencyByType).map(([type, r]) => [type, r === null ? null : { minMs: r.minUs / 1000, maxMs: r.maxUs / 1000 }]),
        );
      }
      return [out as ScenarioActionInput];
    },
    describe: (a) => {
      const parts: string[] = [];
      if (a.dropRate !== undefined) parts.push(`loss ${Math.round(a.dropRate * 1000) / 10} %`);
      if (a.duplicateRate !== undefined) parts.push(`duplication ${Math.round(a.duplicateRate * 1000) / 10} %`);
      if (a.latencyMinUs !== undefined || a.latencyMaxUs !== undefined) {
        parts.push(`latency ${(a.latencyMinUs ?? 0) / 1000}-${(a.latencyMaxUs ?? 0) / 1000} ms`);
      }
      for (const [type, r] of Object.entries(a.latencyByType ?? {})) {
        parts.push(r === null ? `${type} back to the usual latency` : `${type} latency ${r.minUs / 1000}-${r.maxUs / 1000} ms`);
      }
      return `network: ${parts.join(", ") || "unchanged"}`;
    },
  }),
  submit: decl("submit", {
    does: ["propose", "read", "lease-query"],
    files: ({ z, at, procRef }) => [
      z.strictObject({
        ...at,
        do: z.literal("propose"),
        client: z._default(procRef, "c1"),
        op: z._default(z.enum(["put", "append", "delete"]), "put"),
        key: z.string().check(z.minLength(1)),
        value: z._default(z.string(), ""),
      }),
      z.strictObject({ ...at, do: z.literal("read"), client: z._default(procRef, "c1"), key: z.string().check(z.minLength(1)) }),
      /** A client asks for a lease's time to live and attached keys (with `name`), or for the list of leases. */
      z.strictObject({ ...at, do: z.literal("lease-query"), client: z._default(procRef, "c1"), name: z.optional(z.string().check(z.minLength(1))) }),
    ],
    fromFile: (a) => {
      switch (a.do) {
        case "propose":
          return {
            type: "submit",
            client: a.client,
            op: { write: a.op === "delete" ? { type: "delete", key: a.key } : { type: a.op, key: a.key, value: a.value } },
          };
        case "read":
          return { type: "submit", client: a.client, op: { read: { type: "get", key: a.key } } };
        case "lease-query":
          return {
            type: "submit",
            client: a.client,
            op: { read: a.name === undefined ? { type: "lease-list" } : { type: "lease-ttl", name: a.name } },
          };
      }
    },
    toFile: (a, when) => {
      const op = a.op;
      if ("write" in op) {
        const w = op.write;
        if (w.type === "delete") return [{ at: when, do: "propose", client: a.client, op: "delete", key: w.key }];
        if (w.type === "put" || w.type === "append") return [{ at: when, do: "propose", client: a.client, op: w.type, key: w.key, value: w.value }];
        throw new Error(`a ${w.type} request cannot be written in a scenario file`);
      }
      const r = op.read;
      if (r.type === "get") return [{ at: when, do: "read", client: a.client, key: r.key }];
      if (r.type === "lease-ttl") return [{ at: when, do: "lease-query", client: a.client, name: r.name }];
      if (r.type === "lease-list") return [{ at: when, do: "lease-query", client: a.client }];
      throw new Error(`a ${(r as { type: string }).type} query cannot be written in a scenario file`);
    },
    describe: (a) => `${a.client} sends a request`,
  }),
  "drop-message": decl("drop-message", {
    /** Drops one message in flight, by its id (ids are deterministic: the same run numbers its messages the same way). */
    files: ({ z, at }) => [z.strictObject({ ...at, do: z.literal("drop-message"), id: z.number().check(z.int(), z.minimum(0)) })],
    fromFile: (a) => ({ type: "drop-message", id: a.id }),
    toFile: (a, when) => [{ at: when, do: "drop-message", id: a.id }],
    describe: (a) => `drop message #${a.id}`,
  }),
  note: decl("note", {
    files: ({ z, at }) => [z.strictObject({ ...at, do: z.literal("note"), text: z.string() })],
    fromFile: (a) => ({ type: "note", text: a.text }),
    toFile: (a, when) => [{ at: when, do: "note", text: a.text }],
    describe: (a) => `note: ${a.text}`,
  }),
  release: decl("release", {
    files: ({ z, at, procRef }) => [z.strictObject({ ...at, do: z.literal("release"), holder: procRef })],
    fromFile: (a) => ({ type: "release", holder: a.holder }),
    toFile: (a, when) => [{ at: when, do: "release", holder: a.holder }],
    describe: (a) => `${a.holder} releases its lease`,
  }),
  "gc-pause": decl("gc-pause", {
    files: ({ z, at, procRef, duration }) => [z.strictObject({ ...at, do: z.literal("gc-pause"), holder: procRef, for: duration })],
    fromFile: (a) => ({ type: "gc-pause", holder: a.holder, durationUs: a.for }),
    toFile: (a, when) => [{ at: when, do: "gc-pause", holder: a.holder, for: formatExactDuration(a.durationUs) }],
    describe: (a) => `GC pause ${a.holder} for ${formatDuration(a.durationUs)} between check and write`,
  }),
  fencing: decl("fencing", {
    files: ({ z, at }) => [z.strictObject({ ...at, do: z.literal("fencing"), on: z.boolean() })],
    fromFile: (a) => ({ type: "fencing", on: a.on }),
    toFile: (a, when) => [{ at: when, do: "fencing", on: a.on }],
    describe: (a) => `fencing ${a.on ? "on" : "off"}`,
  }),
} satisfies { readonly [K in Action["type"]]: ActionDecl<K, readonly FileForm[]> };

type Table = typeof ACTIONS;
type AnyForm = ReturnType<Table[keyof Table]["files"]>[number];

/** A scenario file's action, as parsed (the output side of the schema). */
export type FileAction = z.output<AnyForm>;

/** The `do` names of an entry's forms. */
const doesOf = (type: string, d: { readonly does?: readonly string[] }): readonly string[] => d.does ?? [type];

/** Which table entry each `do` belongs to. */
const ENTRY_OF_DO = new Map<string, Table[keyof Table]>();
for (const [type, d] of Object.entries(ACTIONS)) {
  for (const name of doesOf(type, d)) {
    if (ENTRY_OF_DO.has(name)) throw new Error(`two actions are written "${name}"`);
    ENTRY_OF_DO.set(name, d);
  }
}

/** The file schema's union of every action form, discriminated by `do` (schema.ts gives the kit). */
export function fileForms(kit: FormKit) {
  const forms: AnyForm[] = [];
  for (const [type, d] of Object.entries(ACTIONS)) {
    const made = d.files(kit as never) as readonly AnyForm[];
    const names = made.map((f) => (f.shape.do as z.ZodMiniLiteral<string>)._zod.def.values[0] as string);
    if (names.join() !== doesOf(type, d).join()) throw new Error(`${type}'s forms are written ${names.join(", ")}, not ${doesOf(type, d).join(", ")}`);
    forms.push(...made);
  }
  return kit.z.discriminatedUnion("do", forms as unknown as [AnyForm, ...AnyForm[]]);
}

/** A scenario file's action as a simulator action. */
export function toSimAction(a: FileAction): Action {
  const d = ENTRY_OF_DO.get(a.do);
  if (d === undefined) throw new Error(`unknown action "${a.do}"`);
  return (d.fromFile as (x: FileAction) => Action)(a);
}

/** A simulator action as scenario file actions (one, or two for a clock change that both drifts and jumps). */
export function fileActionsOf(a: Action, when: string): ScenarioActionInput[] {
  return (ACTIONS[a.type].toFile as (x: Action, w: string) => ScenarioActionInput[])(a, when);
}

/** One line in plain words: "crash n2", "pause h1 for 5 s", "partition [n1] | [others]". */
export function describeAction(a: Action): string {
  return (ACTIONS[a.type].describe as (x: Action) => string)(a);
}
