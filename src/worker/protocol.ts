/**
 * The typed message protocol between the page (main thread) and the simulation
 * worker. Plain, structured-clone-safe data only: no classes, no functions.
 *
 * main -> worker: ToWorker. worker -> main: FromWorker.
 */
import type { Role } from "../core/raft/types";
import type { Action, ProcStatus } from "../core/sim/sim";

/** What a run is made of. Everything else comes from defaultConfig(). */
export interface RunSettings {
  readonly seed: number;
  readonly nodes: number;
  readonly clients: { readonly count: number; readonly workload: "none" | "random" };
  /** Lease holders contending for one lease and writing to fenced storage. */
  readonly holders: number;
  /** Virtual seconds per real second (0.1 = ten times slower than real time). */
  readonly speed: number;
  /** Start playing at once. */
  readonly autoplay: boolean;
}

export type ToWorker =
  /** Builds a fresh simulation (replacing any previous one). */
  | { readonly type: "start"; readonly settings: RunSettings }
  | { readonly type: "play" }
  | { readonly type: "pause" }
  /** Pauses, then processes exactly one event. */
  | { readonly type: "step" }
  | { readonly type: "setSpeed"; readonly speed: number }
  /** Runs a simulator action now, at the current virtual time. */
  | { readonly type: "act"; readonly action: Action };

export interface NodeView {
  readonly id: string;
  readonly status: ProcStatus;
  /** null while the node is down (it has no volatile state). */
  readonly role: Role | null;
  /** The persisted term (survives a crash). */
  readonly term: number;
  /** null while the node is down (the commit index is volatile). */
  readonly commitIndex: number | null;
  /** Index of the last entry in the persisted log. */
  readonly lastIndex: number;
  readonly votedFor: string | null;
}

export interface ViolationView {
  readonly invariant: string;
  readonly timeUs: number;
  readonly nodes: readonly string[];
  readonly detail: string;
}

/** Everything the page shows, as of virtual time `now`. */
export interface SimView {
  readonly seed: number;
  /** Virtual time, µs. */
  readonly now: number;
  readonly playing: boolean;
  readonly speed: number;
  readonly nodes: readonly NodeView[];
  /** The up node leading the highest term, if any. */
  readonly leader: string | null;
  /** Total number of invariant violations so far. */
  readonly violations: number;
  /** The most recent violations (bounded). */
  readonly recentViolations: readonly ViolationView[];
  readonly traceHash: string;
  readonly eventsProcessed: number;
}

export type FromWorker =
  | { readonly type: "view"; readonly view: SimView }
  /** Something the user asked for could not be done (bad action, bad settings). The run goes on. */
  | { readonly type: "error"; readonly message: string };

/** Speeds offered in the UI, in virtual seconds per real second. */
export const SPEEDS: readonly number[] = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2];
export const DEFAULT_SPEED = 0.1;
export const MIN_SPEED = 0.001;
export const MAX_SPEED = 10;
/** Violations kept in a view. */
export const MAX_RECENT_VIOLATIONS = 20;
