/**
 * Finding the leader, for every client of the key-value service: a request goes to the
 * server believed to lead; a refusal may name the leader (a hint), silence names nobody.
 * This is the one place that decides where the next send goes and whether it goes at
 * once, for the key-value client (client.ts) and for the lease holder's ClientWrite
 * operations (the statechart's grant and revoke, and the key registration).
 *
 * Servers are indexes into the client's list; -1 is a sender not in it. Pure: it keeps no
 * state of its own, and how long "later" is stays the caller's (a capped exponential
 * backoff for the holder, a fixed wait for the key-value client, none after silence there).
 */

/** Counters of one operation's tries. */
export interface Tries {
  /** Sends so far (retries included). */
  readonly attempts: number;
  /** Failed tries in a row: silence, or a refusal with no usable hint (drives a backoff). */
  readonly failures: number;
  /** Hints followed in a row (bounded, so two servers that name each other cannot loop). */
  readonly redirects: number;
}

/** Where the next send goes, and whether it goes at once (a hint) or after the caller's wait. */
export interface Next {
  readonly now: boolean;
  readonly target: number;
  readonly failures: number;
  readonly redirects: number;
}

/** The server after index `i` of `servers` (-1, an unknown sender, gives the first). */
export function nextServer(servers: number, i: number): number {
  return (((i + 1) % servers) + servers) % servers;
}

/** One more send of the operation. */
export function sent(t: Tries): Pick<Tries, "attempts"> {
  return { attempts: t.attempts + 1 };
}

/** A failed try: the next hint may be followed again. */
export function failed(t: Tries): Pick<Tries, "failures" | "redirects"> {
  return { failures: t.failures + 1, redirects: 0 };
}

/** A hint followed. */
export function followed(t: Tries): Pick<Tries, "redirects"> {
  return { redirects: t.redirects + 1 };
}

/**
 * Is a refusal's hint worth following at once? Only if it names a server (not the one
 * that refused) and fewer than `maxRedirects` hints were followed in a row.
 */
export function followsHint(hint: number | null, from: number, redirects: number, maxRedirects: number): boolean {
  return hint !== null && hint !== from && redirects < maxRedirects;
}

/** No answer in time from `target`: a failure; try the server after it. */
export function afterSilence(servers: number, target: number, t: Tries): Next {
  return { now: false, target: nextServer(servers, target), ...failed(t) };
}

/**
 * Refused by `from`, naming `hint` (null: no leader known there): follow a usable hint at
 * once, else it is a failure, and the server after the one that refused is next.
 */
export function afterRefusal(servers: number, maxRedirects: number, t: Tries, hint: number | null, from: number): Next {
  if (hint !== null && followsHint(hint, from, t.redirects, maxRedirects)) {
    return { now: true, target: hint, failures: t.failures, redirects: t.redirects + 1 };
  }
  return { now: false, target: nextServer(servers, from), ...failed(t) };
}

/** A refusal's leader hint (a server's name, or null) as an index into `servers` (null when not one of them). */
export function hintIndex<T>(servers: readonly T[], leaderHint: T | null): number | null {
  if (leaderHint === null) return null;
  const i = servers.indexOf(leaderHint);
  return i < 0 ? null : i;
}
