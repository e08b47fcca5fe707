/**
 * The automatic slow-down: while a key moment of a lease story is about to happen or has
 * just happened, time moves at the chosen speed; between them (only heartbeats and
 * renewals on the wire) it moves FAST_FACTOR times faster. The pace only decides how much
 * virtual time one real tick advances: the simulation is the same at any pace.
 */
import { holderStateOf } from "../core/holder/holder";
import type { Simulation } from "../core/sim/sim";
import type { LocalUs } from "../core/sim/time";
import { type Moment, PAUSE_GROUP } from "./moments";
import { MAX_SPEED } from "./protocol";
import { toVirtual } from "./view";

/** Virtual time kept slow after a key moment... */
export const SLOW_AFTER_US = 150_000;
/** ...and before one that can be seen coming (a deadline, an expiry, a stale write on the wire). */
export const SLOW_BEFORE_US = 120_000;
/** A leader's expiry is still "about to happen" this long after it passed (the expiry check runs every 100 ms). */
const OVERDUE_US = 300_000;
/** Between moments time moves this many times faster than the chosen speed... */
export const FAST_FACTOR = 10;
/** ...but no faster than this (unless the chosen speed already is). */
const FAST_CAP = 1;

/** The speed to play at now: `speed` near a key moment, faster between them. */
export function paceOf(sim: Simulation, speed: number, latest: Moment | null): number {
  const fast = Math.min(MAX_SPEED, Math.max(speed, Math.min(speed * FAST_FACTOR, FAST_CAP)));
  if (fast === speed) return speed;
  const near = (latest !== null && PAUSE_GROUP[latest.kind] !== null && sim.now - latest.t <= SLOW_AFTER_US) || somethingComing(sim);
  return near ? speed : fast;
}

/** Is a key moment about to happen: a stale write on its way to the storage, a holder's deadline or a leader's expiry close? */
export function somethingComing(sim: Simulation): boolean {
  const now = sim.now;
  const soon = (t: number | null): boolean => t !== null && t >= now && t <= now + SLOW_BEFORE_US;
  const storage = sim.storage();
  if (storage !== null) {
    for (const { env } of sim.inFlight()) {
      const p = env.payload;
      if (p.type === "StorageWrite" && p.token < (storage.highest(p.resource) ?? 0)) return true;
    }
  }
  const names = new Set<string>();
  for (const id of sim.holderIds) {
    if (sim.status(id) === "down") continue;
    const h = holderStateOf(sim.holder(id));
    names.add(h.leaseName);
    // A frozen holder's deadline passes unseen: what matters is when it wakes.
    const paused = sim.pausedUntil(id);
    if (paused !== null) {
      if (soon(paused)) return true;
      continue;
    }
    if (h.token === null) continue;
    const clock = sim.clockOf(id);
    const at = (local: LocalUs | null): number | null => (local === null || !Number.isFinite(local) ? null : toVirtual(clock, local));
    if (soon(at(h.deadlineUs)) || soon(at(h.nominalEndUs)) || soon(at(h.graceEndUs))) return true;
  }
  const leader = sim.leader();
  if (leader === null) return false;
  const tracker = sim.server(leader).tracker;
  const clock = sim.clockOf(leader);
  for (const name of names) {
    const exp = tracker?.expiresAt(name) ?? null;
    if (exp === null) continue;
    const t = toVirtual(clock, exp as LocalUs);
    if (t >= now - OVERDUE_US && t <= now + SLOW_BEFORE_US) return true;
  }
  return false;
}
