/**
 * The lease-policy settings the page offers beyond the timing (checkpoint, lock-delay, the
 * holder's drift margin, the leader's slack, the pool): each with its URL parameter, its
 * label, and its range taken from the engine's schema (core/sim/config.ts), never restated.
 */
import { SETTING_FIELDS, type Setting } from "../core/sim/config";
import type { TimingSettings } from "../worker/protocol";

export type NumberKnob = "checkpointIntervalMs" | "lockDelayMs" | "driftMarginPpm" | "expirySlackFactor" | "poolSize";

export interface KnobSpec {
  readonly key: NumberKnob;
  /** The query parameter: ?lockdelay=500 */
  readonly param: string;
  readonly label: string;
  readonly hint: string;
  readonly step: string;
  /** The engine's own declaration of the setting (its range and the words for a bad value). */
  readonly setting: Setting<number>;
}

export const NUMBER_KNOBS: readonly KnobSpec[] = [
  {
    key: "checkpointIntervalMs",
    param: "checkpointevery",
    label: "Checkpoint every (ms)",
    hint: "how often the leader writes each lease's time left",
    step: "100",
    setting: SETTING_FIELDS.lease.checkpointIntervalMs,
  },
  {
    key: "lockDelayMs",
    param: "lockdelay",
    label: "Lock-delay (ms)",
    hint: "Chubby: after an expiry, nobody gets the lease for this long; 0 for none",
    step: "100",
    setting: SETTING_FIELDS.lease.lockDelayMs,
  },
  {
    key: "driftMarginPpm",
    param: "driftmargin",
    label: "Holder's drift margin (ppm)",
    hint: "the holder stops this much early for a slow clock: 20000 ppm = 2 %",
    step: "1000",
    setting: SETTING_FIELDS.holders.driftMarginPpm,
  },
  {
    key: "expirySlackFactor",
    param: "slack",
    label: "Leader's slack (× TTL)",
    hint: "the leader expires a lease after TTL × this; 1 for none",
    step: "0.1",
    setting: SETTING_FIELDS.lease.expirySlackFactor,
  },
  {
    key: "poolSize",
    param: "pool",
    label: "Lease pool size",
    hint: "at most this many leases granted at once; 0 for no limit",
    step: "1",
    setting: SETTING_FIELDS.lease.poolSize,
  },
];

/** The engine's words for a bad value ("must be between 0 and 3600000 (got -5)"), or null when it is fine. */
export function knobProblem(k: KnobSpec, v: number): string | null {
  return k.setting.problem(v);
}

export type KnobValues = Pick<TimingSettings, NumberKnob | "checkpoint">;
