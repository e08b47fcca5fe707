/**
 * Pure layout and motion for the cluster ring: where every process sits, where a
 * message is at a given display time, and the accessible names of what is drawn.
 * No DOM, no d3 selections: everything here is a function of its arguments, so the
 * drawing is a pure function of (view, display now) and these are unit-tested.
 */
import { formatDuration, formatInstant } from "../../core/sim/time";
import { dropWindowUs, type HolderView, type MessageView, type NodeView, type SimView, type StorageView } from "../../worker/protocol";
import { driftWords } from "../../worker/holderWords";

export interface Pt {
  readonly x: number;
  readonly y: number;
}

export type ShapeKind = "node" | "holder" | "storage" | "client";

/** Where a process is drawn and how far from its centre a message should start or stop. */
export interface Place extends Pt {
  readonly kind: ShapeKind;
  /** Distance from the centre to the shape's edge (approximate for rectangles). */
  readonly radius: number;
  /** Direction (unit vector) in which messages waiting at this process are stacked. */
  readonly queueDir: Pt;
}

export interface RingLayout {
  readonly width: number;
  readonly height: number;
  readonly center: Pt;
  readonly ringRadius: number;
  readonly nodeRadius: number;
  readonly holderSize: { readonly w: number; readonly h: number };
  /** Many holders: smaller boxes and text. */
  readonly compactHolders: boolean;
  readonly clientRadius: number;
  readonly places: ReadonlyMap<string, Place>;
}

export const VIEW_WIDTH = 620;
export const NODE_RADIUS = 30;
const RING_CENTER_X = 282;
const RING_TOP = 42;
const STORAGE_X = 548;
/** Space below the ring for each node's status, clock and drift lines. */
const BELOW_RING = 66;

/** Ring radius: small clusters sit closer together; 9 nodes still leave room between neighbours. */
export function ringRadius(n: number): number {
  if (n <= 3) return 112;
  if (n <= 5) return 132;
  return 150;
}

/** n points evenly on a circle, the first at the top, going clockwise (y grows downwards). */
export function circlePositions(n: number, center: Pt, radius: number): Pt[] {
  const out: Pt[] = [];
  for (let i = 0; i < n; i++) {
    const a = -Math.PI / 2 + (2 * Math.PI * i) / n;
    out.push({ x: center.x + radius * Math.cos(a), y: center.y + radius * Math.sin(a) });
  }
  return out;
}

/** Holder boxes in centred rows below the ring. */
export function holderGrid(count: number, top: number): { positions: Pt[]; w: number; h: number; compact: boolean; rows: number } {
  // Up to 10 a row, rows balanced (12 holders: two rows of 6); wide boxes while a row holds at most 7.
  const rowsNeeded = Math.max(1, Math.ceil(count / 10));
  const perRow = Math.max(1, Math.ceil(count / rowsNeeded));
  const compact = perRow > 7;
  // Up to 6 a row: boxes wide enough for "requesting" in the big type a projector needs.
  const pitch = compact ? Math.min(62, (VIEW_WIDTH - 20) / perRow) : perRow <= 6 ? 96 : 84;
  const w = pitch - 6;
  const h = compact ? 48 : 58;
  // Room under each row for a paused holder's countdown.
  const rowPitch = h + 22;
  const rows = Math.ceil(count / perRow);
  const positions: Pt[] = [];
  for (let i = 0; i < count; i++) {
    const row = Math.floor(i / perRow);
    const inRow = Math.min(perRow, count - row * perRow);
    const col = i - row * perRow;
    const x = VIEW_WIDTH / 2 + (col - (inRow - 1) / 2) * pitch;
    positions.push({ x, y: top + h / 2 + row * rowPitch });
  }
  return { positions, w, h, compact, rows };
}

/** Client ids as the simulator names them (c1..cN). */
export function clientIdsOf(view: Pick<SimView, "settings">): string[] {
  return Array.from({ length: view.settings.clients.count }, (_, i) => `c${i + 1}`);
}

/** The layout key: the layout only changes when one of these does. */
export function layoutKey(
  nodeIds: readonly string[],
  holderIds: readonly string[],
  storageId: string | null,
  clientIds: readonly string[],
): string {
  return `${nodeIds.join(",")}|${holderIds.join(",")}|${storageId ?? ""}|${clientIds.join(",")}`;
}

function unit(dx: number, dy: number): Pt {
  const l = Math.hypot(dx, dy);
  return l === 0 ? { x: 0, y: -1 } : { x: dx / l, y: dy / l };
}

/** Where everything goes, in viewBox units (about 620 wide, 520 tall with a few holders). */
export function computeLayout(
  nodeIds: readonly string[],
  holderIds: readonly string[],
  storageId: string | null,
  clientIds: readonly string[],
): RingLayout {
  const places = new Map<string, Place>();
  const R = ringRadius(nodeIds.length);
  const center = { x: RING_CENTER_X, y: RING_TOP + NODE_RADIUS + R };
  const onRing = circlePositions(nodeIds.length, center, R);
  // The lowest node (the very bottom of the circle only for an even count).
  const lowest = onRing.reduce((m, p) => Math.max(m, p.y), center.y);
  onRing.forEach((p, i) => {
    // Waiting messages stack sideways, away from the ring's centre line (the node's text is below it).
    const qd = { x: p.x < center.x - 1 ? -1 : 1, y: 0 };
    places.set(nodeIds[i] as string, { ...p, kind: "node", radius: NODE_RADIUS, queueDir: qd });
  });
  const holdersTop = lowest + NODE_RADIUS + BELOW_RING;
  const grid = holderGrid(holderIds.length, holdersTop);
  grid.positions.forEach((p, i) => {
    places.set(holderIds[i] as string, { ...p, kind: "holder", radius: Math.min(grid.w, grid.h) / 2 + 2, queueDir: { x: 0, y: -1 } });
  });
  // Waiting writes stack upwards: below the storage are its fencing caption and counts.
  if (storageId !== null) places.set(storageId, { x: STORAGE_X, y: center.y, kind: "storage", radius: 36, queueDir: { x: 0, y: -1 } });
  // Clients: one or two columns on the left, as tall as the ring.
  const nc = clientIds.length;
  const perCol = Math.max(8, Math.ceil(nc / 2));
  const span = 2 * R;
  const pitch = nc <= 1 ? 0 : Math.min(30, span / (Math.min(nc, perCol) - 1 || 1));
  const clientRadius = nc === 0 ? 0 : Math.max(4, Math.min(13, pitch * 0.42 || 13));
  clientIds.forEach((id, i) => {
    const col = Math.floor(i / perCol);
    const row = i - col * perCol;
    const inCol = Math.min(perCol, nc - col * perCol);
    const y = center.y + (row - (inCol - 1) / 2) * pitch;
    places.set(id, { x: 20 + col * 30, y, kind: "client", radius: clientRadius + 1, queueDir: { x: 1, y: 0 } });
  });
  const clientsBottom = [...places.values()].reduce((m, p) => (p.kind === "client" ? Math.max(m, p.y + p.radius + 4) : m), 0);
  const height = Math.max(grid.rows === 0 ? holdersTop - 4 : holdersTop + grid.rows * (grid.h + 22) - 2, clientsBottom, center.y + 110);
  return {
    width: VIEW_WIDTH,
    height: Math.ceil(height),
    center,
    ringRadius: R,
    nodeRadius: NODE_RADIUS,
    holderSize: { w: grid.w, h: grid.h },
    compactHolders: grid.compact,
    clientRadius,
    places,
  };
}

// ---------------------------------------------------------------- time and motion

export function clamp01(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : Number.isFinite(x) ? x : 0;
}

/** How far ahead of the last view the picture may run: a quarter of a real second. */
export const LEAD_MS = 250;

/**
 * The virtual time to draw (µs). Paused: exactly the view's time. Playing: the view's
 * time plus the real time since it arrived, at the view's speed, but never more than
 * LEAD_MS of real time ahead (if views stop arriving, the picture stops too).
 */
export function displayNow(view: Pick<SimView, "now" | "speed" | "playing" | "pace">, receivedAtMs: number, perfNowMs: number): number {
  if (!view.playing) return view.now;
  const realMs = Math.min(Math.max(0, perfNowMs - receivedAtMs), LEAD_MS);
  // The pace: the speed time moves at now (slower around lease events, faster between them).
  return view.now + realMs * (view.pace ?? view.speed) * 1000;
}

/** Share of the way from send to delivery, clamped to [0, 1]. */
export function messageProgress(sentAt: number, deliverAt: number, now: number): number {
  if (deliverAt <= sentAt) return now >= deliverAt ? 1 : 0;
  return clamp01((now - sentAt) / (deliverAt - sentAt));
}

export interface Travel {
  /** Position along the link, 0 (sender) .. 1 (receiver). */
  readonly t: number;
  /** Blocked by a partition or cut and already at the break: draw the ✕. */
  readonly stopped: boolean;
  readonly opacity: number;
}

/** Where the break is on a blocked link. */
export const BREAK_AT = 0.5;
/** A lost message starts fading here. */
const FADE_FROM = 0.7;

export function messageTravel(m: Pick<MessageView, "sentAt" | "deliverAt" | "fate">, now: number): Travel {
  const p = messageProgress(m.sentAt, m.deliverAt, now);
  if (m.fate === "partition" || m.fate === "cut") {
    return { t: Math.min(p, BREAK_AT), stopped: p >= BREAK_AT, opacity: 1 };
  }
  if (m.fate === "loss") {
    const opacity = p <= FADE_FROM ? 1 : 1 - (0.85 * (p - FADE_FROM)) / (1 - FADE_FROM);
    return { t: p, stopped: false, opacity };
  }
  return { t: p, stopped: false, opacity: 1 };
}

export interface LineSegment {
  readonly x1: number;
  readonly y1: number;
  readonly x2: number;
  readonly y2: number;
}

/** Messages going one way ride this far to the left of the centre line, so requests and replies do not overlap. */
export const LANE_OFFSET = 5;

/** The path of a message from one process to another: edge to edge, shifted into its lane. */
export function linkSegment(from: Place, to: Place, lane = LANE_OFFSET): LineSegment {
  const u = unit(to.x - from.x, to.y - from.y);
  // Left of the direction of travel (y grows downwards, so left is (u.y, -u.x)).
  const ox = u.y * lane;
  const oy = -u.x * lane;
  const d = Math.hypot(to.x - from.x, to.y - from.y);
  const r1 = Math.min(from.radius, d / 2);
  const r2 = Math.min(to.radius, d / 2);
  return {
    x1: from.x + u.x * r1 + ox,
    y1: from.y + u.y * r1 + oy,
    x2: to.x - u.x * r2 + ox,
    y2: to.y - u.y * r2 + oy,
  };
}

export function pointAt(s: LineSegment, t: number): Pt {
  return { x: s.x1 + (s.x2 - s.x1) * t, y: s.y1 + (s.y2 - s.y1) * t };
}

/** Spacing of messages waiting in a paused process's inbox. */
export const QUEUE_SPACING = 14;

/** The i-th message waiting at a paused process: a stack leading away from it. */
export function queuedPosition(at: Place, index: number): Pt {
  const d = at.radius + 12 + index * QUEUE_SPACING;
  return { x: at.x + at.queueDir.x * d, y: at.y + at.queueDir.y * d };
}

/** Stack index of each queued message at its receiver, in arrival order (by delivery time, then id). */
export function queueIndexes(messages: readonly MessageView[]): Map<number, number> {
  const queued = messages.filter((m) => m.queued).sort((a, b) => a.deliverAt - b.deliverAt || a.id - b.id);
  const next = new Map<string, number>();
  const out = new Map<number, number>();
  for (const m of queued) {
    const i = next.get(m.to) ?? 0;
    out.set(m.id, i);
    next.set(m.to, i + 1);
  }
  return out;
}

/** Where a drop is drawn along its link: at the break for a partition or cut, near the end otherwise. */
export function dropT(reason: string): number {
  if (reason === "partition" || reason === "cut") return BREAK_AT;
  if (reason === "loss") return 0.9;
  // Refused at the receiver (down, inbox full): just short of it, so the ✕ does not cover its name.
  return 0.8;
}

/** Opacity of a drop `now`: 1 when it happens, fading to 0 after one real second. */
export function dropOpacity(droppedAt: number, now: number, speed: number): number {
  return 1 - clamp01((now - droppedAt) / dropWindowUs(speed));
}

/** Short words for why a message died. */
export function dropText(reason: string): string {
  switch (reason) {
    case "loss":
      return "lost";
    case "partition":
      return "partition";
    case "cut":
      return "cut";
    case "down":
      return "down";
    case "inbox-full":
      return "inbox full";
    default:
      return reason;
  }
}

/** Remaining share of the election timeout at `now` (1 just reset, 0 due), or null when there is no timer. */
export function timerFraction(n: Pick<NodeView, "electionTimerAt" | "electionTimerFrom" | "role" | "status">, now: number): number | null {
  if (n.status === "down" || n.role === null || n.role === "leader") return null;
  if (n.electionTimerAt === null || n.electionTimerFrom === null) return null;
  const span = n.electionTimerAt - n.electionTimerFrom;
  if (span <= 0) return 0;
  return clamp01((n.electionTimerAt - now) / span);
}


/** Which messages get a text label: all of them when few are in flight, else the newest per direction of each link. */
export const LABEL_ALL_BELOW = 25;

export function labelledMessages(messages: readonly MessageView[]): Set<number> {
  const out = new Set<number>();
  if (messages.length <= LABEL_ALL_BELOW) {
    for (const m of messages) out.add(m.id);
    return out;
  }
  const newest = new Map<string, MessageView>();
  for (const m of messages) {
    const key = m.queued ? `q:${m.to}` : `${m.from}>${m.to}`;
    const prev = newest.get(key);
    if (prev === undefined || m.sentAt > prev.sentAt || (m.sentAt === prev.sentAt && m.id > prev.id)) newest.set(key, m);
  }
  for (const m of newest.values()) out.add(m.id);
  return out;
}

/** Points of a circle around p, for padded hulls. */
export function ringPoints(p: Pt, r: number, k = 12): Pt[] {
  const out: Pt[] = [];
  for (let i = 0; i < k; i++) {
    const a = (2 * Math.PI * i) / k;
    out.push({ x: p.x + r * Math.cos(a), y: p.y + r * Math.sin(a) });
  }
  return out;
}

/** The outline of a process's shape grown by `pad`, as points (for partition hulls and halos). */
export function outlinePoints(p: Place, pad: number, holderSize: { readonly w: number; readonly h: number }): Pt[] {
  if (p.kind === "holder" || p.kind === "storage") {
    const hw = (p.kind === "holder" ? holderSize.w / 2 : 34) + pad;
    const hh = (p.kind === "holder" ? holderSize.h / 2 : 38) + pad;
    return [
      { x: p.x - hw, y: p.y - hh },
      { x: p.x + hw, y: p.y - hh },
      { x: p.x + hw, y: p.y + hh },
      { x: p.x - hw, y: p.y + hh },
    ];
  }
  return ringPoints(p, p.radius + pad);
}

/** Letter of the i-th partition group: A, B, C, ... */
export function groupLetter(i: number): string {
  return String.fromCharCode(65 + (i % 26));
}

// ---------------------------------------------------------------- words and names

/** A holder's top-level state in words (the statechart state "holding.waiting" -> "holding"). */
export function holderStateWord(h: Pick<HolderView, "status" | "state"> & { readonly role?: HolderView["role"] }): string {
  if (h.status === "down") return "down";
  // A database replica shows its role: primary, secondary, offline (docs/failover.md).
  if (h.role !== undefined && h.role !== null) return h.role;
  const top = h.state.split(".")[0] ?? h.state;
  return top === "" ? "idle" : top;
}

/** The accessible name of a holder: "holder h2, holding, token 33", "holder h2, down", "replica h1, primary, token 2". */
export function holderLabel(h: Pick<HolderView, "id" | "status" | "state" | "token"> & { readonly role?: HolderView["role"] }): string {
  const word = holderStateWord(h);
  const what = h.role === undefined || h.role === null ? "holder" : "replica";
  if (word === "down") return `${what} ${h.id}, down`;
  const paused = h.status === "paused" ? ", paused" : "";
  // A replica's name holds every word its box shows (axe: label-content-name-mismatch), "no token" too.
  const token = h.token === null ? (what === "replica" ? ", no token" : "") : `, token ${h.token}`;
  return `${what} ${h.id}, ${word === "offline" ? "offline (self-fenced)" : word}${paused}${token}`;
}

/** The accessible name of the storage: "storage s1, fencing on" (", down" / ", paused" when so). */
export function storageLabel(s: Pick<StorageView, "id" | "status" | "fencing">): string {
  const status = s.status === "up" ? "" : `, ${s.status}`;
  return `storage ${s.id}${status}, fencing ${s.fencing ? "on" : "off"}`;
}

/** "40 % fast", "10 % slow", or "" without drift (driftWords: one formatter everywhere). */
export function driftText(ppm: number): string {
  if (ppm === 0) return "";
  return driftWords(ppm);
}

/** "loss 10%, duplicates 5%", or "" on a clean network. */
export function networkCaption(n: Pick<SimView["network"], "dropRate" | "duplicateRate">): string {
  const parts: string[] = [];
  const pct = (x: number): string => `${Math.round(x * 1000) / 10}%`;
  if (n.dropRate > 0) parts.push(`loss ${pct(n.dropRate)}`);
  if (n.duplicateRate > 0) parts.push(`duplicates ${pct(n.duplicateRate)}`);
  return parts.join(", ");
}

/** Countdown text for a paused process: "‖ paused 1.25 s" (or without a time when it has no wake-up). */
export function pausedText(pausedUntil: number | null, now: number): string {
  if (pausedUntil === null) return "‖ paused";
  const left = Math.max(0, pausedUntil - now);
  return `‖ paused ${formatDuration(left, left < 10_000_000 ? 2 : 1)}`;
}

/** "clock 12.345 s". */
export function clockText(us: number): string {
  return `clock ${formatInstant(us)}`;
}
