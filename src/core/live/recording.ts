/**
 * A live run's recording: every input of every process, in the order each process handled
 * it, at the virtual time it read on its clock, and the router's decisions. The deterministic
 * engine replays it exactly (replay.ts): each process gets the same inputs, in the same order,
 * at the same local times, so it ends in the same state.
 *
 * Virtual time is the run's shared clock (µs since the run began, scaled by its speed); a
 * process's local time is its clock's reading of it (sim/clock.ts), as in the simulator.
 */
import type { Action } from "../sim/actions";
import type { SimConfig } from "../sim/config";
import type { VirtualUs } from "../sim/time";
import type { DropReason, ProcId } from "../sim/trace";

/** A message's name across the run: its sender, the sender's incarnation, and the sender's count of sends. */
export type SendKey = string;

export function sendKey(from: ProcId, incarnation: number, k: number): SendKey {
  return `${from}/${incarnation}/${k}`;
}

/** Actions aimed at one process, which its own worker performs. */
export type ProcAction = Extract<
  Action,
  { type: "clock" | "submit" | "release" | "gc-pause" | "fencing" | "timeout" | "transfer" | "add-node" | "remove-node" }
>;
/** Actions on the network, which the router performs. */
export type NetAction = Extract<
  Action,
  { type: "partition" | "heal" | "cut" | "disconnect" | "connect" | "slow-link" | "network" | "note" }
>;

const PROC_ACTIONS: ReadonlySet<string> = new Set([
  "clock",
  "submit",
  "release",
  "gc-pause",
  "fencing",
  "timeout",
  "transfer",
  "add-node",
  "remove-node",
]);
const NET_ACTIONS: ReadonlySet<string> = new Set(["partition", "heal", "cut", "disconnect", "connect", "slow-link", "network", "note"]);

export const isProcAction = (a: Action): a is ProcAction => PROC_ACTIONS.has(a.type);
export const isNetAction = (a: Action): a is NetAction => NET_ACTIONS.has(a.type);

/** One input a process handled, at the virtual time it handled it. */
export type LiveInput =
  | { readonly at: VirtualUs; readonly kind: "message"; readonly from: ProcId; readonly key: SendKey; readonly copy: number }
  | { readonly at: VirtualUs; readonly kind: "timer" }
  | { readonly at: VirtualUs; readonly kind: "act"; readonly action: ProcAction }
  /** Its thread stopped (a pause, or a GC pause it hit itself), planned until `untilAt`. */
  | { readonly at: VirtualUs; readonly kind: "pause"; readonly untilAt: VirtualUs }
  | { readonly at: VirtualUs; readonly kind: "wake" }
  /** Its worker was terminated (recorded by the router, after every input the worker reported). */
  | { readonly at: VirtualUs; readonly kind: "crash" }
  /** A new worker started it again from its disk (its first input, before start()). */
  | { readonly at: VirtualUs; readonly kind: "restart" };

/** What the router did: a message it dropped, or a change to the network. */
export type RouterInput =
  | {
      readonly at: VirtualUs;
      readonly kind: "drop";
      readonly to: ProcId;
      readonly key: SendKey;
      readonly copy: number;
      readonly reason: DropReason;
    }
  | { readonly at: VirtualUs; readonly kind: "net"; readonly action: NetAction };

/** An item of the merged script: an input of one process, or of the router (proc null). */
export type ScriptItem =
  | {
      readonly proc: ProcId;
      readonly input: LiveInput;
      /**
       * The process's state digest just after it handled this input, as its worker computed it:
       * present when the run checked every call ("Check every call"), on the last input of each
       * of its reports. The replay compares its own there and stops at the first that differs.
       */
      readonly after?: string;
    }
  | { readonly proc: null; readonly input: RouterInput };

export const RECORDING_VERSION = 1;

export interface LiveRecording {
  readonly version: typeof RECORDING_VERSION;
  /** The settings the run was built from (the seed among them: every process's stream is forked from it). */
  readonly config: SimConfig;
  /** Virtual µs per real µs while it ran. */
  readonly speed: number;
  /** Every input, in one list ordered by time (each process's own in the order it handled them). */
  readonly script: readonly ScriptItem[];
  /** For each message, when the router planned each copy to arrive (its length is the number of copies). */
  readonly plans: Readonly<Record<SendKey, readonly VirtualUs[]>>;
  /** Where the recording ends (virtual µs). */
  readonly endAt: VirtualUs;
  /** Each process's state digest at the end, as its worker computed it (a terminated one's: its disk's). */
  readonly digests: Readonly<Record<ProcId, string>>;
}

/** The order of the merged script: by time; at equal times the order items were added in (a stable sort). */
export function sortScript(items: ScriptItem[]): ScriptItem[] {
  return items
    .map((item, i) => ({ item, i }))
    .sort((a, b) => a.item.input.at - b.item.input.at || a.i - b.i)
    .map((x) => x.item);
}

/**
 * The most inputs a recording holds: about 19 minutes of a live run of the page's default
 * cluster (some 21,000 inputs a minute; up to 35 minutes under bench:live's faults), some 100 MB
 * of memory in the router and 165 MB in the dashboard's shadow (bench:live). A run that reaches
 * it ends (the page opens its recording in the simulator).
 */
export const MAX_RECORDED_INPUTS = 400_000;
