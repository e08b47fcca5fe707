/**
 * Time travel over a deterministic simulation: a run is its settings plus the user's
 * actions, each at the virtual time it was taken, so any moment of it can be rebuilt
 * exactly. The timeline keeps periodic snapshots (thinned to a bound as the run grows)
 * and replays from the nearest one; it never stores frames.
 *
 * Acting while the cursor is in the past starts a new branch from that moment; the old
 * branch, with its future, is kept and can be made current again.
 *
 * The one rule that makes replay exact: an action taken at virtual time t runs after
 * every event due at or before t (the simulator is advanced to t, then the action is
 * performed). The scenario runner applies actions the same way (applyActionsTo).
 */
import type { Simulation } from "../sim/sim";
import type { ActionFailure, SimSnapshot } from "../sim/sim";
import type { TraceEvent } from "../sim/trace";
import type { TimedAction } from "../scenario/record";

/** State kept beside the simulation that follows its trace (the worker's journal): saved with every snapshot. */
export interface Companion {
  save(): unknown;
  load(saved: unknown): void;
  /**
   * The bytes a saved state holds, for the memory budget: its own, and parts it may share
   * with other saved states (counted once however many snapshots hold them).
   */
  savedBytes?(saved: unknown): { readonly own: number; readonly shared: readonly SharedPart[] };
}

/** Memory that several snapshots may hold: counted once, by identity. */
export interface SharedPart {
  readonly bytes: number;
}

export type MarkerKind = "election" | "expiry" | "rejection" | "violation";

export interface Marker {
  readonly t: number;
  /** Trace position of the event. */
  readonly n: number;
  readonly kind: MarkerKind;
  readonly label: string;
  /** For expiries: the log index of the expire entry (each node applies it; one marker). */
  readonly index?: number;
}

interface Snap {
  readonly sim: SimSnapshot;
  /** Estimated bytes it holds of its own (TimelineOptions.snapshotBytes, and the companion's own part). */
  readonly bytes: number;
  /** Parts it shares with other snapshots (the companion's). */
  readonly shared: readonly SharedPart[];
  /** Actions of the branch already performed in this state. */
  readonly actionIndex: number;
  readonly companion: unknown;
}

interface Branch {
  readonly id: number;
  readonly name: string;
  readonly parent: number | null;
  readonly forkedAt: number;
  readonly actions: TimedAction[];
  /** Furthest virtual time reached, and the events handled there. */
  end: number;
  endHandled: number;
  snaps: Snap[];
  snapEveryUs: number;
  markers: Marker[];
  markersDropped: number;
  /** Trace positions below this have been looked at for markers. */
  markedTo: number;
}

export interface BranchInfo {
  readonly id: number;
  readonly name: string;
  readonly parent: number | null;
  readonly forkedAt: number;
  readonly end: number;
  readonly actions: readonly TimedAction[];
  /** The first action this branch has that its parent did not have at the fork (null for the first branch). */
  readonly firstAction: TimedAction | null;
  readonly snapshots: number;
}

export interface TimelineOptions {
  /** Virtual time between snapshots to begin with (doubles each time the bound is reached). */
  readonly snapshotEveryUs?: number;
  /** Snapshots kept per branch. */
  readonly maxSnapshots?: number;
  readonly maxMarkers?: number;
  /** Branches kept; beyond it the oldest one that is neither current nor the first is forgotten. */
  readonly maxBranches?: number;
  /**
   * A memory budget for the whole run (every branch): snapshots are thinned (and taken
   * half as often) while their estimated size is above it. A long run keeps fewer, further
   * apart: seeks replay longer, memory stays bounded.
   */
  readonly maxSnapshotBytes?: number;
  /** Estimates the bytes a snapshot of `sim` holds (default: 0, no budget). */
  readonly snapshotBytes?: (sim: Simulation) => number;
  readonly companion?: Companion;
}

const DEFAULT_SNAPSHOT_EVERY_US = 500_000;
const DEFAULT_MAX_SNAPSHOTS = 96;
const DEFAULT_MAX_MARKERS = 2000;
const DEFAULT_MAX_BRANCHES = 12;

/**
 * Advances `sim` to `time`, performing the actions from `from` on that are due by then
 * (each after every event due at or before its time). Returns the index of the next
 * action, and whether it stopped early (stopWhen). The scenario runner and the timeline
 * both move time with this, so they build the same run.
 */
export function applyActionsTo(
  sim: Simulation,
  actions: readonly TimedAction[],
  from: number,
  time: number,
  stopWhen?: () => boolean,
): { next: number; stopped: boolean } {
  let i = from;
  for (;;) {
    const a = actions[i];
    if (a === undefined || a.at > time) break;
    if (a.at > sim.now && !sim.advanceTo(a.at, stopWhen)) return { next: i, stopped: true };
    // Events due at the action's own time come first, even when the clock already reads it.
    if (!sim.advanceTo(sim.now, stopWhen)) return { next: i, stopped: true };
    sim.perform(a.action);
    i++;
    if (stopWhen?.()) return { next: i, stopped: true };
  }
  if (!sim.advanceTo(Math.max(time, sim.now), stopWhen)) return { next: i, stopped: true };
  return { next: i, stopped: false };
}

export class Timeline {
  readonly sim: Simulation;
  private readonly branchList: Branch[] = [];
  private cur: Branch;
  /** Actions of the current branch already performed. */
  private ai = 0;
  private nextBranchId = 0;
  private readonly maxSnapshots: number;
  private readonly maxMarkers: number;
  private readonly maxBranches: number;
  private readonly maxSnapshotBytes: number;
  private readonly snapshotBytes: (sim: Simulation) => number;
  private readonly companion: Companion | null;
  /** snapshotBytesHeld, and what it counts: how many branches hold each snapshot, how many held snapshots hold each shared part. */
  private heldBytes = 0;
  private readonly heldSnaps = new Map<Snap, number>();
  private readonly heldParts = new Map<SharedPart, number>();

  constructor(sim: Simulation, actions: readonly TimedAction[] = [], opts: TimelineOptions = {}) {
    if (sim.eventsHandled !== 0 || sim.now !== 0) throw new Error("a timeline starts from a fresh simulation");
    for (let i = 1; i < actions.length; i++) {
      if ((actions[i] as TimedAction).at < (actions[i - 1] as TimedAction).at) throw new Error("actions must be in time order");
    }
    this.sim = sim;
    this.maxSnapshots = Math.max(4, opts.maxSnapshots ?? DEFAULT_MAX_SNAPSHOTS);
    this.maxMarkers = opts.maxMarkers ?? DEFAULT_MAX_MARKERS;
    this.maxBranches = Math.max(2, opts.maxBranches ?? DEFAULT_MAX_BRANCHES);
    this.companion = opts.companion ?? null;
    this.maxSnapshotBytes = opts.maxSnapshotBytes ?? Number.POSITIVE_INFINITY;
    this.snapshotBytes = opts.snapshotBytes ?? (() => 0);
    this.cur = this.newBranch(null, 0, actions.slice());
    const first = this.takeSnap();
    this.hold(first);
    this.cur.snaps.push(first);
    this.cur.snapEveryUs = Math.max(1, opts.snapshotEveryUs ?? DEFAULT_SNAPSHOT_EVERY_US);
    sim.onTrace((e) => this.observe(e));
  }

  // ---- reading -------------------------------------------------------------------

  get now(): number {
    return this.sim.now;
  }

  get branchId(): number {
    return this.cur.id;
  }

  /** Furthest virtual time explored on the current branch. */
  get end(): number {
    return this.cur.end;
  }

  get actions(): readonly TimedAction[] {
    return this.cur.actions;
  }

  get markers(): readonly Marker[] {
    return this.cur.markers;
  }

  get markersDropped(): number {
    return this.cur.markersDropped;
  }

  get snapshotCount(): number {
    return this.cur.snaps.length;
  }

  get canStepBack(): boolean {
    return this.sim.eventsHandled > 0;
  }

  branches(): BranchInfo[] {
    return this.branchList.map((b) => {
      const parent = b.parent === null ? undefined : this.branchList.find((p) => p.id === b.parent);
      const shared = parent === undefined ? b.actions.length : commonPrefix(parent.actions, b.actions);
      return {
        id: b.id,
        name: b.name,
        parent: b.parent,
        forkedAt: b.forkedAt,
        end: b.end,
        actions: b.actions,
        firstAction: b.parent === null ? null : (b.actions[shared] ?? null),
        snapshots: b.snaps.length,
      };
    });
  }

  // ---- moving --------------------------------------------------------------------

  /**
   * Plays forward to `time`, performing the branch's recorded actions as their times come.
   * Returns false when stopWhen stopped it early (the clock then stays at that event).
   */
  advanceTo(time: number, stopWhen?: () => boolean): boolean {
    if (time < this.sim.now) throw new Error(`advanceTo: cannot go back from ${this.sim.now} to ${time} (use seek)`);
    for (;;) {
      const b = this.cur;
      const lastSnap = b.snaps[b.snaps.length - 1] as Snap;
      const snapAt = lastSnap.sim.now + b.snapEveryUs;
      if (snapAt <= this.sim.now) {
        this.addSnap();
        continue;
      }
      const target = Math.min(time, snapAt);
      const r = applyActionsTo(this.sim, b.actions, this.ai, target, stopWhen);
      this.ai = r.next;
      this.noteProgress();
      if (r.stopped) return false;
      if (target === snapAt) this.addSnap();
      if (target >= time) return true;
    }
  }

  /**
   * One event forward: the branch's next recorded action if it is due before the next
   * simulator event, else that event. Returns the trace events it produced.
   */
  step(): TraceEvent[] {
    const events: TraceEvent[] = [];
    const off = this.sim.onTrace((e) => events.push(e));
    try {
      this.handleOne();
    } finally {
      off();
    }
    return events;
  }

  /** Moves the cursor to `time` (clamped to 0..end) on the current branch. */
  seek(time: number): void {
    const t = Math.max(0, Math.min(Math.round(time), this.cur.end));
    const snap = this.snapAtOrBefore((x) => x.sim.now <= t);
    // Forward within reach of the nearest snapshot: play on instead of restoring.
    if (this.sim.now > t || this.sim.now < snap.sim.now) this.restore(snap);
    this.advanceTo(t);
  }

  /**
   * Moves the cursor to a recorded moment of the current branch: virtual time `time` with
   * exactly `handled` events handled (a run stopped at an event may have more due at the
   * same microsecond, which seek(time) would handle too).
   */
  seekMoment(time: number, handled: number): void {
    const t = Math.max(0, Math.min(Math.round(time), this.cur.end));
    this.restore(this.snapAtOrBefore((x) => x.sim.now <= t && x.sim.handled <= handled));
    while (this.sim.eventsHandled < handled && this.handleOne()) {}
    if (this.sim.now < t) this.advanceTo(t, () => true);
  }

  /** Goes back exactly one handled event. Returns false at the very start. */
  stepBack(): boolean {
    const target = this.sim.eventsHandled - 1;
    if (target < 0) return false;
    this.restore(this.snapAtOrBefore((x) => x.sim.handled <= target));
    while (this.sim.eventsHandled < target && this.handleOne()) {}
    return true;
  }

  /**
   * Performs a user action at the cursor. In the past, it first starts a new branch from here.
   * Recorded actions still ahead for which `keep` says yes (a lesson's scripted world) stay
   * ahead on the branch; the others are dropped, as the new branch is a new future. With only
   * kept actions ahead and nothing explored past the cursor, no new branch is needed.
   */
  act(action: TimedAction["action"], keep?: (a: TimedAction) => boolean): ActionFailure | null {
    const ahead = this.cur.actions.slice(this.ai);
    const carried = keep === undefined ? [] : ahead.filter(keep);
    const explored = this.cur.end > this.sim.now || this.cur.endHandled > this.sim.eventsHandled;
    if (explored || carried.length < ahead.length) this.fork();
    else this.cur.actions.length = this.ai;
    const s = this.sim;
    s.advanceTo(s.now); // events due at this very moment come first, as in a replay
    const failure = s.perform(action);
    // Here the branch's recorded future is only what was carried: the action comes before it.
    this.cur.actions.push({ at: s.now, action }, ...carried);
    this.ai++;
    this.noteProgress();
    return failure;
  }

  /**
   * Starts a new branch at the cursor, whatever lies ahead (to explore freely from here, and
   * come back). Recorded actions ahead for which `keep` says yes stay ahead on it.
   */
  branchOff(keep?: (a: TimedAction) => boolean): void {
    const carried = keep === undefined ? [] : this.cur.actions.slice(this.ai).filter(keep);
    this.fork();
    this.cur.actions.push(...carried);
  }

  /**
   * Forgets what the current branch explored beyond the cursor (its snapshots, markers and
   * end there), without starting a new branch: the simulation's future from here is no longer
   * the one explored (a live run's shadow whose recording gained an input in the past).
   */
  dropFuture(): void {
    const b = this.cur;
    const s = this.sim;
    const handled = s.eventsHandled;
    const position = s.eventsProcessed;
    this.setSnaps(
      b,
      b.snaps.filter((x) => x.sim.handled <= handled && x.sim.now <= s.now && x.actionIndex <= this.ai),
    );
    b.markers = b.markers.filter((m) => m.n < position);
    b.markedTo = position;
    b.end = s.now;
    b.endHandled = handled;
  }

  /** Whether a branch is still kept (old ones are forgotten past the limit). */
  hasBranch(id: number): boolean {
    return this.branchList.some((b) => b.id === id);
  }

  /** Makes another branch current, at its end. */
  switchTo(id: number): void {
    const b = this.branchList.find((x) => x.id === id);
    if (b === undefined) throw new Error(`there is no branch ${id}`);
    if (b === this.cur) return;
    this.cur = b;
    // The simulation is on the other branch: always start from one of this one's snapshots.
    this.restore(this.snapAtOrBefore((x) => x.sim.now <= b.end));
    this.advanceTo(b.end);
  }

  // ---- inside --------------------------------------------------------------------

  /**
   * Handles one event: the branch's next recorded action if it is due before the next
   * simulator event, else that event. Returns false when nothing was left to handle.
   */
  private handleOne(): boolean {
    const s = this.sim;
    const before = s.eventsHandled;
    while (s.eventsHandled === before && !s.halted) {
      const a = this.cur.actions[this.ai];
      const next = s.nextEventTime();
      if (a !== undefined && (next === null || a.at < next)) {
        if (a.at > s.now) s.advanceTo(a.at);
        s.perform(a.action);
        this.ai++;
      } else if (next === null) {
        break;
      } else {
        // Only events due by the next action's time (popping cancelled timers handles nothing).
        s.step(a?.at ?? Number.POSITIVE_INFINITY);
      }
    }
    this.noteProgress();
    return s.eventsHandled !== before;
  }

  private noteProgress(): void {
    const b = this.cur;
    const s = this.sim;
    if (s.now > b.end || (s.now === b.end && s.eventsHandled > b.endHandled)) {
      b.end = s.now;
      b.endHandled = s.eventsHandled;
    }
  }

  private fork(): void {
    const from = this.cur;
    const s = this.sim;
    const handled = s.eventsHandled;
    const position = s.eventsProcessed;
    const b = this.newBranch(from.id, s.now, from.actions.slice(0, this.ai));
    b.end = s.now;
    b.endHandled = handled;
    // Snapshots of states this one passed through are shared (they are never changed).
    this.setSnaps(
      b,
      from.snaps.filter((x) => x.sim.handled <= handled && x.sim.now <= s.now && x.actionIndex <= this.ai),
    );
    b.snapEveryUs = from.snapEveryUs;
    b.markers = from.markers.filter((m) => m.n < position);
    b.markersDropped = from.markersDropped;
    b.markedTo = position;
    this.cur = b;
    this.forgetOldBranches();
  }

  private newBranch(parent: number | null, forkedAt: number, actions: TimedAction[]): Branch {
    const id = this.nextBranchId++;
    const b: Branch = {
      id,
      name: id === 0 ? "main" : `branch ${id + 1}`,
      parent,
      forkedAt,
      actions,
      end: 0,
      endHandled: 0,
      snaps: [],
      snapEveryUs: DEFAULT_SNAPSHOT_EVERY_US,
      markers: [],
      markersDropped: 0,
      markedTo: 0,
    };
    this.branchList.push(b);
    return b;
  }

  private forgetOldBranches(): void {
    while (this.branchList.length > this.maxBranches) {
      const i = this.branchList.findIndex((b, k) => k > 0 && b !== this.cur);
      if (i < 0) return;
      const [gone] = this.branchList.splice(i, 1);
      if (gone !== undefined) this.setSnaps(gone, []);
    }
  }

  private takeSnap(): Snap {
    const companion = this.companion?.save();
    const held = companion === undefined ? undefined : this.companion?.savedBytes?.(companion);
    return {
      sim: this.sim.snapshot(),
      bytes: this.snapshotBytes(this.sim) + (held?.own ?? 0),
      shared: held?.shared ?? [],
      actionIndex: this.ai,
      companion,
    };
  }

  /**
   * Estimated bytes held by the snapshots of every branch (each snapshot counted once, though
   * branches share some; each shared part once, though snapshots share them). Kept as the
   * snapshots come and go (hold, release), not walked.
   */
  get snapshotBytesHeld(): number {
    return this.heldBytes;
  }

  /** A branch's list now holds `s` (a list holds a snapshot once). */
  private hold(s: Snap): void {
    const c = this.heldSnaps.get(s) ?? 0;
    this.heldSnaps.set(s, c + 1);
    if (c > 0) return;
    this.heldBytes += s.bytes;
    for (const p of s.shared) {
      const k = this.heldParts.get(p) ?? 0;
      this.heldParts.set(p, k + 1);
      if (k === 0) this.heldBytes += p.bytes;
    }
  }

  /** A branch's list no longer holds `s`. */
  private release(s: Snap): void {
    const c = this.heldSnaps.get(s) ?? 0;
    if (c > 1) {
      this.heldSnaps.set(s, c - 1);
      return;
    }
    this.heldSnaps.delete(s);
    this.heldBytes -= s.bytes;
    for (const p of s.shared) {
      const k = this.heldParts.get(p) ?? 0;
      if (k > 1) this.heldParts.set(p, k - 1);
      else {
        this.heldParts.delete(p);
        this.heldBytes -= p.bytes;
      }
    }
  }

  /** Sets a branch's snapshots, holding the new list before releasing the old one. */
  private setSnaps(b: Branch, snaps: Snap[]): void {
    for (const s of snaps) this.hold(s);
    for (const s of b.snaps) this.release(s);
    b.snaps = snaps;
  }

  private addSnap(): void {
    const b = this.cur;
    const snap = this.takeSnap();
    this.hold(snap);
    b.snaps.push(snap);
    if (b.snaps.length > this.maxSnapshots) this.thin(b);
    // The memory budget is for the whole run: other branches give up snapshots first (the one with most), then this one.
    while (this.snapshotBytesHeld > this.maxSnapshotBytes) {
      const others = this.branchList.filter((x) => x !== b && x.snaps.length > 3).sort((x, y) => y.snaps.length - x.snaps.length);
      const victim = others[0] ?? (b.snaps.length > 3 ? b : null);
      if (victim === null) return;
      this.thin(victim);
    }
  }

  /** Keeps the first, the last and every other snapshot between; the branch takes them half as often from then on. */
  private thin(b: Branch): void {
    const last = b.snaps.length - 1;
    this.setSnaps(
      b,
      b.snaps.filter((_, i) => i % 2 === 0 || i === last),
    );
    b.snapEveryUs *= 2;
  }

  private snapAtOrBefore(ok: (s: Snap) => boolean): Snap {
    const snaps = this.cur.snaps;
    for (let i = snaps.length - 1; i >= 0; i--) {
      const s = snaps[i] as Snap;
      if (ok(s)) return s;
    }
    return snaps[0] as Snap;
  }

  private restore(snap: Snap): void {
    this.sim.restore(snap.sim);
    this.ai = snap.actionIndex;
    this.companion?.load(snap.companion);
  }

  private observe(e: TraceEvent): void {
    const b = this.cur;
    if (e.n < b.markedTo) return;
    b.markedTo = e.n + 1;
    const m = markerOf(e, b.markers);
    if (m === null) return;
    if (b.markers.length >= this.maxMarkers) {
      b.markers.shift();
      b.markersDropped++;
    }
    b.markers.push(m);
  }
}

function commonPrefix(a: readonly TimedAction[], b: readonly TimedAction[]): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** The marker a trace event makes, if any. */
export function markerOf(e: TraceEvent, recent: readonly Marker[]): Marker | null {
  switch (e.kind) {
    case "role":
      return e.role === "leader" ? { t: e.t, n: e.n, kind: "election", label: `${e.proc} leads term ${e.term}` } : null;
    case "lease": {
      if (e.op !== "expire") return null;
      // Every node applies the same expire entry: one marker per log index.
      for (let i = recent.length - 1, seen = 0; i >= 0 && seen < 64; i--, seen++) {
        const m = recent[i] as Marker;
        if (m.kind === "expiry" && m.index === e.index) return null;
      }
      const label = `lease ${e.name} expired${e.holder ? ` (${e.holder} lost it)` : ""}`;
      return e.index === undefined ? { t: e.t, n: e.n, kind: "expiry", label } : { t: e.t, n: e.n, kind: "expiry", label, index: e.index };
    }
    case "storage":
      return e.accepted ? null : { t: e.t, n: e.n, kind: "rejection", label: `write by ${e.holder} (token ${e.token}) rejected` };
    case "violation":
      return { t: e.t, n: e.n, kind: "violation", label: `${e.invariant} violated` };
    default:
      return null;
  }
}
