/**
 * The settings' zod schemas, for the scenario file (scenario/schema.ts, scenario/actions.ts):
 * built from their one declaration in config.ts, with the same words for a bad value. Only
 * what parses files loads this (and zod); a run made from the page's settings does not.
 */
import { z } from "zod/mini";
import {
  LATENCY_RANGE,
  LEASE_NAMES,
  type NumberRange,
  numberProblem,
  REBIND,
  SETTING_FIELDS,
  type Setting,
  TOP_FIELDS,
} from "./config";
import { clip } from "./time";
import { MESSAGE_TYPES } from "./trace";

/** A number in its range: every way it can be wrong gets the declaration's words. */
function numberSchema(r: NumberRange): z.ZodMiniNumber {
  const error = (iss: { input?: unknown }): string => numberProblem(r, iss.input) ?? "is out of range";
  const n = z.number({ error });
  return (r.int ? n.check(z.int({ error })) : n).check(z.minimum(r.lo, { error }), z.maximum(r.hi, { error }));
}

/** A table by type of message ("AppendEntriesResp"); a key that names no type is refused, naming the types. */
export function byMessageType<T extends z.ZodMiniType>(value: T) {
  return z.record(z.string(), value).check(
    z.superRefine((table, ctx) => {
      for (const t of Object.keys(table)) {
        if (!(MESSAGE_TYPES as readonly string[]).includes(t))
          ctx.addIssue({ code: "custom", path: [t], message: `${clip(t)} is not a type of message (${MESSAGE_TYPES.join(", ")})` });
      }
    }),
  );
}
/** A latency range in milliseconds, for one type of message. */
export const latencyRange = z.strictObject({ minMs: numberSchema(LATENCY_RANGE), maxMs: numberSchema(LATENCY_RANGE) });

const wholeSeed = (iss: { input?: unknown }): string => `must be a whole number (got ${clip(String(iss.input))})`;

/** The settings with a rule of their own: the same rule as config.ts's check, in zod. */
const SPECIAL: Record<string, () => z.ZodMiniType> = {
  seed: () => z.number({ error: wholeSeed }).check(z.refine(Number.isSafeInteger, { error: wholeSeed })),
  latencyByType: () => byMessageType(latencyRange),
  leaseNames: () =>
    z
      .array(z.string({ error: LEASE_NAMES }).check(z.minLength(1, { error: LEASE_NAMES }), z.maxLength(64, { error: LEASE_NAMES })), {
        error: LEASE_NAMES,
      })
      .check(z.minLength(1, { error: LEASE_NAMES })),
  rebindFraction: () =>
    z
      .number({ error: REBIND })
      .check(z.refine((f) => f === 0 || (f >= 0.01 && f <= 0.99), { error: (iss) => `${REBIND} (got ${clip(String(iss.input))})` })),
};

function schemaOf<T>(name: string, s: Setting<T>): z.ZodMiniDefault<z.ZodMiniType<T>> {
  let base: z.ZodMiniType;
  if (s.kind === "number") {
    const n = numberSchema(s.range as NumberRange);
    base = s.nullable === true ? z.nullable(n) : n;
  } else if (s.kind === "flag") base = z.boolean();
  else if (s.kind === "oneOf") base = z.enum(s.values as [string, ...string[]]);
  else {
    const make = SPECIAL[name];
    if (make === undefined) throw new Error(`setting ${name} has no file form`);
    base = make();
  }
  return z._default(base as z.ZodMiniType<T>, s.initial as () => z.util.NoUndefined<T>) as z.ZodMiniDefault<z.ZodMiniType<T>>;
}

type Schemas<F> = { [K in keyof F]: F[K] extends Setting<infer T> ? z.ZodMiniDefault<z.ZodMiniType<T>> : never };

function schemasOf<F extends Record<string, Setting<unknown>>>(fields: F): Schemas<F> {
  return Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, schemaOf(k, f)])) as Schemas<F>;
}

type Sections = typeof SETTING_FIELDS;

/** Each section's fields as zod schemas, with their defaults (what a file leaves out keeps its default). */
export const SETTING_SCHEMAS = Object.fromEntries(Object.entries(SETTING_FIELDS).map(([k, f]) => [k, schemasOf(f)])) as {
  [S in keyof Sections]: Schemas<Sections[S]>;
};

/** The settings outside the sections (seed, nodes, spares, ...) as zod schemas. */
export const TOP_SCHEMAS = schemasOf(TOP_FIELDS);
