/**
 * The lease holder's statechart in plain words: every state, every event (the machine's
 * and its timers) and every guard, from the internal name to a phrase a student reads.
 * The event log, the statechart and the inspector say things with these; the internal
 * names are shown only under "Show full state". A test derives every name from the
 * machine itself, so a new state or event without words fails it.
 */

/** Top-level states by dotted path, as they are asked for (a handful of paths, thousands of asks a minute). */
const TOP_STATES = new Map<string, string>();

/** A holder state's top level: "holding" of "holding.renewing" (what state.split(".")[0] gives, without a new array each time). */
export function topOfState(state: string): string {
  let top = TOP_STATES.get(state);
  if (top === undefined) {
    top = state.split(".")[0] ?? state;
    TOP_STATES.set(state, top);
  }
  return top;
}

/** Every state the holder can be in, by its dotted path. */
export const STATE_WORDS: Readonly<Record<string, string>> = {
  idle: "not started yet",
  requesting: "asking for the lease",
  "requesting.sending": "asking for the lease",
  "requesting.backoff": "asking again soon",
  "requesting.denied": "refused: someone else has it",
  holding: "holding the lease",
  "holding.waiting": "holding the lease",
  "holding.renewing": "holding, renewing",
  "holding.backoff": "holding, renewal failed, trying again",
  jeopardy: "jeopardy: must not write",
  "jeopardy.renewing": "jeopardy: must not write, renewing",
  "jeopardy.backoff": "jeopardy: must not write, retrying",
  grace: "grace: past its time, still trying",
  "grace.renewing": "grace: past its time, renewing",
  "grace.backoff": "grace: past its time, retrying",
  lost: "lost the lease",
  releasing: "giving the lease back",
  "releasing.sending": "giving the lease back",
  "releasing.backoff": "giving it back, retrying soon",
  released: "gave the lease back",
};

/** Every event: the messages it gets, and its timers ("after:untilRenew"), plus "start". */
export const EVENT_WORDS: Readonly<Record<string, string>> = {
  start: "started",
  RELEASE: "told to let go",
  GRANTED: "got the lease",
  DENIED: "was refused: someone else holds it",
  WRITE_REJECTED: "request refused, will try another server",
  RENEWED: "renewal confirmed",
  REFRESH_LOST: "lost the lease (refresh refused)",
  REFRESH_REJECTED: "renewal not taken, will retry",
  REVOKED: "release confirmed",
  "after:startDelay": "time to start",
  "after:requestTimeout": "no answer in time",
  "after:writeBackoff": "time to try again",
  "after:acquireRetry": "time to ask again",
  "after:untilHoldEnd": "done with the lease",
  "after:untilRenew": "time to renew",
  "after:untilDeadline": "its own deadline passed",
  "after:renewBackoff": "time to try renewing again",
  "after:untilNominalEnd": "the lease's time ran out",
  "after:untilGraceEnd": "the grace period ran out",
};

/** Every guard on the machine's arrows. */
export const GUARD_WORDS: Readonly<Record<string, string>> = {
  hintUsable: "if told who leads",
  awaitedRefresh: "if it is the awaited answer",
  renewHintUsable: "if told who leads",
  poolShort: "if the pool is short",
  hasGrace: "if there is a grace period",
  writeAttemptsLeft: "if tries are left",
  else: "otherwise",
};

/** A state in words; an unknown one as it is (never empty). */
export function stateWordsOf(state: string): string {
  return STATE_WORDS[state] ?? STATE_WORDS[state.split(".")[0] ?? state] ?? state;
}

/** An event in words: "after:untilRenew" -> "time to renew", "REFRESH_LOST" -> "lost the lease (refresh refused)". */
export function eventWordsOf(event: string): string {
  return EVENT_WORDS[event] ?? event;
}

export function guardWordsOf(guard: string): string {
  return GUARD_WORDS[guard] ?? `if ${guard}`;
}

/** The event log's sentence for a holder's change: "h1: time to renew: holding, renewing (token 3)". */
export function holderChangeText(proc: string, prev: string | undefined, state: string, token: number | null, event: string | undefined): string {
  const tok = token !== null ? ` (token ${token})` : "";
  const why = event !== undefined && event !== "" && prev !== undefined ? `${eventWordsOf(event)}: ` : "";
  return `${proc}: ${why}${stateWordsOf(state)}${tok}`;
}

/** The same change in the machine's own names, for "Show full state": "holding.waiting → holding.renewing on after:untilRenew". */
export function holderChangeDetail(prev: string | undefined, state: string, event: string | undefined): string {
  return `${prev ?? "start"} → ${state}${event ? ` on ${event}` : ""}`;
}

/** A clock's drift as a percentage: +400000 ppm -> "40 % fast", -100000 -> "10 % slow", 20 -> "0.002 % fast", 0 -> "on time". */
export function driftWords(ppm: number): string {
  if (ppm === 0) return "on time";
  const p = Math.abs(ppm) / 10_000;
  const digits = p >= 10 ? 0 : p >= 1 ? 1 : p >= 0.1 ? 2 : 4;
  const n = Number(p.toFixed(digits));
  return `${n} % ${ppm > 0 ? "fast" : "slow"}`;
}
