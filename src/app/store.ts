/** The page's state: the latest view from the simulation worker, plus messages for the user. */
import { create } from "zustand";
import type { FromWorker, RunSettings, SimView, ToWorker } from "../worker/protocol";

export interface LabState {
  readonly settings: RunSettings | null;
  readonly view: SimView | null;
  /** Problems with the URL's parameters (the run uses defaults for those). */
  readonly notices: readonly string[];
  /** The latest error from the worker, until dismissed. */
  readonly error: string | null;
  /** Sends a command to the worker; a no-op until the worker is connected. */
  readonly send: (msg: ToWorker) => void;
  readonly receive: (msg: FromWorker) => void;
  readonly dismissError: () => void;
}

export const useLab = create<LabState>()((set) => ({
  settings: null,
  view: null,
  notices: [],
  error: null,
  send: () => {},
  receive: (msg) => {
    if (msg.type === "view") set({ view: msg.view });
    else set({ error: msg.message });
  },
  dismissError: () => set({ error: null }),
}));

// Module-level selectors (stable identities, as xyflow does).
export const selectView = (s: LabState): SimView | null => s.view;
export const selectSend = (s: LabState): LabState["send"] => s.send;
export const selectNotices = (s: LabState): readonly string[] => s.notices;
export const selectError = (s: LabState): string | null => s.error;
export const selectDismissError = (s: LabState): LabState["dismissError"] => s.dismissError;
