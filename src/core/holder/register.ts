/**
 * The key registration (registerKey), run by the process while the statechart is in
 * holding (its startRegister and stopRegister actions): a ClientWrite put of
 * /holders/<id> attached to the lease, sent to the server believed to lead, redirected as
 * kv/redirect.ts says, backing off (capped exponential, jittered) on silence or refusal,
 * given up after MAX_WRITE_ATTEMPTS sends. Once per grant.
 */
import { afterRefusal, afterSilence, type Next, sent } from "../kv/redirect";
import type { ProcessContext } from "../sim/process";
import { backoffMs, MAX_WRITE_ATTEMPTS } from "./holderMachine";
import {
  addTimer,
  draw,
  dropTimers,
  type HolderParts,
  REGISTER_BACKOFF,
  REGISTER_BACKOFF_EVENT,
  REGISTER_TIMEOUT,
  REGISTER_TIMEOUT_EVENT,
} from "./state";
import { sendWrite } from "./transport";

/** On entering holding (after the transition's other actions): write the key if it is wanted and not written for this grant. */
export function startRegister(p: HolderParts, ctx: ProcessContext): void {
  const r = p.st.register;
  if (!p.settings.registerKey || r.written) {
    r.phase = "done";
    return;
  }
  p.st.seq += 1;
  r.attempts = 0;
  r.failures = 0;
  r.redirects = 0;
  send(p, ctx);
}

/** On leaving holding: a put already sent may still be applied; its answer is ignored. */
export function stopRegister(p: HolderParts): void {
  p.st.register.phase = "off";
  dropTimers(p.st, REGISTER_TIMEOUT, REGISTER_BACKOFF);
}

function send(p: HolderParts, ctx: ProcessContext): void {
  const r = p.st.register;
  r.phase = "sending";
  r.attempts = sent(r).attempts;
  const id = p.settings.id;
  sendWrite(p, ctx, { type: "put", key: `/holders/${id}`, value: id, lease: p.settings.leaseName });
  addTimer(p.st, ctx.now, REGISTER_TIMEOUT, REGISTER_TIMEOUT_EVENT, p.settings.requestTimeoutMs);
}

/** Goes where `next` says: at once (a hint), or after a backoff drawn with `rand`. */
function redirect(p: HolderParts, ctx: ProcessContext, next: Next, rand: number): void {
  const r = p.st.register;
  p.st.target = next.target;
  r.failures = next.failures;
  r.redirects = next.redirects;
  if (next.now) {
    send(p, ctx);
    return;
  }
  r.phase = "backoff";
  addTimer(p.st, ctx.now, REGISTER_BACKOFF, REGISTER_BACKOFF_EVENT, backoffMs(p.settings, r.failures, rand));
}

/** No answer in time: back off and try the next server. */
export function registerTimeout(p: HolderParts, ctx: ProcessContext): void {
  const r = p.st.register;
  const rand = draw(p.rng);
  if (r.phase !== "sending") throw new Error(`holder ${p.settings.id}: a registration timeout while ${r.phase}`);
  redirect(p, ctx, afterSilence(p.settings.servers.length, p.st.target, r), rand);
}

/** The backoff is over: send again, or give up after MAX_WRITE_ATTEMPTS sends. */
export function registerRetry(p: HolderParts, ctx: ProcessContext): void {
  const r = p.st.register;
  draw(p.rng);
  if (r.phase !== "backoff") throw new Error(`holder ${p.settings.id}: a registration retry while ${r.phase}`);
  if (r.attempts < MAX_WRITE_ATTEMPTS) send(p, ctx);
  else r.phase = "failed";
}

/** Refused by server `from`, naming `hint`: follow a usable hint at once, else back off and try the server after the one that refused. */
export function registerRejected(p: HolderParts, ctx: ProcessContext, hint: number | null, from: number): void {
  const r = p.st.register;
  const rand = draw(p.rng);
  if (r.phase !== "sending") return;
  dropTimers(p.st, REGISTER_TIMEOUT);
  const servers = p.settings.servers.length;
  redirect(p, ctx, afterRefusal(servers, servers, r, hint, from), rand);
}

/** The put's answer (a late one after the holder left holding is ignored). */
export function registerWritten(p: HolderParts): void {
  const r = p.st.register;
  draw(p.rng);
  if (r.phase !== "sending" && r.phase !== "backoff") return;
  dropTimers(p.st, REGISTER_TIMEOUT, REGISTER_BACKOFF);
  r.written = true;
  r.phase = "done";
}
