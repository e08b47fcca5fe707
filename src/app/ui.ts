/** Page-only state (dialogs, presenter zoom) and the commands that start runs. */
import { create } from "zustand";
import type { RunSettings } from "../worker/protocol";
import { toSearch } from "./params";
import type { LabStore } from "./store";

export const ZOOMS: readonly number[] = [1, 1.25, 1.5];

export type RingView = "all" | "lease";

export interface UiState {
  readonly settingsOpen: boolean;
  readonly helpOpen: boolean;
  /** The "Share & export" dialog (opening files and links too). */
  readonly shareOpen: boolean;
  /** The welcome, the course or the glossary (one dialog), or null when it is closed. */
  readonly courseView: "welcome" | "course" | "glossary" | null;
  /** Presenter zoom: the root font size scales by this. */
  readonly zoom: number;
  /** What the cluster ring draws: every message, or only the lease story (no Raft or key-value traffic). */
  readonly ringView: RingView;
  readonly setRingView: (v: RingView) => void;
  readonly openSettings: () => void;
  readonly closeSettings: () => void;
  readonly toggleHelp: () => void;
  readonly closeHelp: () => void;
  readonly cycleZoom: () => void;
  readonly setShareOpen: (open: boolean) => void;
  readonly openCourse: (view: "welcome" | "course" | "glossary") => void;
  readonly closeCourse: () => void;
}

/** Starts a run with these settings and makes the URL name it (so a reload or a shared link gives the same run). */
export function startRun(lab: LabStore, settings: RunSettings): void {
  lab.getState().send({ type: "start", settings });
  lab.setState({ settings });
  if (typeof window !== "undefined") {
    const url = `${window.location.pathname}${toSearch(settings)}${window.location.hash}`;
    window.history.replaceState(null, "", url);
  }
}

/**
 * Presenter zoom scales the whole page (CSS zoom), drawings included, and switches the
 * board to one column so the cluster ring gets the full width of the screen.
 */
function applyZoom(zoom: number): void {
  if (typeof document === "undefined") return;
  const root = document.documentElement;
  root.style.setProperty("--zoom", String(zoom));
  root.classList.toggle("zoomed", zoom > 1);
}

export const useUi = create<UiState>()((set, get) => ({
  settingsOpen: false,
  helpOpen: false,
  shareOpen: false,
  courseView: null,
  zoom: 1,
  ringView: "all",
  setRingView: (ringView) => set({ ringView }),
  openSettings: () => set({ settingsOpen: true, helpOpen: false }),
  closeSettings: () => set({ settingsOpen: false }),
  toggleHelp: () => set({ helpOpen: !get().helpOpen, settingsOpen: false }),
  closeHelp: () => set({ helpOpen: false }),
  setShareOpen: (open) => set({ shareOpen: open }),
  openCourse: (view) => set({ courseView: view, helpOpen: false, settingsOpen: false }),
  closeCourse: () => set({ courseView: null }),
  cycleZoom: () => {
    const i = ZOOMS.indexOf(get().zoom);
    const zoom = ZOOMS[(i + 1) % ZOOMS.length] as number;
    set({ zoom });
    applyZoom(zoom);
  },
}));
