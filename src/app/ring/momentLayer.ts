/**
 * The ring's key moments (worker/moments.ts), loud enough for a projector: the process it
 * happened at flashes, and a callout beside it says what happened in a few words ("⊘ token
 * 4 < 34" above the storage, "✓ granted, token 35" above a holder, "✕ lock expired" above
 * the leader). Shown for a few seconds of real time, or until the next moment; while the
 * run is paused at (or just after) the moment, it stays.
 */
import type * as d3 from "d3-selection";
import type { Moment, MomentKind, SimView } from "../../worker/protocol";
import { setText } from "../draw/dom";
import type { Place, RingLayout } from "./geometry";
import type { Box } from "./labels";
import type { RingLayer } from "./layer";
import "./moments.css";

/** Real milliseconds a moment's callout stays while the run plays. */
export const MOMENT_SHOW_MS = 4000;
/** Paused: a moment stays drawn while the cursor is at most this far (virtual µs) after it. */
export const MOMENT_LINGER_US = 1_000_000;

/** Callout size (viewBox units): the main line, and the smaller line under it. */
const MAIN_PX = 20;
const SUB_PX = 14;
const PAD = 7;

/** The callout's words: a glyph (those the lease timeline's legend uses, in every font) and short words, and a smaller line (or "") under them. */
export function calloutWords(m: Pick<Moment, "kind" | "short">): { main: string; sub: string } | null {
  const k: MomentKind = m.kind;
  switch (k) {
    case "write-rejected":
      return { main: `⊘ ${m.short}`, sub: "write rejected" };
    case "lease-granted":
      return { main: `✓ ${m.short}`, sub: "" };
    case "lease-expired":
      return { main: `✕ ${m.short}`, sub: "" };
    case "lease-lost":
      return { main: `✕ ${m.short}`, sub: "" };
    case "jeopardy":
      return { main: `⚠ ${m.short}`, sub: "" };
    case "grace":
      return { main: `◔ ${m.short}`, sub: "" };
    case "renewed-in-grace":
      return { main: `✓ ${m.short}`, sub: "" };
    case "new-primary":
      return { main: `✓ ${m.short}`, sub: "" };
    case "failover":
      return { main: `✓ ${m.short}`, sub: "failover" };
    case "self-fenced":
      return { main: `⚠ ${m.short}`, sub: "stops accepting writes" };
    case "leader-elected":
    case "violation":
      return null;
  }
}

/** The newest moment the ring shows (elections and violations have their own marks). */
export function loudMoment(v: Pick<SimView, "moments">): Moment | null {
  const ms = v.moments ?? [];
  for (let i = ms.length - 1; i >= 0; i--) {
    const m = ms[i] as Moment;
    if (calloutWords(m) !== null) return m;
  }
  return null;
}

/** Is the moment still worth showing: paused at or just after it, or seen less than MOMENT_SHOW_MS of real time ago. */
export function momentVisible(v: Pick<SimView, "now" | "playing" | "pausedBy">, m: Moment, shownForMs: number): boolean {
  if (m.t > v.now) return false;
  if (v.pausedBy?.n === m.n) return true;
  if (!v.playing) return v.now - m.t <= MOMENT_LINGER_US;
  return shownForMs < MOMENT_SHOW_MS;
}

/** Width of a line of text (viewBox units), measured where the browser can, else estimated. */
function textWidth(el: SVGTextElement, px: number): number {
  const text = el.textContent ?? "";
  try {
    const w = el.getComputedTextLength();
    if (w > 0) return w;
  } catch {
    // jsdom: no layout.
  }
  return text.length * px * 0.6;
}

/** Where a callout goes: centred above the place, kept inside the viewBox. */
export function calloutBox(p: Place, L: Pick<RingLayout, "width" | "holderSize">, w: number, h: number): { x: number; y: number } {
  const above = p.kind === "storage" ? 50 : p.kind === "holder" ? L.holderSize.h / 2 + 8 : p.radius + 10;
  const x = Math.max(4, Math.min(L.width - 4 - w, p.x - w / 2));
  const y = Math.max(4, p.y - above - h);
  return { x, y };
}

type Group = d3.Selection<SVGGElement, unknown, null, undefined>;

export function createMomentLayer(g: Group): RingLayer {
  let shown: { n: number; run: number; since: number } | null = null;
  let current: Moment | null = null;
  /** The shown callout's box, so message labels keep off it (the frame's board). */
  let taken: Box | null = null;

  function place(v: SimView, L: RingLayout): void {
    const m = loudMoment(v);
    const now = performance.now();
    if (m !== null && (shown === null || shown.n !== m.n || shown.run !== v.runId)) shown = { n: m.n, run: v.runId, since: now };
    const p = m === null ? undefined : L.places.get(m.at);
    const visible = m !== null && p !== undefined && shown !== null && momentVisible(v, m, now - shown.since);
    current = visible ? m : null;
    taken = null;
    const data = visible && p !== undefined ? [{ m, p }] : [];
    const sel = g
      .selectAll<SVGGElement, { m: Moment; p: Place }>("g.moment")
      .data(data, (d) => `${v.runId}:${d.m.n}`)
      .join((enter) => {
        // A new element for each moment, so the flash animation starts again.
        const e = enter.append("g").attr("class", "moment");
        e.append("circle").attr("class", "moment-flash");
        e.append("rect").attr("class", "moment-box");
        e.append("text").attr("class", "moment-main");
        e.append("text").attr("class", "moment-sub");
        return e;
      });
    sel.each(function (d) {
      const words = calloutWords(d.m) ?? { main: "", sub: "" };
      const el = this as SVGGElement;
      el.setAttribute("class", `moment kind-${d.m.kind}`);
      el.setAttribute("data-moment", d.m.kind);
      const flash = el.querySelector(".moment-flash") as SVGCircleElement;
      flash.setAttribute("cx", String(d.p.x));
      flash.setAttribute("cy", String(d.p.y));
      const r = d.p.kind === "storage" ? 50 : d.p.kind === "holder" ? Math.max(L.holderSize.w, L.holderSize.h) / 2 + 10 : d.p.radius + 10;
      flash.setAttribute("r", String(r));
      const main = el.querySelector(".moment-main") as SVGTextElement;
      const sub = el.querySelector(".moment-sub") as SVGTextElement;
      setText(main, words.main);
      setText(sub, words.sub);
      const w = Math.max(textWidth(main, MAIN_PX), words.sub === "" ? 0 : textWidth(sub, SUB_PX)) + 2 * PAD;
      const h = MAIN_PX + (words.sub === "" ? 0 : SUB_PX + 5) + 2 * PAD;
      const at = calloutBox(d.p, L, w, h);
      const box = el.querySelector(".moment-box") as SVGRectElement;
      box.setAttribute("x", String(at.x));
      box.setAttribute("y", String(at.y));
      box.setAttribute("width", String(w));
      box.setAttribute("height", String(h));
      taken = { x: at.x, y: at.y, w, h };
      main.setAttribute("x", String(at.x + w / 2));
      main.setAttribute("y", String(at.y + PAD + MAIN_PX * 0.8));
      sub.setAttribute("x", String(at.x + w / 2));
      sub.setAttribute("y", String(at.y + PAD + MAIN_PX + 4 + SUB_PX * 0.8));
    });
  }

  return {
    draw(v: SimView, L: RingLayout): void {
      place(v, L);
    },
    frame(v: SimView, _now: number, _clocks: boolean, board: Box[] = []): void {
      // While playing, the callout goes after its few seconds even between views.
      if (current !== null && shown !== null && v.playing && performance.now() - shown.since >= MOMENT_SHOW_MS && v.pausedBy?.n !== current.n) {
        g.selectAll("g.moment").remove();
        current = null;
        taken = null;
      }
      if (taken !== null) board.push(taken);
    },
  };
}
