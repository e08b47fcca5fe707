/**
 * Words in the space-time diagram: labels beside marks and along arrows (where they fit
 * without covering each other), the focused message on top, and the tooltip.
 */
import { formatInstant } from "../../core/sim/time";
import { r1, setAttr, setText } from "../draw/dom";
import type { DrawnArrow } from "./arrowLayer";
import { arrowText } from "./arrows";
import type { SpaceTimeData } from "./input";
import { ARROW_FONT, arrowLabelFits, type Box, fitText, MARK_FONT, placeLabels, textWidth } from "./labels";
import type { Frame, Lanes, TimeScale } from "./layout";
import type { DrawnMark } from "./markLayer";
import { markPriority } from "./marks";
import type { Parts } from "./scaffold";
import type { Hover } from "./spacetimePointer";

/** Arrow labels are only tried while at most this many arrows are visible (beyond that they could not fit anyway). */
const LABEL_ARROWS_UP_TO = 400;
/** Words drawn at most (marks first, then arrows). */
const MAX_LABELS = 260;

/** Words beside marks and along arrows, where they fit without covering each other. */
export function drawLabels(p: Parts, d: SpaceTimeData, L: Lanes, frame: Frame, drawnMarks: readonly DrawnMark[], drawnArrows: readonly DrawnArrow[]): void {
  const cands: { key: string; box: Box; x: number; y: number; text: string; cls: string; anchor: "start" | "middle" | "end" }[] = [];
  const markMax = Math.max(40, 1.8 * L.pitch - 14);
  const sortedMarks = [...drawnMarks].sort((a, b) => markPriority(a.m) - markPriority(b.m) || b.m.t - a.m.t).slice(0, 400);
  for (const x of sortedMarks) {
    const text = fitText(x.m.label, MARK_FONT, markMax);
    if (text === "") continue;
    const w = textWidth(text, MARK_FONT);
    // Right of the line, unless that runs off the picture (the last line): then left of it.
    const left = x.x + 10 + w > frame.width - 2;
    cands.push({
      key: `m${x.key}`,
      box: { x: left ? x.x - 11 - w : x.x + 9, y: x.y - 8, w, h: 16 },
      x: left ? x.x - 10 : x.x + 10,
      y: x.y,
      text,
      cls: `st-mark-label${x.m.bad || x.m.kind === "violation" ? " is-bad" : ""}`,
      anchor: left ? "end" : "start",
    });
  }
  if (drawnArrows.length <= LABEL_ARROWS_UP_TO) {
    for (let i = drawnArrows.length - 1; i >= 0; i--) {
      const x = drawnArrows[i] as DrawnArrow;
      if (x.a.id === d.focus) continue;
      if (!arrowLabelFits(x.a.label, x.x1, x.y1, x.x2, x.y2)) continue;
      const w = textWidth(x.a.label, ARROW_FONT);
      const mx = (x.x1 + x.x2) / 2;
      const my = (x.y1 + x.y2) / 2;
      cands.push({
        key: `a${x.a.id}`,
        box: { x: mx - w / 2 - 2, y: my - 8, w: w + 4, h: 15 },
        x: mx,
        y: my,
        text: x.a.label,
        cls: "st-msg-label",
        anchor: "middle",
      });
    }
  }
  const kept = placeLabels(cands, MAX_LABELS);
  const shown = cands.filter((c) => kept.has(c.key));
  p.labels
    .selectAll<SVGTextElement, (typeof cands)[number]>("text")
    .data(shown, (c) => c.key)
    .join((enter) => enter.append("text").attr("paint-order", "stroke"))
    .each(function (c) {
      setAttr(this, "class", c.cls);
      setAttr(this, "x", r1(c.x));
      setAttr(this, "y", r1(c.y));
      setAttr(this, "text-anchor", c.anchor);
      setText(this, c.text);
    });
}

/** The focused message drawn again on top, with a halo and its label. */
export function drawFocus(p: Parts, d: SpaceTimeData, drawnArrows: readonly DrawnArrow[]): void {
  const x = d.focus === null ? undefined : drawnArrows.find((a) => a.a.id === d.focus);
  p.focus.attr("display", x === undefined ? "none" : null);
  if (x === undefined) return;
  const path = `M${r1(x.x1)},${r1(x.y1)}L${r1(x.x2)},${r1(x.y2)}`;
  p.focusHalo.attr("d", path);
  p.focusLine
    .attr("d", path)
    .attr("stroke", x.color)
    .attr("marker-end", x.a.state === "delivered" || x.a.state === "queued" ? `url(#${p.headId(x.color)})` : null)
    .attr("class", `st-focus-line is-${x.a.state}`);
  const mx = (x.x1 + x.x2) / 2;
  const my = (x.y1 + x.y2) / 2;
  p.focusLabel
    .attr("x", r1(mx))
    .attr("y", r1(my - 12))
    .text(x.a.label);
}

/** The tooltip of the mark or message pointed at (or the pinned message). */
export function drawTip(p: Parts, d: SpaceTimeData, s: TimeScale, frame: Frame, hover: Hover, drawnArrows: readonly DrawnArrow[]): void {
  let text = "";
  let ax = 0;
  let ay = 0;
  const x = d.focus === null ? undefined : drawnArrows.find((a) => a.a.id === d.focus);
  const hoverMark = hover.mark;
  if (hoverMark !== null) {
    text = `${hoverMark.m.proc}: ${hoverMark.m.label} at ${formatInstant(hoverMark.m.t)}`;
    ax = hoverMark.x;
    ay = hoverMark.y + s.offset;
  } else if (x !== undefined && (hover.hovered === x.a.id || hover.pinned === x.a.id)) {
    text = arrowText(x.a) + (x.a.state === "flight" || x.a.state === "queued" ? " · click to inspect" : "");
    ax = (x.x1 + x.x2) / 2;
    ay = (x.y1 + x.y2) / 2 + s.offset;
  }
  if (text === "") {
    p.tip.attr("display", "none");
    return;
  }
  const f = frame;
  const maxW = f.width - 16;
  const shown = fitText(text, 12.5, maxW - 12);
  const w = textWidth(shown, 12.5) + 12;
  const left = Math.max(4, Math.min(f.width - w - 4, ax - w / 2));
  const top = Math.max(f.plotTop + 2, Math.min(f.plotBottom - 26, ay + 14));
  p.tip.attr("display", null);
  p.tipRect.attr("x", r1(left)).attr("y", r1(top)).attr("width", r1(w)).attr("height", 22);
  p.tipText
    .attr("x", r1(left + 6))
    .attr("y", r1(top + 11))
    .text(shown);
}
