/** A read-only summary of a lease holder, for the UI, the CLI and tests. */
import type { LocalUs } from "../sim/time";
import type { StateValue } from "xstate";
import type { LeaseHolder } from "./holder";
import { stateString, topState } from "./holderMachine";
import type { ReplicaRole } from "./replica";

export interface HolderLocalView {
  readonly id: string;
  readonly up: boolean;
  readonly incarnation: number;
  /** Dotted state string ("holding.waiting", "jeopardy.renewing", ...), or "down". */
  readonly state: string;
  /** Top-level state ("holding", "jeopardy", ...), or "down". */
  readonly top: string;
  readonly value: StateValue | null;
  readonly leaseName: string;
  readonly token: number | null;
  /** The holder's own conservative deadline (local µs) while it has a token. */
  readonly deadlineUs: LocalUs | null;
  readonly nominalEndUs: LocalUs | null;
  readonly renewAtUs: LocalUs | null;
  /** Where grace ends (local µs), when there is a grace period and a token. */
  readonly graceEndUs: LocalUs | null;
  readonly ttlMs: number | null;
  /** The server it believes leads. */
  readonly target: string | null;
  readonly gcPauseArmedUs: number | null;
  readonly storageAccepted: number;
  readonly storageRejected: number;
  /** A database replica's role (docs/failover.md), or null for a plain lease holder and while crashed. */
  readonly role: ReplicaRole | null;
  /** Whether its self-fencing watchdog is on (holders.selfFence). */
  readonly selfFence: boolean;
}

/** A read-only summary of a holder for the UI, the CLI and tests. */
export function holderStateOf(h: LeaseHolder): HolderLocalView {
  const v = h.value;
  const c = h.context;
  const has = c !== null && c.token !== null;
  return {
    id: h.id,
    up: h.up,
    incarnation: h.incarnation,
    state: v === null ? "down" : stateString(v),
    top: v === null ? "down" : topState(v),
    value: v,
    leaseName: h.settings.leaseName,
    token: has ? c.token : null,
    deadlineUs: has ? c.deadlineUs : null,
    nominalEndUs: has ? c.nominalEndUs : null,
    renewAtUs: has ? c.renewAtUs : null,
    graceEndUs: has && c.nominalEndUs !== null && h.settings.gracePeriodMs > 0 ? c.nominalEndUs + h.settings.gracePeriodMs * 1000 : null,
    ttlMs: has ? c.ttlMs : null,
    target: h.target,
    gcPauseArmedUs: h.gcPauseArmed,
    storageAccepted: h.storageTotals.accepted,
    storageRejected: h.storageTotals.rejected,
    role: h.role,
    selfFence: h.settings.selfFence,
  };
}
