/**
 * Pure maths of the time slider: time <-> position, keyboard steps, the words for a
 * cursor position, previous / next marker, and the clustering of marker ticks that
 * would overlap on the track. No React, no DOM: unit tested in tests/app/timetravel.
 */
import { formatInstant } from "../../core/sim/time";
import type { TimelineMarkerKind, TimelineMarker } from "../../worker/protocol";
import { OKABE_ITO } from "../theme";

export function clamp(x: number, lo: number, hi: number): number {
  return Math.min(Math.max(x, lo), hi);
}

/** Where virtual time `t` (µs) sits on a track running from 0 to `end`: 0..1. */
export function timeToFraction(t: number, end: number): number {
  if (!(end > 0) || !Number.isFinite(t)) return 0;
  return clamp(t / end, 0, 1);
}

/** The virtual time (whole µs) at position `f` (0..1) of a track running from 0 to `end`. */
export function fractionToTime(f: number, end: number): number {
  if (!(end > 0) || !Number.isFinite(f)) return 0;
  return Math.round(clamp(f, 0, 1) * end);
}

/** The time under pixel `x` of a track `widthPx` wide (clamped to the track). */
export function pixelToTime(x: number, widthPx: number, end: number): number {
  return widthPx > 0 ? fractionToTime(x / widthPx, end) : 0;
}

/** The pixel of time `t` on a track `widthPx` wide. */
export function timeToPixel(t: number, widthPx: number, end: number): number {
  return timeToFraction(t, end) * widthPx;
}

/** The smallest "nice" number (1, 2 or 5 times a power of ten) at least `x`. */
export function niceCeil(x: number): number {
  if (!(x > 0)) return 0;
  const p = 10 ** Math.floor(Math.log10(x));
  for (const m of [1, 2, 5, 10]) {
    // A little tolerance: 0.3 / 0.1 is 2.9999999999999996.
    if (m * p >= x * (1 - 1e-9)) return m * p;
  }
  return 10 * p;
}

/** Keyboard steps never go below one millisecond. */
export const MIN_KEY_STEP_US = 1000;

/** Arrow keys move by about a hundredth of the run, Page Up / Page Down by about a tenth (nice round values). */
export function keySteps(end: number): { readonly small: number; readonly large: number } {
  const small = Math.max(MIN_KEY_STEP_US, niceCeil(end / 100));
  const large = Math.max(small, niceCeil(end / 10));
  return { small, large };
}

/** Where a key press on the slider moves the cursor (µs), or null when the key is not the slider's. */
export function keyTarget(key: string, t: number, end: number): number | null {
  const { small, large } = keySteps(end);
  let to: number;
  switch (key) {
    case "ArrowLeft":
    case "ArrowDown":
      to = t - small;
      break;
    case "ArrowRight":
    case "ArrowUp":
      to = t + small;
      break;
    case "PageDown":
      to = t - large;
      break;
    case "PageUp":
      to = t + large;
      break;
    case "Home":
      to = 0;
      break;
    case "End":
      to = end;
      break;
    default:
      return null;
  }
  return clamp(Math.round(to), 0, Math.max(0, end));
}

/** Decimals that suit a run of length `end`: 40 s -> 1, 4 s -> 2, 0.4 s -> 3. */
export function decimalsFor(end: number): number {
  return end >= 10_000_000 ? 1 : end >= 1_000_000 ? 2 : 3;
}

/** Seconds with as many decimals as the run's length calls for: "12.4 s". */
export function secondsText(us: number, end: number): string {
  return formatInstant(us, decimalsFor(end));
}

/** "12.4 s of 40.0 s". */
export function cursorText(t: number, end: number): string {
  return `${secondsText(t, end)} of ${secondsText(end, end)}`;
}

/** The slider's aria-valuetext: "cursor at 12.4 s of 40.0 s, viewing the past". */
export function cursorWords(t: number, end: number): string {
  return `cursor at ${cursorText(t, end)}${isPast(t, end) ? ", viewing the past" : ""}`;
}

/** The cursor is behind the furthest point explored on the branch. */
export function isPast(t: number, end: number): boolean {
  return t < end;
}

/** How each kind of marker is drawn: a colour (Okabe–Ito), a glyph and words, never the colour alone. */
export const MARKER_STYLE: Record<
  TimelineMarkerKind,
  { readonly color: string; readonly glyph: string; readonly text: string; readonly plural: string }
> = {
  election: { color: OKABE_ITO.blue, glyph: "★", text: "election", plural: "elections" },
  expiry: { color: OKABE_ITO.orange, glyph: "◷", text: "lease expiry", plural: "expiries" },
  rejection: { color: OKABE_ITO.purple, glyph: "⊘", text: "rejected write", plural: "rejections" },
  violation: { color: OKABE_ITO.vermillion, glyph: "⚠", text: "violation", plural: "violations" },
  action: { color: OKABE_ITO.green, glyph: "◆", text: "your action", plural: "your actions" },
  scripted: { color: OKABE_ITO.skyBlue, glyph: "▶", text: "scripted in the scenario", plural: "scripted" },
};

export const MARKER_KINDS: readonly TimelineMarkerKind[] = ["violation", "rejection", "expiry", "action", "scripted", "election"];

/** Which kind a merged tick shows: the most serious one inside it (lower is more serious). */
const SEVERITY: Record<TimelineMarkerKind, number> = { violation: 0, rejection: 1, expiry: 2, action: 3, scripted: 3, election: 4 };

export function moreSerious(a: TimelineMarkerKind, b: TimelineMarkerKind): TimelineMarkerKind {
  return SEVERITY[b] < SEVERITY[a] ? b : a;
}

/** One tick on the track: one marker, or several that would overlap, merged. */
export interface MarkerCluster {
  /** Time of the first marker (where a click seeks to). */
  readonly t: number;
  /** Position on the track (0..1), of the first marker. */
  readonly fraction: number;
  /** The most serious kind inside. */
  readonly kind: TimelineMarkerKind;
  /** Oldest first; never empty. */
  readonly markers: readonly TimelineMarker[];
}

function sortedByTime(markers: readonly TimelineMarker[]): readonly TimelineMarker[] {
  for (let i = 1; i < markers.length; i++) {
    if ((markers[i] as TimelineMarker).t < (markers[i - 1] as TimelineMarker).t) {
      return [...markers].sort((a, b) => a.t - b.t || a.n - b.n);
    }
  }
  return markers;
}

/**
 * Merges markers whose ticks would overlap. Greedy, left to right: a tick starts at the
 * first marker not yet placed and takes every following marker less than `minGapPx`
 * to its right. So two ticks are always at least `minGapPx` apart, there are at most
 * widthPx / minGapPx + 1 of them, every marker is in exactly one, in time order.
 */
export function clusterMarkers(markers: readonly TimelineMarker[], end: number, widthPx: number, minGapPx: number): MarkerCluster[] {
  const out: MarkerCluster[] = [];
  let group: TimelineMarker[] = [];
  let startPx = 0;
  let kind: TimelineMarkerKind = "election";
  const close = (): void => {
    const first = group[0];
    if (first === undefined) return;
    out.push({ t: first.t, fraction: timeToFraction(first.t, end), kind, markers: group });
  };
  for (const m of sortedByTime(markers)) {
    const px = timeToPixel(m.t, widthPx, end);
    if (group.length > 0 && px - startPx < minGapPx) {
      group.push(m);
      kind = moreSerious(kind, m.kind);
      continue;
    }
    close();
    group = [m];
    startPx = px;
    kind = m.kind;
  }
  close();
  return out;
}

/** A tick's title and accessible name: the label(s) in words, with times. */
export function clusterTitle(c: MarkerCluster, timeText: (us: number) => string, maxLines = 6): string {
  const line = (m: TimelineMarker): string => `${m.label} (${MARKER_STYLE[m.kind].text}, ${timeText(m.t)})`;
  if (c.markers.length === 1) return line(c.markers[0] as TimelineMarker);
  const last = c.markers[c.markers.length - 1] as TimelineMarker;
  const shown = c.markers.slice(0, maxLines).map(line);
  const more = c.markers.length - shown.length;
  return `${c.markers.length} markers from ${timeText(c.t)} to ${timeText(last.t)}: ${shown.join("; ")}${more > 0 ? `; and ${more} more` : ""}`;
}

/** The newest marker strictly before `t` (markers oldest first), or null. */
export function previousMarker(markers: readonly TimelineMarker[], t: number): TimelineMarker | null {
  // Binary search: the first index whose time is >= t.
  let lo = 0;
  let hi = markers.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((markers[mid] as TimelineMarker).t < t) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 ? (markers[lo - 1] as TimelineMarker) : null;
}

/** The oldest marker strictly after `t` (markers oldest first), or null. */
export function nextMarker(markers: readonly TimelineMarker[], t: number): TimelineMarker | null {
  // Binary search: the first index whose time is > t.
  let lo = 0;
  let hi = markers.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((markers[mid] as TimelineMarker).t <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo < markers.length ? (markers[lo] as TimelineMarker) : null;
}

/** The markers of the kinds shown (the same array when every kind is shown). */
export function filterMarkers(markers: readonly TimelineMarker[], kinds: ReadonlySet<TimelineMarkerKind>): readonly TimelineMarker[] {
  if (MARKER_KINDS.every((k) => kinds.has(k))) return markers;
  return markers.filter((m) => kinds.has(m.kind));
}

export function countByKind(markers: readonly TimelineMarker[]): Record<TimelineMarkerKind, number> {
  const c: Record<TimelineMarkerKind, number> = { election: 0, expiry: 0, rejection: 0, violation: 0, action: 0, scripted: 0 };
  for (const m of markers) c[m.kind]++;
  return c;
}
