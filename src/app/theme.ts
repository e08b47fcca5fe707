/**
 * Colours and glyphs shared by every drawing. The palette is Okabe and Ito's, which
 * stays distinguishable with the common forms of colour blindness; every colour is
 * also paired with a glyph, a pattern or a word, so colour is never the only signal.
 */

export const OKABE_ITO = {
  black: "#000000",
  orange: "#E69F00",
  skyBlue: "#56B4E9",
  green: "#009E73",
  yellow: "#F0E442",
  blue: "#0072B2",
  vermillion: "#D55E00",
  purple: "#CC79A7",
} as const;

export type NodeState = "leader" | "candidate" | "precandidate" | "follower" | "down";

export const ROLE_COLOR: Record<NodeState, string> = {
  leader: OKABE_ITO.blue,
  candidate: OKABE_ITO.orange,
  precandidate: OKABE_ITO.yellow,
  follower: OKABE_ITO.skyBlue,
  down: "#9a9a9a",
};

/** A glyph per state, drawn next to the colour. */
export const ROLE_GLYPH: Record<NodeState, string> = {
  leader: "★",
  candidate: "?",
  precandidate: "…",
  follower: "●",
  down: "✕",
};

export const ROLE_TEXT: Record<NodeState, string> = {
  leader: "leader",
  candidate: "candidate",
  precandidate: "pre-candidate",
  follower: "follower",
  down: "down",
};

export const PAUSED_COLOR = OKABE_ITO.purple;

/** Term colours for the log grid (cycled; the term number is always printed in the cell too). */
const TERM_COLORS = [OKABE_ITO.skyBlue, OKABE_ITO.orange, OKABE_ITO.green, OKABE_ITO.purple, OKABE_ITO.yellow, OKABE_ITO.blue, OKABE_ITO.vermillion];

export function termColor(term: number): string {
  return TERM_COLORS[((term % TERM_COLORS.length) + TERM_COLORS.length) % TERM_COLORS.length] as string;
}

/** Black or white, whichever reads better on `bg` (a #rrggbb colour). */
export function textOn(bg: string): string {
  const n = Number.parseInt(bg.slice(1), 16);
  const r = (n >> 16) & 255;
  const g = (n >> 8) & 255;
  const b = n & 255;
  // Relative luminance, sRGB approximation.
  const l = (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
  return l > 0.5 ? "#000000" : "#ffffff";
}

/** Message colours by kind (the label is always drawn beside the dot). */
export type MessageKind = "vote" | "replication" | "snapshot" | "lease" | "storage" | "other";

/** What a message is about, from its label ("vote reply" -> vote, "heartbeat" -> replication). */
export function messageKind(label: string): MessageKind {
  if (label.includes("vote")) return "vote";
  if (label.startsWith("append") || label === "heartbeat") return "replication";
  // InstallSnapshot (its answer is an "append reply", as in etcd).
  if (label === "snapshot") return "snapshot";
  if (label.includes("write")) return "storage";
  if (["acquire", "grant", "denied", "release", "refresh"].some((w) => label.includes(w))) return "lease";
  return "other";
}

/** The kinds of Raft's own traffic between servers (the space-time legend hides arrows by these same kinds). */
export const RAFT_KINDS: ReadonlySet<MessageKind> = new Set<MessageKind>(["vote", "replication", "snapshot"]);

/** Raft's own traffic: votes, append/heartbeat, snapshots, their replies, and TimeoutNow. */
export function isRaftTraffic(label: string): boolean {
  return RAFT_KINDS.has(messageKind(label)) || label === "timeout now";
}

/**
 * Part of the lease story (the ring's "Lease story" view): lease requests, grants and
 * refreshes, storage writes, and whatever else goes to or from a holder or the storage
 * ("not leader" to a holder). Raft's own traffic and the key-value clients' are not.
 */
export function inLeaseStory(m: { readonly label: string; readonly from: string; readonly to: string }, leaseProcs: ReadonlySet<string>): boolean {
  if (isRaftTraffic(m.label)) return false;
  const k = messageKind(m.label);
  return k === "lease" || k === "storage" || leaseProcs.has(m.from) || leaseProcs.has(m.to);
}

const KIND_COLOR: Record<MessageKind, string> = {
  vote: OKABE_ITO.orange,
  replication: OKABE_ITO.blue,
  snapshot: OKABE_ITO.black,
  storage: OKABE_ITO.green,
  lease: OKABE_ITO.purple,
  other: "#555555",
};

export function messageColor(label: string): string {
  return KIND_COLOR[messageKind(label)];
}
