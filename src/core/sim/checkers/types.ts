/** What the checkers report, and what they ask of the simulator they watch. */
import type { LocalUs, VirtualUs } from "../time";
import type { CoreStateMachine } from "../../kv/statemachine";
import type { Disk } from "../../raft/server";
import type { NodeId } from "../../raft/types";
import type { ProcId } from "../trace";

export interface Violation {
  readonly invariant: Invariant;
  readonly time: number;
  readonly nodes: readonly ProcId[];
  readonly detail: string;
  readonly seed: number;
}

export const INVARIANTS = {
  "election-safety": "At most one leader per term",
  "log-matching": "Two logs with an entry of the same index and term are identical up to it",
  "leader-completeness": "A new leader's log holds every committed entry",
  "state-machine-safety": "No two nodes commit or apply different entries at one index",
  "term-monotonic": "A node's persisted term never decreases",
  "commit-monotonic": "A node's commit index never decreases (within one run of the process)",
  "persist-before-send": "Term, vote and entries are persisted before the messages that depend on them",
  "acknowledged-write-durable": "A write acknowledged to a client is committed",
  assertion: "Every process's internal assertions hold (e.g. a committed entry is never overwritten)",
  "lease-exclusive": "At most one holder per lease name in the committed state at any index",
  "token-monotonic": "Fencing tokens strictly increase per lease name",
  "fencing-monotonic": "With fencing on, storage never accepts a token lower than one it accepted for that resource",
  "storage-corruption":
    "With fencing off, storage accepted a write from a holder whose lease had been superseded (two holders' writes interleaved)",
  "lease-keys": "Keys attached to a lease never outlive it in the committed state",
  "renewed-lease-kept": "A holder that renews in time on a fault-free network never loses its lease",
  "lease-belief":
    "No holder believes it holds a lease (its own deadline still ahead) once the service has applied that lease as expired or given to another holder",
  "two-primaries":
    "At most one database replica accepts writes as primary at any instant (no two replicas' intervals of accepted writes overlap)",
} as const;

export type Invariant = keyof typeof INVARIANTS;

/**
 * Not a violation: a run broke an assumption the protocol is entitled to make (today: the
 * clock-rate bound the holders' drift margin covers). The run goes on; the finding says so.
 */
export interface BoundBroken {
  readonly bound: "clock-rate";
  readonly time: number;
  readonly nodes: readonly ProcId[];
  readonly detail: string;
}

/** How a holder times the lease it believes it holds (its own clock, µs). */
export interface HolderTiming {
  /** When the request (grant or refresh) the holder times its lease from was sent. */
  readonly sentAtUs: LocalUs;
  readonly ttlMs: number;
  /** The clock drift the holder allows for (its deadline is sentAt + ttl x (1 - margin)). */
  readonly driftMarginPpm: number;
}

export interface CheckerHost {
  readonly seed: number;
  readonly now: VirtualUs;
  /** The Raft nodes, in a fixed order. */
  readonly nodeIds: readonly NodeId[];
  readonly holderIds: readonly ProcId[];
  diskOf(id: ProcId): Disk | undefined;
  /** The node's applied state machine (null while crashed). */
  stateOf(id: ProcId): CoreStateMachine | null;
  /** Whether a process is running (up or paused), for "it did nothing wrong" checks. */
  isUp(id: ProcId): boolean;
  /** The process's local clock reading now (µs). */
  localNow(id: ProcId): LocalUs;
  /** The lease timing of a holder that believes it holds one; null otherwise. */
  holderTiming(id: ProcId): HolderTiming | null;
  report(v: Omit<Violation, "time" | "seed">): void;
  /** A broken assumption (not a protocol violation): recorded, and the run goes on. */
  boundBroken(b: Omit<BoundBroken, "time">): void;
}
