/**
 * The ring's network layer: partition groups (a hull around each, or a halo around each
 * member when a hull would swallow someone else), cut links, one-way cuts, and the
 * clients (drawn, not selectable). Redrawn only when the layout or the network changes.
 */
import * as d3 from "d3";
import type { SimView } from "../../worker/protocol";
import { OKABE_ITO } from "../theme";
import { groupLetter, linkSegment, outlinePoints, type Place, type Pt, pointAt, type RingLayout } from "./geometry";
import type { RingLayer } from "./layer";

const GROUP_COLORS = [OKABE_ITO.green, OKABE_ITO.skyBlue, OKABE_ITO.orange, OKABE_ITO.yellow, OKABE_ITO.blue, OKABE_ITO.black];

type Group = d3.Selection<SVGGElement, unknown, null, undefined>;

export interface NetworkGroups {
  /** Hulls and halos, under everything. */
  readonly net: Group;
  /** Cut links, over the hulls. */
  readonly links: Group;
  readonly clients: Group;
  /** Group names, over everything. */
  readonly labels: Group;
}

/** `arrowId`: the id of the arrowhead marker for one-way cuts. */
export function createNetworkLayer(g: NetworkGroups, arrowId: string): RingLayer {
  const { net: gNet, links: gLinks, clients: gClients, labels: gNetLabels } = g;
  let netK = "";
  let netL: RingLayout | null = null;
  let clientsL: RingLayout | null = null;

  function drawNetwork(v: SimView, L: RingLayout): void {
    const key = `${JSON.stringify(v.network.groups)}#${JSON.stringify(v.network.cuts)}`;
    if (key === netK && L === netL) return;
    netK = key;
    netL = L;
    gNet.selectAll("*").remove();
    gLinks.selectAll("*").remove();
    gNetLabels.selectAll("*").remove();
    const groups = v.network.groups;
    const groupOf = new Map<string, number>();
    groups.forEach((g, i) => {
      for (const id of g) groupOf.set(id, i);
    });
    groups.forEach((members, i) => {
      const color = GROUP_COLORS[i % GROUP_COLORS.length] as string;
      const places = members.map((id) => L.places.get(id)).filter((p): p is Place => p !== undefined);
      if (places.length === 0) return;
      const hullPath = (pts: readonly Pt[]): string | null => {
        const h = d3.polygonHull(pts.map((p): [number, number] => [p.x, p.y]));
        return h === null ? null : `M${h.map((p) => `${p[0].toFixed(1)},${p[1].toFixed(1)}`).join("L")}Z`;
      };
      const all = places.flatMap((p) => outlinePoints(p, 12, L.holderSize));
      const hull = d3.polygonHull(all.map((p): [number, number] => [p.x, p.y]));
      const others = [...L.places.entries()].filter(([id]) => !members.includes(id)).map(([, p]) => p);
      const clean = hull !== null && !others.some((o) => d3.polygonContains(hull, [o.x, o.y]));
      const g = gNet.append("g").attr("class", "group");
      // One shape around the group when it does not swallow anyone else, else a halo around each member.
      const shapes = clean ? [hullPath(all)] : places.map((p) => hullPath(outlinePoints(p, 10, L.holderSize)));
      for (const d of shapes) if (d !== null) g.append("path").attr("class", "hull").attr("d", d).attr("fill", color).attr("stroke", color);
      // The label beside the group's highest member, on the group's outer side.
      const top = places.reduce((a, b) => (b.y - b.radius < a.y - a.radius ? b : a));
      const left = top.x < L.center.x - 1;
      const ly = Math.max(14, top.y - top.radius - 16);
      gNetLabels
        .append("text")
        .attr("class", "group-label")
        .style("text-anchor", left ? "end" : "start")
        .attr("x", left ? top.x - top.radius - 8 : top.x + top.radius + 8)
        .attr("y", ly)
        .attr("fill", d3.color(color)?.darker(1.2).formatHex() ?? color)
        .text(`group ${groupLetter(i)}`);
    });
    // Links between nodes of different groups are cut (a ✕ on each, unless there are too many to read).
    const nodes = v.nodes.map((n) => n.id);
    let crossing = 0;
    for (const a of nodes)
      for (const b of nodes) if (a < b && groupOf.has(a) && groupOf.has(b) && groupOf.get(a) !== groupOf.get(b)) crossing++;
    for (let a = 0; a < nodes.length; a++) {
      for (let b = a + 1; b < nodes.length; b++) {
        const ga = groupOf.get(nodes[a] as string);
        const gb = groupOf.get(nodes[b] as string);
        if (ga === undefined || gb === undefined || ga === gb) continue;
        const pa = L.places.get(nodes[a] as string);
        const pb = L.places.get(nodes[b] as string);
        if (pa === undefined || pb === undefined) continue;
        const s = linkSegment(pa, pb, 0);
        gLinks.append("line").attr("class", "cut-link").attr("x1", s.x1).attr("y1", s.y1).attr("x2", s.x2).attr("y2", s.y2);
        if (crossing > 8) continue;
        const m = pointAt(s, 0.5);
        gLinks.append("text").attr("class", "cut-x small").attr("x", m.x).attr("y", m.y).text("✕");
      }
    }
    // One-way cuts: a dashed arrow with a ✕ on it.
    for (const c of v.network.cuts) {
      const pa = L.places.get(c.from);
      const pb = L.places.get(c.to);
      if (pa === undefined || pb === undefined) continue;
      const s = linkSegment(pa, pb, 7);
      gLinks
        .append("line")
        .attr("class", "one-way-cut")
        .attr("x1", s.x1)
        .attr("y1", s.y1)
        .attr("x2", s.x2)
        .attr("y2", s.y2)
        .attr("marker-end", `url(#${arrowId})`)
        .append("title")
        .text(`${c.from} → ${c.to} cut (one way)`);
      const m = pointAt(s, 0.5);
      gLinks.append("text").attr("class", "cut-x").attr("x", m.x).attr("y", m.y).text("✕");
    }
  }

  function drawClients(L: RingLayout): void {
    const data = [...L.places.entries()].filter(([, p]) => p.kind === "client").map(([id, p]) => ({ id, p }));
    gClients
      .selectAll<SVGGElement, { id: string; p: Place }>("g.client")
      .data(data, (d) => d.id)
      .join((enter) => {
        const g = enter.append("g").attr("class", "client");
        g.append("circle");
        g.append("text").attr("class", "client-id");
        g.append("title");
        return g;
      })
      .attr("transform", (d) => `translate(${d.p.x},${d.p.y})`)
      .call((g) => g.select("circle").attr("r", L.clientRadius))
      .call((g) => g.select("text").text((d) => (L.clientRadius >= 8 ? d.id : "")))
      .call((g) => g.select("title").text((d) => `client ${d.id} (key-value workload)`));
  }

  return {
    draw(v: SimView, L: RingLayout): void {
      if (L !== clientsL) {
        clientsL = L;
        drawClients(L);
      }
      drawNetwork(v, L);
    },
    frame(): void {},
  };
}
