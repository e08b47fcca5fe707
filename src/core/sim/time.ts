/** A length of time, or a time on no particular clock, in whole microseconds. */
export type Micros = number;

/*
 * Two clocks, two types. Virtual time is the simulator's true time, the same for every
 * process; a local time is what one process's own clock reads (it drifts and jumps). They
 * are both microseconds, and mixing them up is the very mistake leases are about, so the
 * compiler keeps them apart: a LocalUs is not a VirtualUs, and the clock module's
 * localTime and virtualAt are the only ways from one to the other. The brand is optional,
 * so a plain number (a literal, a sum) may become either; a value typed as one clock's
 * time cannot be passed as the other's.
 */
/** An instant of virtual time: microseconds since the run began, on the simulator's true clock. */
export type VirtualUs = number & { readonly __clock?: "virtual" };
/** An instant on one process's own clock (microseconds), which drifts and jumps. */
export type LocalUs = number & { readonly __clock?: "local" };

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

/*
 * Time as text: the one place durations and instants become words, for the CLI, the event
 * log, the panels and the scenario descriptions alike.
 */

/**
 * A length of time in the unit that reads best: "0 s", "40 µs", "1.5 ms", "250 ms", "1.234 s",
 * "12.5 s", "1 min", "3 min 5 s". Seconds keep at most `decimals` decimals (trailing zeros dropped);
 * a negative length starts with "-".
 */
export function formatDuration(us: Micros, decimals = 3): string {
  const a = Math.abs(us);
  const sign = us < 0 ? "-" : "";
  if (a === 0) return "0 s";
  if (a < US_PER_MS) return `${sign}${Math.round(a)} µs`;
  if (a < US_PER_S) return `${sign}${trim(a / US_PER_MS, 1)} ms`;
  if (a < 60 * US_PER_S) return `${sign}${trim(a / US_PER_S, decimals)} s`;
  const m = Math.floor(a / (60 * US_PER_S));
  const s = Math.round((a - m * 60 * US_PER_S) / US_PER_S);
  return s === 0 ? `${sign}${m} min` : `${sign}${m} min ${s} s`;
}

/**
 * An instant of virtual time, as seconds since the run began with a fixed number of
 * decimals (so a running clock does not jitter): "12.345 s".
 */
export function formatInstant(us: Micros, decimals = 3): string {
  return `${(us / US_PER_S).toFixed(decimals)} s`;
}

/** A duration as a scenario file writes it, exact and parseable: "0ms", "1500ms", "2000417us". */
export function formatExactDuration(us: Micros): string {
  if (!Number.isSafeInteger(us)) throw new Error(`not a whole number of microseconds: ${us}`);
  return us % US_PER_MS === 0 ? `${us / US_PER_MS}ms` : `${us}us`;
}

/** Fixed decimals without the trailing zeros: 2.50 -> "2.5", 3.000 -> "3" (and 100 stays "100"). */
function trim(n: number, digits: number): string {
  const t = n.toFixed(digits);
  return t.includes(".") ? t.replace(/\.?0+$/, "") : t;
}
