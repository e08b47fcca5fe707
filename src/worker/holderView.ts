/** What the page is shown of a lease holder (part of SimView, in protocol.ts; apart to keep that file under 600 lines). */
import type { ClockState } from "../core/sim/clock";
import type { ProcStatus } from "../core/sim/sim";

export type HolderStatus = ProcStatus;

export interface HolderView {
  readonly id: string;
  readonly status: HolderStatus;
  /** Dotted statechart state ("holding.waiting", "jeopardy.renewing"), or "down". */
  readonly state: string;
  readonly leaseName: string;
  readonly token: number | null;
  /** The holder's own conservative deadline, its nominal lease end, its next renewal and the end of grace (virtual µs). */
  readonly deadlineAt: number | null;
  readonly nominalEndAt: number | null;
  readonly renewAt: number | null;
  readonly graceEndAt: number | null;
  /** The node it believes leads. */
  readonly target: string | null;
  /** Its local clock, as for NodeView. */
  readonly clock: ClockState;
  readonly driftPpm: number;
  readonly pausedUntil: number | null;
  /** A GC pause armed for the moment between its next check and write (µs long). */
  readonly gcPauseArmedUs: number | null;
  readonly writesAccepted: number;
  readonly writesRejected: number;
  /** A database replica's role (holders.replicas, docs/failover.md); null for a plain lease holder and while down. */
  readonly role: "primary" | "secondary" | "offline" | null;
}
