/**
 * The read check's drawing: a d3 factory that owns the <svg> React gives it (ReadCheck.tsx
 * mounts it and passes the violation). Everything inside the <svg> is drawn here, from
 * readsLayout.ts; an operation with no answer is hatched and runs open to the right.
 */
import * as d3 from "d3-selection";
import type { ReadViolationView } from "../../worker/readCheckTypes";
import { BAR_H, FONT, readsLayout, WIDTH } from "./readsLayout";

export interface ReadsDrawing {
  update(v: ReadViolationView): void;
  destroy(): void;
}

export function createReadsDrawing(svg: SVGSVGElement, hatchId: string): ReadsDrawing {
  const root = d3.select(svg);
  return {
    update(v) {
      const layout = readsLayout(v);
      root.selectAll("*").remove();
      root.attr("viewBox", `0 0 ${WIDTH} ${layout.height}`).attr("font-size", FONT);
      const hatch = root
        .append("defs")
        .append("pattern")
        .attr("id", hatchId)
        .attr("patternUnits", "userSpaceOnUse")
        .attr("width", 8)
        .attr("height", 8)
        .attr("patternTransform", "rotate(45)");
      hatch.append("rect").attr("width", 8).attr("height", 8).attr("class", "hatch-bg");
      hatch.append("line").attr("x1", 0).attr("y1", 0).attr("x2", 0).attr("y2", 8).attr("class", "hatch-line");

      const rows = root.append("g").attr("class", "reads-rows");
      for (const r of layout.rows) {
        rows.append("line").attr("class", "row-line").attr("x1", 0).attr("x2", WIDTH).attr("y1", r.y).attr("y2", r.y);
        rows
          .append("text")
          .attr("class", "row-name")
          .attr("x", 4)
          .attr("y", r.y + 47)
          .text(r.client);
      }
      const axis = root.append("g").attr("class", "reads-axis");
      axis.append("line").attr("x1", 0).attr("x2", WIDTH).attr("y1", layout.axisY).attr("y2", layout.axisY);
      for (const t of layout.ticks) {
        axis.append("line").attr("x1", t.x).attr("x2", t.x).attr("y1", layout.axisY).attr("y2", layout.axisY + 6);
        axis
          .append("text")
          .attr("x", t.x)
          .attr("y", layout.axisY + 26)
          .attr("text-anchor", t.anchor)
          .text(t.text);
      }
      const guides = root.append("g").attr("class", "reads-guides");
      for (const g of layout.guides) {
        guides.append("line").attr("class", `guide ${g.role}`).attr("x1", g.x).attr("x2", g.x).attr("y1", g.textY + 6).attr("y2", layout.axisY);
        guides.append("text").attr("class", `guide-text ${g.role}`).attr("x", g.textX).attr("y", g.textY).attr("text-anchor", g.anchor).text(g.text);
      }
      const bars = root
        .append("g")
        .attr("class", "reads-bars")
        .selectAll("g")
        .data(layout.bars)
        .join("g")
        .attr("class", (b) => `op ${b.role}${b.open ? " open" : ""}`)
        .attr("data-testid", (b) => `read-op-${b.role}`);
      bars.append("title").text((b) => b.title);
      bars
        .append("rect")
        .attr("x", (b) => b.x0)
        .attr("y", (b) => b.y)
        .attr("width", (b) => Math.max(4, b.x1 - b.x0))
        .attr("height", BAR_H)
        .attr("rx", 3)
        // Inline, so it wins over the role's colour in the stylesheet.
        .style("fill", (b) => (b.open ? `url(#${hatchId})` : null));
      bars
        .filter((b) => b.open)
        .append("path")
        .attr("class", "open-end")
        .attr("d", (b) => `M${b.x1 - 10},${b.y - 4} L${b.x1},${b.y + BAR_H / 2} L${b.x1 - 10},${b.y + BAR_H + 4}`);
      bars
        .append("text")
        .attr("class", "op-label")
        .attr("x", (b) => b.labelX)
        .attr("y", (b) => b.labelY)
        .attr("text-anchor", (b) => b.anchor)
        .text((b) => b.label);
    },
    destroy() {
      root.selectAll("*").remove();
    },
  };
}
