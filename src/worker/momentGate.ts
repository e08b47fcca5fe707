/**
 * Pause on key moments, and "play to the next": the host asks it, after every event it
 * plays (the stopWhen of Timeline.advanceTo, as a lesson's goal is asked), whether that
 * event made a moment of the groups wanted, so playing stops at that very event.
 */
import type { MomentTracker, Moment, PauseKind } from "./moments";
import { momentMatches, PAUSE_KINDS } from "./moments";

export class MomentGate {
  /** The groups to pause on while playing. */
  private pauseOn = new Set<PauseKind>();
  /** Slow down around lease events (pacing.ts). Off until the page asks (the page's default is on). */
  autoSlow = false;
  /** Playing until the next moment (of the chosen groups, or of any when none is chosen). */
  toNext = false;
  /** The moment playing stopped at, until the next advance. */
  hit: Moment | null = null;
  private seen = 0;

  setOptions(pauseOn: readonly PauseKind[], autoSlow: boolean): void {
    this.pauseOn = new Set(pauseOn.filter((k) => PAUSE_KINDS.includes(k)));
    this.autoSlow = autoSlow;
  }

  /** The groups that stop playing now. */
  private wanted(): ReadonlySet<PauseKind> {
    if (this.toNext && this.pauseOn.size === 0) return new Set(PAUSE_KINDS);
    return this.pauseOn;
  }

  /** Before an advance: the moments so far are not news. */
  begin(moments: MomentTracker): void {
    this.seen = moments.count;
    this.hit = null;
  }

  /** After each event: did it make a moment to stop at? (Remembers it in `hit`.) */
  reached(moments: MomentTracker): boolean {
    const fresh = moments.count - this.seen;
    if (fresh <= 0) return false;
    this.seen = moments.count;
    const wanted = this.wanted();
    if (wanted.size === 0) return false;
    // One event can make several (a holder that wakes up finds itself in jeopardy and lost at once): the newest says where things stand.
    const list = moments.moments();
    for (let i = list.length - 1; i >= Math.max(0, list.length - fresh); i--) {
      const m = list[i] as Moment;
      if (momentMatches(m, wanted)) {
        this.hit = m;
        return true;
      }
    }
    return false;
  }
}
