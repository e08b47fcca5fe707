/**
 * The field types scenario files are made of (durations, process references, rates), shared
 * by the file's schema (schema.ts) and the action table (actions.ts).
 */
import { z } from "zod";
import { MAX_CLOCK_JUMP_US } from "../sim/clock";
import { clip, MAX_DURATION_US, parseDuration } from "../sim/time";

/** "250ms", "1.5s", "2m" or a number of milliseconds; becomes microseconds. Never negative, at most 24 h (MAX_DURATION_US). */
export const duration = z.union([z.string(), z.number()]).transform((v, ctx) => {
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
export const signedDuration = z.union([z.string(), z.number()]).transform((v, ctx) => {
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

export const procRef = z.string().min(1, "name a process: n1..n9, c1.., or leader / follower / any-node / any-client");

/**
 * What every action has: its time, and whether it may find nothing to act on. An optional
 * action that cannot run ("crash the leader" with no leader) is skipped, and does not fail the run.
 */
export const at = { at: duration, optional: z.boolean().optional() };

