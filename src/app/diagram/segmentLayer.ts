/**
 * The space-time diagram's segments (a process down, paused, leading or holding the
 * lease, as stretches of its line) and its violations (a rule across the plot).
 */
import { formatInstant } from "../../core/sim/time";
import type { DiagramMark } from "../../worker/protocol";
import { r1, setAttr, setRule, setText } from "../draw/dom";
import { HOLDER_COLOR } from "../ring/holderLayer";
import { OKABE_ITO, ROLE_COLOR } from "../theme";
import type { SpaceTimeData } from "./input";
import { fitText } from "./labels";
import { type Frame, type Lanes, localY, type TimeScale, type ViewWindow } from "./layout";
import { clipSegment, laneSegments, type Segment } from "./marks";
import type { Parts } from "./scaffold";

const SEGMENT_WIDTH: Record<Segment["kind"], number> = { leader: 7, holding: 7, paused: 11, down: 6 };
const SEGMENT_ORDER: Record<Segment["kind"], number> = { leader: 0, holding: 0, paused: 1, down: 2 };

interface DrawnSegment {
readonly key: string;
readonly s: Segment;
readonly x: number;
readonly y: number;
readonly h: number;
}

function segmentFill(s: Segment, hatch: string): string {
switch (s.kind) {
  case "down":
    return "#b0b0b0";
  case "paused":
    return `url(#${hatch})`;
  case "leader":
    return ROLE_COLOR.leader;
  case "holding":
    return HOLDER_COLOR[s.word] ?? OKABE_ITO.green;
}
}

function segmentText(s: Segment): string {
const span = Number.isFinite(s.from) ? `from ${formatInstant(s.from)}` : "since before the kept history";
const until = s.open ? "until now" : `to ${formatInstant(s.to)}`;
const what = s.kind === "down" ? "down" : s.kind === "paused" ? "paused" : s.kind === "leader" ? "leader" : s.word;
return `${s.proc} ${what} ${span} ${until}`;
}


/** Down, paused, leading and holding stretches of the lines. */
export function drawSegments(p: Parts, d: SpaceTimeData, L: Lanes, s: TimeScale, w: ViewWindow): void {
  const data: DrawnSegment[] = [];
  for (const x of laneSegments(d.marks, L.lanes, d.now)) {
    const lane = L.byId.get(x.proc);
    const c = clipSegment(x, w);
    if (lane === undefined || c === null) continue;
    const y = localY(c.from, s);
    // Keyed by where it really starts, so sliding the window does not make a new element.
    data.push({ key: `${x.proc}|${x.kind}|${x.word}|${x.from}`, s: x, x: lane.x, y, h: Math.max(2, localY(c.to, s) - y) });
  }
  data.sort((a, b) => SEGMENT_ORDER[a.s.kind] - SEGMENT_ORDER[b.s.kind]);
  p.segments
    .selectAll<SVGRectElement, DrawnSegment>("rect.st-seg")
    .data(data, (x) => x.key)
    .join((enter) => {
      const r = enter.append("rect");
      r.append("title");
      return r;
    })
    .attr("class", (x) => `st-seg st-seg-${x.s.kind}`)
    .attr("x", (x) => r1(x.x - SEGMENT_WIDTH[x.s.kind] / 2))
    .attr("width", (x) => SEGMENT_WIDTH[x.s.kind])
    .attr("y", (x) => r1(x.y))
    .attr("height", (x) => r1(x.h))
    .attr("fill", (x) => segmentFill(x.s, p.hatch))
    .each(function (x) {
      const t = this.querySelector("title");
      if (t !== null) setText(t, segmentText(x.s));
    });
}

/** A red rule across the plot at each safety violation. */
export function drawViolations(p: Parts, marks: readonly DiagramMark[], s: TimeScale, frame: Frame): void {
  const seen = new Set<number>();
  const data: { t: number; label: string }[] = [];
  for (const m of marks) {
    if (m.kind !== "violation" || seen.has(m.t)) continue;
    seen.add(m.t);
    data.push({ t: m.t, label: m.label });
  }
  const f = frame;
  p.violations
    .selectAll<SVGGElement, { t: number; label: string }>("g.st-violation")
    .data(data, (x) => String(x.t))
    .join((enter) => {
      const g = enter.append("g").attr("class", "st-violation");
      g.append("line").attr("class", "st-violation-line");
      g.append("text").attr("class", "st-violation-text").attr("paint-order", "stroke");
      return g;
    })
    .each(function (x) {
      const y = r1(localY(x.t, s));
      setRule(this.querySelector("line"), f.plotLeft - 36, f.plotRight, y);
      const text = this.querySelector("text");
      if (text !== null) {
        setAttr(text, "x", String(f.plotLeft + 4));
        setAttr(text, "y", String(Number(y) - 9));
        setText(text, fitText(`✗ safety violated: ${x.label}`, 13, f.plotRight - f.plotLeft - 8));
      }
    });
}

