/**
 * The work loop, run by the process while the statechart is in holding (its startWork and
 * stopWork actions): every workIntervalMs check the lease is valid on the local clock, and
 * if so write to storage workGapMs later with the token checked, without checking again.
 */
import type { ProcessContext } from "../sim/process";
import { topState } from "./holderMachine";
import { primaryMayWrite } from "./replica";
import { addTimer, dropTimers, type HolderParts, pushBounded, WORK_CHECK, WORK_CHECK_EVENT, WORK_WRITE } from "./state";

/** On entering holding: a new grant starts the period afresh; back from jeopardy or grace it keeps it. */
export function startWork(p: HolderParts, ctx: ProcessContext, newGrant: boolean): void {
  const w = p.st.work;
  w.phase = "idle";
  if (newGrant) w.lastCheckUs = null;
  armCheck(p, ctx);
}

/** On leaving holding: the next check is off; a write already checked still goes out. */
export function stopWork(p: HolderParts): void {
  p.st.work.phase = "off";
  dropTimers(p.st, WORK_CHECK);
}

/** Arms the next validity check: the period is kept from check to check, whatever the gap. */
function armCheck(p: HolderParts, ctx: ProcessContext): void {
  const w = p.st.work;
  const interval = p.settings.workIntervalMs;
  const delayMs = w.lastCheckUs === null ? interval : Math.max(0, w.lastCheckUs + interval * 1000 - ctx.now) / 1000;
  addTimer(p.st, ctx.now, WORK_CHECK, WORK_CHECK_EVENT, delayMs);
}

/**
 * Is the lease still valid on my own clock? If so, pause if armed, and write after the gap.
 * Returns true when it paused the process (nothing more happens in this call).
 */
export function workCheck(p: HolderParts, ctx: ProcessContext): boolean {
  const s = p.st;
  const w = s.work;
  const c = s.machine?.context;
  if (w.phase !== "idle" || c === undefined) throw new Error(`holder ${p.settings.id}: a work check while ${w.phase}`);
  // One draw per event handled, as for the statechart's events: the random stream does not depend on how the loop is run.
  p.rng.nextU32();
  w.lastCheckUs = ctx.now;
  w.checks += 1;
  // Without the self-fencing watchdog the holder trusts its token until the service says it is gone.
  if (c.token === null || c.deadlineUs === null || (p.settings.selfFence && ctx.now >= c.deadlineUs)) {
    armCheck(p, ctx);
    return false;
  }
  w.phase = "gap";
  let paused = false;
  // A GC pause strikes right after the check: the write that follows goes out late.
  if (s.gcPauseUs !== null) {
    const d = s.gcPauseUs;
    s.gcPauseUs = null;
    ctx.pauseSelf(d);
    paused = true;
  }
  addTimer(s, ctx.now, WORK_WRITE, { type: WORK_WRITE, token: c.token }, p.settings.workGapMs);
  return paused;
}

/**
 * The gap after a check is over: write with the token checked, whatever the state is now; a
 * replica only if it is still the primary (and, with its watchdog on, within its own deadline).
 */
export function workWrite(p: HolderParts, ctx: ProcessContext, token: number): void {
  const s = p.st;
  p.rng.nextU32();
  const m = s.machine;
  if (p.settings.replicas && (m === null || !primaryMayWrite(p.settings, topState(m.value), m.context, token, ctx.now))) {
    // A replica accepts a write only as primary: this one stepped down, or its watchdog took it offline, since the write arrived.
    s.unsentWrites += 1;
  } else send(p, ctx, token);
  if (s.work.phase === "gap") {
    s.work.phase = "idle";
    armCheck(p, ctx);
  }
}

/** Sends the write to the storage with the token checked. */
function send(p: HolderParts, ctx: ProcessContext, token: number): void {
  const s = p.st;
  const id = p.settings.id;
  s.writes += 1;
  pushBounded(s.sentWrites, { reqId: s.writes, token });
  ctx.send(p.settings.storage, {
    type: "StorageWrite",
    reqId: s.writes,
    resource: p.settings.resource,
    holder: id,
    token,
    value: `${id}#${s.writes}`,
  });
}
