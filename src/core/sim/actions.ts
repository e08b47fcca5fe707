/**
 * The simulator's actions: what a user, a scenario or the nemesis can do to a run, how a
 * reference ("leader", "any-node", a name given with `as`) resolves to a process, and each
 * action's effect. An action that cannot run throws ActionRefused; anything else it throws
 * is a bug, and the kernel halts the run on it.
 *
 * Each action's effect is one entry of APPLY: a new member of Action without an entry is a
 * compile error here, as it is in the scenario file's table (scenario/actions.ts).
 */
import type { ClientRequest } from "../kv/client";
import type { FencedStorage } from "../storage/storage";
import { withDrift, withJump } from "./clock";
import { logicOf, type ProcRecord, type ProcessKind, type LogicOf } from "./cluster";
import type { LatencyRange, Network } from "./network";
import type { ProcessContext } from "./process";
import { ActionRefused, errorMessage } from "./refusal";
import type { Rng } from "./rng";
import type { Envelope } from "./sim";
import { formatDuration } from "./time";
import type { DropReason, ProcEvent, ProcId, SimEvent } from "./trace";

/**
 * A process reference: an id ("n3", "c1"), or a role resolved when the action
 * runs: "leader" (the up node leading the highest term), "follower" (the first
 * up node that is not leader), "any-node" / "any-client" (random, seeded). In a
 * partition, "others" stands for every node not named in another group.
 *
 * `as` on an action aimed at one process names the process the reference resolved to (e.g.
 * crash "leader" as "old"): later actions and references reach it by that name ("restart old").
 */
export type ProcRef = string;

/** The role words a reference may use; a name given with `as` may not be one. */
export const ROLE_REFS: readonly string[] = ["leader", "follower", "any-node", "any-client", "any-holder", "others"];

export type Action =
  | { readonly type: "crash"; readonly proc: ProcRef; readonly as?: string }
  | { readonly type: "restart"; readonly proc: ProcRef; readonly as?: string }
  | { readonly type: "pause"; readonly proc: ProcRef; readonly durationUs: number }
  | { readonly type: "resume"; readonly proc: ProcRef; readonly as?: string }
  /** Groups that cannot reach each other; a process named twice in one group (a role and its id) is in it once. */
  | { readonly type: "partition"; readonly groups: readonly (readonly ProcRef[])[] }
  | { readonly type: "heal" }
  | { readonly type: "cut"; readonly from: ProcRef; readonly to: ProcRef }
  /** Cuts one process off from every other (both ways), or joins it back; heal joins every one back. */
  | { readonly type: "disconnect"; readonly proc: ProcRef; readonly as?: string }
  | { readonly type: "connect"; readonly proc: ProcRef; readonly as?: string }
  /** Messages from `from` to `to` take `delayUs` longer, one way (0: back to normal); heal clears it. */
  | { readonly type: "slow-link"; readonly from: ProcRef; readonly to: ProcRef; readonly delayUs: number }
  | { readonly type: "clock"; readonly proc: ProcRef; readonly driftPpm?: number; readonly jumpUs?: number }
  | {
      readonly type: "network";
      readonly dropRate?: number;
      readonly duplicateRate?: number;
      readonly latencyMinUs?: number;
      readonly latencyMaxUs?: number;
      /** Latency by type of message; a type set to null goes back to the range above. */
      readonly latencyByType?: Readonly<Record<string, LatencyRange | null>>;
    }
  | { readonly type: "submit"; readonly client: ProcRef; readonly op: ClientRequest }
  | { readonly type: "timeout"; readonly proc: ProcRef; readonly as?: string }
  /** The leader hands leadership to `to` (dissertation 3.10: catch it up, then TimeoutNow). */
  | { readonly type: "transfer"; readonly to: ProcRef }
  /** The leader adds a server to the configuration, or removes one (dissertation 4, one at a time). */
  | { readonly type: "add-node"; readonly proc: ProcRef; readonly as?: string }
  | { readonly type: "remove-node"; readonly proc: ProcRef; readonly as?: string }
  | { readonly type: "drop-message"; readonly id: number }
  | { readonly type: "note"; readonly text: string }
  /** The holder gives its lease back (revoke through the log). */
  | { readonly type: "release"; readonly holder: ProcRef }
  /** A GC pause at the worst moment: right after the holder's next validity check, before its write. */
  | { readonly type: "gc-pause"; readonly holder: ProcRef; readonly durationUs: number }
  /** Switches the storage's fencing-token check on or off. */
  | { readonly type: "fencing"; readonly on: boolean };

type ActionOf<T extends Action["type"]> = Extract<Action, { type: T }>;

/** What the actions may touch in the kernel (it hands them this, and keeps the rest private). */
export interface ActionHost {
  readonly now: number;
  readonly nodeIds: readonly ProcId[];
  readonly clientIds: readonly ProcId[];
  readonly holderIds: readonly ProcId[];
  readonly net: Network;
  readonly refRng: Rng;
  /** Names given with `as` (each object is replaced, never changed in place). */
  names: Readonly<Record<string, ProcId>>;
  has(id: ProcId): boolean;
  proc(id: ProcId): ProcRecord;
  procs(): Iterable<ProcRecord>;
  leader(): ProcId | null;
  storage(): FencedStorage | null;
  emit(body: SimEvent | ({ proc: ProcId } & ProcEvent)): void;
  /** Runs one call into a process (then its pause or its timer). */
  run(p: ProcRecord, fn: (ctx: ProcessContext) => void): void;
  wake(p: ProcRecord): void;
  rearm(p: ProcRecord): void;
  wakeAt(p: ProcRecord, at: number): void;
  drop(env: Envelope, reason: DropReason): void;
  /** Takes the messages with this id off the wire (not yet delivered). */
  unsend(id: number): Envelope[];
}

/** Applies an action: resolves its references, then does it. Throws ActionRefused when it cannot run. */
export function applyAction(h: ActionHost, action: Action): void {
  const a = bindName(h, action);
  (APPLY[a.type] as (h: ActionHost, a: Action) => void)(h, a);
}

/**
 * An action with `as`: resolve its process once, remember it under that name, and act on
 * the process itself (so a random reference is drawn once).
 */
function bindName(h: ActionHost, a: Action): Action {
  if (!("as" in a) || a.as === undefined) return a;
  const name = a.as;
  if (h.has(name) || ROLE_REFS.includes(name)) throw new ActionRefused(`as "${name}": that is already the name of a process or a role`);
  const id = resolve(h, a.proc);
  h.names = { ...h.names, [name]: id };
  return { ...a, proc: id };
}

/** Resolves an id, a name given with `as`, or a role ("leader", "follower", "any-node", "any-client", "any-holder"). */
export function resolve(h: ActionHost, ref: ProcRef): ProcId {
  if (h.has(ref)) return ref;
  const named = h.names[ref];
  if (named !== undefined) return named;
  switch (ref) {
    case "leader": {
      const l = h.leader();
      if (l === null) throw new ActionRefused(`"leader": no node is leader at ${h.now}µs`);
      return l;
    }
    case "follower": {
      const l = h.leader();
      const f = h.nodeIds.find((id) => id !== l && h.proc(id).status !== "down");
      if (f === undefined) throw new ActionRefused(`"follower": no node other than the leader is up at ${h.now}µs`);
      return f;
    }
    case "any-node":
      return h.refRng.pick(h.nodeIds);
    case "any-client":
      if (h.clientIds.length === 0) throw new ActionRefused(`"any-client": this run has no clients`);
      return h.refRng.pick(h.clientIds);
    case "any-holder":
      if (h.holderIds.length === 0) throw new ActionRefused(`"any-holder": this run has no lease holders`);
      return h.refRng.pick(h.holderIds);
    default:
      throw new ActionRefused(`no process named "${ref}" (nodes are ${h.nodeIds.join(", ")}; also "leader", "follower", "any-node")`);
  }
}

/** The process a reference names, with its logic if it is of `kind` (else refused, naming the action). */
function target<K extends ProcessKind>(h: ActionHost, ref: ProcRef, kind: K, what: string, action: string): { p: ProcRecord; logic: LogicOf[K] } {
  const p = h.proc(resolve(h, ref));
  const logic = logicOf(p, kind);
  if (logic === null) throw new ActionRefused(`${action}: ${p.id} is not ${what}`);
  return { p, logic };
}

/** The leader, for an action only a leader can do (refused when there is none). */
function leaderFor(h: ActionHost, what: string): ProcId {
  const leader = h.leader();
  if (leader === null) throw new ActionRefused(`there is no leader to ${what}`);
  return leader;
}

/** Runs a call into the leader that answers why it refused (null: done). */
function askLeader(h: ActionHost, leader: ProcId, call: (logic: LogicOf["node"], ctx: ProcessContext) => string | null): void {
  const p = h.proc(leader);
  const logic = logicOf(p, "node") as LogicOf["node"];
  if (p.status !== "up") throw new ActionRefused(`the leader ${leader} is paused`);
  let why: string | null = null;
  h.run(p, (ctx) => {
    why = call(logic, ctx);
  });
  if (why !== null) throw new ActionRefused(why);
}

function positive(us: number, what: string): void {
  if (!Number.isSafeInteger(us) || us <= 0) throw new ActionRefused(`${what}: duration must be a positive integer µs, got ${us}µs`);
}

/** Each action's effect. */
const APPLY: { readonly [T in Action["type"]]: (h: ActionHost, a: ActionOf<T>) => void } = {
  crash: (h, a) => {
    const p = h.proc(resolve(h, a.proc));
    if (p.status === "down") return;
    p.status = "down";
    p.logic.crash();
    for (const m of p.inbox) h.drop(m.env, "down");
    p.inbox = [];
    p.timerGen++;
    p.timerAt = null;
    p.pauseGen++;
    p.pausedUntil = null;
    h.emit({ kind: "crash", proc: p.id });
  },
  restart: (h, a) => {
    const p = h.proc(resolve(h, a.proc));
    if (p.status !== "down") return;
    p.status = "up";
    h.emit({ kind: "restart", proc: p.id });
    h.run(p, (ctx) => p.logic.start(ctx));
  },
  pause: (h, a) => {
    const p = h.proc(resolve(h, a.proc));
    if (p.status !== "up") return;
    if (!Number.isSafeInteger(a.durationUs) || a.durationUs <= 0) throw new ActionRefused(`pause: duration must be positive, got ${a.durationUs}µs`);
    p.status = "paused";
    p.pauseGen++;
    p.pausedUntil = h.now + a.durationUs;
    p.timerGen++;
    p.timerAt = null;
    h.emit({ kind: "pause", proc: p.id, untilUs: p.pausedUntil });
    h.wakeAt(p, p.pausedUntil);
  },
  resume: (h, a) => {
    const p = h.proc(resolve(h, a.proc));
    if (p.status !== "paused") return;
    p.pauseGen++;
    h.wake(p);
  },
  partition: (h, a) => {
    // A role and an id may name the same process: it is in its group once.
    const named = a.groups.map((g) => [...new Set(g.filter((r) => r !== "others").map((r) => resolve(h, r)))]);
    const listed = new Set(named.flat());
    // "others": every node not named in another group.
    const groups = a.groups.map((g, i) =>
      g.includes("others") ? [...(named[i] ?? []), ...h.nodeIds.filter((id) => !listed.has(id))] : (named[i] ?? []),
    );
    h.net.partition(groups);
    h.emit({ kind: "partition", groups });
  },
  heal: (h) => {
    h.net.heal();
    h.emit({ kind: "heal" });
  },
  cut: (h, a) => {
    const from = resolve(h, a.from);
    const to = resolve(h, a.to);
    h.net.cut(from, to);
    h.emit({ kind: "cut", from, to });
  },
  disconnect: (h, a) => {
    const id = resolve(h, a.proc);
    h.net.setConnected(id, false);
    h.emit({ kind: "disconnect", proc: id });
  },
  connect: (h, a) => {
    const id = resolve(h, a.proc);
    h.net.setConnected(id, true);
    h.emit({ kind: "connect", proc: id });
  },
  "slow-link": (h, a) => {
    const from = resolve(h, a.from);
    const to = resolve(h, a.to);
    h.net.slowLink(from, to, a.delayUs);
    h.emit({ kind: "slow-link", from, to, delayUs: a.delayUs });
  },
  clock: (h, a) => {
    const p = h.proc(resolve(h, a.proc));
    let c = p.clock;
    try {
      if (a.driftPpm !== undefined) c = withDrift(c, h.now, a.driftPpm);
      if (a.jumpUs !== undefined) c = withJump(c, h.now, a.jumpUs);
    } catch (e) {
      // withDrift / withJump only check their inputs (pure functions): a bad setting.
      throw new ActionRefused(`clock: ${errorMessage(e)}`);
    }
    p.clock = c;
    h.emit({ kind: "clock", proc: p.id, driftPpm: c.driftPpm, jumpUs: a.jumpUs ?? 0 });
    if (p.status === "up") {
      p.timerAt = null;
      h.rearm(p);
    }
  },
  network: (h, a) => {
    h.net.change(a);
    const n = h.net.view();
    const byType = Object.keys(n.latencyByType).length > 0 ? { latencyByType: n.latencyByType } : {};
    h.emit({
      kind: "network",
      dropRate: n.dropRate,
      duplicateRate: n.duplicateRate,
      latencyMinUs: n.latencyMinUs,
      latencyMaxUs: n.latencyMaxUs,
      ...byType,
    });
  },
  submit: (h, a) => {
    const { p, logic } = target(h, a.client, "client", "a client", "submit");
    if (p.status !== "up") return;
    h.run(p, (ctx) => logic.submit(ctx, a.op));
  },
  timeout: (h, a) => {
    const { p, logic } = target(h, a.proc, "node", "a Raft node", "timeout");
    if (p.status !== "up") return;
    h.emit({ kind: "timeout", proc: p.id });
    h.run(p, (ctx) => logic.forceTimeout(ctx));
  },
  "add-node": (h, a) => changeConfig(h, a),
  "remove-node": (h, a) => changeConfig(h, a),
  transfer: (h, a) => {
    const leader = leaderFor(h, "hand leadership over");
    const to = resolve(h, a.to);
    askLeader(h, leader, (logic, ctx) => logic.transferLeadership(ctx, to));
  },
  "drop-message": (h, a) => {
    for (const env of h.unsend(a.id)) h.drop(env, "user");
    for (const p of h.procs()) {
      const i = p.inbox.findIndex((m) => m.env.id === a.id);
      if (i >= 0) {
        const [m] = p.inbox.splice(i, 1);
        if (m) h.drop(m.env, "user");
      }
    }
  },
  note: (h, a) => h.emit({ kind: "note", text: a.text }),
  release: (h, a) => {
    const { p, logic } = target(h, a.holder, "holder", "a lease holder", "release");
    if (p.status !== "up") return;
    h.run(p, (ctx) => logic.release(ctx));
  },
  "gc-pause": (h, a) => {
    const { p, logic } = target(h, a.holder, "holder", "a lease holder", "gc-pause");
    positive(a.durationUs, "gc-pause");
    logic.armGcPause(a.durationUs);
    h.emit({ kind: "note", text: `${p.id} will pause for ${formatDuration(a.durationUs)} right after its next lease check` });
  },
  fencing: (h, a) => {
    const s = h.storage();
    if (s === null) throw new ActionRefused("fencing: there is no storage (no holders in this run)");
    s.setFencing(a.on);
    h.emit({ kind: "note", text: `storage fencing ${a.on ? "on" : "off"}` });
  },
};

function changeConfig(h: ActionHost, a: ActionOf<"add-node" | "remove-node">): void {
  const leader = leaderFor(h, "change the configuration");
  const id = resolve(h, a.proc);
  if (!h.nodeIds.includes(id)) throw new ActionRefused(`${id} is not a server`);
  askLeader(h, leader, (logic, ctx) => logic.changeConfig(ctx, a.type === "add-node" ? { add: id } : { remove: id }));
}
