/**
 * Live mode's messages: between the page (cluster.ts), the router's worker (router.worker.ts)
 * and each process's worker (process.worker.ts), and the run's shared clock.
 *
 * The page starts every worker and owns their lives (terminate is a real kill). Each process
 * worker talks to the router over a MessagePort of its own: it reports each call (its inputs
 * and the messages it sent, after writing its disk) and receives the messages due to it. The
 * router feeds the page the recording as it grows, which the simulation worker replays as the
 * dashboard's shadow of the live run.
 */
import type { LiveMessage, LiveSend } from "../core/live/process";
import type { LiveInput, LiveRecording, NetAction, ProcAction, ScriptItem, SendKey } from "../core/live/recording";
import type { ClockState } from "../core/sim/clock";
import type { SimConfig } from "../core/sim/config";
import type { VirtualUs } from "../core/sim/time";
import type { ProcId } from "../core/sim/trace";

/**
 * The run's clock, the same in every worker: virtual µs = v0 + (real ms since the epoch - r0)
 * × 1000 × speed. A change of speed re-bases it at the moment of the change, so it never jumps.
 */
export interface RunClock {
  /** Real time of the base (ms since the epoch: performance.timeOrigin + performance.now()). */
  readonly r0: number;
  /** Virtual µs at r0. */
  readonly v0: VirtualUs;
  /** Virtual µs per real µs. */
  readonly speed: number;
}

/** Real ms since the epoch, the same base in every worker (each worker's performance.now() starts at its own creation). */
export function epochMs(): number {
  return performance.timeOrigin + performance.now();
}

export function runTimeAt(c: RunClock, realMs: number): VirtualUs {
  return c.v0 + Math.max(0, Math.round((realMs - c.r0) * 1000 * c.speed));
}

/** Real ms from now until virtual time `at` (0 when it is past). */
export function realDelayMs(c: RunClock, now: VirtualUs, at: VirtualUs): number {
  return Math.max(0, (at - now) / 1000 / c.speed);
}

/**
 * The delay to give setTimeout for virtual time `at`: whole ms, rounded up. setTimeout cuts a
 * fraction off (its delay is a whole number of ms), so a timer set for 49.7 ms went off at 49,
 * before it was due; the process found nothing due and set another for the 0.7 ms left, which
 * the browser stretches to 4 ms (a timer set from a timer, nested deep): every timer then went
 * off some 4 real ms late, 40 virtual ms at 10×.
 */
export function timerDelayMs(c: RunClock, now: VirtualUs, at: VirtualUs): number {
  return Math.ceil(realDelayMs(c, now, at));
}

export type DiskKind = "opfs" | "memory";

// ---- page → process worker ----

export type ToProcess =
  | {
      readonly type: "init";
      readonly config: SimConfig;
      readonly id: ProcId;
      readonly incarnation: number;
      readonly clock: ClockState;
      readonly run: RunClock;
      readonly router: MessagePort;
      /** The run's folder on the origin's private file system (each process has a file in it). */
      readonly runDir: string;
      /** Where the page keeps its disk when the file system is not there (memory): the last text it was sent. */
      readonly memoryDisk: string | null;
      /** Int32 slots, one per process: its pause (a real Atomics.wait) waits on its slot. Null without cross-origin isolation. */
      readonly pauseCells: SharedArrayBuffer | null;
      readonly slot: number;
      /** Check every call: each report carries the state's digest after it (ScriptItem.after). */
      readonly verify: boolean;
    }
  | { readonly type: "act"; readonly action: ProcAction; readonly requestId: number }
  | { readonly type: "pause"; readonly durationUs: number }
  /** Ends a pause early where there is no shared memory (with it, the page wakes the thread through its slot). */
  | { readonly type: "resume" }
  | { readonly type: "speed"; readonly run: RunClock }
  | { readonly type: "verify"; readonly on: boolean }
  /** The run ends: report the state's digest to the router, and do nothing more. */
  | { readonly type: "finish" };

// ---- process worker → page ----

export type FromProcess =
  | { readonly type: "ready"; readonly disk: DiskKind; readonly diskNote: string | null }
  /** Its disk, where the page keeps it (memory), written before anything that depends on it is sent. */
  | { readonly type: "persist"; readonly text: string }
  | { readonly type: "acted"; readonly requestId: number; readonly refused: string | null }
  | { readonly type: "stats"; readonly stats: ThreadStats }
  | { readonly type: "broken"; readonly detail: string };

/** What a process's thread reports of itself, about twice a second. */
export interface ThreadStats {
  readonly calls: number;
  readonly paused: boolean;
  /** How late its timers went off in the last half second: the worst, in real ms (null: none went off). */
  readonly timerLateMs: number | null;
  /** The same, in virtual ms (what the process felt). */
  readonly timerLateVirtualMs: number | null;
}

// ---- process worker ↔ router (over its port) ----

export type ProcessToRouter =
  | {
      readonly type: "report";
      readonly id: ProcId;
      readonly incarnation: number;
      readonly inputs: LiveInput[];
      readonly sends: LiveSend[];
      /** The state's digest after the last input, when the run checks every call. */
      readonly after?: string;
    }
  | { readonly type: "final"; readonly id: ProcId; readonly incarnation: number; readonly digest: string; readonly at: VirtualUs };

export type RouterToProcess = { readonly type: "deliver"; readonly msg: LiveMessage };

// ---- page → router worker ----

export type ToRouter =
  | { readonly type: "init"; readonly config: SimConfig; readonly run: RunClock; readonly ports: readonly { readonly id: ProcId; readonly port: MessagePort }[] }
  | { readonly type: "act"; readonly action: NetAction; readonly requestId: number }
  | { readonly type: "crashed"; readonly id: ProcId }
  /** A new worker for `id`: the router answers with its incarnation and clock, then takes its port. */
  | { readonly type: "restart"; readonly id: ProcId; readonly requestId: number }
  | { readonly type: "port"; readonly id: ProcId; readonly port: MessagePort }
  | { readonly type: "speed"; readonly run: RunClock }
  /** The run ends: stop delivering, wait for the final digest of each of `alive`, then send the recording. */
  | { readonly type: "finish"; readonly alive: readonly ProcId[] };

// ---- router worker → page ----

export type FromRouter =
  | {
      readonly type: "feed";
      /** Script items recorded since the last feed (all of them when `rewritten`), in time order. */
      readonly items: ScriptItem[];
      readonly plans: [SendKey, VirtualUs[]][];
      /** Earlier items changed: the shadow starts again from `items`. */
      readonly rewritten: boolean;
      /** Every item at or before this time has arrived (barring a late report, which rewrites). */
      readonly watermark: VirtualUs;
      readonly now: VirtualUs;
      /** Messages held by the router, by receiver. */
      readonly waiting: Readonly<Record<ProcId, number>>;
      /** Inputs in the recording so far (it holds at most MAX_RECORDED_INPUTS). */
      readonly inputs: number;
    }
  | { readonly type: "restarted"; readonly requestId: number; readonly incarnation: number; readonly clock: ClockState }
  | { readonly type: "acted"; readonly requestId: number; readonly refused: string | null }
  | { readonly type: "recording"; readonly recording: LiveRecording }
  /** The recording is full (MAX_RECORDED_INPUTS, core/live/recording.ts): the page ends the run. */
  | { readonly type: "full"; readonly inputs: number; readonly now: VirtualUs }
  | { readonly type: "error"; readonly message: string };
