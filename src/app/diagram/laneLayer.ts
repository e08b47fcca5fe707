/**
 * The space-time diagram's lines, one per process, and their names in the header (with
 * ✕ down, ‖ paused, ★ leader, ⚠ highlighted).
 */
import { r1, setAttr, setText } from "../draw/dom";
import type { SpaceTimeData } from "./input";
import { textWidth } from "./labels";
import { type Frame, type Lane, type Lanes, laneLayout, processOrder } from "./layout";
import type { Parts } from "./scaffold";

/** The lines and the names above them; `key` changes when a line moves (everything placed by x is then redrawn). */
export function drawLanes(p: Parts, d: SpaceTimeData, frame: Frame): { readonly lanes: Lanes; readonly key: string } {
  const procs = processOrder(d.nodes, d.holders, d.storage);
  const key = `${frame.width}|${procs.map((x) => `${x.id}:${x.kind}`).join(",")}`;
  // Same places while the processes stay; statuses change with every view.
  const L = laneLayout(procs, frame);
  const hl = new Set(d.highlight);
  p.lanes
    .selectAll<SVGLineElement, Lane>("line.st-lane")
    .data(L.lanes, (l) => l.id)
    .join((enter) => enter.append("line").attr("class", "st-lane"))
    // Written only when they change: every view comes here, and a line rarely moves.
    .each(function (l) {
      setAttr(this, "x1", r1(l.x));
      setAttr(this, "x2", r1(l.x));
      setAttr(this, "y1", String(frame.plotTop));
      setAttr(this, "y2", String(frame.plotBottom));
      setAttr(this, "class", `st-lane st-lane-${l.kind}${hl.has(l.id) ? " is-highlighted" : ""}`);
    });
  const nodeById = new Map(d.nodes.map((n) => [n.id, n]));
  p.names
    .selectAll<SVGGElement, Lane>("g.st-name")
    .data(L.lanes, (l) => l.id)
    .join((enter) => {
      const g = enter.append("g").attr("class", "st-name");
      g.append("rect").attr("class", "st-name-hl").attr("rx", 4);
      g.append("text").attr("class", "st-name-text");
      g.append("title");
      return g;
    })
    .each(function (l) {
      setAttr(this, "class", `st-name st-name-${l.kind}${hl.has(l.id) ? " is-highlighted" : ""}`);
      setAttr(this, "transform", `translate(${r1(l.x)},${l.nameY})`);
      const n = nodeById.get(l.id);
      const glyph = l.status === "down" ? " ✕" : l.status === "paused" ? " ‖" : n !== undefined && n.role === "leader" ? " ★" : "";
      const text = `${hl.has(l.id) ? "⚠ " : ""}${l.id}${glyph}`;
      const t = this.querySelector("text");
      if (t !== null) setText(t, text);
      const w = textWidth(text, 14) + 10;
      const rect = this.querySelector("rect");
      if (rect !== null) {
        setAttr(rect, "x", r1(-w / 2));
        setAttr(rect, "y", "-11");
        setAttr(rect, "width", r1(w));
        setAttr(rect, "height", "22");
      }
      const title = this.querySelector("title");
      const role = n === undefined ? "" : n.role === null ? "" : `, ${n.role}`;
      const kind = l.kind === "node" ? "node" : l.kind === "holder" ? "lease holder" : "storage";
      if (title !== null) setText(title, `${kind} ${l.id}${l.status === "up" ? "" : `, ${l.status}`}${role}`);
    });
  return { lanes: L, key };
}
