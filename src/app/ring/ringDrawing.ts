/**
 * The cluster ring as a framework-free d3 drawing (the xyflow split: React owns the
 * <svg> element, this owns everything inside it).
 *
 * `update(view, receivedAtMs, marks)` joins the view's nodes, holders, storage,
 * messages and drops (keyed, so elements are reused from view to view) and draws one
 * frame. While the run plays and the page is visible, the shared animation loop
 * (draw/frames.ts) moves messages, timer arcs, clocks and countdowns between views; it
 * only sets attributes, it never joins. Every frame is a pure function of (view,
 * display now).
 *
 * Each layer draws its own part (networkLayer; nodeLayer; holderLayer: holders and the
 * storage; messageLayer: messages and drops); what pointer and keyboard do is in
 * ringPointer.ts.
 */
import * as d3 from "d3-selection";
import type { InspectTarget, SimView } from "../../worker/protocol";
import { createFrames } from "../draw/frames";
import { OKABE_ITO } from "../theme";
import { clientIdsOf, computeLayout, displayNow, LEAD_MS, layoutKey, networkCaption, type RingLayout } from "./geometry";
import { createHolderLayer, createStorageLayer } from "./holderLayer";
import { fixedObstacles, nodeLines } from "./labels";
import { readsLinesOf } from "./readsWords";
import { NO_MARKS, type RingLayer, type RingMarks } from "./layer";
import { createDropLayer, createMessageLayer } from "./messageLayer";
import { createMomentLayer } from "./momentLayer";
import { createNetworkLayer } from "./networkLayer";
import { createNodeLayer } from "./nodeLayer";

export type { RingMarks } from "./layer";

export interface RingCallbacks {
  /** Opens the inspector on a node, holder, the storage or a message. */
  readonly select: (target: InspectTarget) => void;
  /** The pointer entered (id) or left (null) a message: it is highlighted here and in the space-time diagram. */
  readonly focus?: (id: number | null) => void;
}

export interface RingDrawing {
  update(view: SimView, receivedAtMs: number, marks?: RingMarks): void;
  /** Whether the drawing is on screen: off screen nothing moves between views (the panel redraws it now and then). */
  setOnScreen(seen: boolean): void;
  destroy(): void;
}

let drawingCount = 0;

/** The <svg>'s children, back to front, and the layers that draw into them. */
function createLayers(svg: SVGSVGElement, uid: string, callbacks: RingCallbacks) {
  const root = d3.select(svg);
  root.selectAll("*").remove();
  root.attr("preserveAspectRatio", "xMidYMin meet");
  root
    .append("defs")
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
  const group = (cls: string, hidden = true) => {
    const g = root.append("g").attr("class", cls);
    return hidden ? g.attr("aria-hidden", "true") : g;
  };
  const net = group("ring-net");
  const links = group("ring-links");
  const clients = group("ring-clients", false);
  // Messages pass under the processes (they leave and enter at the edge, and their labels never cover a node's id).
  const msgs = group("ring-messages");
  const nodes = group("ring-nodes", false);
  const holders = group("ring-holders", false);
  const storage = group("ring-storage", false);
  const drops = group("ring-drops");
  const netLabels = group("ring-net-labels");
  // Key moments on top of everything: a flash and a callout (momentLayer.ts).
  const moments = group("ring-moments");
  const caption = group("ring-caption").append("text").attr("class", "caption").attr("x", 8).attr("y", 18);
  const select = (t: InspectTarget): void => callbacks.select(t);
  const layers: readonly RingLayer[] = [
    createNetworkLayer({ net, links, clients, labels: netLabels }, `${uid}-arrow`, select),
    createNodeLayer(nodes, select),
    createHolderLayer(holders, select),
    createStorageLayer(storage, select),
    // The moment's callout, then drops, then messages: each takes its spot on the frame's board first (labels.ts).
    createMomentLayer(moments),
    createDropLayer(drops),
    createMessageLayer(msgs, { select, focus: (id) => callbacks.focus?.(id) }),
  ];
  return { root, caption, layers };
}

export function createRingDrawing(svg: SVGSVGElement, callbacks: RingCallbacks): RingDrawing {
  const { root, caption, layers } = createLayers(svg, `ring${++drawingCount}`, callbacks);

  let view: SimView | null = null;
  let received = 0;
  let layout: RingLayout | null = null;
  let layoutK = "";
  let destroyed = false;
  let onScreen = true;

  /** Draws the moving parts at the display time; `clocks` also redraws the clock readings (once per view). */
  function frame(perfNow: number, clocks: boolean): void {
    if (view === null) return;
    const now = displayNow(view, received, perfNow);
    // The text already on the drawing; each layer that places words keeps off it and adds its own.
    const board = layout === null ? [] : fixedObstacles(layout, nodeLines(view.nodes), readsLinesOf(view.nodes));
    for (const l of layers) l.frame(view, now, clocks, board);
  }

  function wantLoop(): boolean {
    return !destroyed && onScreen && view?.playing === true && document.visibilityState === "visible";
  }

  const frames = createFrames((t) => {
    if (!wantLoop()) return;
    frame(t, false);
    // Past the quarter second of lead nothing moves until the next view: stop until then.
    if (t - received <= LEAD_MS + 50) frames.next();
  });

  function schedule(): void {
    if (wantLoop()) frames.next();
    else frames.cancel();
  }

  const onVisibility = (): void => {
    if (document.visibilityState === "visible") frame(performance.now(), true);
    schedule();
  };
  document.addEventListener("visibilitychange", onVisibility);

  /** The layout for the view's processes: the same one while they stay. */
  function layoutFor(v: SimView): RingLayout {
    const nodes = v.nodes.map((n) => n.id);
    const holders = v.holders.map((h) => h.id);
    const storageId = v.storage?.id ?? null;
    const clients = clientIdsOf(v);
    const key = layoutKey(nodes, holders, storageId, clients);
    if (key !== layoutK || layout === null) {
      layout = computeLayout(nodes, holders, storageId, clients);
      layoutK = key;
      root.attr("viewBox", `0 0 ${layout.width} ${layout.height}`);
    }
    return layout;
  }

  return {
    update(v: SimView, receivedAtMs: number, m: RingMarks = NO_MARKS): void {
      if (destroyed) return;
      view = v;
      received = receivedAtMs;
      const L = layoutFor(v);
      for (const l of layers) l.draw(v, L, m);
      caption.text(networkCaption(v.network));
      frame(performance.now(), true);
      schedule();
    },
    setOnScreen(seen: boolean): void {
      if (seen === onScreen) return;
      onScreen = seen;
      schedule();
    },
    destroy(): void {
      destroyed = true;
      frames.cancel();
      document.removeEventListener("visibilitychange", onVisibility);
      root.selectAll("*").remove();
    },
  };
}
