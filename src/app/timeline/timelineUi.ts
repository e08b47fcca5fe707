/**
 * Page-only state of the time-travel controls, shared by the panel and the keyboard
 * shortcuts: the marker kinds shown, whether the branch explanation was dismissed, and
 * where the marker buttons go (the page's TimeCursor is the store's).
 */
import { create } from "zustand";
import type { TimelineMarkerKind, SimView } from "../../worker/protocol";
import type { TimeCursor } from "./cursor";
import { filterMarkers, MARKER_KINDS, nextMarker, previousMarker } from "./timeMath";

export interface TimelineUiState {
  /** Marker kinds drawn on the track and offered by previous / next / Jump to. */
  readonly kinds: ReadonlySet<TimelineMarkerKind>;
  /** The "you changed the past" explanation was read and closed. */
  readonly branchNoteDismissed: boolean;
  readonly toggleKind: (k: TimelineMarkerKind) => void;
  readonly showAllKinds: () => void;
  readonly dismissBranchNote: () => void;
}

export const ALL_KINDS: ReadonlySet<TimelineMarkerKind> = new Set(MARKER_KINDS);

export const useTimelineUi = create<TimelineUiState>()((set, get) => ({
  kinds: ALL_KINDS,
  branchNoteDismissed: false,
  toggleKind: (k) => {
    const next = new Set(get().kinds);
    if (next.has(k)) next.delete(k);
    else next.add(k);
    set({ kinds: next });
  },
  showAllKinds: () => set({ kinds: ALL_KINDS }),
  dismissBranchNote: () => set({ branchNoteDismissed: true }),
}));

/**
 * Moves the cursor to the previous (-1) or next (+1) marker of the kinds shown, from
 * where the slider is. Returns false when there is none.
 */
export function jumpToMarker(view: SimView, dir: -1 | 1, cursor: TimeCursor): boolean {
  const markers = filterMarkers(view.timeline.markers, useTimelineUi.getState().kinds);
  const from = cursor.shown(view.now);
  const m = dir < 0 ? previousMarker(markers, from) : nextMarker(markers, from);
  if (m === null) return false;
  cursor.jump(m.t);
  return true;
}
