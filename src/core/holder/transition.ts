/**
 * The holder statechart's transition, at speed. The statechart (holderMachine.ts) stays the
 * one definition of the holder's behaviour; this module only makes running it cheap.
 *
 * xstate's `transition()` costs 10 to 20 µs a step, most of it garbage: a snapshot, a tag
 * set and a state value per assign, sets and lists of state nodes per microstep. Yet what a
 * step does depends only on where the statechart is, on the event's type and on what its
 * guards say: which states it leaves and enters, which actions it runs in which order. So the
 * first time xstate takes a step from a state on an event type with a given guard outcome,
 * it is taken twice: once for real, and once on an instrumented copy of the machine
 * (`provide()`: the same states and transitions, with the named actions as stubs that
 * record themselves, the guards recording their verdicts, the delays recording their
 * names). That yields a plan: the steps xstate took, in its order (assign X, run action Y
 * with its params, arm the delayed event E after delay D, cancel timer T), and the state it
 * ended in. The plan is replayed at once on the same input and must give exactly what xstate
 * gave (the same state value, context and actions), or it is never used.
 *
 * Afterwards, a step from that state on that event type walks the guards the plan recorded
 * (calling the machine's own guard implementations), then replays the plan: the machine's own
 * assignments, params functions and delay functions, run in xstate's order on the same
 * arguments. A new outcome (an unseen state, event type or guard verdict) goes to xstate and
 * becomes a plan in turn. What cannot be replayed (an inline action, an eventless
 * transition, an immediate raise, an action name used with two different params) is
 * always left to xstate. tests/lease/holder-transition.test.ts checks, on random walks with
 * random settings, that the result equals xstate's `transition()`.
 */
import { type ActorScope, type AnyActorRef, createActor, type StateValue } from "xstate";
import {
  asHolderAction,
  type HolderAction,
  type HolderContext,
  type HolderEvent,
  type HolderSnapshot,
  holderMachine,
  stateString,
} from "./holderMachine";
import type { HolderSettings } from "./types";

type Args = { readonly context: HolderSnapshot["context"]; readonly event: HolderEvent };
type Fn = (args: Args, params?: unknown) => unknown;
type Context = HolderSnapshot["context"];

/** How a named action is given its params in the machine's definition. */
type RawParams = { readonly kind: "none" } | { readonly kind: "static"; readonly value: unknown } | { readonly kind: "fn"; readonly fn: Fn };

type Step =
  | { readonly kind: "assign"; readonly raw: RawParams; readonly fn: Fn | null; readonly entries: readonly [string, unknown][] }
  | { readonly kind: "action"; readonly type: string; readonly raw: RawParams; readonly fixed: HolderAction | null }
  | { readonly kind: "raise"; readonly event: { readonly type: string }; readonly id: string | undefined; readonly delay: string | number }
  | { readonly kind: "cancel"; readonly action: HolderAction };

interface Plan {
  readonly steps: readonly Step[];
  /** The snapshot xstate ended in (its context is replaced), or null when it stayed put. */
  readonly template: HolderSnapshot | null;
}

/** A leaf: the plan, or null when this outcome is always left to xstate. */
interface Leaf {
  readonly plan: Plan | null;
}
interface GuardNode {
  readonly guard: string;
  whenTrue: PlanNode | undefined;
  whenFalse: PlanNode | undefined;
}
type PlanNode = Leaf | GuardNode;

const impl = holderMachine.implementations;
const guardImpl = impl.guards as unknown as Record<string, Fn>;
const delayImpl = impl.delays as unknown as Record<string, Fn | number>;
const actionImpl = impl.actions as unknown as Record<string, unknown>;

// ---- what the machine's definition says --------------------------------------------

interface RawStateNode {
  readonly entry: readonly unknown[];
  readonly exit: readonly unknown[];
  readonly initial?: { readonly actions: readonly unknown[] } | undefined;
  readonly always?: readonly unknown[] | undefined;
  readonly transitions: Map<string, readonly { readonly actions: readonly unknown[]; readonly guard?: unknown }[]>;
  readonly states: Record<string, RawStateNode>;
}

const AMBIGUOUS: RawParams = { kind: "none" };

/**
 * The params of every named action as the definition gives them (one way per name), and
 * whether the definition is one plans can replay at all (no eventless transitions, guards
 * by name only, no inline actions but xstate's own raise and cancel).
 */
function readDefinition(): { readonly params: Map<string, RawParams>; readonly replayable: boolean } {
  const params = new Map<string, RawParams>();
  const rawObjects = new Map<string, unknown>();
  let replayable = true;
  const note = (type: string, raw: unknown, p: RawParams) => {
    const seen = rawObjects.get(type);
    if (seen === undefined) {
      rawObjects.set(type, raw);
      params.set(type, p);
    } else if (seen !== raw) params.set(type, AMBIGUOUS);
  };
  const visitAction = (a: unknown) => {
    if (typeof a === "string") note(a, a, { kind: "none" });
    else if (typeof a === "function") {
      const t = (a as { type?: unknown }).type;
      if (t !== "xstate.raise" && t !== "xstate.cancel") replayable = false;
    } else if (typeof a === "object" && a !== null && typeof (a as { type?: unknown }).type === "string") {
      const o = a as { type: string; params?: unknown };
      const p: RawParams = !("params" in o)
        ? { kind: "none" }
        : typeof o.params === "function"
          ? { kind: "fn", fn: o.params as Fn }
          : { kind: "static", value: o.params };
      note(o.type, o, p);
    } else replayable = false;
  };
  const visit = (node: RawStateNode) => {
    if (node.always !== undefined && node.always.length > 0) replayable = false;
    for (const a of node.entry) visitAction(a);
    for (const a of node.exit) visitAction(a);
    for (const a of node.initial?.actions ?? []) visitAction(a);
    for (const list of node.transitions.values()) {
      for (const t of list) {
        if (t.guard !== undefined && typeof t.guard !== "string") replayable = false;
        for (const a of t.actions) visitAction(a);
      }
    }
    for (const child of Object.values(node.states)) visit(child);
  };
  visit(holderMachine.root as unknown as RawStateNode);
  for (const g of Object.values(guardImpl)) if (typeof g !== "function" || "check" in g) replayable = false;
  return { params, replayable };
}

const definition = readDefinition();

// ---- recording a plan on an instrumented copy of the machine --------------------------

interface Recording {
  readonly guards: [string, boolean][];
  readonly steps: Step[];
  delayName: string | null;
  ok: boolean;
}

let recording: Recording | null = null;

function isAssign(a: unknown): a is { readonly assignment: unknown } {
  return typeof a === "function" && (a as { type?: unknown }).type === "xstate.assign" && "assignment" in a;
}

const instrumented = holderMachine.provide({
  actions: Object.fromEntries(Object.keys(actionImpl).map((name) => [name, () => {}])),
  guards: Object.fromEntries(
    Object.entries(guardImpl).map(([name, g]) => [
      name,
      (args: Args, params: unknown) => {
        const verdict = Boolean(g(args, params));
        recording?.guards.push([name, verdict]);
        return verdict;
      },
    ]),
  ),
  delays: Object.fromEntries(
    Object.keys(delayImpl).map((name) => [
      name,
      () => {
        if (recording !== null) recording.delayName = name;
        return 0;
      },
    ]),
  ),
} as unknown as Parameters<typeof holderMachine.provide>[0]);

/** Turns what reached the instrumented machine's executor into a step of the plan. */
function recordStep(rec: Recording, a: { readonly type: string; readonly params?: unknown }): void {
  if (a.type === "xstate.raise") {
    const p = a.params as { event: { type: string }; id?: string; delay?: unknown };
    if (typeof p.delay !== "number") rec.ok = false;
    else rec.steps.push({ kind: "raise", event: p.event, id: p.id, delay: rec.delayName ?? p.delay });
    rec.delayName = null;
    return;
  }
  if (a.type === "xstate.cancel") {
    const p = a.params as { sendId: string };
    rec.steps.push({ kind: "cancel", action: { type: "xstate.cancel", params: { sendId: p.sendId } } });
    return;
  }
  const raw = definition.params.get(a.type);
  if (raw === undefined || raw === AMBIGUOUS || !Object.hasOwn(actionImpl, a.type)) {
    rec.ok = false;
    return;
  }
  const original = actionImpl[a.type];
  if (isAssign(original)) {
    const assignment = original.assignment;
    if (typeof assignment === "function") rec.steps.push({ kind: "assign", raw, fn: assignment as Fn, entries: [] });
    else rec.steps.push({ kind: "assign", raw, fn: null, entries: Object.entries(assignment as Record<string, unknown>) });
    return;
  }
  if (typeof original !== "function" || "resolve" in original) {
    rec.ok = false;
    return;
  }
  const fixed = raw.kind === "fn" ? null : ({ type: a.type, params: raw.kind === "static" ? raw.value : undefined } as HolderAction);
  rec.steps.push({ kind: "action", type: a.type, raw, fixed });
}

// ---- scopes: xstate runs here, records only, executes nothing ---------------------------

interface InertScope {
  readonly scope: ActorScope<HolderSnapshot, HolderEvent>;
  sink: ((a: { readonly type: string; readonly params?: unknown }) => void) | null;
}

function makeScope(self: AnyActorRef): InertScope {
  const holder: InertScope = {
    sink: null,
    scope: {
      self,
      defer: () => {},
      id: "",
      logger: () => {},
      sessionId: "",
      stopChild: () => {},
      system: self.system,
      emit: () => {},
      actionExecutor: (action) => {
        if (holder.sink === null) throw new Error("holderTransition: action outside a transition");
        holder.sink(action);
      },
    } as ActorScope<HolderSnapshot, HolderEvent>,
  };
  return holder;
}

let realScope: InertScope | null = null;
let recordScope: InertScope | null = null;

/**
 * xstate's pure `transition(holderMachine, snapshot, event)`, without the throwaway actor
 * `transition()` builds on every call to get an inert scope: one is built once and reused,
 * through the machine's public `transition(snapshot, event, actorScope)`. It only records the
 * actions (nothing is executed or scheduled), which is all `transition()` does with its own.
 * `cfg` only constructs the scope's actor (the first caller's settings); it never runs.
 */
export function xstateTransition(snapshot: HolderSnapshot, event: HolderEvent): [HolderSnapshot, HolderAction[]] {
  realScope ??= makeScope(createActor(holderMachine, { input: { cfg: snapshot.context.cfg } }));
  const actions: HolderAction[] = [];
  realScope.sink = (a) => actions.push(asHolderAction(a as Parameters<typeof asHolderAction>[0]));
  try {
    return [holderMachine.transition(snapshot, event, realScope.scope), actions];
  } finally {
    realScope.sink = null;
  }
}

/** Takes the step on the instrumented machine: the plan's guards and steps, or null if it cannot be replayed. */
function record(snapshot: HolderSnapshot, event: HolderEvent, cfg: HolderSettings): Recording {
  recordScope ??= makeScope(createActor(instrumented, { input: { cfg } }));
  const rec: Recording = { guards: [], steps: [], delayName: null, ok: definition.replayable };
  const scope = recordScope;
  recording = rec;
  scope.sink = (a) => recordStep(rec, a);
  try {
    const start = instrumented.resolveState({ value: snapshot.value, context: snapshot.context });
    instrumented.transition(start, event, scope.scope as unknown as Parameters<typeof instrumented.transition>[2]);
  } finally {
    recording = null;
    scope.sink = null;
  }
  return rec;
}

// ---- replaying a plan ------------------------------------------------------------------

/**
 * What xstate's assign does, `Object.assign({}, context, partial)`, at a tenth of the cost: the
 * copy is one object literal of every field (the compiler checks none is missing), in the
 * order of the machine's initial context (the test checks the keys come out as xstate's).
 */
function assignContext(c: Context, partial: object): Context {
  const next: HolderContext = {
    cfg: c.cfg,
    attempts: c.attempts,
    opSentAtUs: c.opSentAtUs,
    failures: c.failures,
    redirects: c.redirects,
    reqId: c.reqId,
    refreshes: c.refreshes,
    renewFailures: c.renewFailures,
    renewRedirects: c.renewRedirects,
    token: c.token,
    ttlMs: c.ttlMs,
    deadlineUs: c.deadlineUs,
    nominalEndUs: c.nominalEndUs,
    renewAtUs: c.renewAtUs,
    acquiredAtUs: c.acquiredAtUs,
  };
  const out = next as unknown as Record<string, unknown>;
  for (const k in partial) out[k] = (partial as Record<string, unknown>)[k];
  return next;
}

function paramsFor(raw: RawParams, context: Context, event: HolderEvent): unknown {
  if (raw.kind === "none") return undefined;
  if (raw.kind === "static") return raw.value;
  return raw.fn({ context, event });
}

/** The plan's steps on this snapshot and event, as xstate's resolveAndExecuteActionsWithContext takes them. */
function replay(plan: Plan, snapshot: HolderSnapshot, event: HolderEvent): [HolderSnapshot, HolderAction[]] {
  let context = snapshot.context;
  const actions: HolderAction[] = [];
  for (const s of plan.steps) {
    switch (s.kind) {
      case "assign": {
        const args: Args = { context, event };
        const params = paramsFor(s.raw, context, event);
        let partial: object;
        if (s.fn !== null) partial = s.fn(args, params) as object;
        else {
          const p: Record<string, unknown> = {};
          for (const [k, v] of s.entries) p[k] = typeof v === "function" ? (v as Fn)(args, params) : v;
          partial = p;
        }
        context = assignContext(context, partial);
        break;
      }
      case "action":
        actions.push(s.fixed ?? ({ type: s.type, params: paramsFor(s.raw, context, event) } as HolderAction));
        break;
      case "raise": {
        let delay: unknown = s.delay;
        if (typeof delay === "string") {
          const d = delayImpl[delay];
          delay = typeof d === "function" ? d({ context, event }) : d;
        }
        actions.push({ type: "xstate.raise", params: { event: s.event, id: s.id, delay: delay as number } });
        break;
      }
      case "cancel":
        actions.push(s.action);
        break;
    }
  }
  const t = plan.template;
  if (t === null) return [context === snapshot.context ? snapshot : { ...snapshot, context }, actions];
  return [{ ...t, context }, actions];
}

// ---- the table: state -> event type -> guard verdicts -> plan --------------------------

type StateEntry = Map<string, PlanNode>;
const byKey = new Map<string, StateEntry>();
const byValue = new WeakMap<object, StateEntry>();

function entryOf(value: StateValue): StateEntry {
  if (typeof value !== "string") {
    const e = byValue.get(value);
    if (e !== undefined) return e;
  }
  const key = stateString(value);
  let e = byKey.get(key);
  if (e === undefined) {
    e = new Map();
    byKey.set(key, e);
  }
  if (typeof value !== "string") byValue.set(value, e);
  return e;
}

/** Files the leaf under the guard verdicts that led to it; a structure that disagrees leaves the event type to xstate. */
function insert(entry: StateEntry, type: string, path: readonly [string, boolean][], leaf: Leaf): void {
  const first = path[0];
  if (first === undefined) {
    entry.set(type, leaf);
    return;
  }
  let node = entry.get(type);
  if (node === undefined) {
    node = { guard: first[0], whenTrue: undefined, whenFalse: undefined };
    entry.set(type, node);
  }
  for (let i = 0; i < path.length; i++) {
    const [guard, verdict] = path[i] as [string, boolean];
    if (!("guard" in node) || node.guard !== guard) {
      entry.set(type, { plan: null });
      return;
    }
    const next = path[i + 1];
    if (next === undefined) {
      if (verdict) node.whenTrue = leaf;
      else node.whenFalse = leaf;
      return;
    }
    let child: PlanNode | undefined = verdict ? node.whenTrue : node.whenFalse;
    if (child === undefined) {
      child = { guard: next[0], whenTrue: undefined, whenFalse: undefined };
      if (verdict) node.whenTrue = child;
      else node.whenFalse = child;
    }
    node = child;
  }
}

/** Plain data equal, functions and other objects by identity (for checking a new plan against xstate). */
function samePlain(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka) if (!samePlain((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  return true;
}

function sameActions(a: readonly HolderAction[], b: readonly HolderAction[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as HolderAction;
    const y = b[i] as HolderAction;
    if (x.type !== y.type || !samePlain(x.params, y.params)) return false;
  }
  return true;
}

const counts = { plans: 0, refused: 0, replayed: 0, byXstate: 0 };

/** How the table is doing: plans made, outcomes left to xstate, steps replayed, steps xstate took. */
export function planStats(): Readonly<typeof counts> {
  return { ...counts };
}

/** xstate takes the step, and the step becomes a plan if its replay gives the same. */
function learn(entry: StateEntry, snapshot: HolderSnapshot, event: HolderEvent): [HolderSnapshot, HolderAction[]] {
  const real = xstateTransition(snapshot, event);
  counts.byXstate += 1;
  const rec = record(snapshot, event, snapshot.context.cfg);
  let plan: Plan | null = null;
  if (rec.ok) {
    const candidate: Plan = { steps: rec.steps, template: real[0] === snapshot ? null : real[0] };
    const [s, a] = replay(candidate, snapshot, event);
    if (samePlain(s.value, real[0].value) && samePlain(s.context, real[0].context) && sameActions(a, real[1])) plan = candidate;
  }
  if (plan === null) counts.refused += 1;
  else counts.plans += 1;
  insert(entry, event.type, rec.guards, { plan });
  return real;
}

/**
 * The same as xstate's `transition(holderMachine, snapshot, event)`: a replayed plan when
 * one fits, else xstate's own step (which then becomes a plan).
 */
export function holderTransition(snapshot: HolderSnapshot, event: HolderEvent): [HolderSnapshot, HolderAction[]] {
  const entry = entryOf(snapshot.value);
  let node = entry.get(event.type);
  while (node !== undefined && "guard" in node) {
    const g = guardImpl[node.guard] as Fn;
    node = g({ context: snapshot.context, event }) ? node.whenTrue : node.whenFalse;
  }
  if (node === undefined) return learn(entry, snapshot, event);
  if (node.plan === null) {
    counts.byXstate += 1;
    return xstateTransition(snapshot, event);
  }
  counts.replayed += 1;
  return replay(node.plan, snapshot, event);
}
