/**
 * The page's state: the latest view from the simulation worker, the event log it has
 * accumulated, what the user selected, and messages for the user. One zustand store per
 * app (createLabStore), handed to the components by LabProvider; they read it with
 * useLab and the module-level selectors below (stable identities). Code outside React
 * is given the store.
 */
import { createContext, createElement, type ReactNode, useContext } from "react";
import { useStore } from "zustand";
import { createStore, type StoreApi } from "zustand/vanilla";
import { shareEqual } from "./share";
import { browserFrames, type FrameScheduler, TimeCursor } from "./timeline/cursor";
import {
  DIAGRAM_MARK_LIMIT,
  DIAGRAM_MESSAGE_LIMIT,
  type DiagramMark,
  type DiagramMessage,
  EVENT_LOG_LIMIT,
  type EventLine,
  type ExportKind,
  type FromWorker,
  type InspectTarget,
  type MessageColumns,
  type RunSettings,
  type SimView,
  type ToWorker,
} from "../worker/protocol";
import { emptyColumns, unpackInto } from "../worker/messageColumns";
import type { ReadCheckResult, ReadFiguresResult } from "../worker/readCheckTypes";

/** What the inspector shows: a node, a holder, the storage, or a message in flight. */
export type Selection = InspectTarget | null;

export interface Inspection {
  readonly target: InspectTarget;
  readonly title: string;
  readonly text: string;
}

/**
 * While a run plays, the panels are redrawn at most this often (ms); the ring animates
 * every frame from the live view. Paused, stepped or acted-on views go through at once.
 */
export const PANEL_INTERVAL_MS = 100;

export interface LabState {
  readonly settings: RunSettings | null;
  /** The view the panels draw (throttled while playing, see PANEL_INTERVAL_MS). */
  readonly view: SimView | null;
  /** The newest view from the worker (the animated ring draws from this one). */
  readonly liveView: SimView | null;
  /** Event log lines of the current run, oldest first (at most EVENT_LOG_LIMIT). */
  readonly events: readonly EventLine[];
  /** Space-time diagram: finished messages up to the cursor, oldest first (at most DIAGRAM_MESSAGE_LIMIT). */
  readonly diagramMessages: readonly DiagramMessage[];
  /** Space-time diagram: state changes up to the cursor, oldest first (at most DIAGRAM_MARK_LIMIT). */
  readonly diagramMarks: readonly DiagramMark[];
  /** The message highlighted in both the ring and the space-time diagram (hover or click). */
  readonly focusMessage: number | null;
  readonly setFocusMessage: (id: number | null) => void;
  /** Asks the worker for an export; resolves with its text, or rejects with the worker's reason or when it does not answer within `timeoutMs`. */
  readonly requestExport: (what: ExportKind, timeoutMs?: number) => Promise<ExportResult>;
  readonly selected: Selection;
  /** The worker's full description of the selected thing, when asked for. */
  readonly inspection: Inspection | null;
  /** Processes to highlight everywhere (a violation, or the user's "Highlight"). */
  readonly highlight: readonly string[];
  /** Processes of the event-log line under the pointer; shown instead of `highlight` while set. */
  readonly hover: readonly string[] | null;
  /** Problems with the URL's parameters (the run uses defaults for those). */
  readonly notices: readonly string[];
  /** The latest error from the worker, until dismissed. */
  readonly error: string | null;
  /** The page's time cursor: the slider, the marker buttons and the shortcuts all move it. */
  readonly cursor: TimeCursor;
  /** Sends a command to the worker; a no-op until the worker is connected. */
  readonly send: (msg: ToWorker) => void;
  /** A live run opened in the simulator: each process's digest, live and replayed (null until the worker has compared them). */
  readonly replayCheck: import("../worker/liveShadow").ReplayCheck | null;
  /** Live mode: times the dashboard's replay of the live run started again because a thread reported late. */
  readonly liveRebuilds: number;
  readonly receive: (msg: FromWorker) => void;
  readonly select: (s: Selection) => void;
  readonly setHighlight: (procs: readonly string[]) => void;
  readonly setHover: (procs: readonly string[] | null) => void;
  readonly dismissError: () => void;
  readonly dismissNotices: () => void;
  /** "Check the reads": the request asked last, and its answer once it came (null: still checking); null when none is shown. */
  readonly readCheck: { readonly requestId: number; readonly result: ReadCheckResult | null } | null;
  /** Asks the worker to check the reads of the current branch up to the cursor (readCheck then holds the answer). */
  readonly checkReads: () => void;
  readonly closeReadCheck: () => void;
  /** "Measure" in the Reads panel: the request asked last, and its answer once it came (null: still measuring); null before any. */
  readonly readFigures: { readonly requestId: number; readonly compare: boolean; readonly result: ReadFiguresResult | null } | null;
  /** Asks the worker for the run's read and write figures up to the cursor; with `compare`, also the same run read the other way. */
  readonly measureReads: (compare: boolean, holders?: boolean) => void;
}

export interface ExportResult {
  readonly filename: string;
  readonly mime: string;
  readonly text: string;
  readonly note: string | null;
}

const NONE: readonly string[] = [];

/** Appends `fresh` to `old`, keeping the newest `limit`. */
export function appendBounded<T>(old: readonly T[], fresh: readonly T[], limit: number): readonly T[] {
  if (fresh.length === 0) return old;
  const all = old.concat(fresh);
  return all.length > limit ? all.slice(all.length - limit) : all;
}

/** Appends new lines, keeping the newest EVENT_LOG_LIMIT. */
export function appendEvents(old: readonly EventLine[], fresh: readonly EventLine[]): readonly EventLine[] {
  return appendBounded(old, fresh, EVENT_LOG_LIMIT);
}

/** How long an export may take before the page gives up on it (ms). */
const EXPORT_TIMEOUT_MS = 20_000;

function realNow(): number {
  return typeof performance === "undefined" ? 0 : performance.now();
}

type SetLab = StoreApi<LabState>["setState"];
type GetLab = StoreApi<LabState>["getState"];

const NO_LINES: readonly EventLine[] = [];
const NO_MARKS: readonly DiagramMark[] = [];
const NO_MESSAGES: MessageColumns = emptyColumns();

/**
 * The view as the store keeps it: without the deltas (new lines, messages and marks), which
 * the store has taken into its own lists. Nothing reads them from the view, and left out,
 * they cost the comparison with the previous view (shareEqual) nothing.
 */
export function withoutDeltas(v: SimView): SimView {
  return { ...v, newEvents: NO_LINES, newMessages: NO_MESSAGES, newMarks: NO_MARKS };
}

/**
 * The views from the worker, into the store. Event lines, messages and marks received
 * but not yet shown wait here and join the store with the next panel update. The
 * diagram's messages arrive packed in columns and are unpacked here, once.
 */
function viewIntake(set: SetLab, get: GetLab): (live: SimView) => void {
  let pendingLines: EventLine[] = [];
  let pendingMessages: DiagramMessage[] = [];
  let pendingMarks: DiagramMark[] = [];
  let panelAt = Number.NEGATIVE_INFINITY;
  return (received) => {
    const prev = get().view;
    const sameRun = prev !== null && prev.runId === received.runId;
    // A jump in history (seek, step back, branch): the view brings everything retained up to the cursor.
    const sameEpoch = sameRun && prev.epoch === received.epoch;
    if (!sameEpoch) {
      pendingLines = [];
      pendingMessages = [];
      pendingMarks = [];
    }
    for (const l of received.newEvents) pendingLines.push(l);
    unpackInto(pendingMessages, received.newMessages);
    for (const m of received.newMarks) pendingMarks.push(m);
    // Only the pending lists need the most recent DIAGRAM_MESSAGE_LIMIT (a run at top speed between panel updates stays far below).
    if (pendingMessages.length > 2 * DIAGRAM_MESSAGE_LIMIT) pendingMessages = pendingMessages.slice(-DIAGRAM_MESSAGE_LIMIT);
    const live = withoutDeltas(received);
    const t = realNow();
    const urgent =
      prev === null ||
      !sameEpoch ||
      !live.playing ||
      prev.playing !== live.playing ||
      live.violations !== prev.violations ||
      live.lastStep.length > 0 ||
      t - panelAt >= PANEL_INTERVAL_MS;
    if (!urgent) {
      set({ liveView: live });
      return;
    }
    panelAt = t;
    // Unchanged parts keep their identity, so panels whose data did not change skip rendering.
    const v = sameRun ? shareEqual(prev, live) : live;
    const fresh = pendingLines;
    const freshMessages = pendingMessages;
    const freshMarks = pendingMarks;
    pendingLines = [];
    pendingMessages = [];
    pendingMarks = [];
    const st = get();
    set({
      view: v,
      liveView: live,
      settings: v.settings,
      events: appendEvents(sameEpoch ? st.events : [], fresh),
      diagramMessages: appendBounded(sameEpoch ? st.diagramMessages : [], freshMessages, DIAGRAM_MESSAGE_LIMIT),
      diagramMarks: appendBounded(sameEpoch ? st.diagramMarks : [], freshMarks, DIAGRAM_MARK_LIMIT),
      // A new run: the figures measured were another run's.
      ...(sameRun ? {} : { selected: null, inspection: null, highlight: NONE, hover: null, focusMessage: null, readFigures: null }),
    });
  };
}

type ExportAnswer = Extract<FromWorker, { type: "export" }>;

/** Export requests waiting for the worker's answer, by request id. */
function exportDesk(get: GetLab): { request: LabState["requestExport"]; answer: (msg: ExportAnswer) => void } {
  const waiters = new Map<number, { resolve: (r: ExportResult) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  return {
    request: (what, timeoutMs = EXPORT_TIMEOUT_MS) =>
      new Promise<ExportResult>((resolve, reject) => {
        const requestId = nextId++;
        const timer = setTimeout(() => {
          waiters.delete(requestId);
          reject(new Error(`the simulation did not answer within ${Math.round(timeoutMs / 1000)} s`));
        }, timeoutMs);
        waiters.set(requestId, {
          resolve: (r) => {
            clearTimeout(timer);
            resolve(r);
          },
          reject: (e) => {
            clearTimeout(timer);
            reject(e);
          },
        });
        get().send({ type: "export", what, requestId });
      }),
    answer: (msg) => {
      const w = waiters.get(msg.requestId);
      waiters.delete(msg.requestId);
      if (msg.error !== undefined) w?.reject(new Error(msg.error));
      else w?.resolve({ filename: msg.filename, mime: msg.mime, text: msg.text, note: msg.note });
    },
  };
}

/** The page's store (vanilla zustand). One per app: `main.tsx` makes it, each test makes its own. */
export type LabStore = StoreApi<LabState>;

export interface LabStoreOptions {
  /** Animation frames for the time cursor (requestAnimationFrame in the page). */
  readonly frames?: FrameScheduler;
}

/** A new, empty store: no view yet, and `send` a no-op until the worker is connected. */
export function createLabStore(options: LabStoreOptions = {}): LabStore {
  return createStore<LabState>()((set, get) => {
    const intake = viewIntake(set, get);
    const exports = exportDesk(get);
    let readCheckId = 0;
    return {
      settings: null,
      view: null,
      liveView: null,
      events: [],
      diagramMessages: [],
      diagramMarks: [],
      focusMessage: null,
      selected: null,
      inspection: null,
      highlight: NONE,
      hover: null,
      notices: [],
      error: null,
      readCheck: null,
      readFigures: null,
      cursor: new TimeCursor((msg) => get().send(msg), options.frames ?? browserFrames),
      send: () => {},
      replayCheck: null,
      liveRebuilds: 0,
      receive: (msg) => {
        switch (msg.type) {
          case "view":
            intake(msg.view);
            return;
          case "error":
            set({ error: msg.message });
            return;
          case "export":
            exports.answer(msg);
            return;
          case "inspection":
            set({ inspection: { target: msg.target, title: msg.title, text: msg.text } });
            return;
          case "read-figures":
            if (get().readFigures?.requestId === msg.requestId) set({ readFigures: { ...(get().readFigures as NonNullable<LabState["readFigures"]>), result: msg.result } });
            return;
          case "replay-check":
            set({ replayCheck: msg.check });
            return;
          case "live-rebuilt":
            set({ liveRebuilds: msg.rebuilds });
            return;
          case "read-check":
            // Only the answer to the request shown (a closed or newer check drops an older answer).
            if (get().readCheck?.requestId === msg.requestId) set({ readCheck: { requestId: msg.requestId, result: msg.result } });
            return;
        }
      },
      // Pointer moves repeat the same id: only a change reaches the subscribers (both drawings redraw on it).
      setFocusMessage: (id) => {
        if (get().focusMessage !== id) set({ focusMessage: id });
      },
      requestExport: exports.request,
      select: (s) => set({ selected: s, inspection: null }),
      setHighlight: (procs) => set({ highlight: procs.length === 0 ? NONE : procs }),
      setHover: (procs) => set({ hover: procs }),
      dismissError: () => set({ error: null }),
      dismissNotices: () => set({ notices: [] }),
      checkReads: () => {
        readCheckId++;
        set({ readCheck: { requestId: readCheckId, result: null } });
        get().send({ type: "check-reads", requestId: readCheckId });
      },
      closeReadCheck: () => set({ readCheck: null }),
      measureReads: (compare, holders = false) => {
        readCheckId++;
        set({ readFigures: { requestId: readCheckId, compare, result: null } });
        get().send({ type: "measure-reads", requestId: readCheckId, compare, holders });
      },
    };
  });
}

const LabContext = createContext<LabStore | null>(null);

/** Gives the components below it this store. */
export function LabProvider({ store, children }: { readonly store: LabStore; readonly children?: ReactNode }): ReactNode {
  return createElement(LabContext.Provider, { value: store }, children);
}

/** The store of the enclosing LabProvider (for effects, subscriptions and handlers that read it once). */
export function useLabStore(): LabStore {
  const store = useContext(LabContext);
  if (store === null) throw new Error("useLab: no LabProvider above this component");
  return store;
}

/**
 * A part of the page's state, chosen by `selector`; the component re-renders when it
 * changes. Inside an OnScreen part that is off screen, while the run plays, it is the
 * state that part last drew (see PanelGate).
 */
export function useLab<T>(selector: (s: LabState) => T): T {
  const store = useLabStore();
  const gate = useContext(GateContext);
  return useStore(gate ?? store, selector);
}

// ---------------------------------------------------------------- panels off screen

/**
 * While a run plays, a part of the page off screen is redrawn at most this often (ms), so
 * it is never far behind; on screen it follows every panel update (PANEL_INTERVAL_MS).
 */
export const OFF_SCREEN_INTERVAL_MS = 1000;

/** The keys a panel update changes; a change to any other key (a selection, a highlight, an answer) reaches every panel at once. */
const PANEL_UPDATE_KEYS: ReadonlySet<string> = new Set(["view", "liveView", "events", "diagramMessages", "diagramMarks", "settings"]);

/** Whether going from `p` to `s` is a panel update of a playing run (nothing the user did), which a part off screen may hold back. */
export function holdable(s: LabState, p: LabState): boolean {
  if (s.view === null || p.view === null || !s.view.playing || !p.view.playing) return false;
  if (s.view.runId !== p.view.runId || s.view.epoch !== p.view.epoch) return false;
  for (const k in s) if (s[k as keyof LabState] !== p[k as keyof LabState] && !PANEL_UPDATE_KEYS.has(k)) return false;
  return true;
}

/**
 * The state as a part of the page sees it: the store's, except that while the part is
 * off screen and the run plays, panel updates reach it at most every
 * OFF_SCREEN_INTERVAL_MS (React then re-renders nothing there, and the browser lays out
 * and paints nothing new). Coming on screen, it catches up at once. Paused, stepped or
 * acted on, every change goes through.
 */
export interface PanelGate {
  getState(): LabState;
  getInitialState(): LabState;
  subscribe(listener: (s: LabState, p: LabState) => void): () => void;
  /** Starts following the store (until the returned function is called); before, the gate passes the store's state as it is. */
  connect(): () => void;
  /** The part came on screen (true) or went off it (false). */
  setOnScreen(on: boolean): void;
}

let gateCount = 0;

export function createPanelGate(store: LabStore, now: () => number = realNow): PanelGate {
  let shown = store.getState();
  let connected = false;
  let onScreen = true;
  // Parts off screen are spread over the interval, so they are not all redrawn in one frame.
  let passedAt = now() - ((gateCount++ * 157) % OFF_SCREEN_INTERVAL_MS);
  const listeners = new Set<(s: LabState, p: LabState) => void>();
  const pass = (): void => {
    const prev = shown;
    shown = store.getState();
    passedAt = now();
    if (prev !== shown) for (const l of listeners) l(shown, prev);
  };
  return {
    getState: () => (connected ? shown : store.getState()),
    getInitialState: () => store.getInitialState(),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    connect() {
      connected = true;
      const unsubscribe = store.subscribe((s) => {
        if (!onScreen && holdable(s, shown) && now() - passedAt < OFF_SCREEN_INTERVAL_MS) return;
        pass();
      });
      pass();
      return () => {
        connected = false;
        unsubscribe();
      };
    },
    setOnScreen(on) {
      if (on === onScreen) return;
      onScreen = on;
      if (on && connected) pass();
    },
  };
}

/** The gate of the enclosing OnScreen part (null: none, the store itself). */
export const GateContext = createContext<PanelGate | null>(null);

// Module-level selectors (stable identities, as xyflow does).
export const selectCursor = (s: LabState): TimeCursor => s.cursor;
export const selectView = (s: LabState): SimView | null => s.view;
export const selectStorage = (s: LabState): SimView["storage"] | undefined => (s.view === null ? undefined : s.view.storage);
export const selectHasView = (s: LabState): boolean => s.view !== null;
export const selectSend = (s: LabState): LabState["send"] => s.send;
export const selectEvents = (s: LabState): readonly EventLine[] => s.events;
export const selectSelected = (s: LabState): Selection => s.selected;
export const selectSelect = (s: LabState): LabState["select"] => s.select;
export const selectInspection = (s: LabState): Inspection | null => s.inspection;
/** What to highlight now: the hovered event's processes, else the standing highlight. */
export const selectHighlight = (s: LabState): readonly string[] => s.hover ?? s.highlight;
export const selectSetHover = (s: LabState): LabState["setHover"] => s.setHover;
export const selectSetHighlight = (s: LabState): LabState["setHighlight"] => s.setHighlight;
export const selectNotices = (s: LabState): readonly string[] => s.notices;
export const selectError = (s: LabState): string | null => s.error;
export const selectDismissError = (s: LabState): LabState["dismissError"] => s.dismissError;
export const selectDismissNotices = (s: LabState): LabState["dismissNotices"] => s.dismissNotices;
