/**
 * The actions aimed at one process (a clock change, a submit, a release, a GC pause, fencing,
 * a forced timeout, a leadership transfer, a configuration change), done to that process
 * alone. A live run's worker does them to its own process, and the replay does the same to
 * the same process: never by resolving a role again ("the leader" may differ between them).
 */
import type { RaftServer } from "../raft/server";
import { type ClockState, withDrift, withJump } from "../sim/clock";
import type { ProcessContext, ProcessLogic } from "../sim/process";
import { errorMessage } from "../sim/refusal";
import { formatDuration, type VirtualUs } from "../sim/time";
import type { ProcEvent, ProcId, SimEvent } from "../sim/trace";
import type { LeaseHolder } from "../holder/holder";
import type { KvClient } from "../kv/client";
import type { FencedStorage } from "../storage/storage";
import type { ProcAction } from "./recording";

/** The one process an action is done to, as its runner (a worker, or the replay) sees it. */
export interface OneProcess {
  readonly id: ProcId;
  readonly logic: ProcessLogic;
  readonly up: boolean;
  readonly now: VirtualUs;
  clock: ClockState;
  /** Runs one call into the process (then its pause, as after any call). */
  run(fn: (ctx: ProcessContext) => void): void;
  emit(body: SimEvent | ({ proc: ProcId } & ProcEvent)): void;
}

/**
 * The clock after a clock action at `at` (throws on a bad drift or jump). The router keeps each
 * machine's clock this way too, for the worker that restarts on it.
 */
export function clockAfter(c: ClockState, at: VirtualUs, a: { readonly driftPpm?: number; readonly jumpUs?: number }): ClockState {
  let out = c;
  if (a.driftPpm !== undefined) out = withDrift(out, at, a.driftPpm);
  if (a.jumpUs !== undefined) out = withJump(out, at, a.jumpUs);
  return out;
}

/** Does the action to the process; returns why it could not, or null. */
export function applyProcAction(h: OneProcess, a: ProcAction): string | null {
  const l = h.logic;
  const not = (what: string): string => `${a.type}: ${h.id} is not ${what}`;
  switch (a.type) {
    case "clock": {
      let c: ClockState;
      try {
        c = clockAfter(h.clock, h.now, a);
      } catch (e) {
        return `clock: ${errorMessage(e)}`;
      }
      h.clock = c;
      h.emit({ kind: "clock", proc: h.id, driftPpm: c.driftPpm, jumpUs: a.jumpUs ?? 0 });
      return null;
    }
    case "submit":
      if (l.kind !== "client") return not("a client");
      if (h.up) h.run((ctx) => (l as KvClient).submit(ctx, a.op));
      return null;
    case "release":
      if (l.kind !== "holder") return not("a lease holder");
      if (h.up) h.run((ctx) => (l as LeaseHolder).release(ctx));
      return null;
    case "gc-pause":
      if (l.kind !== "holder") return not("a lease holder");
      if (!Number.isSafeInteger(a.durationUs) || a.durationUs <= 0)
        return `gc-pause: duration must be a positive integer µs, got ${a.durationUs}µs`;
      (l as LeaseHolder).armGcPause(a.durationUs);
      h.emit({ kind: "note", text: `${h.id} will pause for ${formatDuration(a.durationUs)} right after its next lease check` });
      return null;
    case "fencing":
      if (l.kind !== "storage") return not("the storage");
      (l as FencedStorage).setFencing(a.on);
      h.emit({ kind: "note", text: `storage fencing ${a.on ? "on" : "off"}` });
      return null;
    case "timeout":
      if (l.kind !== "node") return not("a Raft node");
      if (!h.up) return null;
      h.emit({ kind: "timeout", proc: h.id });
      h.run((ctx) => (l as RaftServer).forceTimeout(ctx));
      return null;
    case "transfer":
    case "add-node":
    case "remove-node": {
      if (l.kind !== "node") return not("a Raft node");
      if (!h.up) return `${a.type}: ${h.id} is not running`;
      const server = l as RaftServer;
      let why: string | null = null;
      h.run((ctx) => {
        why =
          a.type === "transfer"
            ? server.transferLeadership(ctx, a.to)
            : server.changeConfig(ctx, a.type === "add-node" ? { add: a.proc } : { remove: a.proc });
      });
      return why;
    }
  }
}
