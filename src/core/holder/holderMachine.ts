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
import { assign, createActor, type ExecutableActionsFrom, type SnapshotFrom, type StateValue, setup } from "xstate";
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
  readonly opSentAtUs: number;
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
  readonly refreshes: readonly { readonly reqId: number; readonly sentAtUs: number }[];
  readonly renewFailures: number;
  readonly renewRedirects: number;
  /** The lease as the holder sees it; null when it believes it holds nothing. */
  readonly token: number | null;
  readonly ttlMs: number;
  /**
   * Its own conservative end: sentAt + ttl x (1 - drift margin), where sentAt is the send
   * time of the request (grant or refresh) that last succeeded: the lease is timed from there.
   */
  readonly deadlineUs: number | null;
  /** The lease's nominal end, sentAt + ttl: jeopardy lasts until here. */
  readonly nominalEndUs: number | null;
  /** When to send the next refresh (renew fraction of the TTL, jittered). */
  readonly renewAtUs: number | null;
  /** When the current grant was obtained (holdForMs counts from here). */
  readonly acquiredAtUs: number | null;
}

export interface HolderInput {
  readonly cfg: HolderSettings;
}

/** What the process stamps on every event it feeds the machine. */
export interface Stamp {
  /** The holder's local clock (µs) at the moment the event is handled. */
  readonly nowUs: number;
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

export type HolderEvent = HolderInputEvent & Stamp;

type Args = { readonly context: HolderContext; readonly event: HolderEvent };

/** Milliseconds from now until an absolute local time (0 when it has passed). */
function until(atUs: number | null, event: HolderEvent): number {
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
  sentAtUs: number,
  ttlMs: number,
  rand: number,
): { deadlineUs: number; nominalEndUs: number; renewAtUs: number } {
  const ttlUs = ttlMs * 1000;
  const spread = 1 + cfg.renewJitter * (2 * rand - 1);
  return {
    deadlineUs: sentAtUs + Math.round(ttlUs * (1 - cfg.driftMarginPpm / 1e6)),
    nominalEndUs: sentAtUs + Math.round(ttlUs),
    renewAtUs: sentAtUs + Math.round(ttlUs * cfg.renewFraction * spread),
  };
}

/** The server after index `i` (-1, an unknown sender, gives the first). */
export const nextServer = (servers: readonly unknown[], i: number): number =>
  (((i + 1) % servers.length) + servers.length) % servers.length;

const ev = <T extends HolderEvent["type"]>(e: HolderEvent, type: T): Extract<HolderEvent, { type: T }> => {
  if (e.type !== type) throw new Error(`holder: expected ${type}, got ${e.type}`);
  return e as Extract<HolderEvent, { type: T }>;
};

const machineSetup = setup({
  types: {
    context: {} as HolderContext,
    events: {} as HolderEvent,
    input: {} as HolderInput,
  },
  actions: {
    // Interpreted by the process (holder.ts) with the context the action was resolved with.
    sendGrant: () => {},
    sendRevoke: () => {},
    sendRefresh: () => {},
    /** A new ClientWrite operation: the process takes the next sequence number. */
    newOp: () => {},
    /** Where the next send goes: the server after the believed leader, after the one that refused (event.from), or the hinted one (event.hint). */
    toNextServer: () => {},
    toServerAfterSender: () => {},
    toHintedServer: () => {},
    /**
     * Key registration (registerKey): on entering holding, if the key of this grant is
     * not written yet, the process writes it (a ClientWrite with retries, as the write
     * loop below) after the transition's other actions; leaving holding stops it.
     */
    startRegister: () => {},
    stopRegister: () => {},
    /**
     * The work loop runs while in holding: every workIntervalMs check the lease is valid on
     * the local clock, and if so write to storage workGapMs later with the token checked.
     * It is the process's own timer code (holder.ts), started on entering holding and
     * stopped on leaving it; a write already checked still goes out after it stops.
     */
    startWork: () => {},
    stopWork: () => {},

    resetAttempts: assign({ attempts: 0, failures: 0, redirects: 0 }),
    beginAttempt: assign(({ context, event }) => ({
      attempts: context.attempts + 1,
      opSentAtUs: context.attempts === 0 ? event.nowUs : context.opSentAtUs,
    })),
    /** No answer in time: back off and try the next server. */
    fail: assign(({ context }) => ({ failures: context.failures + 1, redirects: 0 })),
    followHint: assign(({ context }) => ({ redirects: context.redirects + 1 })),

    startRefresh: assign(({ context, event }) => ({
      reqId: context.reqId + 1,
      refreshes: [...context.refreshes, { reqId: context.reqId + 1, sentAtUs: event.nowUs }].slice(-MAX_REFRESHES_IN_FLIGHT),
    })),
    renewFail: assign(({ context }) => ({ renewFailures: context.renewFailures + 1, renewRedirects: 0 })),
    followRenewHint: assign(({ context }) => ({ renewRedirects: context.renewRedirects + 1 })),

    applyGrant: assign(({ context, event }) => {
      const e = ev(event, "GRANTED");
      return {
        token: e.token,
        ttlMs: e.ttlMs,
        acquiredAtUs: e.nowUs,
        ...leaseTimes(context.cfg, context.opSentAtUs, e.ttlMs, e.rand),
        refreshes: [],
        renewFailures: 0,
        renewRedirects: 0,
      };
    }),
    applyRenewal: assign(({ context, event }) => {
      const e = ev(event, "RENEWED");
      const sent = context.refreshes.find((r) => r.reqId === e.reqId);
      if (sent === undefined) throw new Error(`holder: renewal for unknown refresh ${e.reqId}`);
      return {
        ttlMs: e.ttlMs,
        ...leaseTimes(context.cfg, sent.sentAtUs, e.ttlMs, e.rand),
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
    hintUsable: ({ context, event }) => {
      const e = ev(event, "WRITE_REJECTED");
      return e.hint !== null && e.hint !== e.from && context.redirects < context.cfg.servers.length;
    },
    renewHintUsable: ({ context, event }) => {
      const e = ev(event, "REFRESH_REJECTED");
      return e.reason === "not-leader" && e.hint !== null && e.hint !== e.from && context.renewRedirects < context.cfg.servers.length;
    },
    poolShort: ({ event }) => ev(event, "REFRESH_REJECTED").reason === "pool-short",
    /** Only an answer to a refresh we are waiting for renews (a duplicate after a renewal does not). */
    awaitedRefresh: ({ context, event }) => context.refreshes.some((r) => r.reqId === ev(event, "RENEWED").reqId),
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
    untilDeadline: ({ context, event }: Args) => until(context.deadlineUs, event),
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

/** A ClientWrite with retries: send, wait for the reply, follow hints, back off on silence. */
function writeLoop(send: "sendGrant" | "sendRevoke", exhausted: string | null) {
  return {
    sending: machineSetup.createStateConfig({
      entry: ["beginAttempt", send],
      after: { requestTimeout: { target: "backoff", actions: ["fail", "toNextServer"] } },
      on: {
        WRITE_REJECTED: [
          { guard: "hintUsable", target: "sending", reenter: true, actions: ["followHint", "toHintedServer"] },
          { target: "backoff", actions: ["fail", "toServerAfterSender"] },
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
      entry: ["startRefresh", "sendRefresh"],
      after: { requestTimeout: { target: "backoff", actions: ["renewFail", "toNextServer"] }, ...deadline },
      on: {
        ...answers,
        REFRESH_REJECTED: [
          { guard: "renewHintUsable", target: "renewing", reenter: true, actions: ["followRenewHint", "toHintedServer"] },
          // The leader is busy or short of leases: ask it again later.
          { guard: "poolShort", target: "backoff", actions: "renewFail" },
          { target: "backoff", actions: ["renewFail", "toServerAfterSender"] },
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
      entry: ["startWork", "startRegister"],
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
      states: writeLoop("sendRevoke", "#holder.released"),
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

/**
 * The same as xstate's pure `transition(holderMachine, snapshot, event)`, without its
 * cost: `transition()` builds a throwaway actor (and so the machine's initial state)
 * on every call to get an inert scope. Here one inert scope is built once and reused;
 * it only records the actions (nothing is executed or scheduled), which is all
 * `transition()` does with its own. tests/lease/holder.test.ts checks the two agree.
 */
export function holderTransition(snapshot: HolderSnapshot, event: HolderEvent): [HolderSnapshot, ExecutableActionsFrom<HolderMachine>[]] {
  const scope = inertScope(snapshot.context.cfg);
  const actions: ExecutableActionsFrom<HolderMachine>[] = [];
  scope.sink = actions;
  const next = holderMachine.transition(snapshot, event, scope.scope);
  scope.sink = null;
  return [next, actions];
}

interface InertScope {
  readonly scope: Parameters<HolderMachine["transition"]>[2];
  sink: unknown[] | null;
}

let cachedScope: InertScope | null = null;

/** `cfg` only constructs the scope's actor (the first caller's settings); it never runs. */
function inertScope(cfg: HolderSettings): InertScope {
  if (cachedScope !== null) return cachedScope;
  const self = createActor(holderMachine, { input: { cfg } });
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
        holder.sink.push(action);
      },
    } as Parameters<HolderMachine["transition"]>[2],
  };
  cachedScope = holder;
  return holder;
}

