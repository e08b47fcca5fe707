/**
 * What the space-time drawing is fed, picked from the store (pure, for tests).
 *
 * The cursor and the messages in flight come from the live view (25 a second); the
 * finished messages and the marks come with the panel view (10 a second). A message
 * that ended between the two is in neither list: it is taken from the panel view's
 * messages in flight (drawn arrived, at its due time) until the finished list brings it.
 */
import {
  DIAGRAM_MARK_LIMIT,
  DIAGRAM_MESSAGE_LIMIT,
  type DiagramMark,
  type DiagramMessage,
  type HolderView,
  type MessageView,
  type NodeView,
  type StorageView,
} from "../../worker/protocol";
import { type LabState, selectHighlight } from "../store";
import { type MessageKind, messageKind } from "../theme";

export interface SpaceTimeData {
  /** A new run resets the scroll position (message ids start again). */
  readonly runId: number;
  readonly now: number;
  readonly playing: boolean;
  readonly nodes: readonly NodeView[];
  readonly holders: readonly HolderView[];
  readonly storage: StorageView | null;
  /** Messages that arrived or were dropped, up to the cursor, oldest first. */
  readonly finished: readonly DiagramMessage[];
  /** Messages on the wire at the cursor (and any that ended since the finished list was updated). */
  readonly inFlight: readonly MessageView[];
  readonly marks: readonly DiagramMark[];
  /** Older history was dropped from the bounded lists before this time (null: everything is kept). */
  readonly horizon: number | null;
  /** The message highlighted in the ring and here. */
  readonly focus: number | null;
  /** Processes to highlight (a violation's). */
  readonly highlight: readonly string[];
}

/** The messages to draw as not (yet) finished: the live view's, plus the panel view's that ended in between (if they arrived). */
export function inFlightOf(live: readonly MessageView[], panel: readonly MessageView[] | null): readonly MessageView[] {
  if (panel === null || panel === live || panel.length === 0) return live;
  const ids = new Set<number>();
  for (const m of live) ids.add(m.id);
  let extra: MessageView[] | null = null;
  for (const m of panel) {
    // Doomed ones are left out: where they died is not known yet.
    if (ids.has(m.id) || m.fate !== "ok") continue;
    extra ??= [];
    extra.push(m);
  }
  return extra === null ? live : live.concat(extra);
}

/** The oldest time the bounded lists still cover completely, or null when nothing was dropped. */
export function historyHorizon(finished: readonly DiagramMessage[], marks: readonly DiagramMark[]): number | null {
  let h: number | null = null;
  if (finished.length >= DIAGRAM_MESSAGE_LIMIT && finished[0] !== undefined) h = finished[0].endAt;
  if (marks.length >= DIAGRAM_MARK_LIMIT && marks[0] !== undefined) h = Math.max(h ?? Number.NEGATIVE_INFINITY, marks[0].t);
  return h;
}

export function diagramInput(s: LabState): SpaceTimeData | null {
  const live = s.liveView ?? s.view;
  if (live === null) return null;
  const panel = s.view !== null && s.view.runId === live.runId && s.view.epoch === live.epoch ? s.view.messages : null;
  return {
    runId: live.runId,
    now: live.now,
    playing: live.playing,
    nodes: live.nodes,
    holders: live.holders,
    storage: live.storage,
    finished: s.diagramMessages,
    inFlight: inFlightOf(live.messages, panel),
    marks: s.diagramMarks,
    horizon: historyHorizon(s.diagramMessages, s.diagramMarks),
    focus: s.focusMessage,
    highlight: selectHighlight(s),
  };
}

/** Keeps only the arrows of kinds that are shown (the legend's toggles). Returns `d` itself when nothing is hidden. */
export function withoutKinds(d: SpaceTimeData, hidden: ReadonlySet<MessageKind>): SpaceTimeData {
  if (hidden.size === 0) return d;
  return {
    ...d,
    finished: keepShown(d.finished, hidden),
    inFlight: keepShown(d.inFlight, hidden),
  };
}

/** Filtered lists are remembered per source list, so an unchanged list stays the same object (the drawing skips it). */
const shownCache = new WeakMap<object, { hidden: string; out: readonly { label: string }[] }>();

function keepShown<T extends { label: string }>(list: readonly T[], hidden: ReadonlySet<MessageKind>): readonly T[] {
  const key = [...hidden].sort().join(",");
  const hit = shownCache.get(list);
  if (hit !== undefined && hit.hidden === key) return hit.out as readonly T[];
  const out = list.filter((m) => !hidden.has(messageKind(m.label)));
  shownCache.set(list, { hidden: key, out });
  return out;
}
