/**
 * The ring's lease holders (a box each: id, state word, token) and the storage (a
 * cylinder: fencing on or off, writes accepted and rejected). Both are buttons
 * (ringPointer.ts); the frames only count down a pause.
 */
import type * as d3 from "d3-selection";
import type { HolderView, InspectTarget, SimView, StorageView } from "../../worker/protocol";
import { changed, type G, setAttr } from "../draw/dom";
import { OKABE_ITO, textOn } from "../theme";
import { holderLabel, holderStateWord, type Place, pausedText, type RingLayout, storageLabel } from "./geometry";
import { textSize } from "./labels";
import { isSelected, type RingLayer, type RingMarks, setClass, setWords } from "./layer";
import { asButton } from "./ringPointer";

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
  // Database replicas (docs/failover.md): the primary as holding, offline (self-fenced) as jeopardy.
  primary: OKABE_ITO.green,
  secondary: OKABE_ITO.skyBlue,
  offline: OKABE_ITO.orange,
};

interface HolderDatum {
  readonly id: string;
  readonly h: HolderView;
  readonly p: Place;
  readonly word: string;
}

type Group = d3.Selection<SVGGElement, unknown, null, undefined>;

export function createHolderLayer(gHolders: Group, select: (t: InspectTarget) => void): RingLayer {
  let holderSel: G<HolderDatum> = gHolders.selectAll<SVGGElement, HolderDatum>("g.holder");
  // The part the animation frames touch, picked once per view.
  let holderStatus = holderSel.select<SVGTextElement>(".status");

  function drawHolders(v: SimView, L: RingLayout, marks: RingMarks): void {
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
    const gh = gHolders.node();
    if (gh !== null) setClass(gh, "compact", L.compactHolders);
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
        `${isSelected(marks, "holder", d.id)}|${marks.highlight.includes(d.id)}`,
    );
    upd
      .attr("transform", (d) => `translate(${d.p.x.toFixed(1)},${d.p.y.toFixed(1)})`)
      .attr("aria-label", (d) => holderLabel(d.h))
      .classed("is-down", (d) => d.h.status === "down")
      .classed("is-paused", (d) => d.h.status === "paused")
      .classed("is-selected", (d) => isSelected(marks, "holder", d.id))
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
        setWords(this, d.h.status === "down" ? `✕ ${d.id}` : d.id);
      });
    upd
      .select<SVGTextElement>(".holder-state")
      .attr("y", top + hh * 0.56)
      .attr("fill", fg)
      .each(function (d) {
        setWords(this, d.word);
        // Long words ("requesting") are squeezed into narrow boxes rather than spilling into the next one.
        if (textSize(d.word, L.compactHolders ? 9.3 : 13).w > w - 6) {
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
        setWords(this, d.h.token === null ? "no token" : `token ${d.h.token}`);
      });
    upd.select(".status").attr("y", hh / 2 + 12);
  }

  function frameHolders(now: number): void {
    holderStatus.each(function (d) {
      setWords(this, d.h.status === "paused" ? pausedText(d.h.pausedUntil, now) : "");
    });
  }

  return {
    draw(v: SimView, L: RingLayout, marks: RingMarks): void {
      drawHolders(v, L, marks);
    },
    frame(_v: SimView, now: number): void {
      frameHolders(now);
    },
  };
}

export function createStorageLayer(gStorage: Group, select: (t: InspectTarget) => void): RingLayer {
  let storageSel: G<StorageView> = gStorage.selectAll<SVGGElement, StorageView>("g.storage");

  function drawStorage(v: SimView, L: RingLayout, marks: RingMarks): void {
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
        // The tallies on two lines (readable from the back row, and inside the viewBox at the ring's right edge).
        const counts = g.append("text").attr("class", "counts").attr("aria-hidden", "true");
        counts.append("tspan").attr("class", "ok-count").attr("x", 0).attr("y", 73);
        counts.append("tspan").attr("class", "rejected-count").attr("x", 0).attr("y", 89);
        g.append("text").attr("class", "status").attr("y", 105).attr("aria-hidden", "true");
        return g;
      });
    if (p === undefined) return;
    // Written only where something changed: the storage is redrawn with every view.
    storageSel.each(function (d) {
      setAttr(this, "transform", `translate(${p.x},${p.y})`);
      setAttr(this, "aria-label", storageLabel(d));
      setClass(this, "is-down", d.status === "down");
      setClass(this, "is-paused", d.status === "paused");
      setClass(this, "is-selected", isSelected(marks, "storage"));
      setClass(this, "is-highlighted", marks.highlight.includes(d.id));
      setClass(this, "fencing-off", !d.fencing);
    });
    storageSel.select<SVGTextElement>(".storage-id").each(function (d) {
      setWords(this, d.status === "down" ? `✕ ${d.id}` : d.id);
    });
    storageSel.select<SVGTextElement>(".fencing").each(function (d) {
      setWords(this, d.fencing ? "✓ fencing on" : "✕ fencing off");
    });
    storageSel.select<SVGTSpanElement>(".ok-count").each(function (d) {
      setWords(this, `${d.accepted} ok`);
    });
    storageSel
      .select<SVGTSpanElement>(".rejected-count")
      .each(function (d) {
        setClass(this, "rejected-some", d.rejected > 0);
        setWords(this, `${d.rejected > 0 ? "⊘ " : ""}${d.rejected} rejected`);
      });
  }

  function frameStorage(now: number): void {
    storageSel.select<SVGTextElement>(".status").each(function (d) {
      setWords(this, d.status === "paused" ? pausedText(null, now) : d.status === "down" ? "down" : "");
    });
  }

  return {
    draw(v: SimView, L: RingLayout, marks: RingMarks): void {
      drawStorage(v, L, marks);
    },
    frame(_v: SimView, now: number): void {
      frameStorage(now);
    },
  };
}
