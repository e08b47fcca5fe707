/**
 * One process of a live run, as its worker runs it: the same logic as in the simulator (a Raft
 * node, a holder, a client, the storage), called with the time the worker read on its clock.
 * Pure: the worker's shell (src/live/) brings the clock, the timers, the ports and the disk.
 *
 * Every call records its input (recording.ts), so the deterministic engine can replay it. A
 * call's time never goes back, and a message is handled after the time it was sent, so the
 * recording stays in causal order whatever the threads' timing was.
 */
import { type ClockState, localTime, newClock, virtualAt } from "../sim/clock";
import type { SimConfig } from "../sim/config";
import type { ProcessContext, ProcessLogic } from "../sim/process";
import { errorMessage } from "../sim/refusal";
import type { LocalUs, VirtualUs } from "../sim/time";
import type { Payload, ProcId } from "../sim/trace";
import { type Durable, durableMark, durableOf, incarnate, sameMark, stateDigest } from "./durable";
import { applyProcAction } from "./procActions";
import { type LiveInput, type ProcAction, type SendKey, sendKey } from "./recording";

/** A message as the router hands it to a worker. */
export interface LiveMessage {
  readonly key: SendKey;
  readonly copy: number;
  readonly from: ProcId;
  readonly to: ProcId;
  readonly sentAt: VirtualUs;
  readonly payload: Payload;
}

/** A message a process sent, for the router. */
export interface LiveSend {
  readonly key: SendKey;
  readonly from: ProcId;
  readonly to: ProcId;
  readonly sentAt: VirtualUs;
  readonly payload: Payload;
}

/** What one call did: the messages to pass on, a pause the process asked for, what to write to disk first. */
export interface LiveStep {
  readonly sends: LiveSend[];
  /** The process froze itself (a GC pause at a chosen point): virtual µs. */
  readonly pauseUs: number | null;
  /** Its durable state changed: write it before passing any send on (null: nothing new). */
  readonly persist: Durable | null;
  /** An action that could not be done, and why. */
  readonly refused: string | null;
  /** Trace events the call made. */
  readonly events: number;
}

export class LiveProcess {
  readonly logic: ProcessLogic;
  clock: ClockState = newClock();
  /** Set when the process broke one of its own assertions: it runs nothing more. */
  broken: string | null = null;
  private sent = 0;
  private lastAt = 0;
  private inputs: LiveInput[] = [];
  private sends: LiveSend[] = [];
  private selfPause: number | null = null;
  private events = 0;
  private mark: readonly unknown[] | null = null;
  private readonly ctx: { now: LocalUs } & ProcessContext;

  constructor(
    readonly config: SimConfig,
    readonly id: ProcId,
    readonly incarnation: number,
    durable: Durable | null,
    clock: ClockState = newClock(),
  ) {
    this.clock = clock;
    this.logic = incarnate(config, id, incarnation, durable);
    this.ctx = {
      now: 0,
      send: (to, payload) => {
        this.sends.push({ key: sendKey(id, incarnation, this.sent++), from: id, to, sentAt: this.lastAt, payload });
      },
      emit: () => {
        this.events++;
      },
      pauseSelf: (durationUs) => {
        this.selfPause = durationUs;
      },
    };
  }

  /** The last time it handled anything. */
  get at(): VirtualUs {
    return this.lastAt;
  }

  /** Starts it: the first incarnation at time 0 (as the simulator does), a restarted one when its worker began. */
  boot(at: VirtualUs): LiveStep {
    if (this.incarnation === 0) return this.call(0, null, (ctx) => this.logic.start(ctx));
    return this.call(at, { at, kind: "restart" }, (ctx) => this.logic.start(ctx));
  }

  message(at: VirtualUs, m: LiveMessage): LiveStep {
    // Never before it was sent (the sender's clock may run ahead of this thread's), nor before its last input.
    const t = Math.max(at, this.lastAt, m.sentAt + 1);
    return this.call(t, { at: t, kind: "message", from: m.from, key: m.key, copy: m.copy }, (ctx) =>
      this.logic.onMessage(ctx, m.from, m.payload),
    );
  }

  /** Its timer went off: null when nothing was due yet (a timer that fired early does nothing, and is not recorded). */
  timer(at: VirtualUs): LiveStep | null {
    const t = Math.max(at, this.lastAt);
    const d = this.logic.nextDeadline();
    if (d === null || d > localTime(this.clock, t)) return null;
    return this.call(t, { at: t, kind: "timer" }, (ctx) => this.logic.onTimer(ctx));
  }

  act(at: VirtualUs, action: ProcAction): LiveStep {
    const t = Math.max(at, this.lastAt);
    const proc = this;
    let refused: string | null = null;
    const step = this.call(t, { at: t, kind: "act", action }, (ctx) => {
      refused = applyProcAction(
        {
          id: proc.id,
          logic: proc.logic,
          up: true,
          now: t,
          get clock() {
            return proc.clock;
          },
          set clock(c: ClockState) {
            proc.clock = c;
          },
          run: (fn) => fn(ctx),
          emit: () => {
            proc.events++;
          },
        },
        action,
      );
    });
    return { ...step, refused };
  }

  /** Its thread stops now, planned until `untilAt`. */
  pause(at: VirtualUs, untilAt: VirtualUs): void {
    const t = Math.max(at, this.lastAt);
    this.lastAt = t;
    this.inputs.push({ at: t, kind: "pause", untilAt: Math.max(untilAt, t) });
  }

  /** Its thread runs again. */
  wake(at: VirtualUs): void {
    const t = Math.max(at, this.lastAt);
    this.lastAt = t;
    this.inputs.push({ at: t, kind: "wake" });
  }

  /** When its timer is next due (virtual µs, at or after `from`), or null for never. */
  nextTimerAt(from: VirtualUs): VirtualUs | null {
    if (this.broken !== null) return null;
    const d = this.logic.nextDeadline();
    return d === null ? null : virtualAt(this.clock, d, Math.max(from, this.lastAt));
  }

  /** The inputs recorded since the last call, oldest first. */
  takeInputs(): LiveInput[] {
    const out = this.inputs;
    this.inputs = [];
    return out;
  }

  digest(): string {
    return processDigest(this.logic, this.clock);
  }

  private call(t: VirtualUs, input: LiveInput | null, fn: (ctx: ProcessContext) => void): LiveStep {
    if (this.broken !== null) return { sends: [], pauseUs: null, persist: null, refused: null, events: 0 };
    this.lastAt = t;
    if (input !== null) this.inputs.push(input);
    this.ctx.now = localTime(this.clock, t);
    this.events = 0;
    try {
      fn(this.ctx);
    } catch (e) {
      this.broken = errorMessage(e);
    }
    const sends = this.sends;
    this.sends = [];
    const pauseUs = this.selfPause;
    this.selfPause = null;
    const mark = durableMark(this.logic);
    const changed = !sameMark(this.mark, mark);
    this.mark = mark;
    return { sends, pauseUs, persist: changed ? durableOf(this.logic) : null, refused: null, events: this.events };
  }
}

/** A process's state digest: its logic's whole state and its clock. */
export function processDigest(logic: ProcessLogic, clock: ClockState): string {
  return stateDigest({ logic, clock });
}
