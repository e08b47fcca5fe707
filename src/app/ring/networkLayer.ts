/**
 * The ring's network layer: partition groups (a hull around each, or a halo around each
 * member when a hull would swallow someone else), cut links, one-way cuts, and the
 * clients (buttons, like the processes). Redrawn only when the layout or the network changes.
 */
import { color as parseColor } from "d3-color";
import type * as d3 from "d3-selection";
import type { InspectTarget, SimView } from "../../worker/protocol";
import { OKABE_ITO, textOn } from "../theme";
import { linkSegment, type Place, pointAt, type RingLayout } from "./geometry";
import { groupShapes } from "./groups";
import { type Box, clientCaption, textBox } from "./labels";
import type { RingLayer } from "./layer";
import { asButton } from "./ringPointer";

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

/** The clients (buttons: the inspector shows what a client is and its requests) and their caption. */
function drawClients(gClients: Group, L: RingLayout, select: (t: InspectTarget) => void): void {
  const data = [...L.places.entries()].filter(([, p]) => p.kind === "client").map(([id, p]) => ({ id, p }));
  gClients
    .selectAll<SVGGElement, { id: string; p: Place }>("g.client")
    .data(data, (d) => d.id)
    .join((enter) => {
      const g = enter.append("g").attr("class", "client");
      asButton(g, (d) => ({ kind: "client", id: d.id }), select);
      g.append("circle");
      g.append("text").attr("class", "client-id").attr("aria-hidden", "true");
      g.append("title");
      return g;
    })
    .attr("transform", (d) => `translate(${d.p.x},${d.p.y})`)
    .attr("aria-label", (d) => `Select client ${d.id} (a key-value client that writes through the leader)`)
    .call((g) => g.select("circle").attr("r", L.clientRadius))
    .call((g) => g.select("text").text((d) => (L.clientRadius >= 8 ? d.id : "")))
    .call((g) => g.select("title").text((d) => `client ${d.id}: a key-value client that writes through the leader`));
  // What the little circles are, said once above them.
  const cap = clientCaption(L);
  gClients
    .selectAll<SVGTextElement, NonNullable<typeof cap>>("text.clients-caption")
    .data(cap === null ? [] : [cap])
    .join((enter) => {
      const t = enter.append("text").attr("class", "clients-caption");
      t.append("tspan");
      t.append("title").text("key-value clients that write through the leader");
      return t;
    })
    .attr("x", (c) => c.x)
    .attr("y", (c) => c.y)
    .call((t) => t.select("tspan").text((c) => c.text));
}

/** `arrowId`: the id of the arrowhead marker for one-way cuts. */
export function createNetworkLayer(g: NetworkGroups, arrowId: string, select: (t: InspectTarget) => void): RingLayer {
  const { net: gNet, links: gLinks, clients: gClients, labels: gNetLabels } = g;
  let netK = "";
  let netL: RingLayout | null = null;
  let clientsL: RingLayout | null = null;
  /** The group names and badges: text the moving labels keep off. */
  let labelBoxes: Box[] = [];

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
    labelBoxes = [];
    for (const shape of groupShapes(groups, L)) {
      const color = GROUP_COLORS[shape.index % GROUP_COLORS.length] as string;
      const dark = parseColor(color)?.darker(1.2).formatHex() ?? color;
      const g = gNet.append("g").attr("class", "group");
      for (const o of shape.outlines)
        g.append("path")
          .attr("class", "hull")
          .attr("d", `M${o.map((p) => `${p.x.toFixed(1)},${p.y.toFixed(1)}`).join("L")}Z`)
          .attr("fill", color)
          .attr("stroke", color);
      // Holders and the storage carry their group's letter too.
      for (const b of shape.badges) {
        const badge = gNetLabels.append("g").attr("class", "group-badge").attr("transform", `translate(${b.x.toFixed(1)},${b.y.toFixed(1)})`);
        badge.append("rect").attr("x", -10).attr("y", -10).attr("width", 20).attr("height", 20).attr("rx", 5).attr("fill", color);
        badge.append("text").attr("fill", textOn(color)).text(shape.letter);
        labelBoxes.push({ x: b.x - 10, y: b.y - 10, w: 20, h: 20 });
      }
      // The name beside the group's highest member, on the group's outer side.
      const places = (groups[shape.index] ?? []).map((id) => L.places.get(id)).filter((p): p is Place => p !== undefined);
      if (places.length === 0) continue;
      const top = places.reduce((a, b) => (b.y - b.radius < a.y - a.radius ? b : a));
      const left = top.x < L.center.x - 1;
      const x = left ? top.x - top.radius - 8 : top.x + top.radius + 8;
      const y = Math.max(14, top.y - top.radius - 16);
      const text = `group ${shape.letter}`;
      gNetLabels
        .append("text")
        .attr("class", "group-label")
        .style("text-anchor", left ? "end" : "start")
        .attr("x", x)
        .attr("y", y)
        .attr("fill", dark)
        .text(text);
      labelBoxes.push(textBox(x, y, text, 13, left ? "end" : "start"));
    }
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

  return {
    draw(v: SimView, L: RingLayout): void {
      if (L !== clientsL) {
        clientsL = L;
        drawClients(gClients, L, select);
      }
      drawNetwork(v, L);
    },
    frame(_v: SimView, _now: number, _clocks: boolean, board?: Box[]): void {
      board?.push(...labelBoxes);
    },
  };
}
