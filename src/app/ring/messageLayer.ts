/**
 * The ring's messages and drops. A message is a dot on its link, placed each frame from
 * its send and delivery times (geometry.ts: messageTravel), or stacked at a paused
 * receiver; a drop is a ✕ on the link that fades out, with words for the newest few.
 */
import type * as d3 from "d3";
import type { DropView, MessageView, SimView } from "../../worker/protocol";
import { changed, type G, setText } from "../draw/dom";
import { messageColor } from "../theme";
import {
  dropOpacity,
  dropT,
  dropText,
  labelledMessages,
  linkSegment,
  messageTravel,
  type Pt,
  pointAt,
  queuedPosition,
  queueIndexes,
  type RingLayout,
  type LineSegment,
} from "./geometry";
import { isSelected, NO_MARKS, type RingLayer, type RingMarks } from "./layer";
import { asMessageTarget, type MessagePointer } from "./ringPointer";

interface MessageDatum {
  readonly id: number;
  readonly m: MessageView;
  readonly seg: LineSegment;
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

type Group = d3.Selection<SVGGElement, unknown, null, undefined>;

/** `on`: what clicking and pointing at a message do (a message leaving clears only the focus the last view had). */
export function createMessageLayer(gMsgs: Group, on: Omit<MessagePointer, "focused">): RingLayer {
  let msgSel: G<MessageDatum> = gMsgs.selectAll<SVGGElement, MessageDatum>("g.msg");
  let drawnWith: RingMarks = NO_MARKS;
  const pointer: MessagePointer = { ...on, focused: () => drawnWith.focus };

  function drawMessages(v: SimView, L: RingLayout, marks: RingMarks): void {
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
        asMessageTarget(g, pointer);
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
        `${d.label}|${d.m.label}|${d.m.from}>${d.m.to}|${d.m.fate}|${d.m.dup}|${d.m.detail}|${d.m.queued}|${d.q?.x},${d.q?.y}|${isSelected(marks, "message", d.id)}|${marks.focus === d.id}`,
    );
    upd
      .classed("is-queued", (d) => d.q !== null)
      .classed("is-dup", (d) => d.m.dup)
      .classed("is-selected", (d) => isSelected(marks, "message", d.id))
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

  return {
    draw(v: SimView, L: RingLayout, marks: RingMarks): void {
      drawnWith = marks;
      drawMessages(v, L, marks);
    },
    frame(_v: SimView, now: number): void {
      frameMessages(now);
    },
  };
}

export function createDropLayer(gDrops: Group): RingLayer {
  let dropSel: G<DropDatum> = gDrops.selectAll<SVGGElement, DropDatum>("g.drop");

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

  return {
    draw(v: SimView, L: RingLayout): void {
      drawDrops(v, L);
    },
    frame(v: SimView, now: number): void {
      frameDrops(v, now);
    },
  };
}
