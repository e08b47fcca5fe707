/**
 * The space-time diagram's fixed-position parts: the time axis (d3's ticks, layout.ts),
 * the cursor, and the shades for the future and for the history no longer kept.
 */
import { r1, setAttr, setRule, setText } from "../draw/dom";
import type { SpaceTimeData } from "./input";
import { textWidth } from "./labels";
import { type Frame, type ViewWindow, tickLabel, axisTicks, timeToY, windowTime } from "./layout";
import type { Parts } from "./scaffold";

/** The time axis: a rule and a label at each tick. */
export function drawAxis(p: Parts, w: ViewWindow, frame: Frame): void {
  const { step, times } = axisTicks(w, frame);
  const f = frame;
  p.grid
    .selectAll<SVGGElement, number>("g.st-tick")
    .data(times, (t) => String(t))
    .join((enter) => {
      const g = enter.append("g").attr("class", "st-tick");
      g.append("line").attr("class", "st-tick-line");
      g.append("text").attr("class", "st-tick-text");
      return g;
    })
    .each(function (t) {
      const y = r1(timeToY(t, w, f));
      setRule(this.querySelector("line"), f.plotLeft - 6, f.plotRight, y);
      const text = this.querySelector("text");
      if (text !== null) {
        setAttr(text, "x", String(f.plotLeft - 9));
        setAttr(text, "y", y);
        setText(text, tickLabel(t, step));
      }
    });
}

/** The cursor ("now"), the shade below it (not happened yet) and above the horizon (forgotten). */
export function drawCursor(p: Parts, d: SpaceTimeData, w: ViewWindow, frame: Frame): void {
  const f = frame;
  const y = timeToY(d.now, w, f);
  const inside = d.now >= w.t0 && d.now <= w.t1 + 1e-6;
  p.cursor.attr("display", inside ? null : "none");
  if (inside) {
    p.cursorLine.attr("x1", 4).attr("x2", f.plotRight).attr("y1", r1(y)).attr("y2", r1(y));
    const label = `now ${windowTime(d.now, w.t1 - w.t0)}`;
    const tw = textWidth(label, 12) + 10;
    const py = Math.min(y, f.plotBottom) - 9;
    p.cursorPill.attr("x", 2).attr("y", r1(py)).attr("width", r1(tw)).attr("height", 18);
    p.cursorText
      .attr("x", 7)
      .attr("y", r1(py + 9))
      .text(label);
  }
  // Below the cursor (early in a run): nothing has happened there yet.
  const fy = Math.max(f.plotTop, Math.min(f.plotBottom, y));
  p.futureRect
    .attr("x", f.plotLeft - 4)
    .attr("y", r1(fy))
    .attr("width", f.plotRight - f.plotLeft + 14)
    .attr("height", r1(Math.max(0, f.plotBottom - fy)));
  // Above the horizon, the bounded lists have forgotten what happened.
  const h = d.horizon;
  const hy = h === null || h <= w.t0 ? f.plotTop : Math.min(f.plotBottom, timeToY(h, w, f));
  p.horizonRect
    .attr("x", f.plotLeft - 4)
    .attr("y", f.plotTop)
    .attr("width", f.plotRight - f.plotLeft + 14)
    .attr("height", r1(hy - f.plotTop));
  p.horizonText
    .attr("x", f.plotLeft + 6)
    .attr("y", r1(hy - 10))
    .text(hy - f.plotTop > 24 ? "older history not kept" : "");
}
