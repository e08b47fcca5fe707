/**
 * The space-time diagram's marks: a glyph on the line for each state change (role,
 * crash, pause, lease, storage, violation...), coloured by kind.
 */
import type { DiagramMark } from "../../worker/protocol";
import { isNew, r1, setAttr, setText } from "../draw/dom";
import { OKABE_ITO, ROLE_COLOR } from "../theme";
import type { SpaceTimeData } from "./input";
import { type Lane, type Lanes, localY, type TimeScale, type ViewWindow } from "./layout";
import { markGlyph, visibleMarks } from "./marks";
import type { Parts } from "./scaffold";

export interface DrawnMark {
  readonly key: string;
  readonly m: DiagramMark;
  readonly x: number;
  readonly y: number;
  readonly glyph: string;
  readonly color: string;
  readonly label: string;
}

/** The colour of a mark's glyph. */
function markColor(m: DiagramMark): string {
  if (m.kind === "violation" || m.bad) return OKABE_ITO.vermillion;
  if (m.kind === "role") {
    const g = markGlyph(m);
    return g === "★" ? ROLE_COLOR.leader : g === "?" ? "#a66f00" : g === "…" ? "#8a7d00" : "#2b7bb0";
  }
  if (m.kind === "crash" || m.kind === "restart") return "#1a1a1a";
  if (m.kind === "pause" || m.kind === "resume") return "#7a2f5e";
  if (m.kind === "holder") return OKABE_ITO.green;
  if (m.kind === "storage") return "#006b4f";
  return "#444444";
}

/** The glyph of each state change on its line (the words go in labelLayer.ts). */
export function drawMarks(p: Parts, d: SpaceTimeData, L: Lanes, s: TimeScale, w: ViewWindow): DrawnMark[] {
  const marks = visibleMarks(d.marks, L.byId, w);
  const drawnMarks = marks.map((m) => {
    const lane = L.byId.get(m.proc) as Lane;
    return { key: `${m.n}|${m.proc}`, m, x: lane.x, y: localY(m.t, s), glyph: markGlyph(m), color: markColor(m), label: "" };
  });
  p.marks
    .selectAll<SVGGElement, DrawnMark>("g.st-mark")
    .data(drawnMarks, (x) => x.key)
    .join((enter) => {
      const g = enter.append("g");
      g.append("circle").attr("class", "st-mark-bg");
      g.append("text").attr("class", "st-mark-glyph");
      return g;
    })
    .each(function (x) {
      const sig = `${x.x},${x.y}|${x.m.kind}|${x.m.label}|${x.m.bad}`;
      if (!isNew(this, sig)) return;
      setAttr(this, "class", `st-mark st-mark-${x.m.kind}${x.m.bad ? " is-bad" : ""}`);
      setAttr(this, "transform", `translate(${r1(x.x)},${r1(x.y)})`);
      const c = this.querySelector("circle");
      if (c !== null) setAttr(c, "r", x.m.kind === "violation" ? "10" : "7");
      const t = this.querySelector("text");
      if (t !== null) {
        setText(t, x.glyph);
        setAttr(t, "fill", x.m.kind === "violation" ? "#ffffff" : x.color);
      }
    });
  return drawnMarks;
}
