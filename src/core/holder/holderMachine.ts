/**
 * The lease holder's statechart (xstate v5). It is pure: it never touches a clock,
 * a network or a random source. Every event carries the holder's local clock reading
 * (`nowUs`) and one uniform random number (`rand`) drawn by the process, so timing
 * and jitter are decided here from data alone, and `transition()` can be tested by
 * hand. Named actions (sendGrant, sendRefresh, startWork, ...) have empty
 * implementations: the process (holder.ts) interprets them, and turns delayed raises
 * (from `after`) into timers on the simulated clock.
 *
 * Deadlines are absolute local times kept in the context; every `after` delay is
 * computed as "that time minus now", so a timer re-armed on re-entry lands at the
 * same instant, and a holder that wakes from a pause finds its overdue timers due at once.
 *
 * Transport details are the process's: which server it believes leads (the machine
 * only says "the next one", "the one after the sender", "the hinted one") and the
 * sequence numbers of its ClientWrite operations (the machine says "a new operation").
 * So is the key registration (registerKey), a one-off write while holding, run like the
 * work loop as process code between the startRegister and stopRegister actions: then
 * holding is a plain compound state, and a renewal costs a cheaper transition.
 */
import type { LocalUs } from "../sim/time";
import {
  assertEvent,
  assign,
  initialTransition,
  type ExecutableActionObject,
  type SnapshotFrom,
  type StateValue,
  setup,
} from "xstate";
import { failed, followed, followsHint, sent } from "../kv/redirect";
import type { HolderSettings } from "./types";

/** Revoke and key registration give up after this many sends (the lease then ends by expiry). */
export const MAX_WRITE_ATTEMPTS = 10;
/** Refreshes remembered while unanswered: a late answer to any of them still renews the lease. */
export const MAX_REFRESHES_IN_FLIGHT = 8;
/** Backoff jitter: a retry waits between (1 - this) and 1 times the current backoff. */
export const BACKOFF_JITTER = 0.2;

/**
 * Keep it under 20 fields: xstate's assign copies the context with Object.assign, and V8
 * makes an object of 20 or more properties built that way a slow dictionary (every
 * transition then costs several times as much). tests/lease/holder-transition.test.ts checks.
 */
export interface HolderContext {
  readonly cfg: HolderSettings;
  /** Sends of the current ClientWrite operation (grant or revoke) so far. */
  readonly attempts: number;
  /**
   * When the first send of the current operation left. A retry may be answered from
   * the service's deduplication cache, so the grant may date from an earlier attempt:
   * timing the lease from the first one keeps the holder's view on the safe side.
   */
  readonly opSentAtUs: LocalUs;
  /** Consecutive failed tries of the current operation (drives the backoff) and hints followed in a row. */
  readonly failures: number;
  readonly redirects: number;
  /** The last refresh request id issued. */
  readonly reqId: number;
  /**
   * Unanswered refreshes of this renewal round with their send times, oldest first. A
   * late answer to any of them counts (the leader extended the lease when it got that
   * request, so timing from its send time is safe); the list empties when one lands.
   */
  readonly refreshes: readonly { readonly reqId: number; readonly sentAtUs: LocalUs }[];
  readonly renewFailures: number;
  readonly renewRedirects: number;
  /** The lease as the holder sees it; null when it believes it holds nothing. */
  readonly token: number | null;
  readonly ttlMs: number;
  /**
   * Its own conservative end: sentAt + ttl x (1 - drift margin), where sentAt is the send
   * time of the request (grant or refresh) that last succeeded: the lease is timed from there.
   */
  readonly deadlineUs: LocalUs | null;
  /** The lease's nominal end, sentAt + ttl: jeopardy lasts until here. */
  readonly nominalEndUs: LocalUs | null;
  /** When to send the next refresh (renew fraction of the TTL, jittered). */
  readonly renewAtUs: LocalUs | null;
  /** When the current grant was obtained (holdForMs counts from here). */
  readonly acquiredAtUs: LocalUs | null;
}

export interface HolderInput {
  readonly cfg: HolderSettings;
}

/** What the process stamps on every event it feeds the machine. */
export interface Stamp {
  /** The holder's local clock (µs) at the moment the event is handled. */
  readonly nowUs: LocalUs;
  /** Uniform in [0, 1): the one random draw this event may use (jitter). */
  readonly rand: number;
}

/** Events from the outside world (replies mapped by the process, the user's release). */
export type HolderInputEvent =
  /** ClientReply ok for the grant: the lease is ours. */
  | { readonly type: "GRANTED"; readonly token: number; readonly ttlMs: number }
  /** ClientReply ok, denied: someone else holds the name (or it is in its lock-delay). */
  | { readonly type: "DENIED"; readonly reason: string }
  /** ClientReply ok:false for the current operation; hint and from are indexes into cfg.servers (or null / -1). */
  | { readonly type: "WRITE_REJECTED"; readonly hint: number | null; readonly from: number }
  /** ClientReply ok for the revoke (revoked, or the service says we were no longer the holder). */
  | { readonly type: "REVOKED" }
  | { readonly type: "RENEWED"; readonly reqId: number; readonly ttlMs: number }
  /** A refresh refused without ending the lease: not the leader, or the pool is short. */
  | { readonly type: "REFRESH_REJECTED"; readonly reason: "not-leader" | "pool-short"; readonly hint: number | null; readonly from: number }
  /** The service no longer knows the lease (expired or unknown): it is gone. */
  | { readonly type: "REFRESH_LOST"; readonly reason: string }
  /** Give the lease back now (a user or scenario asked). */
  | { readonly type: "RELEASE" };

/**
 * A delayed event of the statechart (from `after`): the process keeps it as a timer on the
 * local clock and feeds it back, stamped like any other, when it is due.
 */
export interface DelayedEvent {
  readonly type: `xstate.after.${string}`;
}

export type HolderEvent = (HolderInputEvent | DelayedEvent) & Stamp;

export function isDelayedEvent(e: { readonly type: string }): e is DelayedEvent {
  return e.type.startsWith("xstate.after.");
}

type Args = { readonly context: HolderContext; readonly event: HolderEvent };

/**
 * The params of the actions the process (holder.ts) carries out: what each needs from the
 * context or the event it was resolved with, so the process reads no xstate internals.
 */
export interface ProcessActionParams {
  readonly sendGrant: undefined;
  readonly sendRevoke: { readonly token: number | null };
  /** everyServer: DHCP rebinding (past rebindFraction of the TTL with no renewal), ask every server. */
  readonly sendRefresh: { readonly token: number | null; readonly reqId: number; readonly everyServer: boolean };
  readonly newOp: undefined;
  readonly toNextServer: undefined;
  readonly toServerAfterSender: { readonly from: number };
  readonly toHintedServer: { readonly hint: number };
  /** newGrant: entered holding with a new grant (not back from jeopardy or grace). */
  readonly startRegister: { readonly newGrant: boolean };
  readonly stopRegister: undefined;
  readonly startWork: { readonly newGrant: boolean };
  readonly stopWork: undefined;
}

/** DHCP T2: past rebindFraction of the lease's TTL with no renewal. */
function rebinding(c: HolderContext, now: LocalUs): boolean {
  const f = c.cfg.rebindFraction;
  if (f <= 0 || c.nominalEndUs === null) return false;
  const ttlUs = c.ttlMs * 1000;
  return now >= c.nominalEndUs - ttlUs + Math.round(ttlUs * f);
}

const newGrant = ({ event }: Args) => ({ newGrant: event.type === "GRANTED" });

/** Milliseconds from now until an absolute local time (0 when it has passed). */
function until(atUs: LocalUs | null, event: HolderEvent): number {
  if (atUs === null) throw new Error("holder: a timer needs a time the context does not have");
  if (typeof event.nowUs !== "number") throw new Error(`holder: event ${event.type} carries no clock reading`);
  return Math.max(0, atUs - event.nowUs) / 1000;
}

/** Capped exponential backoff with jitter: min x 2^(failures-1), at most max, shortened by up to BACKOFF_JITTER. */
export function backoffMs(cfg: HolderSettings, failures: number, rand: number): number {
  const exp = Math.min(Math.max(0, failures - 1), 30);
  const base = Math.min(cfg.retryBackoffMaxMs, cfg.retryBackoffMinMs * 2 ** exp);
  return base * (1 - BACKOFF_JITTER * rand);
}

/** The holder's view of a lease timed from `sentAtUs` (the send time of the request that succeeded). */
export function leaseTimes(
  cfg: HolderSettings,
  sentAtUs: LocalUs,
  ttlMs: number,
  rand: number,
): { deadlineUs: LocalUs; nominalEndUs: LocalUs; renewAtUs: LocalUs } {
  const ttlUs = ttlMs * 1000;
  const spread = 1 + cfg.renewJitter * (2 * rand - 1);
  return {
    deadlineUs: sentAtUs + Math.round(ttlUs * (1 - cfg.driftMarginPpm / 1e6)),
    nominalEndUs: sentAtUs + Math.round(ttlUs),
    renewAtUs: sentAtUs + Math.round(ttlUs * cfg.renewFraction * spread),
  };
}

const machineSetup = setup({
  types: {
    context: {} as HolderContext,
    events: {} as HolderEvent,
    input: {} as HolderInput,
  },
  actions: {
    // Interpreted by the process (holder.ts) with the context the action was resolved with.
    sendGrant: () => {},
    sendRevoke: (_, _params: ProcessActionParams["sendRevoke"]) => {},
    sendRefresh: (_, _params: ProcessActionParams["sendRefresh"]) => {},
    /** A new ClientWrite operation: the process takes the next sequence number. */
    newOp: () => {},
    /** Where the next send goes: the server after the believed leader, after the one that refused, or the hinted one (kv/redirect.ts). */
    toNextServer: () => {},
    toServerAfterSender: (_, _params: ProcessActionParams["toServerAfterSender"]) => {},
    toHintedServer: (_, _params: ProcessActionParams["toHintedServer"]) => {},
    /**
     * Key registration (registerKey): on entering holding, if the key of this grant is
     * not written yet, the process writes it (a ClientWrite with retries, as the write
     * loop below) after the transition's other actions; leaving holding stops it.
     */
    startRegister: (_, _params: ProcessActionParams["startRegister"]) => {},
    stopRegister: () => {},
    /**
     * The work loop runs while in holding: every workIntervalMs check the lease is valid on
     * the local clock, and if so write to storage workGapMs later with the token checked.
     * It is the process's own timer code (holder.ts), started on entering holding and
     * stopped on leaving it; a write already checked still goes out after it stops.
     */
    startWork: (_, _params: ProcessActionParams["startWork"]) => {},
    stopWork: () => {},

    resetAttempts: assign({ attempts: 0, failures: 0, redirects: 0 }),
    beginAttempt: assign(({ context, event }) => ({
      attempts: sent(context).attempts,
      opSentAtUs: context.attempts === 0 ? event.nowUs : context.opSentAtUs,
    })),
    /** No answer in time, or refused with no usable hint: back off and try the next server. */
    fail: assign(({ context }) => failed(context)),
    followHint: assign(({ context }) => followed(context)),

    startRefresh: assign(({ context, event }) => ({
      reqId: context.reqId + 1,
      refreshes: [...context.refreshes, { reqId: context.reqId + 1, sentAtUs: event.nowUs }].slice(-MAX_REFRESHES_IN_FLIGHT),
    })),
    renewFail: assign(({ context }) => ({ renewFailures: context.renewFailures + 1, renewRedirects: 0 })),
    followRenewHint: assign(({ context }) => ({ renewRedirects: context.renewRedirects + 1 })),

    // The lease's times are written out field by field: an object spread here cost as much as the rest of a step.
    applyGrant: assign(({ context, event }) => {
      assertEvent(event, "GRANTED");
      const t = leaseTimes(context.cfg, context.opSentAtUs, event.ttlMs, event.rand);
      return {
        token: event.token,
        ttlMs: event.ttlMs,
        acquiredAtUs: event.nowUs,
        deadlineUs: t.deadlineUs,
        nominalEndUs: t.nominalEndUs,
        renewAtUs: t.renewAtUs,
        refreshes: [],
        renewFailures: 0,
        renewRedirects: 0,
      };
    }),
    applyRenewal: assign(({ context, event }) => {
      assertEvent(event, "RENEWED");
      const refresh = context.refreshes.find((r) => r.reqId === event.reqId);
      if (refresh === undefined) throw new Error(`holder: renewal for unknown refresh ${event.reqId}`);
      const t = leaseTimes(context.cfg, refresh.sentAtUs, event.ttlMs, event.rand);
      return {
        ttlMs: event.ttlMs,
        deadlineUs: t.deadlineUs,
        nominalEndUs: t.nominalEndUs,
        renewAtUs: t.renewAtUs,
        refreshes: [],
        renewFailures: 0,
        renewRedirects: 0,
      };
    }),
    forgetLease: assign({
      refreshes: [],
      token: null,
      deadlineUs: null,
      nominalEndUs: null,
      renewAtUs: null,
      acquiredAtUs: null,
    }),
  },
  guards: {
    /** A hint is followed at most once per server in a row (kv/redirect.ts). */
    hintUsable: ({ context, event }) => {
      assertEvent(event, "WRITE_REJECTED");
      return followsHint(event.hint, event.from, context.redirects, context.cfg.servers.length);
    },
    renewHintUsable: ({ context, event }) => {
      assertEvent(event, "REFRESH_REJECTED");
      return event.reason === "not-leader" && followsHint(event.hint, event.from, context.renewRedirects, context.cfg.servers.length);
    },
    poolShort: ({ event }) => {
      assertEvent(event, "REFRESH_REJECTED");
      return event.reason === "pool-short";
    },
    /** Only an answer to a refresh we are waiting for renews (a duplicate after a renewal does not). */
    awaitedRefresh: ({ context, event }) => {
      assertEvent(event, "RENEWED");
      return context.refreshes.some((r) => r.reqId === event.reqId);
    },
    writeAttemptsLeft: ({ context }) => context.attempts < MAX_WRITE_ATTEMPTS,
    hasGrace: ({ context }) => context.cfg.gracePeriodMs > 0,
  },
  delays: {
    startDelay: ({ context }: Args) => context.cfg.startAfterMs,
    requestTimeout: ({ context }: Args) => context.cfg.requestTimeoutMs,
    acquireRetry: ({ context }: Args) => context.cfg.acquireRetryMs,
    writeBackoff: ({ context, event }: Args) => backoffMs(context.cfg, context.failures, event.rand),
    renewBackoff: ({ context, event }: Args) => backoffMs(context.cfg, context.renewFailures, event.rand),
    untilRenew: ({ context, event }: Args) => until(context.renewAtUs, event),
    /** Without the self-fencing watchdog (selfFence off) the holder never acts on its own deadline: "never". */
    untilDeadline: ({ context, event }: Args) => (context.cfg.selfFence ? until(context.deadlineUs, event) : Number.POSITIVE_INFINITY),
    untilNominalEnd: ({ context, event }: Args) => until(context.nominalEndUs, event),
    untilGraceEnd: ({ context, event }: Args) =>
      until(context.nominalEndUs === null ? null : context.nominalEndUs + context.cfg.gracePeriodMs * 1000, event),
    /** Infinity means "never": the process arms no timer for it. */
    untilHoldEnd: ({ context, event }: Args) =>
      context.cfg.holdForMs > 0 && context.acquiredAtUs !== null
        ? until(context.acquiredAtUs + context.cfg.holdForMs * 1000, event)
        : Number.POSITIVE_INFINITY,
  },
});

const sendRevoke = { type: "sendRevoke", params: ({ context }: Args) => ({ token: context.token }) } as const;

const sendRefresh = {
  type: "sendRefresh",
  params: ({ context, event }: Args) => ({ token: context.token, reqId: context.reqId, everyServer: rebinding(context, event.nowUs) }),
} as const;

/** Where a refused request goes next: the server after the one that refused. */
const toServerAfterSender = {
  type: "toServerAfterSender",
  params: ({ event }: Args) => {
    assertEvent(event, ["WRITE_REJECTED", "REFRESH_REJECTED"]);
    return { from: event.from };
  },
} as const;

/** Where a refused request goes next: the server its refusal named. */
const toHintedServer = {
  type: "toHintedServer",
  params: ({ event }: Args) => {
    assertEvent(event, ["WRITE_REJECTED", "REFRESH_REJECTED"]);
    if (event.hint === null) throw new Error("holder: followed a refusal that names no server");
    return { hint: event.hint };
  },
} as const;

/** A ClientWrite with retries: send, wait for the reply, follow hints, back off on silence (kv/redirect.ts decides). */
function writeLoop(send: "sendGrant" | typeof sendRevoke, exhausted: string | null) {
  return {
    sending: machineSetup.createStateConfig({
      entry: ["beginAttempt", send],
      after: { requestTimeout: { target: "backoff", actions: ["fail", "toNextServer"] } },
      on: {
        WRITE_REJECTED: [
          { guard: "hintUsable", target: "sending", reenter: true, actions: ["followHint", toHintedServer] },
          { target: "backoff", actions: ["fail", toServerAfterSender] },
        ],
      },
    }),
    backoff: machineSetup.createStateConfig({
      after: {
        writeBackoff:
          exhausted === null ? { target: "sending" } : [{ guard: "writeAttemptsLeft", target: "sending" }, { target: exhausted }],
      },
    }),
  };
}

/**
 * Refreshing: send to the believed leader, follow hints, back off. In holding a landed
 * renewal goes back to waiting and every state also watches the deadline (re-armed on
 * each entry at the same absolute time); in jeopardy and grace it goes back to holding.
 */
function renewLoop(inHolding: boolean) {
  const deadline = inHolding ? { untilDeadline: { target: "#holder.jeopardy" } } : {};
  // An answer that comes after its request timed out still counts, in backoff too.
  const answers = {
    RENEWED: { guard: "awaitedRefresh", target: inHolding ? "waiting" : "#holder.holding", actions: "applyRenewal" },
    REFRESH_LOST: { target: "#holder.lost" },
  } as const;
  return {
    renewing: machineSetup.createStateConfig({
      entry: ["startRefresh", sendRefresh],
      after: { requestTimeout: { target: "backoff", actions: ["renewFail", "toNextServer"] }, ...deadline },
      on: {
        ...answers,
        REFRESH_REJECTED: [
          { guard: "renewHintUsable", target: "renewing", reenter: true, actions: ["followRenewHint", toHintedServer] },
          // The leader is busy or short of leases: ask it again later.
          { guard: "poolShort", target: "backoff", actions: "renewFail" },
          { target: "backoff", actions: ["renewFail", toServerAfterSender] },
        ],
      },
    }),
    backoff: machineSetup.createStateConfig({ after: { renewBackoff: { target: "renewing" }, ...deadline }, on: answers }),
  };
}

export const holderMachine = machineSetup.createMachine({
  id: "holder",
  context: ({ input }) => ({
    cfg: input.cfg,
    attempts: 0,
    opSentAtUs: 0,
    failures: 0,
    redirects: 0,
    reqId: 0,
    refreshes: [],
    renewFailures: 0,
    renewRedirects: 0,
    token: null,
    ttlMs: 0,
    deadlineUs: null,
    nominalEndUs: null,
    renewAtUs: null,
    acquiredAtUs: null,
  }),
  initial: "idle",
  on: {
    RELEASE: { target: ".released" },
  },
  states: {
    idle: { after: { startDelay: { target: "requesting" } } },
    requesting: {
      entry: ["newOp", "resetAttempts"],
      initial: "sending",
      states: {
        ...writeLoop("sendGrant", null),
        denied: { after: { acquireRetry: { target: "#holder.requesting", reenter: true } } },
      },
      on: {
        GRANTED: { target: "holding", actions: "applyGrant" },
        DENIED: { target: ".denied" },
      },
    },
    holding: {
      entry: [
        { type: "startWork", params: newGrant },
        { type: "startRegister", params: newGrant },
      ],
      exit: ["stopWork", "stopRegister"],
      after: { untilHoldEnd: { target: "releasing" } },
      on: { RELEASE: { target: "releasing" } },
      initial: "waiting",
      states: {
        waiting: { after: { untilRenew: { target: "renewing" }, untilDeadline: { target: "#holder.jeopardy" } } },
        ...renewLoop(true),
      },
    },
    jeopardy: {
      initial: "renewing",
      after: { untilNominalEnd: [{ guard: "hasGrace", target: "grace" }, { target: "lost" }] },
      on: { RELEASE: { target: "releasing" } },
      states: renewLoop(false),
    },
    grace: {
      initial: "renewing",
      after: { untilGraceEnd: { target: "lost" } },
      on: { RELEASE: { target: "releasing" } },
      states: renewLoop(false),
    },
    lost: {
      entry: "forgetLease",
      after: { acquireRetry: { target: "requesting" } },
    },
    releasing: {
      entry: ["newOp", "resetAttempts"],
      initial: "sending",
      states: writeLoop(sendRevoke, "#holder.released"),
      on: {
        REVOKED: { target: "released" },
        // Already on its way out.
        RELEASE: {},
      },
    },
    // Final for this incarnation (not an xstate final state, so a write checked before still goes out).
    released: { entry: "forgetLease", on: { RELEASE: {} } },
  },
});

export type HolderMachine = typeof holderMachine;
export type HolderSnapshot = SnapshotFrom<HolderMachine>;

/**
 * The state value as one string: nesting with dots, parallel regions (if any) in braces, e.g.
 * "requesting.backoff", "jeopardy.renewing", "holding.waiting".
 * Every state starts with its top-level state and a dot, so "holding" prefix-matches.
 */
export function stateString(value: StateValue): string {
  if (typeof value === "string") return value;
  const keys = Object.keys(value);
  if (keys.length === 1) {
    const k = keys[0] as string;
    const v = value[k];
    if (v === undefined || (typeof v === "object" && Object.keys(v).length === 0)) return k;
    if (typeof v === "object" && Object.keys(v).length > 1) return `${k}.{${stateString(v)}}`;
    return `${k}.${stateString(v)}`;
  }
  return keys
    .map((k) => {
      const v = value[k];
      return v === undefined ? k : `${k}.${stateString(v)}`;
    })
    .join(",");
}

/** The top-level state: "idle", "requesting", "holding", "jeopardy", "grace", "lost", "releasing" or "released". */
export function topState(value: StateValue): string {
  return typeof value === "string" ? value : (Object.keys(value)[0] as string);
}

/** A delayed raise (from `after`) as it reaches the process: the event, its timer id and its delay (ms). */
export interface HolderRaiseAction {
  readonly type: "xstate.raise";
  readonly params: { readonly event: { readonly type: string }; readonly id?: string | undefined; readonly delay?: number | undefined };
}

/** xstate's cancel as it reaches the process: it drops a delayed event not yet due. */
export interface HolderCancelAction {
  readonly type: "xstate.cancel";
  readonly params: { readonly sendId: string };
}

/**
 * What the process carries out: the machine's named actions (their params resolved, typed by
 * ProcessActionParams through setup()), and xstate's delayed raises and their cancels.
 * Assign and the like are resolved inside the transition.
 */
export type HolderAction =
  | HolderRaiseAction
  | HolderCancelAction
  | { [K in keyof ProcessActionParams]: { readonly type: K; readonly params: ProcessActionParams[K] } }[keyof ProcessActionParams];

/** Is it one of the actions the process carries out? */
function isHolderAction(a: { readonly type: string }): boolean {
  return a.type === "xstate.raise" || a.type === "xstate.cancel" || Object.hasOwn(holderMachine.implementations.actions, a.type);
}

export function asHolderAction(a: ExecutableActionObject): HolderAction {
  if (!isHolderAction(a)) throw new Error(`holder: unknown action ${a.type}`);
  return a as unknown as HolderAction;
}

/** xstate's `initialTransition(holderMachine, { cfg })`, its actions those the process carries out. */
export function holderInitialTransition(cfg: HolderSettings): [HolderSnapshot, HolderAction[]] {
  const [snap, actions] = initialTransition(holderMachine, { cfg });
  return [snap, actions.map(asHolderAction)];
}
