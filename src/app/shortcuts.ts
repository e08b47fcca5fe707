/** Keyboard shortcuts: one table drives both the key handler and the help overlay. */
import type { Action } from "../core/sim/sim";
import type { SimView } from "../worker/protocol";
import { stepSpeed } from "./pace";
import { requestReset } from "./reset";
import type { LabState, Selection } from "./store";
import { jumpToMarker } from "./timeline/timelineUi";
import { useUi } from "./ui";

export interface Shortcut {
  readonly keys: string;
  readonly does: string;
}

/** Seconds a keyboard pause lasts. */
export const KEY_PAUSE_US = 3_000_000;

export const SHORTCUTS: readonly Shortcut[] = [
  { keys: "Space", does: "Play or pause" },
  { keys: "S", does: "Step: process exactly one event" },
  { keys: "B", does: "Step back: go back exactly one event, and say what it undid" },
  { keys: "N", does: "Next moment: play until the next key moment (a rejected write, an expiry, a new grant, jeopardy or grace) and stop there" },
  { keys: "- / =", does: "Slower / faster (0.01× … 2×)" },
  { keys: "[", does: "Previous marker on the time slider (of the kinds shown: elections, expiries, rejections, violations, your actions)" },
  { keys: "]", does: "Next marker on the time slider" },
  { keys: "R", does: "Reset: start this run again from time zero (asks first if you would lose your actions or branches)" },
  { keys: "1 – 9", does: "Select node n1 … n9" },
  { keys: "L", does: "Select the leader" },
  { keys: "K", does: "Kill the selected node or holder (the leader if nothing is selected)" },
  { keys: "U", does: "Restart the selected node or holder" },
  { keys: "P", does: "Pause the selected node or holder for 3 seconds" },
  { keys: "G", does: "GC-pause the selected holder (or h1) for 3 seconds between its check and its write" },
  { keys: "T", does: "Force an election timeout on the selected node" },
  { keys: "I", does: "Isolate the leader in a partition" },
  { keys: "H", does: "Heal the network" },
  { keys: "F", does: "Switch the storage's fencing on or off" },
  { keys: "C", does: "Classroom mode: the projector layout (cluster full screen, big text, a caption)" },
  { keys: ".", does: "Blank the screen (press again, or any key, to come back)" },
  { keys: "PageDown / PageUp", does: "Next / previous marker (in a lesson: next / previous step), as a presenter clicker sends" },
  { keys: "?", does: "Show or hide this help" },
  { keys: "Esc", does: "Close a dialog, or clear the selection" },
];

/** The process a key acts on: the selected node or holder, else `fallback`. */
function target(sel: Selection, fallback: string | null): string | null {
  if (sel !== null && (sel.kind === "node" || sel.kind === "holder")) return sel.id;
  return fallback;
}

/**
 * The speed the keys last asked for, and when. The worker's view shows a new speed only a
 * moment later, so a press soon after another steps on from what was asked, not from a view
 * that may still be stale (three quick presses of "=" are three steps). After half a second
 * the view is the truth again (the slider may have moved it since).
 */
let askedSpeed: { readonly to: number; readonly atMs: number } | null = null;
const ASKED_SPEED_MS = 500;

function nextKeySpeed(shown: number, dir: -1 | 1): number {
  const nowMs = performance.now();
  const from = askedSpeed !== null && nowMs - askedSpeed.atMs < ASKED_SPEED_MS ? askedSpeed.to : shown;
  const to = stepSpeed(from, dir);
  askedSpeed = { to, atMs: nowMs };
  return to;
}

/** Handles one key press on the page whose state is `lab`; returns true when it was a shortcut. */
export function handleKey(lab: LabState, key: string, view: SimView): boolean {
  const ui = useUi.getState();
  const act = (action: Action): void => lab.send({ type: "act", action });
  const sel = lab.selected;
  switch (key) {
    case " ":
      lab.send({ type: view.playing ? "pause" : "play" });
      return true;
    case "s":
      lab.send({ type: "step" });
      return true;
    case "b":
      if (view.timeline.canStepBack) lab.send({ type: "stepBack" });
      return true;
    case "n":
      if (!view.halted) lab.send({ type: "play-to-next" });
      return true;
    case "-":
    case "=":
    case "+":
      lab.send({ type: "setSpeed", speed: nextKeySpeed(view.speed, key === "-" ? -1 : 1) });
      return true;
    case "[":
      jumpToMarker(view, -1, lab.cursor);
      return true;
    case "]":
      jumpToMarker(view, 1, lab.cursor);
      return true;
    case "r":
      // The same run from the start (a file's or a link's own actions included), at the current speed; it asks first when the user would lose actions or branches.
      requestReset(lab, view);
      return true;
    case "l":
      if (view.leader !== null) lab.select({ kind: "node", id: view.leader });
      return true;
    case "k": {
      const id = target(sel, view.leader);
      if (id !== null) act({ type: "crash", proc: id });
      return true;
    }
    case "u": {
      const id = target(sel, null);
      if (id !== null) act({ type: "restart", proc: id });
      return true;
    }
    case "p": {
      const id = target(sel, null);
      if (id !== null) act({ type: "pause", proc: id, durationUs: KEY_PAUSE_US });
      return true;
    }
    case "g": {
      const id = sel?.kind === "holder" ? sel.id : (view.holders[0]?.id ?? null);
      if (id !== null) act({ type: "gc-pause", holder: id, durationUs: KEY_PAUSE_US });
      return true;
    }
    case "t": {
      const id = sel?.kind === "node" ? sel.id : null;
      if (id !== null) act({ type: "timeout", proc: id });
      return true;
    }
    case "i":
      if (view.leader !== null) act({ type: "partition", groups: [[view.leader], ["others"]] });
      return true;
    case "h":
      act({ type: "heal" });
      return true;
    case "f":
      if (view.storage !== null) act({ type: "fencing", on: !view.storage.fencing });
      return true;
    case "c":
      ui.toggleClassroom();
      return true;
    case ".":
      ui.toggleBlank();
      return true;
    case "pagedown":
    case "pageup":
      // In a lesson the card's own keys go to the next or previous step.
      if (view.lesson !== undefined && view.lesson.exploringFrom === null) return true;
      // Past the last marker, PageDown goes on to the present (the end of what was explored).
      if (!jumpToMarker(view, key === "pagedown" ? 1 : -1, lab.cursor) && key === "pagedown" && view.now < view.timeline.end) {
        lab.cursor.jump(view.timeline.end);
      }
      return true;
    case "?":
      ui.toggleHelp();
      return true;
    case "escape":
      if (ui.resetOpen) ui.closeReset();
      else if (ui.helpOpen) ui.closeHelp();
      else if (ui.settingsOpen) ui.closeSettings();
      // Focus may have left a dialog (a button disabled while it works): Escape still closes it.
      else if (ui.shareOpen) ui.setShareOpen(false);
      else if (ui.courseView !== null) ui.closeCourse();
      else lab.select(null);
      return true;
    default: {
      if (/^[1-9]$/.test(key)) {
        const n = view.nodes[Number(key) - 1];
        if (n) lab.select({ kind: "node", id: n.id });
        return true;
      }
      return false;
    }
  }
}
