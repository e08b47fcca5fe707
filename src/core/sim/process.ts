/** The contract between the simulator and anything it runs (Raft nodes, clients, later storage). */
import type { LocalUs } from "./time";
import type { Payload, ProcEvent, ProcId } from "./trace";

export interface ProcessContext {
  /** The process's own local clock reading, in µs (drifts; jumps after a pause). */
  readonly now: LocalUs;
  send(to: ProcId, payload: Payload): void;
  emit(event: ProcEvent): void;
  /**
   * Freezes this process for a while, starting right after the current call returns:
   * a GC pause that strikes at a chosen point in its code (e.g. between checking a
   * lease and using it).
   */
  pauseSelf(durationUs: number): void;
}

export interface ProcessLogic {
  readonly kind: "node" | "client" | "holder" | "storage";
  /** Called at boot and after every restart, with only the persisted state left. */
  start(ctx: ProcessContext): void;
  onMessage(ctx: ProcessContext, from: ProcId, payload: Payload): void;
  onTimer(ctx: ProcessContext): void;
  /** The next local time at which onTimer has work, or null for none. */
  nextDeadline(): LocalUs | null;
  /** Loses every piece of volatile state; only the simulated disk survives. */
  crash(): void;
  /** A deep copy for snapshots. */
  clone(): ProcessLogic;
  /**
   * Optional: a copy to keep inside a snapshot. It may share memory with copies kept
   * before (a Raft log's unchanged chunks); the simulator never runs it, it only
   * clone()s it again when the snapshot is restored.
   */
  freeze?(): ProcessLogic;
}
