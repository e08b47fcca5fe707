/**
 * The typed message protocol between the page (main thread) and the simulation
 * worker. Plain, structured-clone-safe data only: no classes, no functions.
 *
 * main -> worker: ToWorker. worker -> main: FromWorker.
 *
 * Times are virtual microseconds (the simulator's global time) unless a name says
 * otherwise. Where a process's own clock matters (a holder's deadline, a leader's
 * expiry), the worker has already mapped its local reading onto virtual time, so the
 * page can draw everything on one axis.
 */
import type { Lesson } from "../core/lesson/schema";
import type { Scenario } from "../core/scenario/schema";
import type { Action } from "../core/sim/sim";
import type { HolderView } from "./holderView";
import type { MessageColumns } from "./messageColumns";
import type { Moment, PauseKind } from "./moments";
import type { CheckerView, DropView, LeaseRowView, MessageView, NetworkView, NodeView, StorageView, ViolationView } from "./viewTypes";

export type { HolderStatus, HolderView } from "./holderView";
export type { MessageColumns } from "./messageColumns";
export type { Moment, MomentKind, PauseKind } from "./moments";
export type {
  EntryKind,
  EntryView,
  ProgressView,
  NodeView,
  LeaseSpan,
  LeaseMark,
  LeaseRowView,
  StorageWriteView,
  StorageView,
  MessageView,
  DropView,
  NetworkView,
  CheckerView,
  ViolationView,
} from "./viewTypes";

/** What a run is made of. Everything else comes from defaultConfig(). */
export interface RunSettings {
  readonly seed: number;
  readonly nodes: number;
  /** Spare servers outside the first configuration, for "Add to the cluster" (dissertation 4). */
  readonly spares: number;
  readonly clients: { readonly count: number; readonly workload: "none" | "random" };
  /** Lease holders contending for one lease and writing to fenced storage. */
  readonly holders: number;
  /** Virtual seconds per real second (0.1 = ten times slower than real time). */
  readonly speed: number;
  /** Start playing at once. */
  readonly autoplay: boolean;
  readonly timing: TimingSettings;
}

/** The timing knobs the page offers (all milliseconds, fractions 0..1). */
export interface TimingSettings {
  readonly electionTimeoutMinMs: number;
  readonly electionTimeoutMaxMs: number;
  readonly heartbeatIntervalMs: number;
  readonly latencyMinMs: number;
  readonly latencyMaxMs: number;
  readonly leaseTtlMs: number;
  /** Holders renew after this share of the TTL (etcd 1/3, DHCP 1/2). */
  readonly renewFraction: number;
  /** Chubby-style grace period after the holder's own deadline (0 = none). */
  readonly gracePeriodMs: number;
  /** etcd-style checkpoints of each lease's remaining TTL, and how often the leader writes one. */
  readonly checkpoint: boolean;
  readonly checkpointIntervalMs: number;
  /** Chubby's lock-delay: after an expiry, the name is not granted again for this long. */
  readonly lockDelayMs: number;
  /** The holder's allowance for its clock running slow (ppm), taken off its own deadline. */
  readonly driftMarginPpm: number;
  /** The leader waits TTL x this before it expires a lease (slack for clock drift). */
  readonly expirySlackFactor: number;
  /** The provider's pool: at most this many leases granted at once (0: no limit). */
  readonly poolSize: number;
  /** How the leader confirms a read: a heartbeat round each (ReadIndex) or its lease (docs/reads.md). Absent: the default. */
  readonly reads?: import("./readCheckTypes").ReadsMode;
  /** The clock drift both leases for reads allow for (ppm). Absent: the default. */
  readonly leaseDriftBoundPpm?: number;
  /** Followers the leader lends read leases to (0: none), and for how long. Absent: the defaults. */
  readonly readLeaseFollowers?: number;
  readonly readLeaseMs?: number;
}

/** Something the page can ask the worker to describe in full. */
export type InspectTarget =
  | { readonly kind: "node"; readonly id: string }
  | { readonly kind: "holder"; readonly id: string }
  | { readonly kind: "storage" }
  | { readonly kind: "client"; readonly id: string }
  | { readonly kind: "message"; readonly id: number };

/** A key-value client (c1, c2, …): it sends puts and reads through the leader. */
export interface ClientView {
  readonly id: string;
  readonly status: "up" | "down" | "paused";
  /** Requests it has made since it (re)started. */
  readonly sent: number;
  /** The request it is waiting on: "put k3", its number, tries so far, the server it asked last. */
  readonly current: { readonly seq: number; readonly text: string; readonly attempts: number; readonly server: string } | null;
  readonly queued: number;
}

/** Something the page can ask the worker to export as text. */
export type ExportKind = "scenario" | "trace" | "history";

export type ToWorker = import("./readCheckTypes").ReadCheckRequest
  | import("./readCheckTypes").ReadFiguresRequest
  /**
   * Builds a fresh simulation (replacing any previous one). With `scenario` (an imported
   * file or a share link) the scenario is the authority for every setting and brings the
   * user's actions, and its ui.at puts the cursor; `settings` then only says how it is shown
   * (speed, autoplay).
   */
  | {
      readonly type: "start";
      readonly settings: RunSettings;
      readonly scenario?: Scenario;
      /** Opens the run at this moment (virtual µs; the address's ?t=): explored up to it, then paused there. Overrides the scenario's ui.at. */
      readonly at?: number;
    }
  /**
   * Starts a lesson (a fresh run of its scenario, paused) at step `step` (from 0): the steps
   * before it are played headless, each "your turn" done for the learner.
   */
  | { readonly type: "lesson-start"; readonly settings: RunSettings; readonly lesson: Lesson; readonly step: number }
  /** Goes to a step of the running lesson: back to an earlier step's recorded moment, or on to the next one. */
  | { readonly type: "lesson-step"; readonly index: number }
  /** The current "your turn" step's action, done for the learner. */
  | { readonly type: "lesson-do-it-for-me" }
  /** The learner's answer to the current "predict" step (a choice's index): the engine then plays until the reveal. */
  | { readonly type: "lesson-choose"; readonly choice: number }
  /** Leaves the lesson for the free lab at this moment, on a branch of its own; and comes back to the moment it left. */
  | { readonly type: "lesson-explore" }
  | { readonly type: "lesson-return" }
  /** Starts the current run again from its beginning: its settings and the actions it was opened with (a file's or a link's); branches are dropped. */
  | {
      readonly type: "restart";
      /** Restarts it with the leader confirming reads this way (the same seed and actions; an opened file's expectations are dropped). */
      readonly reads?: import("./readCheckTypes").ReadsMode;
    }
  | { readonly type: "play" }
  | { readonly type: "pause" }
  /** Pauses, then processes exactly one event. */
  | { readonly type: "step" }
  | { readonly type: "setSpeed"; readonly speed: number }
  /** Runs a simulator action now, at the current virtual time. */
  | { readonly type: "act"; readonly action: Action }
  /** The page was hidden (true) or shown again (false): a hidden page costs no CPU. */
  | { readonly type: "hidden"; readonly hidden: boolean }
  | { readonly type: "inspect"; readonly target: InspectTarget }
  /**
   * Whether acting in the past keeps the run's scripted actions ahead (the actions a scenario
   * file or share link opened it with): on by default; off, a branch drops everything ahead.
   */
  | { readonly type: "keepScript"; readonly keep: boolean }
  /** Moves the time cursor to virtual time `t` (µs) of the current branch (clamped to what has been explored). Pauses. */
  | { readonly type: "seek"; readonly t: number }
  /** Pauses, then goes back exactly one simulator event. */
  | { readonly type: "stepBack" }
  /** Makes another branch current, at its end (the furthest point it was explored to). Pauses. */
  | { readonly type: "switchBranch"; readonly branch: number }
  /**
   * How playing treats key moments (moments.ts): pause at those of these groups, and slow
   * down around lease events (faster between them). Kept across runs.
   */
  | { readonly type: "moment-options"; readonly pauseOn: readonly PauseKind[]; readonly autoSlow: boolean }
  /** Plays until the next key moment of the pause groups chosen (of any group when none is), and stops at its event. */
  | { readonly type: "play-to-next" }
  /** Asks for a text export of the current branch up to the cursor; answered by an "export" message. */
  | { readonly type: "export"; readonly what: ExportKind; readonly requestId: number }
  /** Live mode begins (src/live/): the dashboard shows the shadow of the live run, a replay of its recording as it grows. */
  | { readonly type: "live-start"; readonly settings: RunSettings; readonly config: import("../core/sim/config").SimConfig }
  /** What the live run recorded since the last feed (liveShadow.ts). */
  | ({ readonly type: "live-feed" } & import("./liveShadow").LiveFeed)
  /** "Open in the simulator": a live run's whole recording, replayed by the deterministic engine (time travel, the diagram, exports). */
  | { readonly type: "live-open"; readonly settings: RunSettings; readonly recording: import("../core/live/recording").LiveRecording };

/** A user action as recorded on a branch: what, and the virtual time (µs) it was taken at. */
export interface TimedActionView {
  readonly at: number;
  readonly action: Action;
  /** One line, for lists ("crash n2", "pause h1 for 5 s"). */
  readonly text: string;
  /** One of the run's scripted actions (the scenario file's or share link's), not one taken in this session. */
  readonly scripted: boolean;
}

/** The actions a run was opened with (a scenario file's or a share link's): they belong to the run. */
export interface ScriptView {
  /** How many there are. */
  readonly actions: number;
  /** Acting in the past keeps those still ahead on the new branch (else the branch drops them with the rest of the future). */
  readonly keep: boolean;
}

/** "scripted": an action of the opened scenario file itself (not one the user took here). */
export type TimelineMarkerKind = "election" | "expiry" | "rejection" | "violation" | "action" | "scripted";

/** A moment worth jumping to, on the time slider. */
export interface TimelineMarker {
  readonly t: number;
  /** Trace position (unique on a branch); for the branch's k-th user action (from 0), -1 - k. */
  readonly n: number;
  readonly kind: TimelineMarkerKind;
  /** Short words: "n3 leads term 4", "lease lock expired (h1)", "write by h1 (token 7) rejected". */
  readonly label: string;
}

export interface BranchView {
  readonly id: number;
  /** "main", "branch 2", ... */
  readonly name: string;
  readonly parent: number | null;
  /** Where it left its parent (virtual µs); 0 for main. */
  readonly forkedAt: number;
  /** How far it has been explored (virtual µs). */
  readonly end: number;
  /** Its user actions, in order. */
  readonly actions: number;
  /** The first action that differs from the parent, in words (null for main). */
  readonly firstAction: string | null;
}

/** Where the cursor is in the run's history, and what can be jumped to. */
export interface TimelineView {
  readonly branch: number;
  readonly branches: readonly BranchView[];
  /** Furthest virtual time explored on the current branch (µs); the cursor is SimView.now. */
  readonly end: number;
  /** Markers of the current branch, oldest first (the newest 2000 of the simulator's, and every user action). */
  readonly markers: readonly TimelineMarker[];
  /** Markers left out because of the bound. */
  readonly markersDropped: number;
  /** The current branch's user actions (the ones a share link or scenario export carries). */
  readonly actions: readonly TimedActionView[];
  /** There is an earlier event to step back to. */
  readonly canStepBack: boolean;
  /** The run's script, when it was opened from a scenario file or a share link that has actions (null otherwise, and in a lesson). */
  readonly script: ScriptView | null;
}

/** A message that arrived or was lost: one arrow of the space-time diagram. */
export interface DiagramMessage {
  readonly id: number;
  readonly from: string;
  readonly to: string;
  readonly sentAt: number;
  /** When it arrived, or was dropped. */
  readonly endAt: number;
  readonly label: string;
  readonly outcome: "delivered" | "dropped";
  /** Why it was dropped, in words (null when delivered). */
  readonly reason: string | null;
}

/** A state change on one process's line of the space-time diagram. */
export interface DiagramMark {
  readonly t: number;
  readonly n: number;
  readonly proc: string;
  readonly kind: "role" | "crash" | "restart" | "pause" | "resume" | "holder" | "storage" | "clock" | "timeout" | "transfer" | "violation";
  /** Short words: "leader T4", "crashed", "holding (token 7)", "rejected token 5". */
  readonly label: string;
  /** A problem (rejection, violation, lost lease): drawn in the warning colour. */
  readonly bad: boolean;
}

export type EventCategory = "election" | "replication" | "lease" | "holder" | "storage" | "fault" | "message" | "violation" | "note";

/** One line of the event log, in plain words. */
export interface EventLine {
  /** Position in the run's trace (unique, increasing). */
  readonly n: number;
  readonly t: number;
  readonly category: EventCategory;
  readonly text: string;
  /** The same in internal names ("holding.waiting → holding.renewing on after:untilRenew"), shown under "Show full state". */
  readonly detail?: string;
  /** Processes it is about (for highlighting). */
  readonly procs: readonly string[];
}

/**
 * A step of a lesson: waiting for the learner (a "your turn" or a question), playing until
 * its condition holds, done (Next goes on), or failed (its condition did not hold in time).
 */
export type LessonStepStatus = "waiting" | "playing" | "done" | "failed";

/** Where a running lesson is. */
export interface LessonView {
  readonly id: string;
  /** The current step (from 0). */
  readonly index: number;
  readonly count: number;
  readonly status: LessonStepStatus;
  /** What happened, in words ("after 1.2 s", "not within 3 s: ..."), or "". */
  readonly detail: string;
  /** The learner's answer to this step's question, or null. */
  readonly choice: number | null;
  /** The furthest step reached (from 0). */
  readonly reached: number;
  /** The virtual time this step began at (µs): where Back returns to. */
  readonly startedAt: number;
  /** Exploring freely from the virtual time given (µs), on a branch of its own; null in the lesson. */
  readonly exploringFrom: number | null;
}

/** An expectation of an opened scenario, at the cursor: not yet looked at, waiting (a `within` one), held, or failed. */
export type ExpectationStatus = "pending" | "waiting" | "ok" | "failed";

export interface ExpectationView {
  /** Its position in the file's `expect` list. */
  readonly index: number;
  /** "at 6.5 s: lease lock is held by h2 on a majority of node(s)". */
  readonly text: string;
  /** When it is looked at (virtual µs). */
  readonly at: number;
  readonly status: ExpectationStatus;
  /** What was found, once decided ("" before). */
  readonly detail: string;
  /** When it was decided (µs), or null while pending. */
  readonly decidedAt: number | null;
}

/** A run opened from a scenario (library, file or link): its name, story, scripted actions and expectations at the cursor. */
export interface ScenarioRunView {
  readonly name: string;
  readonly description: string;
  readonly durationUs: number;
  /** The file's own timed actions, in time order. */
  readonly scripted: readonly { readonly at: number; readonly text: string }[];
  /** In the order they are looked at. */
  readonly expectations: readonly ExpectationView[];
}

/** Everything the page shows, as of virtual time `now`. */
export interface SimView {
  /** Changes whenever a new run starts (the page clears what it accumulated). */
  readonly runId: number;
  /**
   * Changes whenever the run's history jumps (a seek, a step back, a branch switch, a
   * new run): then newEvents, newMessages and newMarks hold everything the worker
   * retains up to the cursor, and the page replaces what it had instead of appending.
   */
  readonly epoch: number;
  /** The run was opened from a scenario file or a share link (not made from the page's settings). */
  readonly opened: boolean;
  readonly timeline: TimelineView;
  /**
   * Space-time diagram: messages that ended (arrived or dropped) since the previous view (or
   * all retained ones on a new epoch), oldest first, packed in columns (messageColumns.ts:
   * their buffers are transferred, not copied; the page unpacks them with unpackMessages).
   */
  readonly newMessages: MessageColumns;
  /** Space-time diagram: state changes since the previous view (or all retained ones on a new epoch). */
  readonly newMarks: readonly DiagramMark[];
  readonly seed: number;
  readonly settings: RunSettings;
  /** Virtual time, µs. */
  readonly now: number;
  readonly playing: boolean;
  readonly speed: number;
  readonly halted: boolean;
  readonly nodes: readonly NodeView[];
  /** Log indexes shown in the grid: [from, to] inclusive (to < from when every log is empty). */
  readonly logWindow: { readonly from: number; readonly to: number };
  /** The up node leading the highest term, if any. */
  readonly leader: string | null;
  /** The voters, as the leader (or the up node of the highest term) counts them. */
  readonly config: readonly string[];
  readonly holders: readonly HolderView[];
  readonly clients: readonly ClientView[];
  readonly leases: readonly LeaseRowView[];
  readonly storage: StorageView | null;
  readonly messages: readonly MessageView[];
  readonly drops: readonly DropView[];
  readonly network: NetworkView;
  readonly checkers: readonly CheckerView[];
  /** Total number of invariant violations so far. */
  readonly violations: number;
  /** The most recent violations (bounded). */
  readonly recentViolations: readonly ViolationView[];
  /** Event log lines that are new since the previous view of this run (the page keeps a bounded history). */
  readonly newEvents: readonly EventLine[];
  readonly traceHash: string;
  /** Trace events emitted so far (one handled event emits several). */
  readonly eventsProcessed: number;
  /** Simulator events handled so far: deliveries, timers that fired, actions. Step adds exactly one. */
  readonly eventsHandled: number;
  /** What the last Step did (or the last Step back undid), one line per trace event (sends and deliveries included); empty after anything else. */
  readonly lastStep: readonly string[];
  /** lastStep says what the last Step back undid (the event it went back over), not what a Step did. */
  readonly lastStepBack: boolean;
  /** The lesson being played (?lesson=), if any. */
  readonly lesson?: LessonView;
  /** The scenario a run was opened from (library, file or link) when it has expectations: its story, and its expectations as of the cursor. */
  readonly scenario?: ScenarioRunView;
  /** The newest key moments up to the cursor, oldest first (bounded). */
  readonly moments?: readonly Moment[];
  /** The key moment the player stopped at (pause-on or play-to-next), until it plays or moves again. */
  readonly pausedBy?: Moment | null;
  /** The speed time moves at right now: the chosen one, or slower/faster around lease events (automatic slow-down). */
  readonly pace?: number;
}

export type FromWorker = import("./readCheckTypes").ReadCheckAnswer
  | import("./readCheckTypes").ReadFiguresAnswer
  /** A live run opened in the simulator: each process's digest, live and replayed. */
  | { readonly type: "replay-check"; readonly check: import("./liveShadow").ReplayCheck }
  /** Live mode: the shadow started again from the recording's beginning (a thread's report came after it had played past its time); how many times so far. */
  | { readonly type: "live-rebuilt"; readonly rebuilds: number }
  | { readonly type: "view"; readonly view: SimView }
  /** Something the user asked for could not be done (bad action, bad settings). The run goes on. */
  | { readonly type: "error"; readonly message: string }
  | { readonly type: "inspection"; readonly target: InspectTarget; readonly title: string; readonly text: string }
  | {
      readonly type: "export";
      readonly requestId: number;
      readonly what: ExportKind;
      /** A file name to save it under ("lease-lab-seed-7.json"). */
      readonly filename: string;
      readonly mime: string;
      readonly text: string;
      /** Set when the export was cut short (e.g. a trace longer than MAX_TRACE_EXPORT_BYTES): says what was left out. */
      readonly note: string | null;
      /** Set when the export failed (then text is empty): why. */
      readonly error?: string;
    };

/** How long (virtual µs) a dropped message stays drawn: one real second at `speed`. The worker and the ring agree on it. */
export function dropWindowUs(speed: number): number {
  return Math.max(1, Math.round(1_000_000 * speed));
}

/** Speeds offered in the UI, in virtual seconds per real second (a log scale). */
export const SPEEDS: readonly number[] = [0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5];
/** The steps the speed keys go through. */
export const SPEED_STEPS: readonly number[] = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2];
export const DEFAULT_SPEED = 0.05;
export const MIN_SPEED = 0.001;
export const MAX_SPEED = 10;
/** Violations kept in a view. */
export const MAX_RECENT_VIOLATIONS = 20;
/** Log entries per node in a view. */
export const LOG_WINDOW = 24;
/** Storage writes in a view. */
export const STORAGE_WRITES_SHOWN = 40;
/** Event log lines the page keeps. */
export const EVENT_LOG_LIMIT = 1000;
/** How far back (virtual µs) the lease timeline keeps spans and marks. */
export const LEASE_HISTORY_US = 60_000_000;
/** Space-time diagram: finished messages and state changes the worker and the page keep (the newest). */
export const DIAGRAM_MESSAGE_LIMIT = 6000;
export const DIAGRAM_MARK_LIMIT = 2000;
/** A trace export stops before this many bytes of NDJSON (and says so). */
export const MAX_TRACE_EXPORT_BYTES = 50_000_000;
