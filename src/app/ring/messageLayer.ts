/**
 * The ring's messages and drops. A message is a dot on its link, placed each frame from
 * its send and delivery times (geometry.ts: messageTravel), or stacked at a paused
 * receiver; a drop is a ✕ on the link that fades out, with words for the newest few.
 */
import * as d3 from "d3-selection";
import type { DropView, MessageView, SimView } from "../../worker/protocol";
import { changed, type G, setAttr } from "../draw/dom";
import { inLeaseStory, messageColor, messageKind } from "../theme";
import { dropOpacity, dropT, dropText, labelledMessages, messageTravel, type Pt, queuedPosition, queueIndexes, type RingLayout } from "./geometry";
import { type Box, type LabelWish, leaderEnd, placeRingLabels, textBox } from "./labels";
import { isSelected, NO_MARKS, type RingLayer, type RingMarks, setClass, setWords } from "./layer";
import { messageRoute, type Route, routeAt } from "./routes";
import { asMessageTarget, type MessagePointer } from "./ringPointer";

interface MessageDatum {
  readonly id: number;
  readonly m: MessageView;
  readonly route: Route;
  /** Waiting at a paused receiver: drawn here, not on the link. */
  readonly q: Pt | null;
  /** The text beside the dot ("" for none). */
  readonly label: string;
  /** Which labels win a crowded spot: the focused or selected message, then lease and storage ones. */
  readonly priority: number;
}

interface DropDatum {
  readonly id: number;
  readonly d: DropView;
  readonly pos: Pt;
  /** The words under the ✕ ("" for none). */
  readonly words: string;
}

const SVG_NS = "http://www.w3.org/2000/svg";
/** At most this many elements of delivered messages are kept for reuse. */
const MAX_SPARES = 400;

/** Drops get words ("append lost") only while there are at most this many. */
const DROP_WORDS_UP_TO = 12;

type Group = d3.Selection<SVGGElement, unknown, null, undefined>;

/** A label where placeRingLabels put it, or hidden ("no-room") when it found no spot; attributes only written when they change. */
function showPlaced(el: SVGTextElement, p: { readonly dx: number; readonly dy: number } | undefined): void {
  setClass(el, "no-room", p === undefined);
  if (p === undefined) return;
  const x = p.dx.toFixed(1);
  const y = p.dy.toFixed(1);
  if (el.getAttribute("x") !== x) el.setAttribute("x", x);
  if (el.getAttribute("y") !== y) el.setAttribute("y", y);
}

/** The messages drawn: all, or in the "Lease story" view only those of the lease story (and the selected or focused one). */
export function shownMessages(v: SimView, marks: RingMarks): readonly MessageView[] {
  if (marks.leaseStory !== true) return v.messages;
  const lease = leaseProcesses(v);
  return v.messages.filter((m) => inLeaseStory(m, lease) || marks.focus === m.id || isSelected(marks, "message", m.id));
}

/** The holders and the storage: what the lease story is about. */
export function leaseProcesses(v: Pick<SimView, "holders" | "storage">): ReadonlySet<string> {
  const out = new Set(v.holders.map((h) => h.id));
  if (v.storage !== null) out.add(v.storage.id);
  return out;
}

/** Half the side of the box round a dot (the labels keep off the dots too). */
const DOT_R = 6.5;

/** Where each message element was last put: tenths of a unit and hundredths of opacity. */
interface Placed {
  x: number;
  y: number;
  o: number;
}
const placedAt = new WeakMap<Element, Placed>();

/** Moves a message's element, writing only what changed at the precision drawn (a tenth of a unit, a hundredth of opacity), with no string made for a frame that changes nothing. */
function place(el: Element, x: number, y: number, opacity: number): void {
  const xi = Math.round(x * 10);
  const yi = Math.round(y * 10);
  const oi = Math.round(opacity * 100);
  let p = placedAt.get(el);
  if (p === undefined) {
    p = { x: Number.NaN, y: Number.NaN, o: Number.NaN };
    placedAt.set(el, p);
  }
  if (p.x !== xi || p.y !== yi) {
    p.x = xi;
    p.y = yi;
    setAttr(el, "transform", `translate(${(xi / 10).toFixed(1)},${(yi / 10).toFixed(1)})`);
  }
  if (p.o !== oi) {
    p.o = oi;
    setAttr(el, "opacity", (oi / 100).toFixed(2));
  }
}

/** A message's element with its parts, not yet in the page (its handlers read the datum bound when an event comes). */
function makeMessage(pointer: MessagePointer): SVGGElement {
  const g = d3.select(document.createElementNS(SVG_NS, "g")).attr("class", "msg") as unknown as G<MessageDatum>;
  asMessageTarget(g, pointer);
  g.append("line").attr("class", "leader");
  g.append("circle").attr("class", "hit").attr("r", 12);
  g.append("circle").attr("class", "foc").attr("r", 10.5);
  g.append("circle").attr("class", "sel").attr("r", 9);
  g.append("circle").attr("class", "dot").attr("r", 5.5);
  g.append("text").attr("class", "stop").attr("y", 1).text("✕");
  g.append("text").attr("class", "mlabel").attr("x", 8).attr("y", -8);
  g.append("title");
  return g.node() as SVGGElement;
}

/** `on`: what clicking and pointing at a message do (a message leaving clears only the focus the last view had). */
export function createMessageLayer(gMsgs: Group, on: Omit<MessagePointer, "focused">): RingLayer {
  let msgSel: G<MessageDatum> = gMsgs.selectAll<SVGGElement, MessageDatum>("g.msg");
  // The parts the animation frames touch, picked once per view.
  let leaders = msgSel.select<SVGLineElement>(".leader");
  let labels = msgSel.select<SVGTextElement>(".mlabel");
  let drawnWith: RingMarks = NO_MARKS;
  /** The drawing's viewBox: labels stay inside it. */
  let bounds: Box | undefined;
  const pointer: MessagePointer = { ...on, focused: () => drawnWith.focus };
  /** Elements of delivered messages, kept (out of the page) for the next ones sent. */
  const spares: SVGGElement[] = [];


  function drawMessages(v: SimView, L: RingLayout, marks: RingMarks): void {
    const shown = shownMessages(v, marks);
    const labelled = labelledMessages(shown);
    const qi = queueIndexes(shown);
    const waiting = new Map<string, number>();
    for (const m of shown) if (m.queued) waiting.set(m.to, (waiting.get(m.to) ?? 0) + 1);
    const data: MessageDatum[] = [];
    for (const m of shown) {
      const a = L.places.get(m.from);
      const b = L.places.get(m.to);
      const route = messageRoute(m.from, m.to, L);
      if (a === undefined || b === undefined || route === null) continue;
      const i = qi.get(m.id) ?? 0;
      const q = m.queued ? queuedPosition(b, i) : null;
      // A waiting stack gets one label, at its far end: how many wait.
      const n = waiting.get(m.to) ?? 0;
      const focused = marks.focus === m.id;
      const label =
        m.queued && !focused ? (i === n - 1 ? `${n} waiting` : "") : labelled.has(m.id) || focused ? `${m.label}${m.dup ? " ×2" : ""}` : "";
      const kind = messageKind(m.label);
      const priority = focused || isSelected(marks, "message", m.id) ? 3 : kind === "lease" || kind === "storage" ? 2 : m.queued ? 1 : 0;
      data.push({ id: m.id, m, route, q, label, priority });
    }
    msgSel = gMsgs
      .selectAll<SVGGElement, MessageDatum>("g.msg")
      .data(data, (d) => d.id)
      .join(
        // A message that arrives takes the element of one delivered earlier (its parts, handlers and, when it looks
        // the same, its drawing): only the first messages in flight make elements.
        (enter) => enter.append(() => spares.pop() ?? makeMessage(pointer)),
        (update) => update,
        (exit) =>
          exit.each(function () {
            this.remove();
            if (spares.length < MAX_SPARES) spares.push(this);
          }),
      );
    leaders = msgSel.select<SVGLineElement>(".leader");
    labels = msgSel.select<SVGTextElement>(".mlabel");
    // Message ids restart with each run, so the key covers everything drawn from the message itself.
    const upd = changed(
      msgSel,
      (d) =>
        `${d.label}|${d.m.label}|${d.m.from}>${d.m.to}|${d.m.fate}|${d.m.dup}|${d.m.detail}|${d.m.queued}|${d.q?.x},${d.q?.y}|${isSelected(marks, "message", d.id)}|${marks.focus === d.id}`,
    );
    upd.each(function (d) {
      setClass(this, "is-queued", d.q !== null);
      setClass(this, "is-dup", d.m.dup);
      setClass(this, "is-selected", isSelected(marks, "message", d.id));
      setClass(this, "is-focus", marks.focus === d.id);
    });
    upd.select<SVGCircleElement>(".dot").each(function (d) {
      setAttr(this, "fill", messageColor(d.m.label));
    });
    upd.select<SVGTextElement>(".mlabel").each(function (d) {
      setWords(this, d.label);
    });
    upd.select<SVGTitleElement>("title").each(function (d) {
      const m = d.m;
      const fate = m.fate === "ok" ? "" : m.fate === "loss" ? " (will be lost)" : ` (blocked: ${m.fate})`;
      const extra = `${m.dup ? " (duplicate)" : ""}${m.queued ? " (waiting at a paused process)" : ""}`;
      setWords(this, `${m.label} ${m.from} → ${m.to}${fate}${extra}: ${m.detail}. Click to inspect.`);
    });
  }

  function frameMessages(now: number, board: Box[]): void {
    const wishes: LabelWish[] = [];
    const dots: Box[] = [];
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
        const p = routeAt(d.route, tr.t);
        x = p.x;
        y = p.y;
        opacity = tr.opacity;
        stopped = tr.stopped;
      }
      place(this, x, y, opacity);
      setClass(this, "is-stopped", stopped);
      dots.push({ x: x - DOT_R, y: y - DOT_R, w: 2 * DOT_R, h: 2 * DOT_R });
      if (d.label !== "") wishes.push({ id: d.id, at: { x, y }, text: d.label, priority: d.priority, font: d.priority === 3 ? 14.5 : undefined });
    });
    // Labels go where they cover nothing, other dots included (labels.ts); one with no free spot is left out, its dot stays.
    const placed = placeRingLabels(wishes, [...board, ...dots], bounds);
    for (const p of placed.values()) board.push(p.box);
    leaders.each(function (d) {
      const p = placed.get(d.id);
      const end = p === undefined ? null : leaderEnd(p);
      const x2 = end === null ? "0" : end.x.toFixed(1);
      const y2 = end === null ? "0" : end.y.toFixed(1);
      if (this.getAttribute("x2") !== x2) this.setAttribute("x2", x2);
      if (this.getAttribute("y2") !== y2) this.setAttribute("y2", y2);
    });
    labels.each(function (d) {
      showPlaced(this, placed.get(d.id));
    });
  }

  return {
    draw(v: SimView, L: RingLayout, marks: RingMarks): void {
      drawnWith = marks;
      bounds = { x: 0, y: 0, w: L.width, h: L.height };
      drawMessages(v, L, marks);
    },
    frame(_v: SimView, now: number, _clocks: boolean, board: Box[] = []): void {
      frameMessages(now, board);
    },
  };
}

export function createDropLayer(gDrops: Group): RingLayer {
  let dropSel: G<DropDatum> = gDrops.selectAll<SVGGElement, DropDatum>("g.drop");
  let bounds: Box | undefined;

  function drawDrops(v: SimView, L: RingLayout, marks: RingMarks): void {
    const lease = leaseProcesses(v);
    const shown = marks.leaseStory === true ? v.drops.filter((d) => inLeaseStory(d, lease)) : v.drops;
    // Words for the newest drop on each link only, and none when many drop at once (a partition of
    // a big cluster): the ✕s say enough, and words would pile up.
    const newest = new Map<string, number>();
    for (const x of shown) {
      const k = `${x.from}>${x.to}`;
      if ((newest.get(k) ?? -1) < x.id) newest.set(k, x.id);
    }
    const many = newest.size > DROP_WORDS_UP_TO;
    const data: DropDatum[] = [];
    for (const d of shown) {
      const route = messageRoute(d.from, d.to, L);
      if (route === null) continue;
      // A message to a crashed node needs no words: the node is drawn down, and the ✕ says enough.
      const say = !many && d.reason !== "down" && newest.get(`${d.from}>${d.to}`) === d.id;
      data.push({ id: d.id, d, pos: routeAt(route, dropT(d.reason)), words: say ? `${d.label} ${dropText(d.reason)}` : "" });
    }
    dropSel = gDrops
      .selectAll<SVGGElement, DropDatum>("g.drop")
      .data(data, (d) => d.id)
      .join((enter) => {
        const g = enter.append("g").attr("class", "drop");
        g.append("text").attr("class", "drop-x").attr("y", 1).text("✕");
        g.append("text").attr("class", "drop-why").attr("x", 8).attr("y", 16);
        return g;
      });
    const t = (d: DropDatum): string => `translate(${d.pos.x.toFixed(1)},${d.pos.y.toFixed(1)})`;
    dropSel.each(function (d) {
      const v = t(d);
      if (this.getAttribute("transform") !== v) this.setAttribute("transform", v);
    });
    dropSel.select<SVGTextElement>(".drop-why").each(function (d) {
      setWords(this, d.words);
    });
  }

  function frameDrops(v: SimView, now: number, board: Box[]): void {
    const wishes: LabelWish[] = [];
    dropSel.each(function (d) {
      const o = dropOpacity(d.d.droppedAt, now, v.speed);
      const os = o.toFixed(2);
      if (this.getAttribute("opacity") !== os) this.setAttribute("opacity", os);
      if (d.words !== "" && o > 0.05) wishes.push({ id: d.id, at: d.pos, text: d.words, priority: 1 });
    });
    // The ✕s themselves stay free too.
    for (const d of dropSel.data()) board.push(textBox(d.pos.x, d.pos.y, "✕", 16.8));
    const placed = placeRingLabels(wishes, board, bounds);
    for (const p of placed.values()) board.push(p.box);
    dropSel.select<SVGTextElement>(".drop-why").each(function (d) {
      showPlaced(this, placed.get(d.id));
    });
  }

  return {
    draw(v: SimView, L: RingLayout, marks: RingMarks): void {
      bounds = { x: 0, y: 0, w: L.width, h: L.height };
      drawDrops(v, L, marks);
    },
    frame(v: SimView, now: number, _clocks: boolean, board: Box[] = []): void {
      frameDrops(v, now, board);
    },
  };
}
