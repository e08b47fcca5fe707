/**
 * Plays a lesson on the host's Timeline, step by step, the way LessonEngine does headless
 * (core/lesson/runner.ts): a step's condition is a scenario expectation checked with
 * checkExpectation on a RunObserver that time travel saves and restores with the journal.
 *
 * Every step begins at a recorded moment (virtual time and events handled). Back returns
 * there exactly (Timeline.seekMoment); Next goes to the next step's moment when it was
 * reached before, so nothing the learner did is played or asked again.
 */
import type { Lesson, LessonStep } from "../core/lesson/schema";
import { lessonObserverNeeds } from "../core/lesson/steps";
import { judgeAction } from "../core/lesson/runner";
import { type Companion, Timeline, type TimelineOptions } from "../core/replay/timeline";
import { toSimAction } from "../core/scenario/actions";
import type { ObserverNeeds, ObserverState } from "../core/scenario/observer";
import type { Expectation, Scenario } from "../core/scenario/schema";
import { buildSimulation, checkExpectation, describeExpectation, RunObserver, scenarioActions } from "../core/scenario/runner";
import type { TimedAction } from "../core/scenario/record";
import type { Action } from "../core/sim/sim";
import { formatDuration } from "../core/sim/time";
import { Journal } from "./journal";
import type { LessonStepStatus, LessonView } from "./protocol";

/** What the lesson asks of the host that runs it. */
export interface LessonControls {
  /** Plays the run at `speed` virtual seconds per real second. */
  play(speed: number): void;
  stop(): void;
  /** The cursor jumped in time (the page replaces what it accumulated). */
  jumped(): void;
}

/** A step's recorded beginning. */
interface Moment {
  readonly t: number;
  readonly handled: number;
  readonly branch: number;
}

/** How a step ended (shown again when the learner comes back to it). */
interface Outcome {
  readonly status: LessonStepStatus;
  readonly detail: string;
  readonly choice: number | null;
}

/** The engine's default speed in a lesson's play steps: one virtual second per real second. */
export const LESSON_SPEED = 1;

/** What the learner has to wait for: a condition, until a virtual time (or, without one, that time). */
interface Goal {
  readonly until: Expectation | null;
  /** With `for`: a condition that must hold the whole time. */
  readonly throughout: Expectation | null;
  readonly endUs: number;
  readonly startUs: number;
  readonly withinUs: number;
}

/**
 * A run of a scenario with an observer (for a lesson's steps or a scenario's expectations),
 * ready for time travel: the journal and the observer are saved in its snapshots.
 */
export function newObservedRun(
  scenario: Scenario,
  needs: ObserverNeeds,
  options: TimelineOptions,
): { timeline: Timeline; journal: Journal; observer: RunObserver; scripted: (a: TimedAction) => boolean } {
  const journal = new Journal();
  const observer = new RunObserver(needs);
  const sim = buildSimulation(scenario, {
    onTrace: (e) => {
      journal.listener(e);
      observer.observe(e);
    },
  });
  const companion: Companion = {
    save: () => ({ journal: journal.save(), observer: observer.save() }),
    load: (saved) => {
      const s = saved as { journal: unknown; observer: ObserverState };
      journal.load(s.journal);
      observer.load(s.observer);
    },
    savedBytes: (saved) => journal.savedBytes((saved as { journal: unknown }).journal),
  };
  const script = scenarioActions(scenario);
  const timeline = new Timeline(sim, script, { ...options, companion });
  // The scenario's own timed actions are its world: the user's actions never drop them.
  const own = new Set<TimedAction>(script);
  return { timeline, journal, observer, scripted: (a) => own.has(a) };
}

/** A run of a lesson's scenario, ready for time travel. */
export function newLessonRun(
  lesson: Lesson,
  options: TimelineOptions,
): { timeline: Timeline; journal: Journal; observer: RunObserver; scripted: (a: TimedAction) => boolean } {
  return newObservedRun(lesson.scenario, lessonObserverNeeds(lesson.lesson), options);
}

export class LessonPlayer {
  private index = 0;
  private status: LessonStepStatus = "done";
  private detail = "";
  private choice: number | null = null;
  private reached = 0;
  private goal: Goal | null = null;
  private moments: Moment[] = [];
  /** Where each step ended (its outcome was reached). */
  private ends: (Moment | undefined)[] = [];
  /** The cursor was moved to a recorded moment (Back): Next then goes on from where the step ended. */
  private revisiting = false;
  private outcomes: (Outcome | undefined)[] = [];
  /** Exploring freely: where the lesson was left (its moment and what the step was doing). */
  private away: { readonly from: Moment; readonly goal: Goal | null; readonly status: LessonStepStatus; readonly detail: string } | null = null;

  constructor(
    readonly lesson: Lesson,
    private readonly tl: Timeline,
    private readonly observer: RunObserver,
    private readonly ctl: LessonControls,
    /** The scenario's own timed actions (kept ahead when the learner or the lesson acts). */
    readonly scripted: (a: TimedAction) => boolean,
  ) {}

  private get steps(): readonly LessonStep[] {
    return this.lesson.lesson.steps;
  }

  /** Opens the lesson at step `at` (from 0): the steps before it are played headless, each "your turn" done for the learner. */
  start(at: number): void {
    const last = Math.max(0, Math.min(at, this.steps.length - 1));
    for (let i = 0; i < last; i++) {
      this.enter(i, true);
      if (this.status === "waiting") this.finishForLearner();
    }
    this.enter(last, false);
  }

  view(): LessonView {
    return {
      id: this.lesson.lesson.id,
      index: this.index,
      count: this.steps.length,
      status: this.status,
      detail: this.detail,
      choice: this.choice,
      reached: this.reached,
      startedAt: this.moments[this.index]?.t ?? 0,
      exploringFrom: this.away?.from.t ?? null,
    };
  }

  /** "Explore from here": the free lab from this moment, on a branch of its own (an ordinary branch); the lesson waits. */
  explore(): void {
    if (this.away !== null) return;
    this.ctl.stop();
    this.away = { from: this.here(), goal: this.goal, status: this.status, detail: this.detail };
    this.goal = null;
    this.tl.branchOff(this.scripted);
    this.ctl.jumped();
  }

  /** "Back to the lesson": the moment the learner left, on the lesson's branch; the step goes on as it was. */
  returnToLesson(): void {
    const a = this.away;
    if (a === null) return;
    this.ctl.stop();
    this.away = null;
    if (!this.tl.hasBranch(a.from.branch)) {
      // Too many branches since: the lesson's own was forgotten. Its steps' moments are gone with it.
      this.status = "failed";
      this.detail = "The lesson's branch was forgotten while exploring (too many branches). Press Reset to start the lesson again.";
      this.ctl.jumped();
      return;
    }
    this.tl.switchTo(a.from.branch);
    this.tl.seekMoment(a.from.t, a.from.handled);
    this.goal = a.goal;
    this.status = a.status;
    this.detail = a.detail;
    this.ctl.jumped();
  }

  // ---- the learner -------------------------------------------------------------------

  /** Back (an earlier step: its recorded moment, exactly) or Next (the following step). */
  goTo(target: number): void {
    if (!Number.isInteger(target) || target < 0 || target >= this.steps.length || target === this.index) return;
    const j = Math.min(target, this.index + 1);
    const m = this.moments[j];
    if (m !== undefined && (j < this.index || m.branch === this.tl.branchId)) {
      this.seek(m);
      this.index = j;
      const o = this.outcomes[j];
      if (o !== undefined) this.show(o);
      else this.begin(j, false);
      return;
    }
    // On from a step revisited with Back: from where it ended, not from its start.
    const end = this.ends[this.index];
    if (this.revisiting && end !== undefined && end.branch === this.tl.branchId) this.seek(end);
    this.enter(j, false);
  }

  private seek(m: Moment): void {
    this.ctl.stop();
    this.goal = null;
    this.tl.seekMoment(m.t, m.handled);
    this.ctl.jumped();
    this.revisiting = true;
  }

  private here(): Moment {
    return { t: this.tl.now, handled: this.tl.sim.eventsHandled, branch: this.tl.branchId };
  }

  doItForMe(): void {
    const step = this.steps[this.index];
    if (step?.kind !== "your-turn" || this.status !== "waiting") return;
    this.finishForLearner();
  }

  choose(choice: number): void {
    const step = this.steps[this.index];
    if (step?.kind !== "predict" || this.status !== "waiting" || step.choices[choice] === undefined) return;
    this.choice = choice;
    this.playFor(step.reveal.until, step.reveal.within, step.reveal.speed, false);
  }

  /** The learner is exploring from a step (the free lab, on a branch of its own). */
  get exploring(): boolean {
    return this.away !== null;
  }

  /**
   * Before the host applies the learner's own action: is it the one this "your turn" asks for?
   * The same action with another value (a pause of another length) is not done at all: the
   * step says what it asks for, so the lesson's run stays the one its later steps describe.
   */
  wants(action: Action): "match" | "refused" | "other" {
    const step = this.steps[this.index];
    if (this.away !== null || step?.kind !== "your-turn" || this.status !== "waiting") return "other";
    const j = judgeAction(this.tl.sim, step.do, action);
    if (j.kind !== "near") return j.kind;
    this.detail = `Not quite: this step asks you to ${j.asked}, and you asked to ${j.done}, so nothing was done. Try again, or press Do it for me. (Explore from here is the place for your own variations.)`;
    return "refused";
  }

  /** After the host applied the learner's action: a match ends the step; a new branch forgets the steps after this one. */
  acted(matched: boolean, ok: boolean, forked: boolean): void {
    // While exploring, the learner's actions are theirs alone: the lesson's steps stay as they were.
    if (this.away !== null) return;
    if (forked) {
      this.moments.length = this.index + 1;
      this.outcomes.length = this.index + 1;
      this.ends.length = this.index;
      this.revisiting = false;
      this.reached = this.index;
    }
    if (matched && ok) this.finish("done", "You did it.");
  }

  // ---- the host's loop --------------------------------------------------------------

  /** While a step plays: how far the host may run (the step's bound), else Infinity. */
  playBound(): number {
    return this.goal?.endUs ?? Number.POSITIVE_INFINITY;
  }

  /** Checked after every event while playing: the host stops at the event that made the condition true. */
  goalHolds(): boolean {
    const g = this.goal;
    if (g === null) return false;
    // A step ends at the event that makes its condition true, or that breaks what had to hold throughout.
    return g.until !== null ? this.holds(g.until) : g.throughout !== null && !this.holds(g.throughout);
  }

  /** After the host moved time: ends a playing step whose condition holds or whose bound has passed. */
  afterAdvance(): void {
    const g = this.goal;
    if (g === null || this.status !== "playing") return;
    if (g.until === null) {
      if (g.throughout !== null && !this.holds(g.throughout)) {
        this.finish("failed", `It stopped being so after ${formatDuration(this.tl.now - g.startUs)}: ${this.check(g.throughout).detail}.`);
      } else if (this.tl.now >= g.endUs) this.finish("done", `${formatDuration(g.withinUs)} passed${g.throughout === null ? "" : ", and it stayed so"}.`);
    } else if (this.holds(g.until)) this.finish("done", `It happened after ${formatDuration(this.tl.now - g.startUs)}.`);
    else if (this.tl.now >= g.endUs) this.finish("failed", this.notWithin({ ...g, until: g.until }));
  }

  // ---- inside -----------------------------------------------------------------------

  private holds(e: Expectation): boolean {
    return this.check(e).ok;
  }

  /** A condition now; `"since": "step"` counts from the current step's recorded moment, as LessonEngine does. */
  private check(e: Expectation): ReturnType<typeof checkExpectation> {
    return checkExpectation(this.tl.sim, e, this.observer, this.moments[this.index]?.t ?? this.tl.now);
  }

  private notWithin(g: Goal & { until: Expectation }): string {
    return `This did not happen within ${formatDuration(g.withinUs)}: ${describeExpectation(g.until)} (${this.check(g.until).detail}).`;
  }

  /** Enters step i for the first time from here: records its moment and forgets anything after it. */
  private enter(i: number, headless: boolean): void {
    this.ctl.stop();
    this.goal = null;
    this.index = i;
    this.revisiting = false;
    this.moments.length = i;
    this.outcomes.length = i;
    this.ends.length = i;
    this.moments[i] = this.here();
    this.reached = i;
    this.begin(i, headless);
  }

  /** What a step does as it begins. */
  private begin(i: number, headless: boolean): void {
    const step = this.steps[i] as LessonStep;
    this.choice = null;
    this.detail = "";
    switch (step.kind) {
      case "narrate":
        this.finish("done", "");
        return;
      case "play":
        // Either until a condition (bounded by `within`), or `for` a while.
        if (step.until !== undefined && step.within !== undefined) this.playFor(step.until, step.within, step.speed, headless);
        else this.playFor(null, step.for ?? 0, step.speed, headless, step.throughout ?? null);
        return;
      case "act": {
        const failure = this.tl.act(toSimAction(step.do), this.scripted);
        if (failure === null) this.finish("done", "");
        else this.finish("failed", `The lesson could not do this: ${failure.error}.`);
        return;
      }
      case "your-turn":
      case "predict":
        this.status = "waiting";
        return;
      default: {
        const unhandled: never = step;
        throw new Error(`lesson: unhandled step ${(unhandled as LessonStep).kind}`);
      }
    }
  }

  private playFor(until: Expectation | null, withinUs: number, speed: number | undefined, headless: boolean, throughout: Expectation | null = null): void {
    const start = this.tl.now;
    this.goal = { until, throughout, startUs: start, withinUs, endUs: start + withinUs };
    this.status = "playing";
    if (throughout !== null && !this.holds(throughout)) {
      this.afterAdvance();
      return;
    }
    if (until !== null && this.holds(until)) {
      this.finish("done", "It is already so.");
      return;
    }
    if (withinUs <= 0) {
      this.afterAdvance();
      return;
    }
    if (headless) {
      const stop = until !== null ? () => this.holds(until) : throughout !== null ? () => !this.holds(throughout) : undefined;
      this.tl.advanceTo(start + withinUs, stop);
      this.afterAdvance();
      return;
    }
    this.ctl.play(speed ?? LESSON_SPEED);
  }

  /** "Do it for me": the step's own action, as the learner would have done it. */
  private finishForLearner(): void {
    const step = this.steps[this.index];
    if (step?.kind === "your-turn") {
      const failure = this.tl.act(toSimAction(step.do), this.scripted);
      if (failure === null) this.finish("done", "Done for you.");
      else this.finish("failed", `This could not be done: ${failure.error}.`);
    } else if (step?.kind === "predict") {
      this.playFor(step.reveal.until, step.reveal.within, step.reveal.speed, true);
    }
  }

  private finish(status: LessonStepStatus, detail: string): void {
    this.ctl.stop();
    this.goal = null;
    this.status = status;
    this.detail = detail;
    this.outcomes[this.index] = { status, detail, choice: this.choice };
    this.ends[this.index] = this.here();
  }

  /** A step seen before, at its beginning again: how it ended, and that Next goes on from there. */
  private show(o: Outcome): void {
    const step = this.steps[this.index] as LessonStep;
    this.status = o.status;
    this.detail = step.kind === "narrate" ? o.detail : `${o.detail} Next goes on from where this step ended.`.trim();
    this.choice = o.choice;
  }
}
