/**
 * The cluster ring as a framework-free d3 drawing (the xyflow split: React owns the
 * <svg> element, this owns everything inside it).
 *
 * `update(view, receivedAtMs, marks)` joins the view's nodes, holders, storage,
 * messages and drops (keyed, so elements are reused from view to view) and draws one
 * frame. While the run plays and the page is visible, a requestAnimationFrame loop
 * moves messages, timer arcs, clocks and countdowns between views; it only sets
 * attributes, it never joins. Every frame is a pure function of (view, display now).
 */
import * as d3 from "d3";
import type { DropView, HolderView, InspectTarget, MessageView, NodeView, SimView, StorageView } from "../../worker/protocol";
import { nodeLabel, nodeState } from "../format";
import type { Selection } from "../store";
import { messageColor, type NodeState, OKABE_ITO, ROLE_COLOR, ROLE_GLYPH, textOn } from "../theme";
import {
  clientIdsOf,
  clockAt,
  clockText,
  computeLayout,
  displayNow,
  driftText,
  dropOpacity,
  dropT,
  dropText,
  groupLetter,
  holderLabel,
  holderStateWord,
  LEAD_MS,
  labelledMessages,
  layoutKey,
  linkSegment,
  messageTravel,
  networkCaption,
  outlinePoints,
  type Place,
  type Pt,
  pausedText,
  pointAt,
  queuedPosition,
  queueIndexes,
  type RingLayout,
  type Segment,
  storageLabel,
  timerFraction,
} from "./geometry";

export interface RingCallbacks {
  /** Opens the inspector on a node, holder, the storage or a message. */
  readonly select: (target: InspectTarget) => void;
  /** The pointer entered (id) or left (null) a message: it is highlighted here and in the space-time diagram. */
  readonly focus?: (id: number | null) => void;
}

/** What is selected and what is highlighted (a violation, a hovered event). */
export interface RingMarks {
  readonly selected: Selection;
  readonly highlight: readonly string[];
  /** The message highlighted in both the ring and the space-time diagram. */
  readonly focus?: number | null;
}

export interface RingDrawing {
  update(view: SimView, receivedAtMs: number, marks?: RingMarks): void;
  destroy(): void;
}

const NO_MARKS: RingMarks = { selected: null, highlight: [] };

/** Holder state colours; the state is always written in the box too. */
export const HOLDER_COLOR: Record<string, string> = {
  holding: OKABE_ITO.green,
  jeopardy: OKABE_ITO.orange,
  grace: OKABE_ITO.yellow,
  lost: OKABE_ITO.vermillion,
  requesting: OKABE_ITO.skyBlue,
  releasing: OKABE_ITO.purple,
  released: "#e4e4e4",
  idle: "#e4e4e4",
  down: "#9a9a9a",
};

const GROUP_COLORS = [OKABE_ITO.green, OKABE_ITO.skyBlue, OKABE_ITO.orange, OKABE_ITO.yellow, OKABE_ITO.blue, OKABE_ITO.black];

interface NodeDatum {
  readonly id: string;
  readonly n: NodeView;
  readonly p: Place;
  readonly state: NodeState;
  readonly r: number;
  /** Vote dots: where each granted vote sits on the node's rim. */
  readonly votes: readonly { readonly from: string; readonly x: number; readonly y: number }[];
}

interface HolderDatum {
  readonly id: string;
  readonly h: HolderView;
  readonly p: Place;
  readonly word: string;
}

interface MessageDatum {
  readonly id: number;
  readonly m: MessageView;
  readonly seg: Segment;
  /** Waiting at a paused receiver: drawn here, not on the link. */
  readonly q: Pt | null;
  /** The text beside the dot ("" for none). */
  readonly label: string;
}

interface DropDatum {
  readonly id: number;
  readonly d: DropView;
  readonly pos: Pt;
}

/** Drops get words ("append lost") only while there are at most this many. */
const DROP_WORDS_UP_TO = 12;

let drawingCount = 0;

type G<D> = d3.Selection<SVGGElement, D, SVGGElement, unknown>;

/** What each element was last drawn from, so an unchanged process costs no DOM writes. */
const drawnFrom = new WeakMap<Element, string>();

/** The elements of `sel` whose signature changed since they were last drawn (and records the new one). */
function changed<D>(sel: G<D>, sig: (d: D) => string): G<D> {
  return sel.filter(function (d) {
    const s = sig(d);
    if (drawnFrom.get(this) === s) return false;
    drawnFrom.set(this, s);
    return true;
  });
}

function setText(el: SVGElement, s: string): void {
  if (el.textContent !== s) el.textContent = s;
}

function isActivation(e: KeyboardEvent): boolean {
  return e.key === "Enter" || e.key === " " || e.key === "Spacebar";
}

/** Makes a group a keyboard- and pointer-operable button that selects `target(d)`. */
function asButton<D>(g: G<D>, target: (d: D) => InspectTarget, select: (t: InspectTarget) => void): void {
  g.attr("role", "button")
    .attr("tabindex", 0)
    .on("click", (_e: MouseEvent, d: D) => select(target(d)))
    .on("keydown", (e: KeyboardEvent, d: D) => {
      if (!isActivation(e)) return;
      e.preventDefault();
      e.stopPropagation();
      select(target(d));
    });
}

export function createRingDrawing(svg: SVGSVGElement, callbacks: RingCallbacks): RingDrawing {
  const uid = `ring${++drawingCount}`;
  const root = d3.select(svg);
  root.selectAll("*").remove();
  root.attr("preserveAspectRatio", "xMidYMin meet");

  const defs = root.append("defs");
  defs
    .append("marker")
    .attr("id", `${uid}-arrow`)
    .attr("viewBox", "0 0 10 10")
    .attr("refX", 9)
    .attr("refY", 5)
    .attr("markerWidth", 7)
    .attr("markerHeight", 7)
    .attr("orient", "auto-start-reverse")
    .append("path")
    .attr("d", "M0,0 L10,5 L0,10 Z")
    .attr("fill", OKABE_ITO.vermillion);

  const gNet = root.append("g").attr("class", "ring-net").attr("aria-hidden", "true");
  const gLinks = root.append("g").attr("class", "ring-links").attr("aria-hidden", "true");
  const gClients = root.append("g").attr("class", "ring-clients").attr("aria-hidden", "true");
  // Messages pass under the processes (they leave and enter at the edge, and their labels never cover a node's id).
  // They are pointer targets only: a hundred tab stops that vanish in 20 ms would not help anyone.
  const gMsgs = root.append("g").attr("class", "ring-messages").attr("aria-hidden", "true");
  const gNodes = root.append("g").attr("class", "ring-nodes");
  const gHolders = root.append("g").attr("class", "ring-holders");
  const gStorage = root.append("g").attr("class", "ring-storage");
  const gDrops = root.append("g").attr("class", "ring-drops").attr("aria-hidden", "true");
  const gNetLabels = root.append("g").attr("class", "ring-net-labels").attr("aria-hidden", "true");
  const gCaption = root.append("g").attr("class", "ring-caption").attr("aria-hidden", "true");
  const captionText = gCaption.append("text").attr("class", "caption").attr("x", 8).attr("y", 18);

  let view: SimView | null = null;
  let received = 0;
  let marks: RingMarks = NO_MARKS;
  let layout: RingLayout | null = null;
  let layoutK = "";
  let netK = "";
  let raf = 0;
  let destroyed = false;

  let nodeSel: G<NodeDatum> = gNodes.selectAll<SVGGElement, NodeDatum>("g.node");
  let holderSel: G<HolderDatum> = gHolders.selectAll<SVGGElement, HolderDatum>("g.holder");
  let msgSel: G<MessageDatum> = gMsgs.selectAll<SVGGElement, MessageDatum>("g.msg");
  let dropSel: G<DropDatum> = gDrops.selectAll<SVGGElement, DropDatum>("g.drop");
  let storageSel: G<StorageView> = gStorage.selectAll<SVGGElement, StorageView>("g.storage");
  // The parts the animation frames touch, picked once per view.
  let timerArcs = nodeSel.select<SVGPathElement>(".timer-arc");
  let nodeStatus = nodeSel.select<SVGTextElement>(".status");
  let nodeClocks = nodeSel.select<SVGTextElement>(".clock");
  let holderStatus = holderSel.select<SVGTextElement>(".status");

  const select = (t: InspectTarget): void => callbacks.select(t);
  const arc = d3
    .arc<{ inner: number; outer: number; end: number }>()
    .innerRadius((a) => a.inner)
    .outerRadius((a) => a.outer)
    .startAngle(0)
    .endAngle((a) => a.end);

  function isSelected(kind: InspectTarget["kind"], id?: string | number): boolean {
    const s = marks.selected;
    if (s === null || s.kind !== kind) return false;
    return s.kind === "storage" || ("id" in s && s.id === id);
  }

  // ------------------------------------------------------------- network (hulls, cut links)

  function drawNetwork(v: SimView, L: RingLayout): void {
    const key = `${layoutK}#${JSON.stringify(v.network.groups)}#${JSON.stringify(v.network.cuts)}`;
    if (key === netK) return;
    netK = key;
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
        .attr("marker-end", `url(#${uid}-arrow)`)
        .append("title")
        .text(`${c.from} → ${c.to} cut (one way)`);
      const m = pointAt(s, 0.5);
      gLinks.append("text").attr("class", "cut-x").attr("x", m.x).attr("y", m.y).text("✕");
    }
  }

  // ------------------------------------------------------------- clients (not selectable)

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

  // ------------------------------------------------------------- nodes

  function drawNodes(v: SimView, L: RingLayout): void {
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
      data.push({ id: n.id, n, p, state: nodeState(n), r, votes });
    }
    nodeSel = gNodes
      .selectAll<SVGGElement, NodeDatum>("g.node")
      .data(data, (d) => d.id)
      .join((enter) => {
        const g = enter.append("g").attr("class", "node");
        asButton(g, (d) => ({ kind: "node", id: d.id }), select);
        g.append("circle").attr("class", "focus-ring");
        g.append("circle").attr("class", "select-ring");
        g.append("circle").attr("class", "hl-ring");
        g.append("circle").attr("class", "paused-ring");
        g.append("circle").attr("class", "timer-track");
        g.append("path").attr("class", "timer-arc");
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
        return g;
      });
    const sel = marks;
    const upd = changed(
      nodeSel,
      (d) =>
        `${d.p.x},${d.p.y},${d.r}|${d.state}|${d.n.status}|${d.n.member}|${d.n.term}|${d.n.driftPpm}|${timerFraction(d.n, v.now) !== null}|` +
        `${isSelected("node", d.id)}|${sel.highlight.includes(d.id)}|${d.votes.map((x) => `${x.from}@${x.x},${x.y}`).join(";")}`,
    );
    timerArcs = nodeSel.select<SVGPathElement>(".timer-arc");
    nodeStatus = nodeSel.select<SVGTextElement>(".status");
    nodeClocks = nodeSel.select<SVGTextElement>(".clock");
    upd
      .attr("transform", (d) => `translate(${d.p.x.toFixed(1)},${d.p.y.toFixed(1)})`)
      .attr("aria-label", (d) => nodeLabel(d.n))
      .classed("is-leader", (d) => d.state === "leader")
      .classed("is-down", (d) => d.state === "down")
      .classed("is-paused", (d) => d.n.status === "paused")
      .classed("is-outside", (d) => !d.n.member)
      .classed("has-timer", (d) => timerFraction(d.n, v.now) !== null)
      .classed("is-selected", (d) => isSelected("node", d.id))
      .classed("is-highlighted", (d) => sel.highlight.includes(d.id));
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
        setText(this, ROLE_GLYPH[d.state]);
      });
    upd
      .select<SVGTextElement>(".node-id")
      .attr("y", 3)
      .attr("fill", fg)
      .each(function (d) {
        setText(this, d.id);
      });
    upd
      .select<SVGTextElement>(".node-term")
      .attr("y", 19)
      .attr("fill", fg)
      .each(function (d) {
        setText(this, `T${d.n.term}`);
      });
    upd.select(".status").attr("y", (d) => d.r + 22);
    // Below the status line when there is one (down, paused, not a member).
    const hasStatus = (d: NodeDatum): boolean => d.n.status !== "up" || !d.n.member;
    upd.select(".clock").attr("y", (d) => d.r + (hasStatus(d) ? 37 : 22));
    upd
      .select<SVGTextElement>(".drift")
      .attr("y", (d) => d.r + (hasStatus(d) ? 52 : 37))
      .each(function (d) {
        setText(this, driftText(d.n.driftPpm));
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

  function frameNodes(now: number, clocks: boolean): void {
    timerArcs.each(function (d) {
      const f = timerFraction(d.n, now);
      const path = f === null || f <= 0 ? "" : (arc({ inner: d.r + 3, outer: d.r + 7.5, end: 2 * Math.PI * f }) ?? "");
      if (this.getAttribute("d") !== path) this.setAttribute("d", path);
    });
    nodeStatus.each(function (d) {
      setText(
        this,
        d.n.status === "down" ? "✕ down" : d.n.status === "paused" ? pausedText(d.n.pausedUntil, now) : d.n.member ? "" : "not a member",
      );
    });
    // Clocks tick with each view (25 a second), not each frame: a changing text costs a layout.
    if (!clocks) return;
    nodeClocks.each(function (d) {
      // A paused process's clock keeps running (it is the world's clock it reads); a down one's too.
      setText(this, clockText(clockAt(d.n.clockOffsetUs, d.n.driftPpm, now)));
    });
  }

  // ------------------------------------------------------------- holders

  function drawHolders(v: SimView, L: RingLayout): void {
    const data: HolderDatum[] = [];
    for (const h of v.holders) {
      const p = L.places.get(h.id);
      if (p === undefined) continue;
      data.push({ id: h.id, h, p, word: holderStateWord(h) });
    }
    const { w, h: hh } = L.holderSize;
    holderSel = gHolders
      .selectAll<SVGGElement, HolderDatum>("g.holder")
      .data(data, (d) => d.id)
      .join((enter) => {
        const g = enter.append("g").attr("class", "holder");
        asButton(g, (d) => ({ kind: "holder", id: d.id }), select);
        g.append("rect").attr("class", "focus-ring");
        g.append("rect").attr("class", "select-ring");
        g.append("rect").attr("class", "hl-ring");
        g.append("rect").attr("class", "paused-ring");
        g.append("rect").attr("class", "body");
        g.append("text").attr("class", "holder-id");
        g.append("text").attr("class", "holder-state");
        g.append("text").attr("class", "holder-token");
        g.append("text").attr("class", "status").attr("aria-hidden", "true");
        return g;
      });
    gHolders.classed("compact", L.compactHolders);
    const pad = (sel: d3.Selection<SVGRectElement, HolderDatum, SVGGElement, unknown>, k: number): void => {
      sel
        .attr("x", -w / 2 - k)
        .attr("y", -hh / 2 - k)
        .attr("width", w + 2 * k)
        .attr("height", hh + 2 * k)
        .attr("rx", 8 + k);
    };
    holderStatus = holderSel.select<SVGTextElement>(".status");
    const upd = changed(
      holderSel,
      (d) =>
        `${d.p.x},${d.p.y},${w},${hh},${L.compactHolders}|${d.word}|${d.h.status}|${d.h.token}|` +
        `${isSelected("holder", d.id)}|${marks.highlight.includes(d.id)}`,
    );
    upd
      .attr("transform", (d) => `translate(${d.p.x.toFixed(1)},${d.p.y.toFixed(1)})`)
      .attr("aria-label", (d) => holderLabel(d.h))
      .classed("is-down", (d) => d.h.status === "down")
      .classed("is-paused", (d) => d.h.status === "paused")
      .classed("is-selected", (d) => isSelected("holder", d.id))
      .classed("is-highlighted", (d) => marks.highlight.includes(d.id));
    upd.select<SVGRectElement>(".focus-ring").call(pad, 8);
    upd.select<SVGRectElement>(".select-ring").call(pad, 5.5);
    upd.select<SVGRectElement>(".hl-ring").call(pad, 3);
    upd.select<SVGRectElement>(".paused-ring").call(pad, 3);
    const fill = (d: HolderDatum): string => HOLDER_COLOR[d.word] ?? "#e4e4e4";
    upd.select<SVGRectElement>(".body").call(pad, 0).attr("fill", fill);
    const fg = (d: HolderDatum): string => textOn(fill(d));
    const top = -hh / 2;
    upd
      .select<SVGTextElement>(".holder-id")
      .attr("y", top + hh * 0.27)
      .attr("fill", fg)
      .each(function (d) {
        setText(this, d.h.status === "down" ? `✕ ${d.id}` : d.id);
      });
    upd
      .select<SVGTextElement>(".holder-state")
      .attr("y", top + hh * 0.56)
      .attr("fill", fg)
      .each(function (d) {
        setText(this, d.word);
        // Long words ("requesting") are squeezed into narrow boxes rather than spilling into the next one.
        if (L.compactHolders && d.word.length > 8) {
          this.setAttribute("textLength", String(w - 8));
          this.setAttribute("lengthAdjust", "spacingAndGlyphs");
        } else {
          this.removeAttribute("textLength");
        }
      });
    upd
      .select<SVGTextElement>(".holder-token")
      .attr("y", top + hh * 0.84)
      .attr("fill", fg)
      .each(function (d) {
        setText(this, d.h.token === null ? "no token" : `token ${d.h.token}`);
      });
    upd.select(".status").attr("y", hh / 2 + 11);
  }

  function frameHolders(now: number): void {
    holderStatus.each(function (d) {
      setText(this, d.h.status === "paused" ? pausedText(d.h.pausedUntil, now) : "");
    });
  }

  // ------------------------------------------------------------- storage

  function drawStorage(v: SimView, L: RingLayout): void {
    const s = v.storage;
    const p = s === null ? undefined : L.places.get(s.id);
    storageSel = gStorage
      .selectAll<SVGGElement, StorageView>("g.storage")
      .data(s === null || p === undefined ? [] : [s], (d) => d.id)
      .join((enter) => {
        const g = enter.append("g").attr("class", "storage");
        asButton(g, () => ({ kind: "storage" }), select);
        const body = "M-32,-28 v56 a32,9 0 0,0 64,0 v-56";
        const lid = "M-32,-28 a32,9 0 0,0 64,0 a32,9 0 0,0 -64,0 Z";
        g.append("rect").attr("class", "focus-ring").attr("x", -44).attr("y", -48).attr("width", 88).attr("height", 96).attr("rx", 14);
        g.append("rect").attr("class", "select-ring").attr("x", -40).attr("y", -44).attr("width", 80).attr("height", 88).attr("rx", 12);
        g.append("rect").attr("class", "hl-ring").attr("x", -37).attr("y", -41).attr("width", 74).attr("height", 82).attr("rx", 10);
        g.append("rect").attr("class", "paused-ring").attr("x", -37).attr("y", -41).attr("width", 74).attr("height", 82).attr("rx", 10);
        g.append("path").attr("class", "body").attr("d", body);
        g.append("path").attr("class", "lid").attr("d", lid);
        g.append("text").attr("class", "storage-kind").attr("y", 2).text("storage");
        g.append("text").attr("class", "storage-id").attr("y", 20);
        g.append("text").attr("class", "fencing").attr("y", 56);
        g.append("text").attr("class", "counts").attr("y", 72).attr("aria-hidden", "true");
        g.append("text").attr("class", "status").attr("y", 88).attr("aria-hidden", "true");
        return g;
      });
    if (p === undefined) return;
    storageSel
      .attr("transform", `translate(${p.x},${p.y})`)
      .attr("aria-label", (d) => storageLabel(d))
      .classed("is-down", (d) => d.status === "down")
      .classed("is-paused", (d) => d.status === "paused")
      .classed("is-selected", isSelected("storage"))
      .classed("is-highlighted", (d) => marks.highlight.includes(d.id))
      .classed("fencing-off", (d) => !d.fencing);
    storageSel.select<SVGTextElement>(".storage-id").each(function (d) {
      setText(this, d.status === "down" ? `✕ ${d.id}` : d.id);
    });
    storageSel.select<SVGTextElement>(".fencing").each(function (d) {
      setText(this, d.fencing ? "✓ fencing on" : "✕ fencing off");
    });
    storageSel.select<SVGTextElement>(".counts").each(function (d) {
      setText(this, `${d.accepted} ok · ${d.rejected} rejected`);
    });
  }

  function frameStorage(now: number): void {
    storageSel.select<SVGTextElement>(".status").each(function (d) {
      setText(this, d.status === "paused" ? pausedText(null, now) : d.status === "down" ? "down" : "");
    });
  }

  // ------------------------------------------------------------- messages

  function drawMessages(v: SimView, L: RingLayout): void {
    const labelled = labelledMessages(v.messages);
    const qi = queueIndexes(v.messages);
    const waiting = new Map<string, number>();
    for (const m of v.messages) if (m.queued) waiting.set(m.to, (waiting.get(m.to) ?? 0) + 1);
    const data: MessageDatum[] = [];
    for (const m of v.messages) {
      const a = L.places.get(m.from);
      const b = L.places.get(m.to);
      if (a === undefined || b === undefined) continue;
      const i = qi.get(m.id) ?? 0;
      const q = m.queued ? queuedPosition(b, i) : null;
      // A waiting stack gets one label, at its far end: how many wait.
      const n = waiting.get(m.to) ?? 0;
      const focused = marks.focus === m.id;
      const label =
        m.queued && !focused ? (i === n - 1 ? `${n} waiting` : "") : labelled.has(m.id) || focused ? `${m.label}${m.dup ? " ×2" : ""}` : "";
      data.push({ id: m.id, m, seg: linkSegment(a, b), q, label });
    }
    msgSel = gMsgs
      .selectAll<SVGGElement, MessageDatum>("g.msg")
      .data(data, (d) => d.id)
      .join((enter) => {
        const g = enter.append("g").attr("class", "msg");
        g.on("click", (_e: MouseEvent, d: MessageDatum) => select({ kind: "message", id: d.id }));
        g.on("pointerenter", (_e: PointerEvent, d: MessageDatum) => callbacks.focus?.(d.id));
        g.on("pointerleave", (_e: PointerEvent, d: MessageDatum) => {
          if (marks.focus === d.id) callbacks.focus?.(null);
        });
        g.append("circle").attr("class", "hit").attr("r", 12);
        g.append("circle").attr("class", "foc").attr("r", 10.5);
        g.append("circle").attr("class", "sel").attr("r", 9);
        g.append("circle").attr("class", "dot").attr("r", 5.5);
        g.append("text").attr("class", "stop").attr("y", 1).text("✕");
        g.append("text").attr("class", "mlabel").attr("x", 8).attr("y", -6);
        g.append("title");
        return g;
      });
    // Message ids restart with each run, so the key covers everything drawn from the message itself.
    const upd = changed(
      msgSel,
      (d) =>
        `${d.label}|${d.m.label}|${d.m.from}>${d.m.to}|${d.m.fate}|${d.m.dup}|${d.m.detail}|${d.m.queued}|${d.q?.x},${d.q?.y}|${isSelected("message", d.id)}|${marks.focus === d.id}`,
    );
    upd
      .classed("is-queued", (d) => d.q !== null)
      .classed("is-dup", (d) => d.m.dup)
      .classed("is-selected", (d) => isSelected("message", d.id))
      .classed("is-focus", (d) => marks.focus === d.id);
    upd.select(".dot").attr("fill", (d) => messageColor(d.m.label));
    upd.select<SVGTextElement>(".mlabel").each(function (d) {
      setText(this, d.label);
    });
    upd.select<SVGTitleElement>("title").each(function (d) {
      const m = d.m;
      const fate = m.fate === "ok" ? "" : m.fate === "loss" ? " (will be lost)" : ` (blocked: ${m.fate})`;
      const extra = `${m.dup ? " (duplicate)" : ""}${m.queued ? " (waiting at a paused process)" : ""}`;
      setText(this, `${m.label} ${m.from} → ${m.to}${fate}${extra}: ${m.detail}. Click to inspect.`);
    });
  }

  function frameMessages(now: number): void {
    msgSel.each(function (d) {
      let x: number;
      let y: number;
      let opacity = 1;
      let stopped = false;
      if (d.q !== null) {
        x = d.q.x;
        y = d.q.y;
      } else {
        const tr = messageTravel(d.m, now);
        const p = pointAt(d.seg, tr.t);
        x = p.x;
        y = p.y;
        opacity = tr.opacity;
        stopped = tr.stopped;
      }
      const t = `translate(${x.toFixed(1)},${y.toFixed(1)})`;
      if (this.getAttribute("transform") !== t) this.setAttribute("transform", t);
      const o = opacity.toFixed(2);
      if (this.getAttribute("opacity") !== o) this.setAttribute("opacity", o);
      const stopClass = this.classList.contains("is-stopped");
      if (stopClass !== stopped) this.classList.toggle("is-stopped", stopped);
    });
  }

  // ------------------------------------------------------------- drops

  function drawDrops(v: SimView, L: RingLayout): void {
    const data: DropDatum[] = [];
    for (const d of v.drops) {
      const a = L.places.get(d.from);
      const b = L.places.get(d.to);
      if (a === undefined || b === undefined) continue;
      data.push({ id: d.id, d, pos: pointAt(linkSegment(a, b), dropT(d.reason)) });
    }
    dropSel = gDrops
      .selectAll<SVGGElement, DropDatum>("g.drop")
      .data(data, (d) => d.id)
      .join((enter) => {
        const g = enter.append("g").attr("class", "drop");
        g.append("text").attr("class", "drop-x").attr("y", 1).text("✕");
        g.append("text").attr("class", "drop-why").attr("y", 16);
        return g;
      });
    const t = (d: DropDatum): string => `translate(${d.pos.x.toFixed(1)},${d.pos.y.toFixed(1)})`;
    dropSel.each(function (d) {
      const v = t(d);
      if (this.getAttribute("transform") !== v) this.setAttribute("transform", v);
    });
    // Words for the newest drop on each link only, and none when many drop at once (a partition of
    // a big cluster): the ✕s say enough, and words would pile up.
    const newest = new Map<string, number>();
    for (const x of data) {
      const k = `${x.d.from}>${x.d.to}`;
      if ((newest.get(k) ?? -1) < x.id) newest.set(k, x.id);
    }
    const words = newest.size <= DROP_WORDS_UP_TO;
    dropSel.select<SVGTextElement>(".drop-why").each(function (d) {
      // A message to a crashed node needs no words: the node is drawn down, and the ✕ says enough.
      const say = words && d.d.reason !== "down" && newest.get(`${d.d.from}>${d.d.to}`) === d.id;
      setText(this, say ? `${d.d.label} ${dropText(d.d.reason)}` : "");
    });
  }

  function frameDrops(v: SimView, now: number): void {
    dropSel.each(function (d) {
      const o = dropOpacity(d.d.droppedAt, now, v.speed).toFixed(2);
      if (this.getAttribute("opacity") !== o) this.setAttribute("opacity", o);
    });
  }

  // ------------------------------------------------------------- frames and the loop

  /** Draws the moving parts at the display time; `clocks` also redraws the clock readings (once per view). */
  function frame(perfNow: number, clocks: boolean): void {
    if (view === null) return;
    const now = displayNow(view, received, perfNow);
    frameNodes(now, clocks);
    frameHolders(now);
    frameStorage(now);
    frameMessages(now);
    frameDrops(view, now);
  }

  function wantLoop(): boolean {
    return !destroyed && view !== null && view.playing && document.visibilityState === "visible";
  }

  function tick(t: number): void {
    raf = 0;
    if (!wantLoop()) return;
    frame(t, false);
    // Past the quarter second of lead nothing moves until the next view: stop until then.
    if (t - received <= LEAD_MS + 50) raf = requestAnimationFrame(tick);
  }

  function schedule(): void {
    if (wantLoop()) {
      if (raf === 0) raf = requestAnimationFrame(tick);
    } else if (raf !== 0) {
      cancelAnimationFrame(raf);
      raf = 0;
    }
  }

  const onVisibility = (): void => {
    if (document.visibilityState === "visible") frame(performance.now(), true);
    schedule();
  };
  document.addEventListener("visibilitychange", onVisibility);

  return {
    update(v: SimView, receivedAtMs: number, m: RingMarks = NO_MARKS): void {
      if (destroyed) return;
      view = v;
      received = receivedAtMs;
      marks = m;
      const storageId = v.storage?.id ?? null;
      const clients = clientIdsOf(v);
      const key = layoutKey(
        v.nodes.map((n) => n.id),
        v.holders.map((h) => h.id),
        storageId,
        clients,
      );
      if (key !== layoutK || layout === null) {
        layout = computeLayout(
          v.nodes.map((n) => n.id),
          v.holders.map((h) => h.id),
          storageId,
          clients,
        );
        layoutK = key;
        root.attr("viewBox", `0 0 ${layout.width} ${layout.height}`);
        drawClients(layout);
      }
      const L = layout;
      drawNetwork(v, L);
      drawNodes(v, L);
      drawHolders(v, L);
      drawStorage(v, L);
      drawMessages(v, L);
      drawDrops(v, L);
      captionText.text(networkCaption(v.network));
      frame(performance.now(), true);
      schedule();
    },
    destroy(): void {
      destroyed = true;
      if (raf !== 0) cancelAnimationFrame(raf);
      raf = 0;
      document.removeEventListener("visibilitychange", onVisibility);
      root.selectAll("*").remove();
    },
  };
}
