/**
 * The space-time diagram's marks and segments, pure: a glyph for each state change on a
 * line, which words win room, and the stretches of each line spent down, paused, leading
 * or holding the lease.
 */
import type { DiagramMark } from "../../worker/protocol";
import type { Proc, ViewWindow } from "./layout";

/** Holder states in which it believes it holds the lease. */
export const HOLDING_WORDS: ReadonlySet<string> = new Set(["holding", "jeopardy", "grace"]);

/** The first word of a label, lower case ("Leader T4" -> "leader"). */
export function firstWord(s: string): string {
  const m = /^[a-z-]+/i.exec(s.trim());
  return (m?.[0] ?? "").toLowerCase();
}

/** A role mark's role, from its words ("leader T4" -> leader). */
export function roleOf(label: string): "leader" | "candidate" | "precandidate" | "follower" | null {
  const w = firstWord(label);
  if (w === "leader" || w === "leads") return "leader";
  if (w === "candidate") return "candidate";
  if (w === "pre-candidate" || w === "precandidate") return "precandidate";
  if (w === "follower") return "follower";
  return null;
}

/** The short glyph drawn on the line for a mark (the words beside it when there is room). */
export function markGlyph(m: Pick<DiagramMark, "kind" | "label" | "bad">): string {
  switch (m.kind) {
    case "role": {
      const r = roleOf(m.label);
      return r === "leader" ? "★" : r === "candidate" ? "?" : r === "precandidate" ? "…" : "●";
    }
    case "crash":
      return "✕";
    case "restart":
      return "↻";
    case "pause":
      return "‖";
    case "resume":
      return "▷";
    case "holder":
      return m.bad ? "!" : "◆";
    case "storage":
      return m.bad ? "✗" : "✓";
    case "clock":
      return "◑";
    case "timeout":
      return "⊙";
    case "transfer":
      return "⇢";
    case "violation":
      return "✗";
  }
}

/** Which mark labels win when they compete for room (lower first). */
export function markPriority(m: Pick<DiagramMark, "kind" | "label" | "bad">): number {
  if (m.kind === "violation") return 0;
  if (m.kind === "crash" || m.kind === "restart") return 1;
  if (m.kind === "role" && roleOf(m.label) === "leader") return 2;
  if (m.bad) return 3;
  if (m.kind === "pause" || m.kind === "resume") return 4;
  if (m.kind === "holder" || m.kind === "storage") return 5;
  return 6;
}

export type SegmentKind = "down" | "paused" | "leader" | "holding";

/** A stretch of a process's line: down (greyed), paused (hatched), leading, or believing it holds the lease. */
export interface Segment {
  readonly proc: string;
  readonly kind: SegmentKind;
  /** −Infinity: began before the oldest retained mark. */
  readonly from: number;
  readonly to: number;
  /** Still going at the cursor. */
  readonly open: boolean;
  /** Holder segments: the state word ("holding", "jeopardy", "grace"). */
  readonly word: string;
}

/**
 * The segments of every line, from the marks (oldest first) and each process's state at
 * the cursor. A segment whose start is older than the retained marks begins at −∞; one
 * still going ends at `now`.
 */
export function laneSegments(marks: readonly DiagramMark[], procs: readonly Proc[], now: number): Segment[] {
  const out: Segment[] = [];
  const byProc = new Map<string, DiagramMark[]>();
  for (const m of marks) {
    const list = byProc.get(m.proc);
    if (list === undefined) byProc.set(m.proc, [m]);
    else list.push(m);
  }
  for (const p of procs) {
    const list = byProc.get(p.id) ?? [];
    const push = (kind: SegmentKind, from: number, to: number, open: boolean, word = ""): void => {
      if (to >= from) out.push({ proc: p.id, kind, from, to, open, word });
    };
    // Down: crash .. restart.
    let downSince: number | null = null;
    let sawDown = false;
    // Paused: pause .. resume (or a crash).
    let pausedSince: number | null = null;
    let sawPause = false;
    // Leading: a leader role mark .. the next role mark or a crash.
    let leadSince: number | null = null;
    let sawRole = false;
    // Holding: a holder mark in a holding state .. the next holder mark or a crash.
    let holdSince: number | null = null;
    let holdWord = "";
    let sawHolder = false;
    const endPause = (t: number): void => {
      if (pausedSince !== null) push("paused", pausedSince, t, false);
      else if (!sawPause) push("paused", Number.NEGATIVE_INFINITY, t, false);
      pausedSince = null;
      sawPause = true;
    };
    for (const m of list) {
      switch (m.kind) {
        case "crash":
          if (downSince === null) downSince = m.t;
          sawDown = true;
          if (pausedSince !== null) endPause(m.t);
          if (leadSince !== null) push("leader", leadSince, m.t, false);
          leadSince = null;
          sawRole = true;
          if (holdSince !== null) push("holding", holdSince, m.t, false, holdWord);
          holdSince = null;
          sawHolder = true;
          break;
        case "restart":
          if (downSince !== null) push("down", downSince, m.t, false);
          else if (!sawDown) push("down", Number.NEGATIVE_INFINITY, m.t, false);
          downSince = null;
          sawDown = true;
          break;
        case "pause":
          if (pausedSince === null) pausedSince = m.t;
          sawPause = true;
          break;
        case "resume":
          endPause(m.t);
          break;
        case "role": {
          const leads = roleOf(m.label) === "leader";
          if (leadSince !== null && !leads) {
            push("leader", leadSince, m.t, false);
            leadSince = null;
          }
          // (A first retained mark that is not "leader" says nothing about before it: nothing is drawn there.)
          if (leads && leadSince === null) leadSince = m.t;
          sawRole = true;
          break;
        }
        case "holder": {
          const w = firstWord(m.label);
          const holding = HOLDING_WORDS.has(w);
          if (holdSince !== null && (!holding || w !== holdWord)) {
            push("holding", holdSince, m.t, false, holdWord);
            holdSince = null;
          }
          if (holding && holdSince === null) {
            holdSince = m.t;
            holdWord = w;
          }
          sawHolder = true;
          break;
        }
        default:
          break;
      }
    }
    const start = Number.NEGATIVE_INFINITY;
    if (downSince !== null) push("down", downSince, now, true);
    else if (!sawDown && p.status === "down") push("down", start, now, true);
    if (pausedSince !== null) push("paused", pausedSince, now, true);
    else if (!sawPause && p.status === "paused") push("paused", start, now, true);
    if (leadSince !== null) push("leader", leadSince, now, true);
    else if (!sawRole && p.kind === "node" && p.active) push("leader", start, now, true);
    if (holdSince !== null) push("holding", holdSince, now, true, holdWord);
    else if (!sawHolder && p.kind === "holder" && p.active) push("holding", start, now, true, "holding");
  }
  return out;
}

/** Marks inside the window (by time), on processes that have a line. */
export function visibleMarks(marks: readonly DiagramMark[], lanes: ReadonlyMap<string, unknown>, w: ViewWindow): DiagramMark[] {
  return marks.filter((m) => m.t >= w.t0 && m.t <= w.t1 && lanes.has(m.proc));
}

/** The part of a segment inside the window, or null. */
export function clipSegment(s: Segment, w: ViewWindow): Segment | null {
  if (s.to < w.t0 || s.from > w.t1) return null;
  return { ...s, from: Math.max(s.from, w.t0), to: Math.min(s.to, w.t1) };
}

