/**
 * The holder's transport details: the client id of this incarnation, the server it
 * believes leads, and the ClientWrite operations (grant, put, revoke) it sends there,
 * with their calls and give-ups recorded in the clients' history.
 */
import type { ClientOp } from "../raft/types";
import type { ProcessContext } from "../sim/process";
import type { HolderParts } from "./state";

export function clientIdOf(p: HolderParts): string {
  return `${p.settings.id}.${p.st.incarnation}`;
}

/** The server it believes leads. */
export function server(p: HolderParts): string {
  const to = p.settings.servers[p.st.target];
  if (to === undefined) throw new Error(`holder ${p.settings.id}: no server at index ${p.st.target}`);
  return to;
}

/** Sends the current operation (seq) to the server it believes leads; its first send is a new call in the history. */
export function sendWrite(p: HolderParts, ctx: ProcessContext, op: ClientOp): void {
  const s = p.st;
  const seq = s.seq;
  const clientId = clientIdOf(p);
  if (s.openOp?.seq !== seq) {
    // A new operation: an older one still open was given up, its outcome unknown.
    if (s.openOp !== null) {
      ctx.emit({ kind: "client", phase: "info", clientId, seq: s.openOp.seq, op: s.openOp.op, note: "gave up" });
    }
    s.openOp = { seq, op };
    ctx.emit({ kind: "client", phase: "invoke", clientId, seq, op });
  }
  ctx.send(server(p), { type: "ClientWrite", clientId, seq, op });
}
