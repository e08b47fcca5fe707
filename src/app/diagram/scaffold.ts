/**
 * The space-time diagram's fixed elements, built once: the marker, clip and hatch
 * definitions, and the groups each layer draws into, back to front. Timed things go in
 * `content`, which is only translated while the window slides.
 */
import * as d3 from "d3-selection";
import { OKABE_ITO } from "../theme";
import type { Frame } from "./layout";

/** Colours arrows can take (one arrowhead marker each). */
export const ARROW_COLORS = [OKABE_ITO.orange, OKABE_ITO.blue, OKABE_ITO.green, OKABE_ITO.purple, "#555555"] as const;

/** The definitions: the plot's clip, the hatch of paused segments, an arrowhead per colour. */
function createDefs(root: d3.Selection<SVGSVGElement, unknown, null, undefined>, uid: string) {
  const defs = root.append("defs");
  const clipRect = defs.append("clipPath").attr("id", `${uid}-clip`).append("rect");
  const hatch = `${uid}-hatch`;
  const pattern = defs
    .append("pattern")
    .attr("id", hatch)
    .attr("patternUnits", "userSpaceOnUse")
    .attr("width", 6)
    .attr("height", 6)
    .attr("patternTransform", "rotate(45)");
  pattern.append("rect").attr("width", 6).attr("height", 6).attr("fill", "#f3e3ec");
  pattern.append("line").attr("x1", 0).attr("y1", 0).attr("x2", 0).attr("y2", 6).attr("stroke", OKABE_ITO.purple).attr("stroke-width", 3);
  /** The id of the arrowhead marker of an arrow colour. */
  const headId = (color: string): string => `${uid}-head-${ARROW_COLORS.indexOf(color as (typeof ARROW_COLORS)[number])}`;
  for (const c of ARROW_COLORS) {
    defs
      .append("marker")
      .attr("id", headId(c))
      .attr("viewBox", "0 0 10 10")
      .attr("refX", 10)
      .attr("refY", 5)
      .attr("markerUnits", "userSpaceOnUse")
      .attr("markerWidth", 9)
      .attr("markerHeight", 9)
      .attr("orient", "auto")
      .append("path")
      .attr("d", "M0,0 L10,5 L0,10 Z")
      .attr("fill", c);
  }
  return { clipRect, hatch, headId };
}

/** Empties the <svg> and builds the diagram's elements in it. */
export function createParts(svg: SVGSVGElement, uid: string) {
  const root = d3.select(svg);
  root.selectAll("*").remove();
  root.attr("preserveAspectRatio", "xMinYMin meet");
  const title = root.append("title").attr("class", "st-title").text("Space-time diagram");
  const { clipRect, hatch, headId } = createDefs(root, uid);
  const bg = root.append("rect").attr("class", "st-bg").attr("x", 0).attr("y", 0).attr("fill", "#ffffff");
  const grid = root.append("g").attr("class", "st-grid").attr("aria-hidden", "true");
  const lanes = root.append("g").attr("class", "st-lanes").attr("aria-hidden", "true");
  const clip = root.append("g").attr("class", "st-plot").attr("clip-path", `url(#${uid}-clip)`);
  const horizonRect = clip.append("rect").attr("class", "st-horizon").attr("fill", "#eeeeee");
  const horizonText = clip.append("text").attr("class", "st-horizon-text").attr("paint-order", "stroke");
  const content = clip.append("g").attr("class", "st-content");
  const layer = (cls: string) => content.append("g").attr("class", cls);
  const segments = layer("st-segments");
  const violations = layer("st-violations");
  const dense = layer("st-dense");
  const msgs = layer("st-msgs");
  const flight = layer("st-flight");
  const drops = layer("st-drops");
  const heads = layer("st-heads");
  const marks = layer("st-marks");
  const labels = layer("st-labels");
  const focus = layer("st-focus");
  const focusHalo = focus.append("path").attr("class", "st-focus-halo");
  const focusLine = focus.append("path").attr("class", "st-focus-line");
  const focusLabel = focus.append("text").attr("class", "st-focus-label").attr("paint-order", "stroke");
  const futureRect = clip.append("rect").attr("class", "st-future").attr("fill", "#f4f4f4");
  const header = root.append("g").attr("class", "st-header");
  const headerBg = header.append("rect").attr("class", "st-header-bg").attr("x", 0).attr("y", 0).attr("fill", "#ffffff");
  header.append("text").attr("class", "st-axis-title").attr("x", 8).attr("y", 18).text("time ↓");
  const names = header.append("g").attr("class", "st-names");
  const cursor = root.append("g").attr("class", "st-cursor").attr("aria-hidden", "true");
  const cursorLine = cursor.append("line").attr("class", "st-cursor-line");
  const cursorPill = cursor.append("rect").attr("class", "st-cursor-pill").attr("rx", 4).attr("fill", "#1a1a1a");
  const cursorText = cursor.append("text").attr("class", "st-cursor-text").attr("fill", "#ffffff");
  const tip = root.append("g").attr("class", "st-tip").attr("aria-hidden", "true").attr("display", "none");
  const tipRect = tip.append("rect").attr("class", "st-tip-bg").attr("rx", 5).attr("fill", "#ffffff");
  const tipText = tip.append("text").attr("class", "st-tip-text");
  return {
    root,
    title,
    clipRect,
    hatch,
    headId,
    bg,
    grid,
    lanes,
    horizonRect,
    horizonText,
    content,
    segments,
    violations,
    dense,
    msgs,
    flight,
    drops,
    heads,
    marks,
    labels,
    focus,
    focusHalo,
    focusLine,
    focusLabel,
    futureRect,
    headerBg,
    names,
    cursor,
    cursorLine,
    cursorPill,
    cursorText,
    tip,
    tipRect,
    tipText,
  };
}

/** The diagram's elements. */
export type Parts = ReturnType<typeof createParts>;

/** Fits the picture, its background, the plot's clip and the header to a frame. */
export function sizeParts(p: Parts, f: Frame): void {
  p.root.attr("viewBox", `0 0 ${f.width} ${f.height}`).attr("width", f.width).attr("height", f.height);
  p.bg.attr("width", f.width).attr("height", f.height);
  p.clipRect
    .attr("x", f.plotLeft - 40)
    .attr("y", f.plotTop)
    .attr("width", f.plotRight - f.plotLeft + 40 + 10)
    .attr("height", f.plotBottom - f.plotTop);
  // Behind the names only: the first tick's label sits on the plot's top edge.
  p.headerBg.attr("width", f.width).attr("height", f.plotTop - 8);
}
