/**
 * Pure helpers for the lease timeline: the time window (from the TTL), positions on
 * it (as percentages of the track, so the drawing needs no measuring), clamping of
 * spans to the window, where open spans end, and the text that says it all in words.
 * Times are virtual microseconds, as in the protocol.
 */
import { formatDuration, formatInstant } from "../../core/sim/time";
import { scaleLinear } from "d3-scale";
import type { HolderView, LeaseMark, LeaseRowView, LeaseSpan } from "../../worker/protocol";
import { OKABE_ITO } from "../theme";

/** TTL used when no lease reports one. */
export const DEFAULT_TTL_MS = 2000;
/** The window shows this many TTLs of the past and of the future. */
export const PAST_TTLS = 3;
export const FUTURE_TTLS = 1;

/** The largest TTL among the leases (ms), or DEFAULT_TTL_MS when there is none. */
export function maxTtlMs(leases: readonly LeaseRowView[]): number {
  let best = 0;
  for (const l of leases) if (Number.isFinite(l.ttlMs) && l.ttlMs > best) best = l.ttlMs;
  return best > 0 ? best : DEFAULT_TTL_MS;
}

/** How far back and ahead of now the timeline reaches (µs), from a TTL in ms. */
export interface WindowSpan {
  readonly pastUs: number;
  readonly futureUs: number;
}

export function windowSpan(ttlMs: number): WindowSpan {
  const ttlUs = (ttlMs > 0 ? ttlMs : DEFAULT_TTL_MS) * 1000;
  return { pastUs: PAST_TTLS * ttlUs, futureUs: FUTURE_TTLS * ttlUs };
}

/** The window on virtual time [from, to] around `now`. */
export interface TimeWindow {
  readonly from: number;
  readonly to: number;
  readonly now: number;
}

export function timeWindow(now: number, span: WindowSpan): TimeWindow {
  return { from: now - span.pastUs, to: now + span.futureUs, now };
}

/** Position of virtual time `t` on the track, in percent (0 = left edge, 100 = right edge), clamped. */
export function xPct(t: number, w: TimeWindow): number {
  const len = w.to - w.from;
  if (len <= 0) return 0;
  const p = ((t - w.from) / len) * 100;
  return Math.max(0, Math.min(100, p));
}

/**
 * Where the track's timed marks and ticks are placed from while the window slides: a
 * point fixed for a whole window length, so a new view changes one shift (the nested
 * <svg>'s x) instead of every mark's and tick's x. `shift` is where that point is on the
 * track (percent, at most 0); `at(x)` turns a place on the track (percent) into one
 * from that point.
 */
export interface Slide {
  readonly shift: number;
  at(x: number): number;
}

export function slideOf(w: TimeWindow): Slide {
  const len = w.to - w.from;
  if (len <= 0) return { shift: 0, at: (x) => x };
  const origin = Math.floor(w.from / len) * len;
  const shift = ((origin - w.from) / len) * 100;
  return { shift, at: (x) => x - shift };
}

/** A number as an SVG percentage length ("12.345%"). */
export function pct(p: number): string {
  return `${Math.round(p * 1000) / 1000}%`;
}

/** An interval clipped to the window, or null when it lies entirely outside (or is empty). */
export function clipToWindow(from: number, to: number, w: TimeWindow): { from: number; to: number } | null {
  const a = Math.max(from, w.from);
  const b = Math.min(to, w.to);
  if (b < a || to < w.from || from > w.to) return null;
  return { from: a, to: b };
}

/** Where a leader span ends: its `to`, or for an open span the leader's expiry when set, else now. */
export function leaderSpanEnd(span: LeaseSpan, leaderExpiresAt: number | null, now: number): number {
  if (span.to !== null) return span.to;
  return leaderExpiresAt ?? now;
}

/** Where a holder span ends: its `to`, or now while open (the holder still believes it holds). */
export function holderSpanEnd(span: LeaseSpan, now: number): number {
  return span.to ?? now;
}

/** One bar on a lane, split at now into a past (solid) and future (lighter) part, in percent. */
export interface Bar {
  readonly key: string;
  readonly holder: string;
  readonly token: number;
  /** Left edge and width of the solid part (up to now); width 0 when none. */
  readonly x: number;
  readonly solid: number;
  /** Width of the lighter future part (from now to the end); 0 when none. */
  readonly future: number;
  /** Whether the bar's true start/end lie outside the window (drawn open-ended). */
  readonly clippedLeft: boolean;
  readonly clippedRight: boolean;
  /** The span is still open. */
  readonly open: boolean;
  /** Percent position of the end (for a deadline marker). */
  readonly end: number;
  readonly endKind: string | null;
}

/** A bar for [from, end] on the window, or null when outside it. */
export function barOf(
  key: string,
  holder: string,
  token: number,
  from: number,
  end: number,
  open: boolean,
  endKind: string | null,
  w: TimeWindow,
): Bar | null {
  const c = clipToWindow(from, end, w);
  if (c === null) return null;
  const x = xPct(c.from, w);
  const nowX = xPct(w.now, w);
  const endX = xPct(c.to, w);
  const solidEnd = Math.min(endX, Math.max(x, nowX));
  const futureStart = Math.max(x, nowX);
  return {
    key,
    holder,
    token,
    x,
    solid: Math.max(0, solidEnd - x),
    future: Math.max(0, endX - futureStart),
    clippedLeft: from < w.from,
    clippedRight: end > w.to,
    open,
    end: endX,
    endKind,
  };
}

export function leaderBars(row: LeaseRowView, w: TimeWindow): Bar[] {
  const out: Bar[] = [];
  for (const s of row.leaderSpans) {
    const end = leaderSpanEnd(s, row.leaderExpiresAt, w.now);
    const b = barOf(`${s.holder}:${s.token}:${s.from}`, s.holder, s.token, s.from, end, s.to === null, s.end, w);
    if (b !== null) out.push(b);
  }
  return out;
}

/** Marks drawn on the holder lanes (every other kind goes on the leader's lane). */
export const HOLDER_MARKS: ReadonlySet<LeaseMark["kind"]> = new Set(["jeopardy", "grace", "grace-renewed", "lost"]);

export const MARK_GLYPH: Record<LeaseMark["kind"], string> = {
  grant: "▲",
  refresh: "|",
  "refresh-denied": "✗",
  expiring: "□",
  expire: "■",
  revoke: "▼",
  extended: "⇥",
  deny: "•",
  jeopardy: "!",
  grace: "◔",
  "grace-renewed": "↻",
  lost: "✕",
};

export const MARK_TEXT: Record<LeaseMark["kind"], string> = {
  grant: "granted",
  refresh: "refreshed",
  "refresh-denied": "refresh refused",
  expiring: "expiry proposed",
  expire: "expired",
  revoke: "released",
  extended: "extended by a new leader",
  deny: "request denied",
  jeopardy: "jeopardy: no renewal yet, stops work soon",
  grace: "grace: past its deadline, work stopped, still trying",
  "grace-renewed": "renewed within grace: holds it again",
  lost: "lost",
};

export interface PlacedMark {
  readonly key: string;
  readonly x: number;
  readonly kind: LeaseMark["kind"];
  readonly glyph: string;
  readonly title: string;
}

/**
 * Places a mark; `repeat` counts earlier marks with the same content, so keys stay
 * stable as old marks drop off the front of the list (an index would shift them all).
 */
export function placeMark(m: LeaseMark, repeat: number, w: TimeWindow): PlacedMark | null {
  if (m.t < w.from || m.t > w.to) return null;
  const who = m.holder === null ? "" : ` ${m.holder}`;
  return {
    key: `${m.kind}:${m.t}:${m.holder ?? ""}:${m.token}:${repeat}`,
    x: xPct(m.t, w),
    kind: m.kind,
    glyph: MARK_GLYPH[m.kind],
    title: `${MARK_TEXT[m.kind]}${who}, token ${m.token}, at ${formatInstant(m.t)}`,
  };
}

/** Numeric-aware ordering of ids ("h2" before "h10"). */
export function byId(a: string, b: string): number {
  return a.localeCompare(b, "en", { numeric: true });
}

/** One holder's lane: its spans, its current view (if it still wants this lease), and its marks. */
export interface HolderLane {
  readonly id: string;
  readonly holder: HolderView | null;
  readonly bars: readonly Bar[];
  /** The lighter "still mine until my deadline" part after now, as [x, width] in percent, or null. */
  readonly ahead: { readonly x: number; readonly width: number } | null;
  /** The grace period (nominal end .. grace end), clamped, or null. */
  readonly grace: { readonly x: number; readonly width: number } | null;
  /** The holder's own deadline, in percent, when in the window and it holds a token. */
  readonly deadline: number | null;
  readonly marks: readonly PlacedMark[];
}

/** Holders that get a lane: every holder in holderSpans, and every current holder of this lease with a token. */
export function laneHolders(row: LeaseRowView, holders: readonly HolderView[]): string[] {
  const ids = new Set<string>();
  for (const s of row.holderSpans) ids.add(s.holder);
  for (const h of holders) if (h.leaseName === row.name && h.token !== null) ids.add(h.id);
  return [...ids].sort(byId);
}

function range(a: number | null, b: number | null, w: TimeWindow): { x: number; width: number } | null {
  if (a === null || b === null) return null;
  const c = clipToWindow(a, b, w);
  if (c === null || c.to <= c.from) return null;
  const x = xPct(c.from, w);
  return { x, width: xPct(c.to, w) - x };
}

export function holderLanes(row: LeaseRowView, holders: readonly HolderView[], w: TimeWindow): HolderLane[] {
  const byHolder = new Map<string, HolderView>();
  for (const h of holders) byHolder.set(h.id, h);
  const lanes: HolderLane[] = [];
  for (const id of laneHolders(row, holders)) {
    const hv = byHolder.get(id) ?? null;
    const mine = hv !== null && hv.leaseName === row.name && hv.token !== null ? hv : null;
    const bars: Bar[] = [];
    for (const s of row.holderSpans) {
      if (s.holder !== id) continue;
      // The span shows what the holder believed up to now; the future part comes from its deadline below.
      const b = barOf(`${s.holder}:${s.token}:${s.from}`, s.holder, s.token, s.from, holderSpanEnd(s, w.now), s.to === null, s.end, w);
      if (b !== null) bars.push(b);
    }
    const ahead = mine !== null && mine.deadlineAt !== null && mine.deadlineAt > w.now ? range(w.now, mine.deadlineAt, w) : null;
    const grace = mine !== null ? range(mine.nominalEndAt, mine.graceEndAt, w) : null;
    const deadline =
      mine !== null && mine.deadlineAt !== null && mine.deadlineAt >= w.from && mine.deadlineAt <= w.to ? xPct(mine.deadlineAt, w) : null;
    const marks = placeMarks(
      row.marks.filter((m) => m.holder === id && HOLDER_MARKS.has(m.kind)),
      w,
    );
    lanes.push({ id, holder: hv, bars, ahead, grace, deadline, marks });
  }
  return lanes;
}

export function leaderMarks(row: LeaseRowView, w: TimeWindow): PlacedMark[] {
  return placeMarks(
    row.marks.filter((m) => !HOLDER_MARKS.has(m.kind)),
    w,
  );
}

function placeMarks(marks: readonly LeaseMark[], w: TimeWindow): PlacedMark[] {
  const seen = new Map<string, number>();
  const out: PlacedMark[] = [];
  for (const m of marks) {
    const k = `${m.kind}:${m.t}:${m.holder ?? ""}:${m.token}`;
    const repeat = seen.get(k) ?? 0;
    seen.set(k, repeat + 1);
    const p = placeMark(m, repeat, w);
    if (p !== null) out.push(p);
  }
  return out;
}

/** The leader's expiry deadline in percent, when an open span runs to it and it is in the window. */
export function leaderDeadline(row: LeaseRowView, w: TimeWindow): number | null {
  const t = row.leaderExpiresAt;
  if (t === null || t < w.from || t > w.to) return null;
  return row.leaderSpans.some((s) => s.to === null) ? xPct(t, w) : null;
}

/** Axis ticks in whole (or nice fractional) seconds of virtual time. */
export interface Tick {
  readonly key: string;
  readonly x: number;
  readonly label: string;
}

export function ticks(w: TimeWindow, count = 6): Tick[] {
  const s = scaleLinear()
    .domain([w.from / 1_000_000, w.to / 1_000_000])
    .range([0, 100]);
  // Nothing happened before time zero: no ticks there (the window still keeps "now" at its fixed place).
  const values = s.ticks(count).filter((v) => v >= 0);
  const step = values.length > 1 ? (values[1] as number) - (values[0] as number) : 1;
  const digits = step >= 1 ? 0 : Math.min(3, Math.ceil(-Math.log10(step) - 1e-9));
  return values.map((v) => ({ key: v.toFixed(3), x: s(v), label: formatInstant(v * 1_000_000, digits) }));
}

// ---- Words ---------------------------------------------------------------------

/** "1.23 s", "450 ms". */
function secs(us: number): string {
  return formatDuration(us, 2);
}

export function stateWords(row: LeaseRowView): string {
  switch (row.state) {
    case "held":
      return row.holder !== null ? `held by ${row.holder}` : "held";
    case "delayed":
      return "in lock-delay";
    case "free":
      return "free";
  }
}

/** The leader's countdown in words: "leader: 1.23 s left", or why there is none. */
export function leaderCountdown(row: LeaseRowView, now: number): string {
  if (row.leaderExpiresAt === null) return row.state === "free" ? "leader: nobody holds it, nothing to time" : "leader: nobody is timing it";
  const left = row.leaderExpiresAt - now;
  if (left > 0) return `leader: ${secs(left)} left`;
  return `leader: expired ${secs(-left)} ago, expiry not yet committed`;
}

/** The one-line accessible summary of a lease row. */
export function leaseSummary(row: LeaseRowView, now: number): string {
  const parts = [`lease ${row.name}`, stateWords(row)];
  if (row.token > 0) parts.push(`token ${row.token}`);
  parts.push(leaderCountdown(row, now));
  return parts.join(", ");
}

/** The header's detail line: transitions and keys. */
export function leaseDetails(row: LeaseRowView): string {
  const t = `${row.transitions} transition${row.transitions === 1 ? "" : "s"}`;
  const keys = row.keys.length === 0 ? "no keys attached" : `keys ${row.keys.join(", ")}`;
  return `${t} · ${keys}`;
}

/** The top-level state word of a holder ("holding", "jeopardy", ...), with paused/down. */
export function holderLaneWords(h: HolderView | null): string {
  if (h === null) return "gone";
  if (h.status === "down") return "down";
  const top = h.state.split(".")[0] ?? h.state;
  return h.status === "paused" ? `${top}, paused` : top;
}

/** A holder lane in words, for its accessible name. */
export function holderLaneSummary(lane: HolderLane, leaseName: string, now: number): string {
  const h = lane.holder;
  const parts = [`${lane.id}'s view of ${leaseName}`, holderLaneWords(h)];
  if (h !== null && h.leaseName === leaseName && h.token !== null) {
    parts.push(`believes it holds token ${h.token}`);
    if (h.deadlineAt !== null) {
      const left = h.deadlineAt - now;
      parts.push(left > 0 ? `own deadline in ${secs(left)}` : `own deadline passed ${secs(-left)} ago`);
    }
    // Grace only matters once the holder is past its own deadline (jeopardy or grace).
    const top = h.state.split(".")[0];
    if (h.graceEndAt !== null && (top === "jeopardy" || top === "grace")) {
      const left = h.graceEndAt - now;
      parts.push(left > 0 ? `grace ends in ${secs(left)}` : `grace ended ${secs(-left)} ago`);
    }
  } else {
    parts.push("holds nothing now");
  }
  return parts.join(", ");
}

/** Bar colours per holder (cycled by the holder's number; the id is always written on or beside the bar too). */
const HOLDER_COLORS = [
  OKABE_ITO.skyBlue,
  OKABE_ITO.orange,
  OKABE_ITO.green,
  OKABE_ITO.purple,
  OKABE_ITO.blue,
  OKABE_ITO.vermillion,
  OKABE_ITO.yellow,
];

export function holderColor(id: string): string {
  const m = /(\d+)$/.exec(id);
  let n = 0;
  if (m !== null) n = Number(m[1]) - 1;
  else for (let i = 0; i < id.length; i++) n = (n * 31 + id.charCodeAt(i)) >>> 0;
  const k = ((n % HOLDER_COLORS.length) + HOLDER_COLORS.length) % HOLDER_COLORS.length;
  return HOLDER_COLORS[k] as string;
}

// ---- Zoom and scroll -------------------------------------------------------------

/**
 * What the user did to the window: its length (null: the TTL's default, 4 TTLs) and its
 * left edge (null: it follows now, which stays at 3/4 of the track).
 */
export interface ZoomState {
  readonly spanUs: number | null;
  readonly fromUs: number | null;
}

export const FOLLOW_NOW: ZoomState = { spanUs: null, fromUs: null };
/** The narrowest window (0.2 s) and the widest (10 min). */
export const LEASE_MIN_SPAN_US = 200_000;
export const LEASE_MAX_SPAN_US = 600_000_000;
/** Where now sits on the track when following it. */
export const NOW_SHARE = PAST_TTLS / (PAST_TTLS + FUTURE_TTLS);
/** One zoom step (a button, a key, a wheel notch) and one scroll step (a share of the window). */
export const ZOOM_STEP = 1.5;
export const PAN_STEP = 0.2;

/** The earliest time the leases' retained history reaches (µs), never before 0. */
export function historyStart(leases: readonly LeaseRowView[], now: number): number {
  let t = now;
  for (const l of leases) {
    for (const s of l.leaderSpans) t = Math.min(t, s.from);
    for (const s of l.holderSpans) t = Math.min(t, s.from);
    for (const m of l.marks) t = Math.min(t, m.t);
  }
  return Math.max(0, t);
}

function spanOf(z: ZoomState, base: WindowSpan): number {
  return z.spanUs ?? base.pastUs + base.futureUs;
}

/** How far the window's left edge may go: from the start of history to where following now puts it. */
export function scrollBounds(lenUs: number, now: number, earliest: number): { lo: number; hi: number } {
  const hi = now - lenUs * NOW_SHARE;
  return { lo: Math.min(earliest, hi), hi };
}

/** The window shown for a zoom state: following now, or from its left edge (kept within the history). */
export function zoomedWindow(now: number, base: WindowSpan, z: ZoomState, earliest: number): TimeWindow {
  const len = spanOf(z, base);
  const { lo, hi } = scrollBounds(len, now, earliest);
  const from = z.fromUs === null ? hi : Math.max(lo, Math.min(hi, z.fromUs));
  return { from, to: from + len, now };
}

/**
 * Zooms by `factor` (> 1: in) keeping time `anchor` at the same place on the track
 * (the pointer's time, or now). Following now stays following.
 */
export function zoomBy(z: ZoomState, factor: number, w: TimeWindow, anchor: number, earliest: number): ZoomState {
  const len = w.to - w.from;
  const next = Math.max(LEASE_MIN_SPAN_US, Math.min(LEASE_MAX_SPAN_US, len / factor));
  if (z.fromUs === null) return { spanUs: next, fromUs: null };
  const share = len > 0 ? (anchor - w.from) / len : NOW_SHARE;
  const { lo, hi } = scrollBounds(next, w.now, earliest);
  const from = anchor - share * next;
  return { spanUs: next, fromUs: from >= hi ? null : Math.max(lo, from) };
}

/** Moves the window's left edge to `from`; at (or past) the present it follows now again. */
export function panTo(z: ZoomState, from: number, w: TimeWindow, earliest: number): ZoomState {
  const len = w.to - w.from;
  const { lo, hi } = scrollBounds(len, w.now, earliest);
  return { spanUs: z.spanUs ?? len, fromUs: from >= hi ? null : Math.max(lo, from) };
}

/** Scrolls by `deltaUs` (negative: into the past). */
export function panLeaseBy(z: ZoomState, deltaUs: number, w: TimeWindow, earliest: number): ZoomState {
  return panTo(z, w.from + deltaUs, w, earliest);
}

/** "4 s shown", "500 ms shown": the window's length in words. */
export function spanWords(w: TimeWindow): string {
  return `${formatDuration(w.to - w.from, 2)} shown`;
}
