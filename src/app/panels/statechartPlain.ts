/**
 * The holder machine's shape as plain data, so the statechart panel draws it without
 * loading xstate in the page (the worker already ships xstate to run the machine; the
 * issue "Ship less" asks that it ship once).
 *
 * `plainMachine` reads the public StateNode API (through MachineLike) into JSON-safe
 * data; `fromPlain` gives it back as a MachineLike for the layout. holderChart.json is
 * `plainMachine(holderMachine)`, written by `npm run chart` (scripts/holder-chart.ts);
 * tests/app/statechart-plain.test.ts fails when the machine changes and the file does
 * not, and says to run that command.
 */
import { guardName, type MachineLike, type MachineNodeLike, type MachineTransitionLike } from "./statechartMachine";

export interface PlainTransition {
  readonly target: readonly (readonly string[])[] | null;
  readonly guard: string | null;
}

export interface PlainNode {
  readonly key: string;
  readonly path: readonly string[];
  readonly type: string;
  readonly states: { readonly [key: string]: PlainNode };
  /** [event type, its transitions], in the machine's order. */
  readonly transitions: readonly (readonly [string, readonly PlainTransition[]])[];
  readonly after: readonly { readonly delay: string | number | null; readonly eventType: string }[];
  readonly initial: readonly (readonly string[])[] | null;
}

function plainNode(n: MachineNodeLike): PlainNode {
  const states: { [key: string]: PlainNode } = {};
  for (const [k, c] of Object.entries(n.states)) states[k] = plainNode(c);
  return {
    key: n.key,
    path: [...n.path],
    type: n.type,
    states,
    transitions: [...n.transitions].map(([event, defs]) => [
      event,
      defs.map((d) => ({ target: d.target === undefined ? null : d.target.map((t) => [...t.path]), guard: guardName(d.guard) })),
    ]),
    after: n.after.map((a) => ({
      delay: typeof a.delay === "string" || typeof a.delay === "number" ? a.delay : null,
      eventType: a.eventType,
    })),
    initial: n.initial === undefined ? null : n.initial.target.map((t) => [...t.path]),
  };
}

/** The machine's shape as JSON-safe data. */
export function plainMachine(machine: MachineLike): PlainNode {
  return plainNode(machine.root);
}

function nodeOf(p: PlainNode): MachineNodeLike {
  const states: { [key: string]: MachineNodeLike } = {};
  for (const [k, c] of Object.entries(p.states)) states[k] = nodeOf(c);
  const transitions = new Map<string, MachineTransitionLike[]>(
    p.transitions.map(([event, defs]) => [
      event,
      defs.map((d) => ({ target: d.target === null ? undefined : d.target.map((path) => ({ path })), guard: d.guard ?? undefined })),
    ]),
  );
  return {
    key: p.key,
    path: p.path,
    type: p.type,
    states,
    transitions,
    after: p.after.map((a) => ({ delay: a.delay ?? undefined, eventType: a.eventType })),
    initial: p.initial === null ? undefined : { target: p.initial.map((path) => ({ path })) },
  };
}

/** Plain data back as a MachineLike the layout reads. */
export function fromPlain(p: PlainNode): MachineLike {
  return { root: nodeOf(p) };
}
