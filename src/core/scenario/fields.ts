/**
 * The field types scenario files are made of (durations, process references, rates), shared
 * by the file's schema (schema.ts) and the action table (actions.ts).
 */
import { z } from "zod/mini";
import { MAX_CLOCK_JUMP_US } from "../sim/clock";
import { clip, MAX_DURATION_US, parseDuration } from "../sim/time";

// zod/mini loads no words of its own: its English messages ("Invalid input: expected number,
// received string") are what a malformed file's errors say, as with the full zod before.
z.config(z.locales.en());

/** Adds a custom issue in a transform (zod/mini's transforms get the parse payload, not a context with addIssue). */
function fail(ctx: z.core.ParsePayload, input: unknown, message: string): never {
  ctx.issues.push({ code: "custom", message, input });
  return z.NEVER;
}

/** "250ms", "1.5s", "2m" or a number of milliseconds; becomes microseconds. Never negative, at most 24 h (MAX_DURATION_US). */
export const duration = z.pipe(
  z.union([z.string(), z.number()]),
  z.transform((v: string | number, ctx) => {
    // "-0.001us" rounds to -0: refuse the sign itself, not only a negative result.
    if ((typeof v === "string" && v.trim().startsWith("-")) || (typeof v === "number" && (v < 0 || Object.is(v, -0))))
      return fail(ctx, v, `durations cannot be negative (got ${clip(JSON.stringify(v))})`);
    const r = parseDuration(v);
    if (!r.ok) return fail(ctx, v, r.error);
    if (r.us > MAX_DURATION_US) return fail(ctx, v, `durations are at most 24h (got ${clip(JSON.stringify(v))})`);
    return r.us;
  }),
);

/** Like duration, but may be negative (clock jumps): within ±24 h (MAX_CLOCK_JUMP_US). */
export const signedDuration = z.pipe(
  z.union([z.string(), z.number()]),
  z.transform((v: string | number, ctx) => {
    const r = parseDuration(v);
    if (!r.ok) return fail(ctx, v, r.error);
    if (Math.abs(r.us) > MAX_CLOCK_JUMP_US) return fail(ctx, v, `a clock jump is at most 24h either way (got ${clip(JSON.stringify(v))})`);
    return r.us;
  }),
);

export const procRef = z.string().check(z.minLength(1, "name a process: n1..n9, c1.., or leader / follower / any-node / any-client"));

/**
 * What every action has: its time, and whether it may find nothing to act on. An optional
 * action that cannot run ("crash the leader" with no leader) is skipped, and does not fail the run.
 */
export const at = { at: duration, optional: z.optional(z.boolean()) };
