/**
 * The page's state: the latest view from the simulation worker, the event log it has
 * accumulated, what the user selected, and messages for the user. One zustand store;
 * components read it through the module-level selectors below (stable identities).
 */
import { create } from "zustand";
import { shareEqual } from "./share";
import {
  EVENT_LOG_LIMIT,
  type EventLine,
  type FromWorker,
  type InspectTarget,
  type RunSettings,
  type SimView,
  type ToWorker,
} from "../worker/protocol";

/** What the inspector shows: a node, a holder, the storage, or a message in flight. */
export type Selection = InspectTarget | null;

export interface Inspection {
  readonly target: InspectTarget;
  readonly title: string;
  readonly text: string;
}

export interface LabState {
  readonly settings: RunSettings | null;
  readonly view: SimView | null;
  /** Event log lines of the current run, oldest first (at most EVENT_LOG_LIMIT). */
  readonly events: readonly EventLine[];
  readonly selected: Selection;
  /** The worker's full description of the selected thing, when asked for. */
  readonly inspection: Inspection | null;
  /** Processes to highlight everywhere (a hovered event, a violation). */
  readonly highlight: readonly string[];
  /** Problems with the URL's parameters (the run uses defaults for those). */
  readonly notices: readonly string[];
  /** The latest error from the worker, until dismissed. */
  readonly error: string | null;
  /** Sends a command to the worker; a no-op until the worker is connected. */
  readonly send: (msg: ToWorker) => void;
  readonly receive: (msg: FromWorker) => void;
  readonly select: (s: Selection) => void;
  readonly setHighlight: (procs: readonly string[]) => void;
  readonly dismissError: () => void;
  readonly dismissNotices: () => void;
}

const NONE: readonly string[] = [];

/** Appends new lines, keeping the newest EVENT_LOG_LIMIT. */
export function appendEvents(old: readonly EventLine[], fresh: readonly EventLine[]): readonly EventLine[] {
  if (fresh.length === 0) return old;
  const all = old.concat(fresh);
  return all.length > EVENT_LOG_LIMIT ? all.slice(all.length - EVENT_LOG_LIMIT) : all;
}

export const useLab = create<LabState>()((set, get) => ({
  settings: null,
  view: null,
  events: [],
  selected: null,
  inspection: null,
  highlight: NONE,
  notices: [],
  error: null,
  send: () => {},
  receive: (msg) => {
    switch (msg.type) {
      case "view": {
        const prev = get().view;
        const sameRun = prev !== null && prev.runId === msg.view.runId;
        // Unchanged parts keep their identity, so panels whose data did not change skip rendering.
        const v = sameRun ? shareEqual(prev, msg.view) : msg.view;
        set({
          view: v,
          settings: v.settings,

          events: sameRun ? appendEvents(get().events, v.newEvents) : appendEvents([], v.newEvents),
          ...(sameRun ? {} : { selected: null, inspection: null, highlight: NONE }),
        });
        return;
      }
      case "error":
        set({ error: msg.message });
        return;
      case "inspection":
        set({ inspection: { target: msg.target, title: msg.title, text: msg.text } });
        return;
    }
  },
  select: (s) => set({ selected: s, inspection: null }),
  setHighlight: (procs) => set({ highlight: procs.length === 0 ? NONE : procs }),
  dismissError: () => set({ error: null }),
  dismissNotices: () => set({ notices: [] }),
}));

// Module-level selectors (stable identities, as xyflow does).
export const selectView = (s: LabState): SimView | null => s.view;
export const selectStorage = (s: LabState): SimView["storage"] | undefined => (s.view === null ? undefined : s.view.storage);
export const selectHasView = (s: LabState): boolean => s.view !== null;
export const selectSend = (s: LabState): LabState["send"] => s.send;
export const selectEvents = (s: LabState): readonly EventLine[] => s.events;
export const selectSelected = (s: LabState): Selection => s.selected;
export const selectSelect = (s: LabState): LabState["select"] => s.select;
export const selectInspection = (s: LabState): Inspection | null => s.inspection;
export const selectHighlight = (s: LabState): readonly string[] => s.highlight;
export const selectSetHighlight = (s: LabState): LabState["setHighlight"] => s.setHighlight;
export const selectNotices = (s: LabState): readonly string[] => s.notices;
export const selectError = (s: LabState): string | null => s.error;
export const selectDismissError = (s: LabState): LabState["dismissError"] => s.dismissError;
export const selectDismissNotices = (s: LabState): LabState["dismissNotices"] => s.dismissNotices;
