/**
 * The simulation host: owns one run (a Timeline over a Simulation, and the journal that
 * describes it) and advances its virtual time with a real-time loop at a speed factor. The outside world (posting, real time, timers)
 * comes in as HostEnv so the host runs the same in a worker and in a Node test.
 * The core never sees a timer: it only gets advanceTo(), step() and act().
 */
import { applyActionsTo, Timeline } from "../core/replay/timeline";
import { HistoryRecorder } from "../core/scenario/history";
import { buildSimulation as buildScenarioRun } from "../core/scenario/build";
import { scenarioConfig } from "../core/scenario/settings";
import type { Scenario } from "../core/scenario/schema";
import type { Lesson } from "../core/lesson/schema";
import type { TimedAction } from "../core/scenario/record";
import { configProblems } from "../core/sim/config";
import { formatDuration, formatInstant } from "../core/sim/time";
import { toNdjson } from "../core/sim/trace";
import { stepLine } from "./describe";
import type { ExpectationTracker } from "./expectations";
import { inspect } from "./inspect";
import { Journal } from "./journal";
import { columnBuffers } from "./messageColumns";
import type { LessonControls, LessonPlayer } from "./lessonPlayer";
import { lessonsPart, livePart, toolsPart } from "./parts";
import { MomentGate } from "./momentGate";
import type { Moment } from "./moments";
import { paceOf } from "./pacing";
import type { ReadCheckResult, ReadFiguresResult, ReadsMode } from "./readCheckTypes";
import { DEFAULT_SPEED, type ExportKind, type FromWorker, MAX_TRACE_EXPORT_BYTES, type RunSettings, type ToWorker } from "./protocol";
import { clampSpeed, scenarioFromSettings } from "./settings";
import { timelineView, viewOf } from "./view";
import { newRun, snapshotOptions } from "./runs";
import type { LiveShadow } from "./liveShadow";
import type { ReplaySimulation } from "../core/live/replay";
import type { LiveRecording } from "../core/live/recording";
import type { SimConfig } from "../core/sim/config";

export { newRun, SNAPSHOT_BUDGET_BYTES } from "./runs";

export interface HostEnv {
  /** Posts a message; the buffers in `transfer` are handed over (postMessage's transfer list), so the sender must not use them again. */
  post(msg: FromWorker, transfer?: readonly ArrayBuffer[]): void;
  /** Real monotonic time in milliseconds (performance.now()). */
  nowMs(): number;
  setTimer(fn: () => void, delayMs: number): unknown;
  clearTimer(handle: unknown): void;
}

/** Real milliseconds between loop ticks (about 25 views per second while playing). */
export const TICK_MS = 40;
/** At most this much real time is credited to one tick (a throttled background tab does not jump ahead). */
export const MAX_TICK_REAL_MS = 250;

export class SimHost {
  private timeline: Timeline | null = null;
  private journal = new Journal();
  private settings: RunSettings | null = null;
  /** The scenario the run was built from (page settings become one too): exports start from it. */
  private scenario: Scenario | null = null;
  /** The run came from a scenario file or link (its expectations and name are kept on export). */
  private imported = false;
  /**
   * The actions the run was opened with (a scenario file's, or a share link's: the sender's
   * actions are the receiver's script). They belong to the run: acting in the past keeps those
   * still ahead, unless the user turned keepScript off. Empty for a run made from the settings.
   */
  private script: ReadonlySet<TimedAction> = new Set();
  private keepScript = true;
  private runId = 0;
  /** Bumped whenever the cursor jumps (seek, step back, branch switch): the page then replaces what it accumulated. */
  private epoch = 0;
  private postedEpoch = -1;
  private playing = false;
  /** The page is hidden: keep "playing" as the user's wish, but run nothing. */
  private hidden = false;
  private speed = DEFAULT_SPEED;
  private timer: unknown = null;
  private lastRealMs = 0;
  /** Fraction of a microsecond carried between ticks, so slow speeds still move. */
  private carryUs = 0;
  private lastStep: readonly string[] = [];
  /** lastStep is what a Step back undid. */
  private lastStepBack = false;
  /** Something changed since the last view was posted. */
  private dirty = false;
  /** Pause on key moments, play to the next one, slow down around them. */
  private readonly gate = new MomentGate();
  /** The key moment playing stopped at, shown until anything else happens. */
  private pausedBy: Moment | null = null;
  /** The speed of the last tick (the chosen one, or the automatic slow-down's). */
  private pace = DEFAULT_SPEED;
  /** Live mode's shadow (liveShadow.ts), or null. */
  private live: LiveShadow | null = null;
  /** The live run whose recording is the run (opened in the simulator), or null. */
  private recording: LiveRecording | null = null;
  /** The lesson being played (?lesson=), or null for a plain run. */
  private lesson: LessonPlayer | null = null;
  /** An opened scenario's expectations, checked as the run goes (null for a run made from the page's settings, and in a lesson). */
  private tracker: ExpectationTracker | null = null;
  private readonly lessonControls: LessonControls = {
    play: (speed) => {
      this.speed = clampSpeed(speed);
      this.play();
    },
    stop: () => this.stop(),
    jumped: () => {
      this.epoch++;
    },
  };

  constructor(private readonly env: HostEnv) {}

  handle(msg: ToWorker): void {
    // Inspecting, hiding and exporting change nothing the view shows; everything else does (and ends "what the last Step did").
    const changes = msg.type !== "inspect" && msg.type !== "hidden" && msg.type !== "export" && msg.type !== "check-reads" && msg.type !== "measure-reads";
    if (changes) {
      this.lastStep = [];
      this.lastStepBack = false;
      if (msg.type !== "moment-options" && msg.type !== "setSpeed") this.pausedBy = null;
    }
    try {
      this.dispatch(msg);
    } catch (e) {
      this.env.post({ type: "error", message: e instanceof Error ? e.message : String(e) });
    }
    if (changes) this.dirty = true;
    this.publish();
  }

  private dispatch(msg: ToWorker): void {
    switch (msg.type) {
      case "start": {
        try {
          this.start(msg.settings, msg.scenario, msg.at);
        } catch (e) {
          // A run that cannot be opened leaves the current one; the very first one falls back to the page's settings, from the start.
          if (this.timeline === null && (msg.scenario !== undefined || msg.at !== undefined)) this.start(msg.settings, undefined, undefined);
          throw e;
        }
        return;
      }
      case "restart":
        this.restart(msg.reads);
        return;
      case "play":
        this.gate.toNext = false;
        this.play();
        return;
      case "play-to-next":
        this.stop();
        this.gate.toNext = true;
        this.play();
        return;
      case "moment-options":
        this.gate.setOptions(msg.pauseOn, msg.autoSlow);
        return;
      case "pause":
        this.stop();
        return;
      case "step": {
        this.stop();
        const events = this.requireTimeline().step();
        if (this.timeline !== null) this.tracker?.checkDue(this.timeline);
        // A lesson's playing step ends on the event that makes its condition true, stepped or played.
        this.lesson?.afterAdvance();
        this.lastStep = events.map(stepLine);
        if (events.length === 0) this.lastStep = ["nothing happened: no event is waiting (or the run has stopped)"];
        return;
      }
      case "stepBack": {
        this.stop();
        const tl = this.requireTimeline();
        if (!tl.stepBack()) throw new Error("this is the start of the run: there is no earlier event");
        // What was undone: the event now just ahead, handled once more to read it, and undone again.
        const undone = tl.step();
        tl.stepBack();
        this.lastStep = undone.length > 0 ? undone.map(stepLine) : ["an event that changed nothing visible"];
        this.lastStepBack = true;
        this.epoch++;
        return;
      }
      case "seek": {
        this.stop();
        if (!Number.isFinite(msg.t)) throw new Error(`cannot go to ${msg.t}: not a time`);
        this.requireTimeline().seek(msg.t);
        this.epoch++;
        return;
      }
      case "switchBranch": {
        this.stop();
        this.requireTimeline().switchTo(msg.branch);
        this.epoch++;
        return;
      }
      case "keepScript":
        this.keepScript = msg.keep;
        return;
      case "setSpeed":
        this.speed = clampSpeed(msg.speed);
        return;
      case "act": {
        const tl = this.requireTimeline();
        const branch = tl.branchId;
        const wanted = this.lesson?.wants(msg.action) ?? "other";
        if (wanted === "refused") return;
        const failure = tl.act(msg.action, this.lesson?.scripted ?? this.scriptedFilter());
        if (tl.branchId !== branch) this.tracker?.forked(branch, tl.branchId, tl.now);
        this.lesson?.acted(wanted === "match", failure === null, tl.branchId !== branch);
        if (failure !== null) this.env.post({ type: "error", message: `${failure.action.type} did nothing: ${failure.error}` });
        return;
      }
      case "lesson-start":
        this.startLesson(msg.settings, msg.lesson, msg.step);
        return;
      case "lesson-step":
        this.requireLesson().goTo(msg.index);
        return;
      case "lesson-do-it-for-me":
        this.requireLesson().doItForMe();
        return;
      case "lesson-choose":
        this.requireLesson().choose(msg.choice);
        return;
      case "lesson-explore":
        this.requireLesson().explore();
        return;
      case "lesson-return":
        this.requireLesson().returnToLesson();
        return;
      case "hidden":
        this.hidden = msg.hidden;
        if (msg.hidden) this.cancelTimer();
        else if (this.playing) {
          this.lastRealMs = this.env.nowMs();
          if (this.timer === null) this.schedule();
        }
        return;
      case "inspect": {
        const r = inspect(this.requireTimeline().sim, msg.target);
        this.env.post({ type: "inspection", target: msg.target, title: r.title, text: r.text });
        return;
      }
      case "export":
        try {
          this.env.post({ type: "export", requestId: msg.requestId, what: msg.what, ...this.exportText(msg.what) });
        } catch (e) {
          // Answered, so the page's request ends; the failure belongs to it, not to the run.
          const error = e instanceof Error ? e.message : String(e);
          this.env.post({ type: "export", requestId: msg.requestId, what: msg.what, filename: "", mime: "text/plain", text: "", note: null, error });
        }
        return;
      case "live-start":
      case "live-feed":
      case "live-open":
        this.dispatchLive(msg);
        return;
      case "check-reads":
        this.env.post({ type: "read-check", requestId: msg.requestId, result: this.checkReads() });
        return;
      case "measure-reads":
        this.env.post({ type: "read-figures", requestId: msg.requestId, result: this.measureReads(msg.compare, msg.holders === true) });
        return;
    }
  }

  /** "Measure" in the Reads panel: the figures of the current branch up to the cursor, and with `compare` the other way of reading's. */
  private measureReads(compare: boolean, holders: boolean): ReadFiguresResult {
    const tl = this.requireTimeline();
    const sc = this.scenario as Scenario;
    try {
      const { measureHolders, measureReads } = toolsPart();
      const columns = holders ? measureHolders(sc, tl.actions, tl.now) : measureReads(sc, tl.actions, tl.now, compare);
      return { kind: "ok", untilUs: tl.now, columns };
    } catch (e) {
      return { kind: "error", untilUs: tl.now, message: e instanceof Error ? e.message : String(e) };
    }
  }

  /** The run again from time zero (seed and actions); with `reads`, the leader confirming reads that way. */
  private restart(reads: ReadsMode | undefined): void {
    if (this.scenario === null || this.settings === null) throw new Error("no simulation is running yet");
    if (this.recording !== null) {
      this.openRecording(this.settings, this.recording);
      return;
    }
    if (this.lesson !== null) {
      this.startLesson(this.settings, this.lesson.lesson, 0);
      return;
    }
    const settings = { ...this.settings, speed: this.speed, autoplay: true };
    // An opened file or link starts again with its own actions, from time zero.
    if (reads === undefined) this.start(settings, this.imported ? this.scenario : undefined, 0);
    else {
      const read = { ...settings, timing: { ...settings.timing, reads } };
      this.start(read, this.imported ? toolsPart().withReads(this.scenario, reads) : undefined, 0);
    }
  }

  /** "Check the reads" on the current branch up to the cursor (a failure is the answer, not the run's error). */
  private checkReads(): ReadCheckResult {
    const tl = this.requireTimeline();
    try {
      const { branchHistory, checkReads } = toolsPart();
      return checkReads(branchHistory(this.scenario as Scenario, tl.actions, tl.now), tl.now);
    } catch (e) {
      return { kind: "error", untilUs: tl.now, message: e instanceof Error ? e.message : String(e) };
    }
  }

  private dispatchLive(msg: Extract<ToWorker, { type: "live-start" | "live-feed" | "live-open" }>): void {
    if (msg.type === "live-start") this.startLive(msg.settings, msg.config);
    else if (msg.type === "live-open") this.openRecording(msg.settings, msg.recording);
    else if (this.live?.feed(msg)) {
      // Started again (a report came late): back to where it was at once, not from time zero.
      this.epoch++;
      if (this.playing) this.live.timeline.advanceTo(this.live.watermark);
      this.env.post({ type: "live-rebuilt", rebuilds: this.live.rebuilds });
    }
  }

  /** Live mode: the shadow of the live run (liveShadow.ts) is the run, following the recording as it grows. */
  private startLive(settings: RunSettings, config: SimConfig): void {
    this.stop();
    this.startReplay(settings, scenarioFromSettings(settings), null);
    this.live = new (livePart().LiveShadow)(config, () => this.replayRun(config, undefined));
    this.play();
  }

  /** "Open in the simulator": a live run's recording, replayed whole, for time travel (paused at its end). */
  private openRecording(settings: RunSettings, recording: LiveRecording): void {
    this.stop();
    const tl = this.replayRun(recording.config, recording);
    tl.advanceTo(recording.endAt);
    this.startReplay(settings, scenarioFromSettings(settings), recording);
    this.env.post({ type: "replay-check", check: livePart().checkReplay(tl.sim as ReplaySimulation, recording) });
  }

  /** A timeline over a replay (empty: a live run's shadow), with a fresh journal: the host's run from now on. */
  private replayRun(config: SimConfig, recording: LiveRecording | undefined): Timeline {
    const journal = new Journal();
    const sim = new (livePart().ReplaySimulation)(config, recording, journal.listener);
    const timeline = new Timeline(sim, [], { ...snapshotOptions(), companion: journal });
    this.timeline = timeline;
    this.journal = journal;
    this.epoch++;
    return timeline;
  }

  private startReplay(settings: RunSettings, scenario: Scenario, recording: LiveRecording | null): void {
    this.live = null;
    this.recording = recording;
    this.lesson = null;
    this.tracker = null;
    this.scenario = scenario;
    this.imported = false;
    this.script = new Set();
    this.settings = { ...settings, autoplay: false };
    this.runId++;
    this.speed = clampSpeed(settings.speed);
  }

  private start(settings: RunSettings, imported: Scenario | undefined, seekTo: number | undefined): void {
    this.live = null;
    this.recording = null;
    const scenario = imported ?? scenarioFromSettings(settings);
    const problems = configProblems(scenarioConfig(scenario));
    if (problems.length > 0) throw new Error(`cannot start: ${problems.join("; ")}`);
    // A file or link opens within its duration; a run made from the settings has none (it plays on), up to MAX_OPEN_US.
    const cursor = Math.min(imported !== undefined ? scenario.duration : MAX_OPEN_US + 1, Math.max(0, Math.round(seekTo ?? scenario.ui?.at ?? 0)));
    if (cursor > MAX_OPEN_US) {
      throw new Error(
        `cannot open this run at ${formatInstant(cursor)}: the browser opens a shared moment up to ${formatDuration(MAX_OPEN_US)} into a run (run it with npm run sim)`,
      );
    }
    const { timeline, journal, tracker } = newRun(scenario, imported !== undefined && scenario.expect.length > 0);
    let shortOf: number | null = null;
    if (imported !== undefined || cursor > 0) {
      // A shared or imported run: explore it up to the shared moment, and on towards its end
      // while that is quick; Play explores the rest (a run from the settings opened at a moment
      // is explored up to it only). Opening never takes more than OPEN_BUDGET_MS.
      const started = this.env.nowMs();
      const goal = imported !== undefined ? scenario.duration : cursor;
      for (let t = 0; t < goal; ) {
        t = Math.min(goal, t + OPEN_SLICE_US);
        if (tracker === null) timeline.advanceTo(t);
        else tracker.advance(timeline, t);
        const spent = this.env.nowMs() - started;
        if (spent > OPEN_BUDGET_MS || (t >= cursor && spent > OPEN_ON_MS)) break;
      }
      if (timeline.end < cursor) shortOf = cursor;
      timeline.seek(Math.min(cursor, timeline.end));
    }
    this.stop();
    this.lesson = null;
    this.tracker = tracker;
    this.timeline = timeline;
    this.journal = journal;
    this.scenario = scenario;
    this.imported = imported !== undefined;
    this.script = new Set(imported !== undefined ? timeline.branches()[0]?.actions : []);
    this.settings = settings;
    this.runId++;
    this.epoch++;
    this.speed = clampSpeed(settings.speed);
    if (settings.autoplay) this.play();
    if (shortOf !== null) {
      this.env.post({
        type: "error",
        message: `The shared moment (${formatInstant(shortOf)}) was too far to reach at once: the run is shown at ${formatInstant(timeline.now)}. Press Play to go on to it.`,
      });
    }
  }

  /** A lesson's run, paused at its step `at` (the steps before it played headless). */
  private startLesson(settings: RunSettings, lesson: Lesson, at: number): void {
    const problems = configProblems(scenarioConfig(lesson.scenario));
    if (problems.length > 0) throw new Error(`cannot start the lesson: ${problems.join("; ")}`);
    const { LessonPlayer, newLessonRun } = lessonsPart();
    const { timeline, journal, observer, scripted } = newLessonRun(lesson, snapshotOptions());
    this.stop();
    this.tracker = null;
    this.timeline = timeline;
    this.journal = journal;
    this.scenario = lesson.scenario;
    this.imported = true;
    // A lesson keeps its own script (LessonPlayer.scripted), always.
    this.script = new Set();
    this.settings = { ...settings, autoplay: false };
    this.runId++;
    this.epoch++;
    this.speed = clampSpeed(settings.speed);
    this.lesson = new LessonPlayer(lesson, timeline, observer, this.lessonControls, scripted);
    this.lesson.start(at);
  }

  /** Which recorded actions ahead a branch keeps: the run's script, while the user keeps it. */
  private scriptedFilter(): ((a: TimedAction) => boolean) | undefined {
    const script = this.script;
    if (!this.keepScript || script.size === 0) return undefined;
    return (a) => script.has(a);
  }

  private requireLesson(): LessonPlayer {
    if (this.lesson === null) throw new Error("no lesson is running");
    return this.lesson;
  }

  /** The current branch up to the cursor, as text: a scenario file, an NDJSON trace, or the client history. */
  private exportText(what: ExportKind): { filename: string; mime: string; text: string; note: string | null } {
    const tl = this.requireTimeline();
    const scenario = this.scenario as Scenario;
    const seed = tl.sim.seed;
    const stem = `lease-lab-seed-${seed}${tl.branchId === 0 ? "" : `-branch-${tl.branchId + 1}`}`;
    if (this.live !== null) throw new Error("a live run exports once it is opened in the simulator (Live mode's “Open in the simulator”)");
    const rec = this.recording;
    if (rec !== null && what === "scenario") throw new Error("a live run's replay is not a scenario file: save its recording instead");
    const buildSimulation: typeof buildScenarioRun = (sc, o) => (rec === null ? buildScenarioRun(sc, o) : new (livePart().ReplaySimulation)(rec.config, rec, o?.onTrace));
    if (what === "scenario") {
      const text = toolsPart().exportScenarioText(scenario, this.imported, tl, this.speed);
      return { filename: `${stem}.json`, mime: "application/json", text, note: null };
    }
    // The trace and the history are rebuilt by replaying the branch from the start in a scratch simulation.
    const until = tl.now;
    if (what === "trace") {
      const lines: string[] = [];
      let bytes = 0;
      let cut = false;
      const scratch = buildSimulation(scenario, {
        onTrace: (e) => {
          if (cut) return;
          const line = toNdjson(e);
          bytes += line.length + 1;
          if (bytes > MAX_TRACE_EXPORT_BYTES) cut = true;
          else lines.push(line);
        },
      });
      applyActionsTo(scratch, tl.actions, 0, until);
      const note = cut
        ? `The trace was cut after ${lines.length} events (${Math.round(MAX_TRACE_EXPORT_BYTES / 1e6)} MB); download the scenario and run it with "npm run sim -- --scenario FILE --trace trace.ndjson" for all of it.`
        : null;
      return { filename: `${stem}-trace.ndjson`, mime: "application/x-ndjson", text: lines.length ? `${lines.join("\n")}\n` : "", note };
    }
    const recorder = new HistoryRecorder();
    applyActionsTo(buildSimulation(scenario, { onTrace: (e) => recorder.observe(e) }), tl.actions, 0, until);
    return { filename: `${stem}-history.json`, mime: "application/json", text: `${JSON.stringify(recorder.finish(seed), null, 1)}\n`, note: null };
  }

  private requireTimeline(): Timeline {
    if (this.timeline === null) throw new Error("no simulation is running yet");
    return this.timeline;
  }

  private play(): void {
    if (this.playing || this.timeline === null || this.timeline.sim.halted) return;
    this.playing = true;
    this.lastRealMs = this.env.nowMs();
    this.carryUs = 0;
    if (!this.hidden) this.schedule();
  }

  private stop(): void {
    this.playing = false;
    this.gate.toNext = false;
    this.cancelTimer();
  }

  private cancelTimer(): void {
    if (this.timer !== null) {
      this.env.clearTimer(this.timer);
      this.timer = null;
    }
  }

  private schedule(): void {
    this.timer = this.env.setTimer(() => this.tick(), TICK_MS);
  }

  private tick(): void {
    this.timer = null;
    const tl = this.timeline;
    if (!this.playing || this.hidden || tl === null) return;
    const sim = tl.sim;
    const real = this.env.nowMs();
    const elapsedMs = Math.min(Math.max(real - this.lastRealMs, 0), MAX_TICK_REAL_MS);
    this.lastRealMs = real;
    const live = this.live;
    this.pace = live === null && this.gate.autoSlow ? paceOf(sim, this.speed, this.journal.moments.latest()) : this.speed;
    const virtualUs = elapsedMs * 1000 * this.pace + this.carryUs;
    const wholeUs = Math.floor(virtualUs);
    this.carryUs = virtualUs - wholeUs;
    const violationsBefore = sim.violations.length;
    const lesson = this.lesson;
    // A lesson's own steps are not paused on moments (exploring from it is the free lab).
    // A live run's shadow follows the recording: it stops on nothing but a violation.
    const gate = live === null && (lesson === null || lesson.exploring) ? this.gate : null;
    const moments = this.journal.moments;
    gate?.begin(moments);
    try {
      // Stops at the very event that broke an invariant, so the screen shows that moment (and, in a lesson, at the event that ends a step).
      const to =
        live !== null ? Math.max(sim.now, live.watermark) : Math.min(sim.now + wholeUs, Math.max(sim.now, lesson?.playBound() ?? Number.POSITIVE_INFINITY));
      const stopWhen = () => sim.violations.length > violationsBefore || (lesson?.goalHolds() ?? false) || (gate?.reached(moments) ?? false);
      if (this.tracker === null) tl.advanceTo(to, stopWhen);
      else this.tracker.advance(tl, to, stopWhen);
      lesson?.afterAdvance();
    } catch (e) {
      this.stop();
      this.env.post({ type: "error", message: `the simulation stopped: ${e instanceof Error ? e.message : String(e)}` });
    }
    // The UI pauses on a violation so the user can look at it.
    if (sim.violations.length > violationsBefore || sim.halted) this.stop();
    if (gate?.hit != null && this.playing) {
      this.pausedBy = gate.hit;
      this.stop();
    }
    this.dirty = true;
    this.publish();
    if (this.playing) this.schedule();
  }

  /** Posts a view when something changed since the last one (a paused run posts nothing). */
  private publish(): void {
    const tl = this.timeline;
    if (tl === null || this.settings === null || !this.dirty) return;
    this.dirty = false;
    const fresh = this.postedEpoch !== this.epoch;
    this.postedEpoch = this.epoch;
    const base = viewOf(tl.sim, {
      runId: this.runId,
      epoch: this.epoch,
      opened: this.imported,
      fresh,
      timeline: timelineView(tl, this.lesson === null ? { actions: this.script, keep: this.keepScript } : null),
      settings: this.settings,
      playing: this.playing,
      speed: this.speed,
      journal: this.journal,
      lastStep: this.lastStep,
      lastStepBack: this.lastStepBack,
      pausedBy: this.pausedBy,
      pace: this.playing ? this.pace : this.speed,
    });
    const withScenario = this.tracker === null ? base : { ...base, scenario: this.tracker.view(tl) };
    const view = this.lesson === null ? withScenario : { ...withScenario, lesson: this.lesson.view() };
    // The diagram's messages are fresh columns made for this view: handed over, not copied.
    this.env.post({ type: "view", view }, columnBuffers(view.newMessages));
  }
}

/** The furthest moment of a file or link the browser opens at (virtual time). */
export const MAX_OPEN_US = 60 * 60_000_000;
/** Opening a file or link explores it in slices of this much virtual time... */
const OPEN_SLICE_US = 1_000_000;
/** ...for at most this long (real ms), reaching the shared moment first... */
const OPEN_BUDGET_MS = 8000;
/** ...and going on past it only while opening has taken less than this. */
const OPEN_ON_MS = 1500;
