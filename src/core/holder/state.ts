/**
 * The lease holder's process state: plain data, so a clone is a deep copy. The statechart's
 * value and context live here too (as data); the process code that runs beside the
 * statechart (timers, the work loop, the key registration, transport) reads and writes it
 * through HolderParts.
 */
import type { LocalUs } from "../sim/time";
import type { StateValue } from "xstate";
import type { ClientOp } from "../raft/types";
import type { Rng } from "../sim/rng";
import type { DelayedEvent, HolderContext } from "./holderMachine";
import type { HolderSettings } from "./types";

/** Storage replies remembered for the UI. */
const STORAGE_RESULTS_LIMIT = 50;

/** Timer ids and event types of the work loop (process code, not statechart events). */
export const WORK_CHECK = "work.check";
export const WORK_WRITE = "work.write";
/** Timer ids and event types of the key registration (process code too). */
export const REGISTER_TIMEOUT = "register.timeout";
export const REGISTER_BACKOFF = "register.backoff";

/** What a timer delivers: a delayed event of the statechart, or one of the process's own. */
export type TimerEvent =
  | DelayedEvent
  | { readonly type: typeof WORK_CHECK }
  | { readonly type: typeof WORK_WRITE; readonly token: number }
  | { readonly type: typeof REGISTER_TIMEOUT }
  | { readonly type: typeof REGISTER_BACKOFF };

/** The process's own timer events that carry nothing: one object each, shared (events are never changed). */
export const WORK_CHECK_EVENT: TimerEvent = Object.freeze({ type: WORK_CHECK });
export const REGISTER_TIMEOUT_EVENT: TimerEvent = Object.freeze({ type: REGISTER_TIMEOUT });
export const REGISTER_BACKOFF_EVENT: TimerEvent = Object.freeze({ type: REGISTER_BACKOFF });

/** A delayed event, due on the holder's local clock. */
export interface HolderTimer {
  readonly id: string;
  readonly event: TimerEvent;
  readonly dueUs: LocalUs;
  /** Insertion order: breaks ties between timers due at the same time. */
  readonly order: number;
}

export interface StorageResult {
  readonly reqId: number;
  /** The token the write carried (null if the write is too old to remember). */
  readonly token: number | null;
  readonly accepted: boolean;
  /** The highest token the storage had seen when it answered. */
  readonly highest: number;
  readonly atUs: LocalUs;
}

/**
 * The work loop, run by the process while the statechart is in holding: every
 * workIntervalMs it checks the lease is valid on the local clock; if so, workGapMs later
 * it writes to storage with the token it checked, without checking again.
 */
export interface WorkLoop {
  /** off: not holding; idle: waiting for the next check; gap: checked, the write is due. */
  phase: "off" | "idle" | "gap";
  /** The last validity check (the period is kept from check to check); null for a new grant. */
  lastCheckUs: LocalUs | null;
  /** Validity checks made (for the UI). */
  checks: number;
}

/**
 * The key registration (registerKey), run by the process while the statechart is in
 * holding: a ClientWrite put of /holders/<id> attached to the lease, sent to the server
 * believed to lead, following hints, backing off (capped exponential, jittered) on
 * silence or refusal, given up after MAX_WRITE_ATTEMPTS sends. Once per grant: back in
 * holding from jeopardy or grace it is written again only if it was not written.
 */
export interface RegisterLoop {
  /** off: not holding; sending: a put awaits its answer; backoff: waiting to retry; done: written (or not wanted); failed: gave up. */
  phase: "off" | "sending" | "backoff" | "done" | "failed";
  /** The key of the current grant is written. */
  written: boolean;
  /** Sends of the current put, failed tries in a row, hints followed in a row. */
  attempts: number;
  failures: number;
  redirects: number;
}

export interface HolderState {
  /** Persisted across crashes: each incarnation uses a fresh client id. */
  incarnation: number;
  /** Persisted: storage writes so far, so values and request ids stay unique across restarts. */
  writes: number;
  // Volatile:
  up: boolean;
  machine: { value: StateValue; context: HolderContext } | null;
  /** Index into settings.servers of the server believed to lead. */
  target: number;
  /** Sequence number of the current ClientWrite operation (grant, put or revoke); retries reuse it, the next one is seq + 1. */
  seq: number;
  register: RegisterLoop;
  timers: HolderTimer[];
  timerOrder: number;
  work: WorkLoop;
  /** An armed GC pause (µs), taken right after the next successful validity check. */
  gcPauseUs: number | null;
  /** The refresh that went to every server (DHCP rebinding): its not-leader answers are expected noise. */
  rebindReqId: number | null;
  storageResults: StorageResult[];
  /** Recent storage writes (reqId -> token), to label the replies. */
  sentWrites: { reqId: number; token: number }[];
  storageAccepted: number;
  storageRejected: number;
  /** What the last "holder" trace event said (null: none in this incarnation), to emit only on change. */
  lastReport: { state: string; token: number | null; deadlineUs: LocalUs | null } | null;
  /** The role the last "replica" trace event reported ("" before the first), replicas only. */
  lastRole: string;
  /** Clients' writes that reached a replica but that it did not accept: it was no longer primary when the write was due. */
  unsentWrites: number;
  /** The write operation (grant, put, revoke) whose call is in the history and awaits its answer. */
  openOp: { seq: number; op: ClientOp } | null;
}

/** What the process code beside the statechart works on: the settings, the state, the random stream. */
export interface HolderParts {
  readonly settings: HolderSettings;
  readonly st: HolderState;
  readonly rng: Rng;
}

export function freshState(): HolderState {
  return {
    incarnation: 0,
    writes: 0,
    up: false,
    machine: null,
    target: 0,
    seq: 0,
    register: freshRegister(),
    timers: [],
    timerOrder: 0,
    work: freshWork(),
    gcPauseUs: null,
    rebindReqId: null,
    storageResults: [],
    sentWrites: [],
    storageAccepted: 0,
    storageRejected: 0,
    lastReport: null,
    lastRole: "",
    unsentWrites: 0,
    openOp: null,
  };
}

export function freshWork(): WorkLoop {
  return { phase: "off", lastCheckUs: null, checks: 0 };
}

export function freshRegister(): RegisterLoop {
  return { phase: "off", written: false, attempts: 0, failures: 0, redirects: 0 };
}

/** A deep copy of the state; the settings object is shared (it is read-only). */
export function copyHolderState(s: HolderState, settings: HolderSettings): HolderState {
  return {
    ...s,
    machine: s.machine === null ? null : { value: copyPlain(s.machine.value), context: { ...copyPlain(s.machine.context), cfg: settings } },
    timers: s.timers.map((t) => ({ ...t, event: copyPlain(t.event) })),
    work: { ...s.work },
    register: { ...s.register },
    storageResults: s.storageResults.slice(),
    sentWrites: s.sentWrites.map((w) => ({ ...w })),
    openOp: s.openOp === null ? null : { ...s.openOp },
    lastReport: s.lastReport === null ? null : { ...s.lastReport },
  };
}

/** A deep copy of plain data (the machine's value and context, timer events). */
function copyPlain<T>(x: T): T {
  if (x === null || typeof x !== "object") return x;
  if (Array.isArray(x)) return x.map(copyPlain) as T;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(x)) out[k] = copyPlain(v);
  return out as T;
}

export function pushBounded<T>(list: T[], item: T): void {
  list.push(item);
  if (list.length > STORAGE_RESULTS_LIMIT) list.shift();
}

/** Arms a timer `delayMs` from now on the local clock (appended, never replacing one with the same id). */
export function addTimer(st: HolderState, now: LocalUs, id: string, event: TimerEvent, delayMs: number): void {
  st.timers.push({ id, event, dueUs: now + Math.max(0, Math.round(delayMs * 1000)), order: st.timerOrder++ });
}

/** Drops every timer with the id `a` (or `b`), in place: cancels run on most steps, and allocate nothing. */
export function dropTimers(st: HolderState, a: string, b: string | null = null): void {
  const timers = st.timers;
  let kept = 0;
  for (let i = 0; i < timers.length; i++) {
    const t = timers[i] as HolderTimer;
    if (t.id === a || t.id === b) continue;
    if (kept !== i) timers[kept] = t;
    kept++;
  }
  // pop(), not `length = kept`: setting an array's length is a call into the runtime, pop() is inlined.
  while (timers.length > kept) timers.pop();
}

/** The due timer to fire first (earliest, then first armed), taken off the list; null when none is due. */
export function takeDueTimer(st: HolderState, now: LocalUs): HolderTimer | null {
  let i = -1;
  for (let j = 0; j < st.timers.length; j++) {
    const t = st.timers[j] as HolderTimer;
    if (t.dueUs > now) continue;
    const b = i < 0 ? null : (st.timers[i] as HolderTimer);
    if (b === null || t.dueUs < b.dueUs || (t.dueUs === b.dueUs && t.order < b.order)) i = j;
  }
  if (i < 0) return null;
  const timers = st.timers;
  const t = timers[i] as HolderTimer;
  for (let j = i + 1; j < timers.length; j++) timers[j - 1] = timers[j] as HolderTimer;
  timers.pop();
  return t;
}

/** One uniform draw in [0, 1): one per event handled, statechart event or process timer alike. */
export function draw(rng: Rng): number {
  return rng.nextU32() / 0x100000000;
}
