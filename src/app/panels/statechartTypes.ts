/** The statechart layout's shapes: what the layout returns and what its parts pass each other. */

export interface Rect {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

export interface Point {
  readonly x: number;
  readonly y: number;
}

export interface StateBox extends Rect {
  /** Dotted path from the root: "holding", "holding.waiting". */
  readonly id: string;
  /** The state's own name: "waiting". */
  readonly key: string;
  readonly parent: string | null;
  /** 1 for top-level states, 2 for their children, ... */
  readonly depth: number;
  readonly compound: boolean;
  /** Where the badges of holders in this state go (leaf states only; compounds get none). */
  readonly badgeY: number;
}

export interface EdgeLabel {
  readonly x: number;
  /** Baseline of the first line. */
  readonly y: number;
  readonly anchor: "start" | "middle" | "end";
  readonly lines: readonly string[];
}

export interface ChartEdge {
  /** "from->to". */
  readonly id: string;
  readonly from: string;
  readonly to: string;
  /** Events, one per line: "GRANTED", "after:untilRenew", "after:untilNominalEnd [hasGrace]". */
  readonly events: readonly string[];
  /** Between two children of one compound state (drawn small, labelled on hover only). */
  readonly inner: boolean;
  readonly points: readonly Point[];
  /** null for inner edges (their events are in a tooltip). */
  readonly label: EdgeLabel | null;
}

/** An event taken from several top-level states to one target, written under the diagram. */
export interface ChartNote {
  readonly event: string;
  readonly from: readonly string[];
  readonly to: string;
  /** "RELEASE: idle, requesting, lost → released". */
  readonly text: string;
}

export interface StatechartLayout {
  readonly width: number;
  readonly height: number;
  /** Every state of the machine, parents before their children. */
  readonly boxes: readonly StateBox[];
  readonly byId: ReadonlyMap<string, StateBox>;
  readonly edges: readonly ChartEdge[];
  readonly notes: readonly ChartNote[];
  /** The "down" box for crashed holders (not a state of the machine). */
  readonly down: Rect;
  readonly initial: string;
}

/** Which way the top-level flow goes: left to right (children stacked) or top to bottom (children side by side). */
export type Direction = "LR" | "TB";

/** A box's size before it is placed. */
export interface Size {
  w: number;
  h: number;
}

/** Which side of its segment a label goes: before = above / left, after = below / right. */
export type LabelSide = "before" | "after";
