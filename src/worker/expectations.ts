/**
 * A scenario's expectations, checked as the run goes (in the page, not only in the CLI):
 * each is looked at at its own moment with the scenario runner's checkExpectation, on a
 * RunObserver that the timeline saves and restores with the journal, so a replay sees the
 * same run the CLI does.
 *
 * Time travel: results are kept per branch with the virtual time each was decided at.
 * The status shown is the one at the cursor: a result decided after the cursor is
 * "pending" again (seek back to 0 and every expectation is pending), and seeking forward
 * over explored time shows it again without re-running anything. A new branch (an action
 * in the past) keeps its parent's results decided before the fork; the later ones are
 * checked again as the new branch runs, since its future may differ.
 */
import type { Timeline } from "../core/replay/timeline";
import { checkExpectation, describeExpectation, type RunObserver, scenarioActions } from "../core/scenario/runner";
import type { Expectation, Scenario } from "../core/scenario/schema";
import { formatDuration, formatInstant } from "../core/sim/time";
import { describeAction } from "./describe";
import type { ExpectationStatus, ExpectationView, ScenarioRunView } from "./protocol";

/** How often a `within` expectation is looked at while it waits (as the CLI runner does: every 10 ms of virtual time). */
const POLL_US = 10_000;

interface Check {
  readonly index: number;
  readonly e: Expectation;
  readonly at: number;
  /** The last moment it may be decided at: `at`, or `at + within` (capped at the run's length). */
  readonly deadline: number;
}

interface Result {
  readonly ok: boolean;
  readonly detail: string;
  readonly decidedAt: number;
}

/** The words of one expectation for the checklist: "by 6.5 s: lease lock is held by h2 on a majority of node(s)". */
export function expectationText(e: Expectation, at: number): string {
  const when = e.within === undefined ? `at ${formatInstant(at)}` : `from ${formatInstant(at)}, within ${formatDuration(e.within)}`;
  return `${when}: ${describeExpectation(e)}`;
}

export class ExpectationTracker {
  private readonly checks: readonly Check[];
  /** Per branch id: expectation index -> result. */
  private readonly results = new Map<number, Map<number, Result>>();
  /** Per branch id: expectation index -> the last moment a `within` one was polled at (and did not hold yet). */
  private readonly polled = new Map<number, Map<number, number>>();

  constructor(
    private readonly scenario: Scenario,
    private readonly observer: RunObserver,
  ) {
    const end = scenario.duration;
    this.checks = scenario.expect
      .map((e, index) => {
        const at = Math.min(e.at ?? end, end);
        return { index, e, at, deadline: e.within === undefined ? at : Math.min(at + e.within, end) };
      })
      .sort((a, b) => a.at - b.at || a.index - b.index);
  }

  /**
   * Advances the timeline to `to` (as Timeline.advanceTo), stopping at each moment an
   * expectation is due to check it there, after every event due at that moment.
   * Returns false when `stopWhen` stopped it early.
   */
  advance(tl: Timeline, to: number, stopWhen?: () => boolean): boolean {
    for (;;) {
      const m = this.nextMoment(tl);
      if (m === null || m > to) break;
      if (!tl.advanceTo(m, stopWhen)) {
        // Stopped on an event at or before m: whatever is due by now is checked now.
        this.checkDue(tl);
        return false;
      }
      this.checkDue(tl);
    }
    const done = tl.advanceTo(Math.max(to, tl.now), stopWhen);
    this.checkDue(tl);
    return done;
  }

  /** After a Step (one event): checks whatever came due by the new time. */
  checkDue(tl: Timeline): void {
    const now = tl.now;
    const results = this.branchResults(tl.branchId);
    const polled = this.branchPolled(tl.branchId);
    for (const c of this.checks) {
      if (c.at > now) break;
      if (results.has(c.index)) continue;
      if (c.e.within !== undefined && polled.get(c.index) === now) continue;
      const r = checkExpectation(tl.sim, c.e, this.observer);
      const late = now > c.deadline ? ` (looked at ${formatInstant(now)}, after a step past its moment)` : "";
      if (c.e.within === undefined) {
        results.set(c.index, { ok: r.ok, detail: r.detail + late, decidedAt: now });
      } else if (r.ok || now >= c.deadline) {
        const waited = r.ok ? `held after ${formatDuration(now - c.at)}` : "never held";
        results.set(c.index, { ok: r.ok, detail: `${r.detail} (${waited})${late}`, decidedAt: now });
      } else polled.set(c.index, now);
    }
  }

  /** A new branch was made at the cursor from `parent`: it keeps the results decided before that moment. */
  forked(parent: number, branch: number, at: number): void {
    const kept = new Map<number, Result>();
    for (const [i, r] of this.results.get(parent) ?? []) if (r.decidedAt < at) kept.set(i, r);
    this.results.set(branch, kept);
    this.polled.set(branch, new Map());
  }

  /** The scenario's name, story, scripted actions, and each expectation's status at the cursor. */
  view(tl: Timeline): ScenarioRunView {
    const now = tl.now;
    const results = this.results.get(tl.branchId);
    const expectations: ExpectationView[] = this.checks.map((c) => {
      const r = results?.get(c.index);
      const decided = r !== undefined && r.decidedAt <= now;
      const status: ExpectationStatus = decided ? (r.ok ? "ok" : "failed") : c.e.within !== undefined && now >= c.at ? "waiting" : "pending";
      return {
        index: c.index,
        text: expectationText(c.e, c.at),
        at: c.at,
        status,
        detail: decided ? r.detail : "",
        decidedAt: decided ? r.decidedAt : null,
      };
    });
    return {
      name: this.scenario.name,
      description: this.scenario.description,
      durationUs: this.scenario.duration,
      scripted: scenarioActions(this.scenario).map((a) => ({ at: a.at, text: describeAction(a.action) })),
      expectations,
    };
  }

  private nextMoment(tl: Timeline): number | null {
    const now = tl.now;
    const results = this.branchResults(tl.branchId);
    const polled = this.branchPolled(tl.branchId);
    let best: number | null = null;
    for (const c of this.checks) {
      if (results.has(c.index)) continue;
      let m = c.at;
      if (c.e.within !== undefined && now > c.at) {
        // The next poll on the 10 ms grid from `at`, not one already made at this moment.
        m = c.at + Math.ceil((now - c.at) / POLL_US) * POLL_US;
        if (polled.get(c.index) === m) m += POLL_US;
        m = Math.min(m, c.deadline);
      }
      if (m < now) m = now;
      if (best === null || m < best) best = m;
    }
    return best;
  }

  private branchResults(branch: number): Map<number, Result> {
    return perBranch(this.results, branch);
  }

  private branchPolled(branch: number): Map<number, number> {
    return perBranch(this.polled, branch);
  }
}

/** A branch's own map in a map of branches, made on first use. */
function perBranch<V>(all: Map<number, Map<number, V>>, branch: number): Map<number, V> {
  let m = all.get(branch);
  if (m === undefined) {
    m = new Map();
    all.set(branch, m);
  }
  return m;
}
