/**
 * The kernel's data types: a message on the wire, the queue's items, a snapshot of the
 * whole simulation, a failed action and a trace listener (kernel.ts re-exports them).
 */
import type { Action } from "./actions";
import type { BoundBroken, Checkers, Violation } from "./checkers";
import type { ProcRecord } from "./cluster";
import type { NemesisState } from "./nemesis";
import type { NetState } from "./network";
import type { RngState } from "./rng";
import type { VirtualUs } from "./time";
import type { Payload, ProcId, TraceEvent } from "./trace";

/** A message on the wire. Immutable once sent. */
export interface Envelope {
  readonly id: number;
  readonly from: ProcId;
  readonly to: ProcId;
  readonly sentAt: VirtualUs;
  readonly deliverAt: VirtualUs;
  readonly payload: Payload;
  /** Decided when sent: lost on the way, or blocked by a partition or cut link. */
  readonly fate: "ok" | "loss" | "partition" | "cut";
  readonly dup: boolean;
}

export type QItem =
  | { readonly at: VirtualUs; readonly seq: number; readonly type: "deliver"; readonly env: Envelope }
  | { readonly at: VirtualUs; readonly seq: number; readonly type: "timer"; readonly proc: ProcId; readonly gen: number }
  | { readonly at: VirtualUs; readonly seq: number; readonly type: "wake"; readonly proc: ProcId; readonly gen: number }
  | { readonly at: VirtualUs; readonly seq: number; readonly type: "action"; readonly action: Action }
  | { readonly at: VirtualUs; readonly seq: number; readonly type: "nemesis" }
  /** The next input of a recorded live run (live/replay.ts): only a replay queues these. */
  | { readonly at: VirtualUs; readonly seq: number; readonly type: "script" };

export interface SimSnapshot {
  readonly now: number;
  readonly seq: number;
  readonly msgId: number;
  readonly eventCount: number;
  readonly handled: number;
  readonly queue: readonly QItem[];
  readonly procs: readonly ProcRecord[];
  readonly net: { readonly state: NetState; readonly rng: RngState };
  readonly refRng: RngState;
  readonly nemesis: NemesisState | null;
  readonly hash: [number, number];
  readonly checkers: Checkers | null;
  readonly violations: readonly Violation[];
  readonly boundsBroken: readonly BoundBroken[];
  readonly actionFailures: readonly ActionFailure[];
  readonly halted: boolean;
  readonly names: Readonly<Record<string, ProcId>>;
}

export interface ActionFailure {
  readonly time: number;
  readonly action: Action;
  readonly error: string;
}

export type TraceListener = (e: TraceEvent) => void;
