/**
 * Leases for reads (docs/reads.md), as plain data and plain functions: the leader's lease
 * (Raft dissertation 6.4, etcd's ReadOnlyLeaseBased) and the read leases it grants followers
 * (asymmetric leases, shared/seeds/003 section 4). The node (node.ts) drives them.
 *
 * Leader lease. The leader numbers each heartbeat round and notes its local send time. When a
 * majority of the configuration has acknowledged round r (or a later one), no other server can
 * win an election until an election timeout after it received round r: its voters refuse while
 * they heard a leader within the minimum election timeout (PreVote's check, or CheckQuorum's
 * ignoring of disruptive candidates: at least one of the two must be on), and a restarted
 * server refuses for the same time after it boots. So the leader may answer reads from its own
 * state until sendTime(r) + leaseUs, where leaseUs shortens the minimum election timeout by the
 * drift bound b on both clocks: ETmin (1 - b) / (1 + b). Never while a leadership transfer is
 * on (a transfer's election skips the voters' check), nor before this leader has committed an
 * entry of its term, nor across a change of configuration.
 *
 * Read leases. The rules (each one has a test that fails without it):
 * 1. A write is acknowledged to its client only once every current read-lease holder has
 *    applied it, or that holder's lease has expired on the leader's clock (revoke-or-wait:
 *    here, wait).
 * 2. Any read served from state at applied index A (at a follower, or at the leader) is
 *    answered only once every current holder has applied A or lost its lease. The leader
 *    keeps that "visible index" and sends it on every append; readers hold their answer until
 *    the visible index reaches A. Otherwise a read at one holder could see a write that a later
 *    read at another holder does not.
 * 3. A holder times its lease on its own clock from when it asked (before the grant), for
 *    readLeaseUs (1 - b) / (1 + b); the leader counts it from its grant, for readLeaseUs. The
 *    leader grants only after a heartbeat round that started after the ask arrived has been
 *    acknowledged by a majority: a deposed leader cannot grant.
 * 4. A new leader knows nothing of its predecessors' grants: its visible index stays at 0 (no
 *    write acknowledged, no read answered) until readLeaseUs (1 + b) / (1 - b) has passed on
 *    its clock since it won the election.
 * 5. A holder drops its lease on learning a new term or leader, on a restart (leases are
 *    volatile), and serves only after it has applied up to the commit index the grant carried.
 */
import type { LocalUs } from "../sim/time";
import type { NodeId } from "./types";

/** A heartbeat round the leader sent: its number, local send time, and the configuration it counted. */
export interface LeaseRound {
  readonly round: number;
  readonly at: LocalUs;
  readonly configIndex: number;
}

/** What the leader knows of one read-lease holder. */
export interface HolderRecord {
  /** Leader's local time at which the lease ends (grant time + readLeaseUs). */
  until: LocalUs;
  /** The commit index the grant carried: the holder serves nothing before it has applied it. */
  floor: number;
  /** The holder's commit index as last reported (it applies as it commits). */
  applied: number;
}

/** A read lease as the follower holding it knows it. */
export interface HeldLease {
  readonly until: LocalUs;
  readonly floor: number;
  readonly leader: NodeId;
  readonly term: number;
}

export interface LeaseState {
  // The leader's side (reset when leadership begins or ends).
  /** Rounds sent this term and not yet confirmed, oldest first. */
  rounds: LeaseRound[];
  /** Highest round each peer acknowledged this term. */
  acked: Record<NodeId, number>;
  /** The latest round a majority acknowledged. */
  confirmed: LeaseRound | null;
  /** A TimeoutNow went out this term: no lease reads for the rest of it. */
  timeoutNowSent: boolean;
  /** Local time this node won its election. */
  wonAt: LocalUs;
  holders: Record<NodeId, HolderRecord>;
  /** Asks waiting for a round that started after they arrived to be confirmed: the ask's id and that round. */
  asks: Record<NodeId, { readonly askId: number; readonly round: number }>;
  // The follower's side.
  /** Recent asks sent (id and local send time), oldest first. */
  myAsks: { readonly id: number; readonly at: LocalUs }[];
  nextAskId: number;
  held: HeldLease | null;
  /** The visible index the leader last sent (this term). */
  visible: number;
  /** Local time this node booted: it refuses votes for an election timeout after it (leader leases). */
  bootAt: LocalUs;
}

export function freshLeaseState(now: LocalUs): LeaseState {
  return {
    rounds: [],
    acked: {},
    confirmed: null,
    timeoutNowSent: false,
    wonAt: now,
    holders: {},
    asks: {},
    myAsks: [],
    nextAskId: 1,
    held: null,
    visible: 0,
    bootAt: now,
  };
}

export function copyLeaseState(l: LeaseState): LeaseState {
  const holders: Record<NodeId, HolderRecord> = {};
  for (const k in l.holders) holders[k] = { ...(l.holders[k] as HolderRecord) };
  return { ...l, rounds: l.rounds.slice(), acked: { ...l.acked }, holders, asks: { ...l.asks }, myAsks: l.myAsks.slice() };
}

/** Forgets everything a leader knows (at the start and the end of a leadership). */
export function resetLeaderSide(l: LeaseState, now: LocalUs): void {
  l.rounds = [];
  l.acked = {};
  l.confirmed = null;
  l.timeoutNowSent = false;
  l.wonAt = now;
  l.holders = {};
  l.asks = {};
}

const PPM = 1_000_000;

/** `us` shortened for a drift bound of `ppm` on two clocks: us (1 - b) / (1 + b). */
export function shortened(us: number, ppm: number): number {
  return Math.floor((us * (PPM - ppm)) / (PPM + ppm));
}

/** `us` lengthened for a drift bound of `ppm` on two clocks: us (1 + b) / (1 - b). */
export function lengthened(us: number, ppm: number): number {
  return ppm >= PPM ? Number.POSITIVE_INFINITY : Math.ceil((us * (PPM + ppm)) / (PPM - ppm));
}

/** How many asks a follower remembers (an answer to an older one is ignored). */
export const MAX_ASKS = 16;
