import type { LocalUs, VirtualUs } from "./time";

/**
 * A process's local clock: virtual time scaled by a drift rate plus an offset.
 * local(t) = baseLocal + (t - baseT) + floor((t - baseT) * driftPpm / 1e6).
 * Changing the drift re-bases the clock so the reading never jumps; a jump is explicit.
 */
export interface ClockState {
  readonly baseT: VirtualUs;
  readonly baseLocal: LocalUs;
  readonly driftPpm: number;
}

export const MAX_DRIFT_PPM = 500_000;

/** The largest clock jump, either way (24 hours in µs); the scenario schema uses the same bound. */
export const MAX_CLOCK_JUMP_US = 24 * 3600 * 1_000_000;

export function newClock(): ClockState {
  return { baseT: 0, baseLocal: 0, driftPpm: 0 };
}

/** What the clock reads at virtual time `t`: one of the two conversions between the clocks. */
export function localTime(c: ClockState, t: VirtualUs): LocalUs {
  const u = t - c.baseT;
  return c.baseLocal + u + Math.floor((u * c.driftPpm) / 1_000_000);
}

/** The earliest virtual time >= from at which the local clock reads at least `local`: the other conversion. */
export function virtualAt(c: ClockState, local: LocalUs, from: VirtualUs): VirtualUs {
  if (localTime(c, from) >= local) return from;
  let u = Math.ceil(((local - c.baseLocal) * 1_000_000) / (1_000_000 + c.driftPpm));
  if (c.baseT + u < from) u = from - c.baseT;
  while (localTime(c, c.baseT + u) < local) u++;
  while (u > 0 && c.baseT + u - 1 >= from && localTime(c, c.baseT + u - 1) >= local) u--;
  return c.baseT + u;
}

export function withDrift(c: ClockState, t: VirtualUs, driftPpm: number): ClockState {
  if (!Number.isInteger(driftPpm) || Math.abs(driftPpm) > MAX_DRIFT_PPM) {
    throw new Error(`drift must be an integer within ±${MAX_DRIFT_PPM} ppm, got ${driftPpm}`);
  }
  return { baseT: t, baseLocal: localTime(c, t), driftPpm };
}

export function withJump(c: ClockState, t: VirtualUs, jumpUs: number): ClockState {
  if (!Number.isSafeInteger(jumpUs) || Math.abs(jumpUs) > MAX_CLOCK_JUMP_US) {
    throw new Error(`a clock jump must be a whole number of µs within ±24h (±${MAX_CLOCK_JUMP_US} µs), got ${String(jumpUs).slice(0, 40)}`);
  }
  const local = localTime(c, t) + jumpUs;
  if (!Number.isSafeInteger(local)) throw new Error("this jump takes the clock out of range");
  return { baseT: t, baseLocal: local, driftPpm: c.driftPpm };
}
