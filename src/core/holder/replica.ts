/**
 * Holders as database replicas (the `replicas` setting, docs/failover.md): the replica that
 * holds the lease is the primary and takes the clients' writes; the others are secondaries.
 * The role is read off the statechart, so it needs no state of its own.
 */
import type { LocalUs } from "../sim/time";
import type { HolderSettings } from "./types";

export type ReplicaRole = "primary" | "secondary" | "offline";

/**
 * The role of a replica in top-level state `top` holding `token`: primary while holding a
 * lease; offline once its own watchdog saw its deadline pass unrenewed (jeopardy and grace:
 * it stops taking writes and keeps trying to renew); a secondary otherwise (waiting,
 * acquiring, or after it learned the lease is gone).
 */
export function replicaRole(top: string, token: number | null): ReplicaRole {
  if (top === "holding" && token !== null) return "primary";
  if (top === "jeopardy" || top === "grace") return "offline";
  return "secondary";
}

/**
 * May a replica accept (write to the storage) a client's write that arrived while it held
 * `token`? Only while it is still the primary with that token, and, with the watchdog on,
 * before its own deadline: a primary that hung between the write's arrival and writing it
 * finds its deadline gone and refuses the write.
 */
export function primaryMayWrite(
  cfg: HolderSettings,
  top: string,
  held: { readonly token: number | null; readonly deadlineUs: LocalUs | null },
  token: number,
  now: LocalUs,
): boolean {
  if (replicaRole(top, held.token) !== "primary" || held.token !== token) return false;
  return !cfg.selfFence || (held.deadlineUs !== null && now < held.deadlineUs);
}
