/**
 * Plays a lesson on the real engine. The LessonEngine runs one step at a time (the page
 * drives it the same way); runLesson walks every step headless, doing each "your turn" with
 * "Do it for me", and fails at the first step whose condition is not met, naming the lesson
 * and the step.
 */
import { applyActionsTo } from "../replay/timeline";
import { describeAction, toSimAction } from "../scenario/actions";
import { buildSimulation, checkExpectation, RunObserver, scenarioActions } from "../scenario/runner";
import type { Expectation, ScenarioAction } from "../scenario/schema";
import type { Action, Simulation } from "../sim/sim";
import { formatDuration, formatInstant, type VirtualUs } from "../sim/time";
import type { TraceEvent } from "../sim/trace";
import type { Lesson, LessonStep } from "./schema";
import { lessonObserverNeeds } from "./steps";

/** The fields of an action that name a process, and the roles that stand for any process of a kind. */
const TARGETS = ["proc", "holder", "client", "from", "to"] as const;
const ANY: Readonly<Record<string, (sim: Simulation) => readonly string[]>> = {
  "any-node": (sim) => sim.nodeIds,
  "any-client": (sim) => sim.clientIds,
  "any-holder": (sim) => sim.holderIds,
};

export interface Outcome {
  readonly ok: boolean;
  readonly detail: string;
}

export class LessonEngine {
  readonly sim: Simulation;
  private readonly observer: RunObserver;
  private readonly timed: ReturnType<typeof scenarioActions>;
  private nextTimed = 0;
  /** When the current step began: what a condition's `"since": "step"` counts from. */
  private stepStart = 0;

  constructor(
    readonly lesson: Lesson,
    onTrace?: (e: TraceEvent) => void,
  ) {
    this.observer = new RunObserver(lessonObserverNeeds(lesson.lesson));
    this.timed = scenarioActions(lesson.scenario);
    this.sim = buildSimulation(lesson.scenario, {
      onTrace: (e) => {
        this.observer.observe(e);
        onTrace?.(e);
      },
    });
  }

  /** A step begins now (runStep calls it): conditions with `"since": "step"` count from here. */
  beginStep(): void {
    this.stepStart = this.sim.now;
  }

  get stepStartUs(): number {
    return this.stepStart;
  }

  /** Whether a condition holds now, and what the engine sees. */
  holds(e: Expectation): Outcome {
    const r = checkExpectation(this.sim, e, this.observer, this.stepStart);
    return { ok: r.ok, detail: r.detail };
  }

  /**
   * Runs the engine until `until` holds (checked after every event, so it stops at the very
   * event that made it true), for at most `withinUs` of virtual time.
   */
  playUntil(until: Expectation, withinUs: number): Outcome {
    if (this.holds(until).ok) return { ok: true, detail: `already so at ${formatInstant(this.sim.now)}` };
    const start = this.sim.now;
    const end: VirtualUs = start + withinUs;
    const r = applyActionsTo(this.sim, this.timed, this.nextTimed, end, () => this.holds(until).ok);
    this.nextTimed = r.next;
    // Stopped at the event that made it true; or, at the bound, an action due then may have.
    const last = r.stopped ? null : this.holds(until);
    if (last === null || last.ok) return { ok: true, detail: `after ${formatDuration(this.sim.now - start)}` };
    return { ok: false, detail: `not within ${formatDuration(withinUs)}: ${last.detail}` };
  }

  /** Runs the engine for `us` of virtual time; with `throughout`, that condition must hold the whole time. */
  playFor(us: number, throughout?: Expectation): Outcome {
    const start = this.sim.now;
    if (throughout !== undefined && !this.holds(throughout).ok) return { ok: false, detail: `not so to begin with: ${this.holds(throughout).detail}` };
    const broke = throughout === undefined ? undefined : () => !this.holds(throughout).ok;
    const r = applyActionsTo(this.sim, this.timed, this.nextTimed, start + us, broke);
    this.nextTimed = r.next;
    if (r.stopped && throughout !== undefined) {
      return { ok: false, detail: `stopped being so after ${formatDuration(this.sim.now - start)}: ${this.holds(throughout).detail}` };
    }
    return { ok: true, detail: `${formatDuration(us)} passed${throughout === undefined ? "" : ", and it stayed so"}` };
  }

  /** Does an action now, as a user's action is done; says why when it cannot run. */
  act(a: ScenarioAction): Outcome {
    // As the page's Timeline.act does: events due at this very moment come first.
    this.nextTimed = applyActionsTo(this.sim, this.timed, this.nextTimed, this.sim.now).next;
    const failure = this.sim.perform(toSimAction(a));
    return failure === null ? { ok: true, detail: "done" } : { ok: false, detail: `could not ${a.do}: ${failure.error}` };
  }

  /**
   * Whether the learner's action is the one a "your turn" step asks for: the same kind, on
   * the same targets, a role resolved now ("leader" is whichever node leads), with the same
   * values (how long a pause lasts, the drift, fencing on or off).
   */
  matches(asked: ScenarioAction, done: Action): boolean {
    return actionMatches(this.sim, asked, done);
  }
}

/**
 * How the learner's action compares with the one a "your turn" asks for: the same one
 * ("match"); the same kind on the same targets with another value, e.g. a pause of another
 * length ("near", with both in words, so the step can say what it asks for); or another
 * action altogether ("other").
 */
export type ActionJudgement =
  | { readonly kind: "match" }
  | { readonly kind: "near"; readonly asked: string; readonly done: string }
  | { readonly kind: "other" };

/** Fields that are neither a target nor a value the step asks for. */
const NOT_VALUES = new Set<string>(["type", "as", "groups", ...TARGETS]);

export function judgeAction(sim: Simulation, asked: ScenarioAction, done: Action): ActionJudgement {
  const wantAction = toSimAction(asked);
  const want = wantAction as unknown as Record<string, unknown>;
  if (want.type !== done.type) return { kind: "other" };
  const got = done as unknown as Record<string, unknown>;
  // A partition is the same split of the processes, however its groups are written.
  if (want.type === "partition" && done.type === "partition") {
    const a = partitionShape(sim, want.groups as readonly (readonly string[])[]);
    return a !== null && a === partitionShape(sim, done.groups) ? { kind: "match" } : { kind: "other" };
  }
  for (const field of TARGETS) {
    const ref = want[field];
    if (typeof ref !== "string") continue;
    const actual = got[field];
    if (typeof actual !== "string" || !sameTarget(sim, ref, actual)) return { kind: "other" };
  }
  // The values the step asks for (a pause's length, a drift, fencing on or off) must be the same too.
  const differs = Object.keys(want).some((f) => !NOT_VALUES.has(f) && JSON.stringify(want[f]) !== JSON.stringify(got[f]));
  return differs ? { kind: "near", asked: describeAction(wantAction), done: describeAction(done) } : { kind: "match" };
}

/** LessonEngine.matches on any simulation (the page's host checks the learner's actions on its own). */
export function actionMatches(sim: Simulation, asked: ScenarioAction, done: Action): boolean {
  return judgeAction(sim, asked, done).kind === "match";
}

function sameTarget(sim: Simulation, ref: string, actual: string): boolean {
  const id = resolveOrNull(sim, actual);
  if (id === null) return false;
  const any = ANY[ref];
  if (any !== undefined) return any(sim).includes(id);
  if (ref === "follower") return sim.nodeIds.includes(id) && id !== sim.leader() && sim.isUp(id);
  return resolveOrNull(sim, ref) === id;
}

/**
 * A partition as a canonical text: each group's processes resolved ("leader" to its id,
 * "others" to every node named in no other group), sorted; empty groups dropped. Null when a
 * reference names nothing.
 */
function partitionShape(sim: Simulation, groups: readonly (readonly string[])[]): string | null {
  const named = groups.map((g) => g.filter((r) => r !== "others").map((r) => resolveOrNull(sim, r)));
  if (named.some((g) => g.includes(null))) return null;
  const listed = new Set(named.flat());
  const full = groups.map((g, i) => [
    ...new Set([...(named[i] as string[]), ...(g.includes("others") ? sim.nodeIds.filter((id) => !listed.has(id)) : [])]),
  ]);
  return full
    .filter((g) => g.length > 0)
    .map((g) => g.sort().join(","))
    .sort()
    .join(" | ");
}

function resolveOrNull(sim: Simulation, ref: string): string | null {
  if (ANY[ref] !== undefined) return null;
  try {
    return sim.resolve(ref);
  } catch {
    return null;
  }
}

export interface StepResult {
  readonly index: number;
  readonly kind: LessonStep["kind"];
  /** The step's recorded moment: where Back returns to. */
  readonly startUs: number;
  readonly ok: boolean;
  readonly detail: string;
}

export interface LessonRunResult {
  readonly id: string;
  readonly ok: boolean;
  readonly steps: readonly StepResult[];
  /** "lesson fencing, step 7 (play): ..." for the first step that failed, else null. */
  readonly failure: string | null;
  readonly violations: readonly string[];
  readonly traceHash: string;
}

/** Runs one step headless: "your turn" and "predict" as if the learner did it for themselves and chose. */
export function runStep(engine: LessonEngine, step: LessonStep): Outcome {
  engine.beginStep();
  switch (step.kind) {
    case "narrate":
      return { ok: true, detail: "" };
    case "play":
      return step.until !== undefined && step.within !== undefined ? engine.playUntil(step.until, step.within) : engine.playFor(step.for ?? 0, step.throughout);
    case "act":
    case "your-turn":
      return engine.act(step.do);
    case "predict":
      return engine.playUntil(step.reveal.until, step.reveal.within);
    default: {
      const unhandled: never = step;
      throw new Error(`runStep: unhandled step ${(unhandled as LessonStep).kind}`);
    }
  }
}

/** Walks a whole lesson headless; stops at the first step that fails. */
export function runLesson(lesson: Lesson, onTrace?: (e: TraceEvent) => void): LessonRunResult {
  const engine = new LessonEngine(lesson, onTrace);
  const steps: StepResult[] = [];
  let failure: string | null = null;
  for (const [index, step] of lesson.lesson.steps.entries()) {
    const startUs = engine.sim.now;
    const r = runStep(engine, step);
    steps.push({ index, kind: step.kind, startUs, ok: r.ok, detail: r.detail });
    if (!r.ok) {
      failure = `lesson ${lesson.lesson.id}, step ${index + 1} (${step.kind}${step.title === undefined ? "" : `: ${step.title}`}): ${r.detail}`;
      break;
    }
  }
  const violations = engine.sim.violations.map((v) => `${v.invariant} at ${formatInstant(v.time)}: ${v.detail}`);
  return { id: lesson.lesson.id, ok: failure === null, steps, failure, violations, traceHash: engine.sim.traceHash };
}
