/**
 * The space-time diagram's message arrows. Finished messages are joined only when the
 * list, the zoom or the culling range changes (very many become a few batched paths);
 * those still on the wire are joined on every view and end at the cursor, with a dot.
 */
import type { DiagramMessage } from "../../worker/protocol";
import { isNew, r1, setAttr } from "../draw/dom";
import { messageColor } from "../theme";
import {
  type Arrow,
  BATCH_ABOVE,
  type Batch,
  batchArrows,
  DENSE_ABOVE,
  DENSE_HEAD,
  FINE_HEAD,
  finishedArrow,
  type HeadSize,
  visibleArrows,
} from "./arrows";
import type { SpaceTimeData } from "./input";
import { type Lanes, localY, type TimeScale, type ViewWindow } from "./layout";
import type { Parts } from "./scaffold";

export interface DrawnArrow {
  readonly a: Arrow;
  /** The finished message it was drawn from (null for one in flight): unchanged object, unchanged arrow. */
  readonly src: DiagramMessage | null;
  readonly color: string;
  /** Local coordinates (inside the translated group). */
  readonly x1: number;
  readonly y1: number;
  readonly x2: number;
  readonly y2: number;
}

/** What a view drew: every arrow in the DOM, and how many of them the window shows. */
export interface DrawnArrows {
  readonly arrows: readonly DrawnArrow[];
  readonly shown: number;
}

/** A batch of one quarter of the window, and what it was made from (unchanged: the path is left alone). */
export interface KeyedBatch extends Batch {
  readonly sig: string;
}

/**
 * Batches the arrows by the quarter of the window they start in, and remembers each
 * quarter's batches: a quarter whose arrows are the same as last time (same count, same
 * ids) is not batched again. New messages land in the last quarters, so a view rebuilds
 * one or two quarters' paths, not all of them.
 */
export function quarterBatches(): { of(list: readonly DrawnArrow[], q: number, key: string, head: HeadSize): KeyedBatch[] } {
  let cacheKey = "";
  let cache = new Map<number, { sig: string; batches: KeyedBatch[] }>();
  return {
    of(list, q, key, head) {
      const k = `${key}|${q}`;
      if (k !== cacheKey) {
        cacheKey = k;
        cache = new Map();
      }
      const byQuarter = new Map<number, DrawnArrow[]>();
      for (const x of list) {
        const i = Math.floor(x.a.tFrom / q);
        let g = byQuarter.get(i);
        if (g === undefined) {
          g = [];
          byQuarter.set(i, g);
        }
        g.push(x);
      }
      const next = new Map<number, { sig: string; batches: KeyedBatch[] }>();
      const out: KeyedBatch[] = [];
      for (const i of [...byQuarter.keys()].sort((a, b) => a - b)) {
        const g = byQuarter.get(i) as DrawnArrow[];
        let sum = 0;
        for (const x of g) sum += x.a.id;
        const sig = `${k}|${i}|${g.length}|${sum}|${(g.at(-1) as DrawnArrow).a.id}`;
        let hit = cache.get(i);
        if (hit === undefined || hit.sig !== sig) {
          const made = batchArrows(
            g.map((x) => ({ x1: x.x1, y1: x.y1, x2: x.x2, y2: x.y2, color: x.color, dropped: x.a.state === "dropped" })),
            head,
          );
          hit = { sig, batches: made.map((b) => ({ ...b, key: `${i}|${b.key}`, sig: `${sig}|${b.key}` })) };
        }
        next.set(i, hit);
        out.push(...hit.batches);
      }
      cache = next;
      return out;
    },
  };
}

export interface ArrowLayer {
  draw(d: SpaceTimeData, L: Lanes, s: TimeScale, w: ViewWindow, geomKey: string): DrawnArrows;
}

export function createArrowLayer(p: Parts): ArrowLayer {
  const drawnArrowFrom = new WeakMap<Element, { src: DiagramMessage | null; geom: string }>();
  let finishedFrom: { list: SpaceTimeData["finished"]; geom: string; c0: number; c1: number } | null = null;
  let finishedDrawn: DrawnArrow[] = [];
  let finishedIds = new Set<number>();
  const batches = quarterBatches();

  /**
   * Finished messages: joined only when the list, the zoom or the culling range changes.
   * The range is the window plus a quarter of it on each side, in quarter steps, so a
   * sliding window rejoins four times per span instead of every view.
   */
  function drawFinished(d: SpaceTimeData, L: Lanes, s: TimeScale, w: ViewWindow, geomKey: string): void {
    const q = (w.t1 - w.t0) / 4;
    const c0 = Math.floor(w.t0 / q) * q - q;
    const c1 = Math.ceil(w.t1 / q) * q + q;
    const f = finishedFrom;
    if (f !== null && f.list === d.finished && f.geom === geomKey && f.c0 === c0 && f.c1 === c1) return;
    finishedFrom = { list: d.finished, geom: geomKey, c0, c1 };
    const list: DrawnArrow[] = [];
    for (const m of d.finished) {
      if (m.sentAt > c1 || m.endAt < c0) continue;
      const a = finishedArrow(m, L.byId);
      if (a === null) continue;
      list.push({ a, src: m, color: messageColor(a.label), x1: a.xFrom, y1: localY(a.tFrom, s), x2: a.xEnd, y2: localY(a.tEnd, s) });
    }
    finishedDrawn = list;
    finishedIds = new Set(finishedDrawn.map((x) => x.a.id));
    // Many arrows: a few batched paths per quarter of the window instead of an element each.
    const batched = list.length > BATCH_ABOVE;
    const dense = list.length > DENSE_ABOVE;
    const perMessage = batched ? [] : list;
    p.content.classed("is-dense", dense);
    p.dense.classed("is-fine", batched && !dense);
    p.dense
      .selectAll<SVGPathElement, KeyedBatch>("path")
      .data(batched ? batches.of(list, q, `${geomKey}|${dense}`, dense ? DENSE_HEAD : FINE_HEAD) : [], (b) => b.key)
      .join((enter) => enter.append("path"))
      .each(function (b) {
        // A quarter whose arrows did not change keeps its paths as they are.
        if (!isNew(this, b.sig)) return;
        setAttr(this, "class", `st-batch st-batch-${b.kind}`);
        if (b.kind === "line" || b.kind === "dropped") setAttr(this, "stroke", b.color);
        else this.removeAttribute("stroke");
        if (b.kind === "head") setAttr(this, "fill", b.color);
        else this.removeAttribute("fill");
        setAttr(this, "d", b.d);
      });
    // Enter, update and exit without reordering: new messages come last in the list and are appended last.
    const upd = p.msgs.selectAll<SVGPathElement, DrawnArrow>("path.st-msg").data(perMessage, (x) => x.a.id);
    upd.exit().remove();
    upd
      .enter()
      .append("path")
      .merge(upd)
      .each(function (x) {
        paintArrow(this, x, geomKey);
      });
    // A ✕ where each dropped message died.
    const dropped = perMessage.filter((x) => x.a.state === "dropped");
    const drops = p.drops.selectAll<SVGPathElement, DrawnArrow>("path.st-drop").data(dropped, (x) => x.a.id);
    drops.exit().remove();
    drops
      .enter()
      .append("path")
      .attr("class", "st-drop")
      .merge(drops)
      .each(function (x) {
        setAttr(this, "d", `M${r1(x.x2 - 4.5)},${r1(x.y2 - 4.5)}l9,9m0,-9l-9,9`);
      });
  }

  /** Writes one arrow's attributes, unless it was last drawn from the same message with the same geometry. */
  function paintArrow(el: SVGPathElement, x: DrawnArrow, geomKey: string): void {
    const a = x.a;
    // A finished message is immutable: the same object with the same geometry draws the same arrow.
    const prev = drawnArrowFrom.get(el);
    if (x.src !== null && prev !== undefined && prev.src === x.src && prev.geom === geomKey) return;
    const sig = `${geomKey}|${a.id}|${a.state}|${a.label}|${a.xFrom}|${a.tFrom}|${a.xEnd}|${a.tEnd}|${a.reason}|${a.dup}`;
    drawnArrowFrom.set(el, { src: x.src, geom: geomKey });
    if (!isNew(el, sig)) return;
    const doomed = a.reason !== null && a.state === "flight";
    setAttr(el, "class", `st-msg is-${a.state}${doomed ? " is-doomed" : ""}${a.dup ? " is-dup" : ""}`);
    setAttr(el, "d", `M${r1(x.x1)},${r1(x.y1)}L${r1(x.x2)},${r1(x.y2)}`);
    setAttr(el, "stroke", x.color);
    setAttr(el, "data-id", String(a.id));
    if (a.state === "delivered" || a.state === "queued") setAttr(el, "marker-end", `url(#${p.headId(x.color)})`);
    else el.removeAttribute("marker-end");
  }

  /** Messages still on the wire (few): joined on every view, they end at the cursor. */
  function drawFlight(d: SpaceTimeData, L: Lanes, s: TimeScale, w: ViewWindow, geomKey: string): DrawnArrow[] {
    const flight = visibleArrows([], d.inFlight, L.byId, w, d.now)
      .filter((a) => !finishedIds.has(a.id))
      .map((a) => {
        const color = messageColor(a.label);
        return { a, src: null, color, x1: a.xFrom, y1: localY(a.tFrom, s), x2: a.xEnd, y2: localY(a.tEnd, s) };
      });
    p.flight
      .selectAll<SVGPathElement, DrawnArrow>("path.st-msg")
      .data(flight, (x) => x.a.id)
      .join((enter) => enter.append("path"))
      .each(function (x) {
        paintArrow(this, x, geomKey);
      });
    // A dot at the head of each message still on the wire.
    p.heads
      .selectAll<SVGCircleElement, DrawnArrow>("circle.st-head")
      .data(
        flight.filter((x) => x.a.state === "flight"),
        (x) => x.a.id,
      )
      .join((enter) => enter.append("circle").attr("class", "st-head").attr("r", 4.5))
      .each(function (x) {
        setAttr(this, "cx", r1(x.x2));
        setAttr(this, "cy", r1(x.y2));
        setAttr(this, "fill", x.color);
        setAttr(this, "class", `st-head${x.a.reason !== null ? " is-doomed" : ""}`);
      });
    return flight;
  }

  return {
    draw(d: SpaceTimeData, L: Lanes, s: TimeScale, w: ViewWindow, geomKey: string): DrawnArrows {
      drawFinished(d, L, s, w, geomKey);
      const flight = drawFlight(d, L, s, w, geomKey);
      // The summary counts what the window shows (the DOM also holds a margin around it).
      let n = flight.length;
      for (const x of finishedDrawn) if (x.a.tFrom <= w.t1 && x.a.tEnd >= w.t0) n++;
      return { arrows: flight.length === 0 ? finishedDrawn : finishedDrawn.concat(flight), shown: n };
    },
  };
}
