/**
 * The pace of a run for a lecture: which key moments playing pauses at, the automatic
 * slow-down around lease events (both kept in the browser), and the speed keys' steps.
 */
import { create } from "zustand";
import { PAUSE_KINDS } from "../worker/moments";
import { type PauseKind, SPEED_STEPS, type ToWorker } from "../worker/protocol";
import { safeStorage } from "./lesson/progress";

export interface MomentOptions {
  readonly pauseOn: readonly PauseKind[];
  readonly autoSlow: boolean;
}

export const DEFAULT_MOMENT_OPTIONS: MomentOptions = { pauseOn: [], autoSlow: true };

const STORAGE_KEY = "lease-lab:moment-options";

/** The options kept in the browser (the defaults where none are, or they do not parse). */
export function loadMomentOptions(storage: Pick<Storage, "getItem"> | null = safeStorage()): MomentOptions {
  try {
    const raw = storage?.getItem(STORAGE_KEY);
    if (raw == null) return DEFAULT_MOMENT_OPTIONS;
    const o = JSON.parse(raw) as { pauseOn?: unknown; autoSlow?: unknown };
    const pauseOn = Array.isArray(o.pauseOn) ? PAUSE_KINDS.filter((k) => (o.pauseOn as unknown[]).includes(k)) : [];
    return { pauseOn, autoSlow: typeof o.autoSlow === "boolean" ? o.autoSlow : DEFAULT_MOMENT_OPTIONS.autoSlow };
  } catch {
    return DEFAULT_MOMENT_OPTIONS;
  }
}

export function momentOptionsMessage(o: MomentOptions): ToWorker {
  return { type: "moment-options", pauseOn: o.pauseOn.slice(), autoSlow: o.autoSlow };
}

export interface MomentOptionsState extends MomentOptions {
  readonly set: (o: MomentOptions) => void;
}

export const useMomentOptions = create<MomentOptionsState>()((set) => ({
  ...loadMomentOptions(),
  set: (o) => {
    set({ pauseOn: o.pauseOn, autoSlow: o.autoSlow });
    try {
      safeStorage()?.setItem(STORAGE_KEY, JSON.stringify({ pauseOn: o.pauseOn, autoSlow: o.autoSlow }));
    } catch {
      // A full or refused storage: the options last for this page.
    }
  },
}));

/** The next speed step slower (dir -1) or faster (+1) than `speed` (the nearest step first when it is between two). */
export function stepSpeed(speed: number, dir: -1 | 1): number {
  if (dir > 0) return SPEED_STEPS.find((s) => s > speed * 1.001) ?? (SPEED_STEPS[SPEED_STEPS.length - 1] as number);
  return [...SPEED_STEPS].reverse().find((s) => s < speed * 0.999) ?? (SPEED_STEPS[0] as number);
}
