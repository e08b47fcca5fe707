/**
 * The ring's nodes: a body coloured by role, the term, an election timer arc, a crown on
 * the leader, vote dots on the rim, and status, clock and drift lines below. Nodes are
 * buttons (ringPointer.ts). Between views the frames run the timer arcs and the clocks.
 */
import { localTime } from "../../core/sim/clock";
import type * as d3 from "d3-selection";
import { arc as d3Arc } from "d3-shape";
import type { InspectTarget, NodeView, SimView } from "../../worker/protocol";
import { changed, type G } from "../draw/dom";
import { nodeLabel, nodeState } from "../format";
import { type NodeState, ROLE_COLOR, ROLE_GLYPH, textOn } from "../theme";
import { clockText, driftText, type Place, pausedText, type RingLayout, timerFraction } from "./geometry";
import { isSelected, type RingLayer, type RingMarks, setWords } from "./layer";
import { leaseLeft, readsAnchor, readsLines, servingLocally } from "./readsWords";
import { asButton } from "./ringPointer";
import "./readsRing.css";

interface NodeDatum {
  readonly id: string;
  readonly n: NodeView;
  readonly p: Place;
  readonly state: NodeState;
  readonly r: number;
  /** Vote dots: where each granted vote sits on the node's rim. */
  readonly votes: readonly { readonly from: string; readonly x: number; readonly y: number }[];
  /** Its leases for reads in words (readsWords.ts), and whether it is answering a read from its own copy now. */
  readonly reads: readonly string[];
  readonly serving: boolean;
  readonly readsAt: { readonly anchor: "start" | "middle" | "end"; readonly x: number };
}

/** One datum for each node that has a place. */
function nodeData(v: SimView, L: RingLayout): NodeDatum[] {
  const data: NodeDatum[] = [];
  for (const n of v.nodes) {
    const p = L.places.get(n.id);
    if (p === undefined) continue;
    const r = L.nodeRadius;
    const votes = n.votesFrom
      .map((from) => {
        const q = L.places.get(from);
        if (q === undefined) return null;
        const l = Math.hypot(q.x - p.x, q.y - p.y) || 1;
        return { from, x: ((q.x - p.x) / l) * (r + 13), y: ((q.y - p.y) / l) * (r + 13) };
      })
      .filter((x): x is { from: string; x: number; y: number } => x !== null);
    const isClient = (id: string): boolean => L.places.get(id)?.kind === "client";
    data.push({ id: n.id, n, p, state: nodeState(n), r, votes, reads: readsLines(n), serving: servingLocally(n, v.messages, isClient), readsAt: readsAnchor(p, L.center, r) });
  }
  return data;
}

/** A new node's elements, back to front. */
function enterNode(enter: d3.Selection<d3.EnterElement, NodeDatum, SVGGElement, unknown>, select: (t: InspectTarget) => void): G<NodeDatum> {
  const g = enter.append("g").attr("class", "node");
  asButton(g, (d) => ({ kind: "node", id: d.id }), select);
  g.append("circle").attr("class", "focus-ring");
  g.append("circle").attr("class", "select-ring");
  g.append("circle").attr("class", "hl-ring");
  g.append("circle").attr("class", "paused-ring");
  g.append("circle").attr("class", "timer-track");
  g.append("path").attr("class", "timer-arc");
  g.append("circle").attr("class", "reads-flash");
  g.append("path").attr("class", "reads-arc");
  g.append("circle").attr("class", "leader-ring");
  g.append("path").attr("class", "crown");
  g.append("circle").attr("class", "body");
  // Only the id is label text; the rest is data the accessible name already gives in
  // words ("term 4" for T4), so it is hidden from assistive technology.
  g.append("text").attr("class", "glyph").attr("aria-hidden", "true");
  g.append("text").attr("class", "node-id");
  g.append("text").attr("class", "node-term").attr("aria-hidden", "true");
  g.append("g").attr("class", "votes");
  g.append("text").attr("class", "status").attr("aria-hidden", "true");
  g.append("text").attr("class", "clock").attr("aria-hidden", "true");
  g.append("text").attr("class", "drift").attr("aria-hidden", "true");
  // A small open book: the node holds a lease for reads (its words are the lines below).
  g.append("path").attr("class", "reads-icon").attr("aria-hidden", "true");
  g.append("text").attr("class", "reads-line reads-a");
  g.append("text").attr("class", "reads-line reads-b");
  g.append("text").attr("class", "reads-line reads-c");
  return g;
}

/** Writes what a view changed on the nodes whose drawing changed. */
function paintNodes(upd: G<NodeDatum>, v: SimView, sel: RingMarks): void {
  upd
    .attr("transform", (d) => `translate(${d.p.x.toFixed(1)},${d.p.y.toFixed(1)})`)
    .attr("aria-label", (d) => nodeLabel(d.n))
    .classed("is-leader", (d) => d.state === "leader")
    .classed("is-down", (d) => d.state === "down")
    .classed("is-paused", (d) => d.n.status === "paused")
    .classed("is-outside", (d) => !d.n.member)
    .classed("has-timer", (d) => timerFraction(d.n, v.now) !== null)
    .classed("is-selected", (d) => isSelected(sel, "node", d.id))
    .classed("is-highlighted", (d) => sel.highlight.includes(d.id))
    .classed("has-reads", (d) => d.reads.length > 0)
    .classed("is-serving", (d) => d.serving);
  paintReads(upd);
  upd.select(".focus-ring").attr("r", (d) => d.r + 22);
  upd.select(".select-ring").attr("r", (d) => d.r + 19);
  upd.select(".hl-ring").attr("r", (d) => d.r + 14);
  upd.select(".paused-ring").attr("r", (d) => d.r + 10);
  upd.select(".timer-track").attr("r", (d) => d.r + 5);
  upd.select(".leader-ring").attr("r", (d) => d.r + 5);
  upd
    .select(".crown")
    .attr(
      "d",
      (d) => `M-13,${-d.r - 3} L-15,${-d.r - 18} L-7,${-d.r - 10} L0,${-d.r - 21} L7,${-d.r - 10} L15,${-d.r - 18} L13,${-d.r - 3} Z`,
    );
  upd
    .select(".body")
    .attr("r", (d) => d.r)
    .attr("fill", (d) => ROLE_COLOR[d.state]);
  const fg = (d: NodeDatum): string => textOn(ROLE_COLOR[d.state]);
  upd
    .select<SVGTextElement>(".glyph")
    .attr("y", -13)
    .attr("fill", fg)
    .each(function (d) {
      setWords(this, ROLE_GLYPH[d.state]);
    });
  upd
    .select<SVGTextElement>(".node-id")
    .attr("y", 3)
    .attr("fill", fg)
    .each(function (d) {
      setWords(this, d.id);
    });
  upd
    .select<SVGTextElement>(".node-term")
    .attr("y", 19)
    .attr("fill", fg)
    .each(function (d) {
      setWords(this, `T${d.n.term}`);
    });
  upd.select(".status").attr("y", (d) => d.r + 21);
  // Below the status line when there is one (down, paused, not a member).
  const hasStatus = (d: NodeDatum): boolean => d.n.status !== "up" || !d.n.member;
  upd.select(".clock").attr("y", (d) => d.r + (hasStatus(d) ? 37 : 21));
  upd
    .select<SVGTextElement>(".drift")
    .attr("y", (d) => d.r + (hasStatus(d) ? 53 : 37))
    .each(function (d) {
      setWords(this, driftText(d.n.driftPpm));
    });
  upd
    .select<SVGGElement>("g.votes")
    .selectAll<SVGCircleElement, NodeDatum["votes"][number]>("circle")
    .data(
      (d) => d.votes,
      (x) => x.from,
    )
    .join((enter) => enter.append("circle").attr("r", 5).attr("class", "vote"))
    .attr("cx", (x) => x.x)
    .attr("cy", (x) => x.y);
}

/** The reads lines under the node (below the clock and drift), the book icon, the flash ring. */
function paintReads(upd: G<NodeDatum>): void {
  const below = (d: NodeDatum): number => d.r + 21 + 16 * (1 + (d.n.status !== "up" || !d.n.member ? 1 : 0) + (d.n.driftPpm !== 0 ? 1 : 0));
  upd
    .select<SVGTextElement>(".reads-a")
    .attr("x", (d) => d.readsAt.x)
    .style("text-anchor", (d) => d.readsAt.anchor)
    .attr("y", below)
    .each(function (d) {
      setWords(this, d.reads[0] ?? "");
    });
  upd
    .select<SVGTextElement>(".reads-b")
    .attr("x", (d) => d.readsAt.x)
    .style("text-anchor", (d) => d.readsAt.anchor)
    .attr("y", (d) => below(d) + 16)
    .each(function (d) {
      setWords(this, d.reads[1] ?? "");
    });
  upd
    .select<SVGTextElement>(".reads-c")
    .attr("x", (d) => d.readsAt.x)
    .style("text-anchor", (d) => d.readsAt.anchor)
    .attr("y", (d) => below(d) + 32)
    .each(function (d) {
      setWords(this, d.reads[2] ?? "");
    });
  upd.select(".reads-flash").attr("r", (d) => d.r + 17);
  upd.select(".reads-icon").attr("d", (d) => {
    const x = -d.r - 6;
    const y = -d.r + 2;
    return `M${x},${y + 3} L${x - 9},${y} L${x - 9},${y + 13} L${x},${y + 16} Z M${x},${y + 3} L${x + 9},${y} L${x + 9},${y + 13} L${x},${y + 16} Z`;
  });
}

export function createNodeLayer(gNodes: d3.Selection<SVGGElement, unknown, null, undefined>, select: (t: InspectTarget) => void): RingLayer {
  let nodeSel: G<NodeDatum> = gNodes.selectAll<SVGGElement, NodeDatum>("g.node");
  // The parts the animation frames touch, picked once per view.
  let timerArcs = nodeSel.select<SVGPathElement>(".timer-arc");
  let readsArcs = nodeSel.select<SVGPathElement>(".reads-arc");
  let nodeStatus = nodeSel.select<SVGTextElement>(".status");
  let nodeClocks = nodeSel.select<SVGTextElement>(".clock");
  const arc = d3Arc<{ inner: number; outer: number; end: number }>()
    .innerRadius((a) => a.inner)
    .outerRadius((a) => a.outer)
    .startAngle(0)
    .endAngle((a) => a.end);

  return {
    draw(v: SimView, L: RingLayout, sel: RingMarks): void {
      nodeSel = gNodes
        .selectAll<SVGGElement, NodeDatum>("g.node")
        .data(nodeData(v, L), (d) => d.id)
        .join((enter) => enterNode(enter, select));
      const upd = changed(
        nodeSel,
        (d) =>
          `${d.p.x},${d.p.y},${d.r}|${d.state}|${d.n.status}|${d.n.member}|${d.n.term}|${d.n.driftPpm}|${timerFraction(d.n, v.now) !== null}|` +
          `${isSelected(sel, "node", d.id)}|${sel.highlight.includes(d.id)}|${d.votes.map((x) => `${x.from}@${x.x},${x.y}`).join(";")}|` +
          `${d.reads.join(";")}|${d.serving}|${d.readsAt.anchor}`,
      );
      timerArcs = nodeSel.select<SVGPathElement>(".timer-arc");
      readsArcs = nodeSel.select<SVGPathElement>(".reads-arc");
      nodeStatus = nodeSel.select<SVGTextElement>(".status");
      nodeClocks = nodeSel.select<SVGTextElement>(".clock");
      paintNodes(upd, v, sel);
    },
    frame(v: SimView, now: number, clocks: boolean): void {
      // The lease for reads as an arc outside the timer, shrinking as it runs out.
      readsArcs.each(function (d) {
        const f = leaseLeft(d.n, v.settings, now);
        const path = f === null || f <= 0 ? "" : (arc({ inner: d.r + 10, outer: d.r + 14, end: 2 * Math.PI * f }) ?? "");
        if (this.getAttribute("d") !== path) this.setAttribute("d", path);
      });
      timerArcs.each(function (d) {
        const f = timerFraction(d.n, now);
        const path = f === null || f <= 0 ? "" : (arc({ inner: d.r + 3, outer: d.r + 7.5, end: 2 * Math.PI * f }) ?? "");
        if (this.getAttribute("d") !== path) this.setAttribute("d", path);
      });
      nodeStatus.each(function (d) {
        setWords(
          this,
          d.n.status === "down" ? "✕ down" : d.n.status === "paused" ? pausedText(d.n.pausedUntil, now) : d.n.member ? "" : "not a member",
        );
      });
      // Clocks tick with each view (25 a second), not each frame: a changing text costs a layout.
      if (!clocks) return;
      nodeClocks.each(function (d) {
        // A paused process's clock keeps running (it is the world's clock it reads); a down one's too.
        setWords(this, clockText(localTime(d.n.clock, now)));
      });
    },
  };
}
