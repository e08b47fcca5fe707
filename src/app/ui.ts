/** Page-only state (dialogs, classroom mode) and the commands that start runs. */
import { create } from "zustand";
import type { RunSettings } from "../worker/protocol";
import { toSearch } from "./params";
import type { LabStore } from "./store";

export type RingView = "all" | "lease";

export interface UiState {
  readonly settingsOpen: boolean;
  readonly helpOpen: boolean;
  /** The "Share & export" dialog (opening files and links too). */
  readonly shareOpen: boolean;
  /** The welcome, the course or the glossary (one dialog), or null when it is closed. */
  readonly courseView: "welcome" | "course" | "glossary" | null;
  /** Classroom mode: the projector layout (the cluster fills the screen, big text, a caption). */
  readonly classroom: boolean;
  /** The screen is blanked (".", as in a slide show), so the class looks at the lecturer. */
  readonly blank: boolean;
  /** Reset asks first (it would lose the user's actions or branches). */
  readonly resetOpen: boolean;
  readonly askReset: () => void;
  readonly closeReset: () => void;
  /** What the cluster ring draws: every message, or only the lease story (no Raft or key-value traffic). */
  readonly ringView: RingView;
  readonly setRingView: (v: RingView) => void;
  readonly openSettings: () => void;
  readonly closeSettings: () => void;
  readonly toggleHelp: () => void;
  readonly closeHelp: () => void;
  readonly toggleClassroom: () => void;
  readonly toggleBlank: () => void;
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

/** Classroom mode is a class on the root element, so the whole page (dialogs too) can grow. */
function applyClassroom(on: boolean): void {
  if (typeof document === "undefined") return;
  document.documentElement.classList.toggle("classroom", on);
}

export const useUi = create<UiState>()((set, get) => ({
  settingsOpen: false,
  helpOpen: false,
  shareOpen: false,
  courseView: null,
  classroom: false,
  blank: false,
  resetOpen: false,
  askReset: () => set({ resetOpen: true, helpOpen: false, settingsOpen: false }),
  closeReset: () => set({ resetOpen: false }),
  ringView: "all",
  setRingView: (ringView) => set({ ringView }),
  openSettings: () => set({ settingsOpen: true, helpOpen: false }),
  closeSettings: () => set({ settingsOpen: false }),
  toggleHelp: () => set({ helpOpen: !get().helpOpen, settingsOpen: false }),
  closeHelp: () => set({ helpOpen: false }),
  setShareOpen: (open) => set({ shareOpen: open }),
  openCourse: (view) => set({ courseView: view, helpOpen: false, settingsOpen: false }),
  closeCourse: () => set({ courseView: null }),
  toggleClassroom: () => {
    const classroom = !get().classroom;
    set({ classroom, blank: false });
    applyClassroom(classroom);
  },
  toggleBlank: () => set({ blank: !get().blank }),
}));
