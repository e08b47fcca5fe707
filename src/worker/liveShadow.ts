/**
 * The dashboard in live mode: the shadow of the live run. The router feeds the recording as it
 * grows (src/live/); the shadow replays it with the deterministic engine (core/live/replay.ts),
 * so every panel, the checkers, the space-time diagram and time travel work as in a simulated
 * run, a little behind the live one (the watermark: every input up to it has arrived).
 *
 * A report that arrives after the shadow has played past its time (a worker slower than the
 * watermark's lag) takes the shadow back to the snapshot before that time, and it plays
 * again from there with the report in; it is counted, so the page can say so. (A recording
 * rewritten by the router, a kill's place moved, starts it over from the beginning.)
 */
import { isDivergence } from "../core/live/diverged";
import type { ReplaySimulation } from "../core/live/replay";
import type { LiveRecording, ScriptItem, SendKey } from "../core/live/recording";
import type { Timeline } from "../core/replay/timeline";
import type { SimConfig } from "../core/sim/config";
import type { VirtualUs } from "../core/sim/time";
import type { ProcId } from "../core/sim/trace";

/** One feed from the router. */
export interface LiveFeed {
  readonly items: readonly ScriptItem[];
  readonly plans: readonly (readonly [SendKey, readonly VirtualUs[]])[];
  readonly rewritten: boolean;
  readonly watermark: VirtualUs;
}

/** A live run's processes, live and replayed: the proof that the replay is the same run. */
export interface ReplayCheck {
  readonly digests: readonly { readonly id: ProcId; readonly live: string | null; readonly replay: string; readonly same: boolean }[];
  /** The replay stopped where it could not follow the recording (null: it followed it to the end). */
  readonly diverged: string | null;
  readonly endAt: VirtualUs;
}

/** Merges items in time order into a list in time order; at equal times, those already there first. */
function mergeInto(into: ScriptItem[], items: readonly ScriptItem[]): ScriptItem[] {
  if (items.length === 0) return into;
  const last = into[into.length - 1];
  if (last === undefined || (items[0] as ScriptItem).input.at >= last.input.at) {
    for (const item of items) into.push(item);
    return into;
  }
  const out: ScriptItem[] = [];
  let i = 0;
  let j = 0;
  while (i < into.length || j < items.length) {
    const a = into[i];
    const b = items[j];
    if (b === undefined || (a !== undefined && a.input.at <= b.input.at)) {
      out.push(a as ScriptItem);
      i++;
    } else {
      out.push(b);
      j++;
    }
  }
  return out;
}

export class LiveShadow {
  /** Items received but beyond the watermark played so far. */
  private ahead: ScriptItem[] = [];
  private readonly plans = new Map<SendKey, readonly VirtualUs[]>();
  private applied: VirtualUs = -1;
  /** Times the shadow went back (or, for a rewritten recording, started over) because a report came late. */
  rebuilds = 0;

  constructor(
    readonly config: SimConfig,
    /** Makes a fresh timeline over a fresh, empty replay of `config` (and whatever goes with it: the host's journal). */
    private readonly make: () => Timeline,
    public timeline: Timeline = make(),
  ) {}

  /** How far the recording has come: the shadow can play up to here. */
  get watermark(): VirtualUs {
    return Math.max(0, this.applied);
  }

  /**
   * Takes a feed; returns true when the shadow had to go back (a report came late, so what it
   * played since that report's time is played again: its view must be drawn afresh).
   */
  feed(f: LiveFeed): boolean {
    for (const [k, p] of f.plans) this.plans.set(k, p);
    if (f.rewritten) {
      // An item already handed over moved (the router's recordLate): start over from the whole script, which the feed carries.
      this.rebuilds++;
      this.timeline = this.make();
      this.ahead = f.items.slice();
      this.applied = -1;
      this.release(f.watermark, this.plans.entries());
      return true;
    }
    const late = f.items.filter((x) => x.input.at <= this.applied);
    if (late.length > 0) {
      this.rebuilds++;
      this.goBackFor(late, f.plans);
    }
    this.ahead = mergeInto(
      this.ahead,
      late.length === 0 ? f.items : f.items.filter((x) => x.input.at > this.applied),
    );
    this.release(f.watermark, f.plans);
    return late.length > 0;
  }

  /**
   * Puts items the shadow already played past into the replay: back to the last moment before
   * the earliest (its snapshots make that cheap), the future explored from there forgotten, the
   * items in, then to the moment the dashboard showed.
   */
  private goBackFor(late: readonly ScriptItem[], plans: Iterable<readonly [SendKey, readonly VirtualUs[]]>): void {
    const tl = this.timeline;
    const shown = tl.now;
    const from = (late[0] as ScriptItem).input.at;
    if (tl.end >= from) {
      tl.seek(Math.max(0, from - 1));
      tl.dropFuture();
    }
    (tl.sim as ReplaySimulation).insert(late, plans);
    if (shown < tl.now) tl.seek(shown);
    else tl.advanceTo(shown);
  }

  /** Hands the replay every item up to `watermark`, and the plans of the messages sent (every plan: a plan may come before its item is released). */
  private release(watermark: VirtualUs, plans: Iterable<readonly [SendKey, readonly VirtualUs[]]>): void {
    let n = 0;
    if (watermark > this.applied) {
      while (n < this.ahead.length && (this.ahead[n] as ScriptItem).input.at <= watermark) n++;
      this.applied = watermark;
    }
    (this.timeline.sim as ReplaySimulation).append(this.ahead.slice(0, n), plans);
    this.ahead = this.ahead.slice(n);
  }
}

/** Replays a whole recording and compares each process's digest with the live one. */
export function checkReplay(sim: ReplaySimulation, recording: LiveRecording): ReplayCheck {
  const replay = sim.digests();
  const diverged = sim.violations.find(isDivergence)?.detail ?? null;
  return {
    digests: Object.entries(replay).map(([id, d]) => ({ id, live: recording.digests[id] ?? null, replay: d, same: recording.digests[id] === d })),
    diverged,
    endAt: recording.endAt,
  };
}
