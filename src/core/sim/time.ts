/** Virtual time is an integer number of microseconds. */
export type Micros = number;

export const US_PER_MS = 1000;
export const US_PER_S = 1_000_000;

/** The longest duration anything takes: a run, a pause, a wait (24 hours). Declared once; the schema and the CLI use it. */
export const MAX_DURATION_US: Micros = 24 * 3600 * US_PER_S;

/** A value echoed in an error message, cut to `max` characters with "…" (a 10 MB bad string must not print 10 MB). */
export function clip(text: string, max = 80): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

export const ms = (n: number): Micros => Math.round(n * US_PER_MS);
export const sec = (n: number): Micros => Math.round(n * US_PER_S);

const DURATION = /^\s*(-?\d+(?:\.\d+)?)\s*(us|µs|ms|s|m|min|h)?\s*$/;

/**
 * Parses "250ms", "1.5s", "2m", "3h", "40us" or a bare number of milliseconds.
 * Returns microseconds, or an error message.
 */
export function parseDuration(input: string | number): { ok: true; us: Micros } | { ok: false; error: string } {
  if (typeof input === "number") {
    if (!Number.isFinite(input)) return { ok: false, error: `not a finite number of milliseconds: ${input}` };
    return checked(ms(input), String(input));
  }
  const m = DURATION.exec(input);
  if (!m) return { ok: false, error: `not a duration: "${clip(input)}" (try "250ms", "1.5s", "2m")` };
  const n = Number(m[1]);
  const unit = m[2] ?? "ms";
  const factor =
    unit === "us" || unit === "µs"
      ? 1
      : unit === "ms"
        ? US_PER_MS
        : unit === "s"
          ? US_PER_S
          : unit === "h"
            ? 3600 * US_PER_S
            : 60 * US_PER_S;
  return checked(Math.round(n * factor), input);
}

/** Beyond 2^53 µs the arithmetic of virtual time is no longer exact (and loops that step by 1 µs never end). */
function checked(us: Micros, input: string): { ok: true; us: Micros } | { ok: false; error: string } {
  if (!Number.isSafeInteger(us)) return { ok: false, error: `duration out of range: "${clip(input.trim())}" (at most 24h)` };
  return { ok: true, us };
}

/** "1.234s", "250ms", "40µs": short and readable. */
export function formatMicros(us: Micros): string {
  const a = Math.abs(us);
  if (a >= US_PER_S) return `${trim(us / US_PER_S, 3)}s`;
  if (a >= US_PER_MS) return `${trim(us / US_PER_MS, 1)}ms`;
  return `${us}µs`;
}

function trim(n: number, digits: number): string {
  return n.toFixed(digits).replace(/\.?0+$/, "");
}
