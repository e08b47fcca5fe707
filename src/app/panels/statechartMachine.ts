/**
 * Reading an xstate machine for its statechart: every transition with its source made
 * concrete (a compound state's transition applies in each child that does not handle the
 * event itself), then grouped into the edges to draw and the notes to write.
 *
 * Only the public StateNode API is read (key, path, type, states, transitions, after,
 * initial), through the structural MachineNodeLike so the tests may pass plain objects.
 */
import type { ChartNote } from "./statechartTypes";

/** The parts of an xstate StateNode the layout reads (structural, so tests may pass plain objects). */
export interface MachineNodeLike {
  readonly key: string;
  readonly path: readonly string[];
  readonly type: string;
  readonly states: { readonly [key: string]: MachineNodeLike };
  readonly transitions: ReadonlyMap<string, readonly MachineTransitionLike[]>;
  readonly after: readonly { readonly delay: unknown; readonly eventType: string }[];
  readonly initial: { readonly target: readonly { readonly path: readonly string[] }[] } | undefined;
}

export interface MachineTransitionLike {
  readonly target: readonly { readonly path: readonly string[] }[] | undefined;
  readonly guard?: unknown;
}

export interface MachineLike {
  readonly root: MachineNodeLike;
}

/** An event from at least this many top-level states to one target becomes a note. */
const FAN_IN_NOTE = 3;

const AFTER_PREFIX = "xstate.after.";

export interface RawTransition {
  readonly source: string;
  readonly event: string;
  readonly target: string;
  readonly guard: string | null;
}

export const pathId = (p: readonly string[]): string => p.join(".");
const top = (id: string): string => id.split(".")[0] as string;
/** The ancestor of `id` at `depth` (1 = top level). */
const atDepth = (id: string, depth: number): string | null => {
  const parts = id.split(".");
  return parts.length < depth ? null : parts.slice(0, depth).join(".");
};

/** A guard's name as the statechart labels it (xstate keeps `{ type }` objects, strings or functions). */
export function guardName(g: unknown): string | null {
  if (g === undefined || g === null) return null;
  if (typeof g === "string") return g;
  if (typeof g === "object" && "type" in g && typeof (g as { type: unknown }).type === "string") return (g as { type: string }).type;
  if (typeof g === "function") return g.name || "guard";
  return "guard";
}

export function allNodes(root: MachineNodeLike): MachineNodeLike[] {
  const out: MachineNodeLike[] = [];
  const visit = (n: MachineNodeLike): void => {
    out.push(n);
    for (const c of Object.values(n.states)) visit(c);
  };
  visit(root);
  return out;
}

/** The leaf a transition into `n` ends in (following initial states). */
function initialLeaf(n: MachineNodeLike, byPath: ReadonlyMap<string, MachineNodeLike>): string {
  let cur = n;
  for (let i = 0; i < 32; i++) {
    const t = cur.initial?.target[0];
    if (cur.type !== "compound" || t === undefined) break;
    const next = byPath.get(pathId(t.path));
    if (next === undefined) break;
    cur = next;
  }
  return pathId(cur.path);
}

/** Does `n` or a descendant define a transition on `event`? */
function handles(n: MachineNodeLike, event: string): boolean {
  if (n.transitions.has(event)) return true;
  return Object.values(n.states).some((c) => handles(c, event));
}

/** Every transition of the machine, with sources made concrete and display labels. */
export function machineTransitions(machine: MachineLike): RawTransition[] {
  const nodes = allNodes(machine.root);
  const byPath = new Map(nodes.map((n) => [pathId(n.path), n]));
  const raw: RawTransition[] = [];
  for (const n of nodes) {
    const delayOf = new Map(n.after.map((a) => [a.eventType, a.delay]));
    for (const [eventType, defs] of n.transitions) {
      let event = eventType;
      if (eventType.startsWith(AFTER_PREFIX)) {
        const d = delayOf.get(eventType);
        event =
          typeof d === "string"
            ? `after:${d}`
            : typeof d === "number"
              ? `after ${d} ms`
              : `after:${eventType.slice(AFTER_PREFIX.length).split(".")[0]}`;
      }
      for (const def of defs) {
        for (const t of def.target ?? []) {
          const tn = byPath.get(pathId(t.path));
          if (tn === undefined) continue;
          const target = initialLeaf(tn, byPath);
          // A transition defined on a compound state applies in each child that does not
          // handle the event itself (xstate picks the deepest handler).
          const sources: MachineNodeLike[] = [];
          const expand = (s: MachineNodeLike): void => {
            const kids = Object.values(s.states);
            if (s.type !== "compound" || kids.length === 0) {
              sources.push(s);
              return;
            }
            for (const k of kids) if (!handles(k, eventType)) expand(k);
          };
          if (n.path.length === 0 || n.type === "compound") {
            for (const k of Object.values(n.states)) if (!handles(k, eventType)) expand(k);
          } else sources.push(n);
          for (const s of sources) raw.push({ source: pathId(s.path), event, target, guard: guardName(def.guard) });
        }
      }
    }
  }
  return raw;
}

/** An edge to draw: between two top-level states, or between two children of one (inner). */
export interface EdgeSpec {
  from: string;
  to: string;
  events: string[];
  inner: boolean;
}

/** Groups transitions into drawn edges (top-level and inner) and notes. */
export function edgeSpecs(raw: readonly RawTransition[]): { top: EdgeSpec[]; inner: EdgeSpec[]; notes: ChartNote[] } {
  // Guards matter where one event from one state leads to different places.
  const bySourceEvent = new Map<string, RawTransition[]>();
  for (const r of raw) {
    if (r.source === r.target) continue;
    const k = `${r.source}\u0000${r.event}`;
    const list = bySourceEvent.get(k);
    if (list === undefined) bySourceEvent.set(k, [r]);
    else list.push(r);
  }
  const labelled: { from: string; to: string; event: string }[] = [];
  for (const list of bySourceEvent.values()) {
    const targets = new Set(list.map((r) => r.target));
    for (const r of list) {
      const event = targets.size > 1 ? `${r.event} [${r.guard ?? "else"}]` : r.event;
      labelled.push({ from: r.source, to: r.target, event });
    }
  }
  const topMap = new Map<string, EdgeSpec>();
  const innerMap = new Map<string, EdgeSpec>();
  const add = (map: Map<string, EdgeSpec>, from: string, to: string, event: string, inner: boolean): void => {
    const k = `${from}->${to}`;
    const e = map.get(k);
    if (e === undefined) map.set(k, { from, to, events: [event], inner });
    else if (!e.events.includes(event)) e.events.push(event);
  };
  for (const l of labelled) {
    const a = top(l.from);
    const b = top(l.to);
    if (a !== b) add(topMap, a, b, l.event, false);
    else {
      const ca = atDepth(l.from, 2);
      const cb = atDepth(l.to, 2);
      if (ca !== null && cb !== null && ca !== cb) add(innerMap, ca, cb, l.event, true);
    }
  }
  // Fans: one event to one target from many top-level states.
  const fan = new Map<string, Set<string>>();
  for (const e of topMap.values()) {
    for (const ev of e.events) {
      const k = `${ev}\u0000${e.to}`;
      const s = fan.get(k) ?? new Set<string>();
      s.add(e.from);
      fan.set(k, s);
    }
  }
  const notes: ChartNote[] = [];
  for (const [k, froms] of fan) {
    if (froms.size < FAN_IN_NOTE) continue;
    const [event, to] = k.split("\u0000") as [string, string];
    const from = [...froms];
    notes.push({ event, from, to, text: `${event}: ${from.join(", ")} → ${to}` });
    for (const f of from) {
      const e = topMap.get(`${f}->${to}`);
      if (e !== undefined) e.events = e.events.filter((x) => x !== event);
    }
  }
  return { top: [...topMap.values()].filter((e) => e.events.length > 0), inner: [...innerMap.values()], notes };
}
