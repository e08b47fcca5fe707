/** A live run's process: one Raft node, holder, client or the storage, alone in its thread (processShell.ts). */
import { decodeDurable } from "../core/live/durable";
import { LiveProcess } from "../core/live/process";
import { openDisk } from "./disk";
import { ProcessShell } from "./processShell";
import type { FromProcess, ProcessToRouter, RouterToProcess, ToProcess } from "./protocol";

interface Scope {
  postMessage(msg: FromProcess): void;
  addEventListener(type: "message", listener: (e: MessageEvent<ToProcess>) => void): void;
}
const scope = self as unknown as Scope;
let shell: ProcessShell | null = null;
/** Messages from the page that came while the disk was opening. */
const early: ToProcess[] = [];

scope.addEventListener("message", (e) => {
  const msg = e.data;
  if (msg.type === "init") {
    void init(msg);
    return;
  }
  if (shell === null) early.push(msg);
  else handle(shell, msg);
});

function handle(s: ProcessShell, msg: ToProcess): void {
  switch (msg.type) {
    case "act":
      scope.postMessage({ type: "acted", requestId: msg.requestId, refused: s.act(msg.action) });
      return;
    case "pause":
      s.pause(msg.durationUs);
      return;
    case "resume":
      s.resume();
      return;
    case "speed":
      s.setRun(msg.run);
      return;
    case "verify":
      s.verify = msg.on;
      return;
    case "finish":
      s.finish();
      return;
    case "init":
      return;
  }
}

async function init(msg: Extract<ToProcess, { type: "init" }>): Promise<void> {
  const router = msg.router;
  const disk = await openDisk(msg.runDir, msg.id, msg.memoryDisk, (text) => scope.postMessage({ type: "persist", text }));
  let durable = null;
  try {
    const text = msg.incarnation === 0 ? null : disk.read();
    durable = text === null ? null : decodeDurable(text);
  } catch (e) {
    scope.postMessage({ type: "broken", detail: `its disk could not be read: ${e instanceof Error ? e.message : String(e)}` });
    return;
  }
  const proc = new LiveProcess(msg.config, msg.id, msg.incarnation, durable, msg.clock);
  const s = new ProcessShell(proc, msg.run, disk, {
    toPage: (m) => scope.postMessage(m),
    toRouter: (m: ProcessToRouter) => router.postMessage(m),
    cells: msg.pauseCells === null ? null : new Int32Array(msg.pauseCells),
    slot: msg.slot,
  });
  s.verify = msg.verify;
  shell = s;
  router.onmessage = (e: MessageEvent<RouterToProcess>) => s.deliver(e.data.msg);
  scope.postMessage({ type: "ready", disk: disk.kind, diskNote: disk.note });
  s.boot();
  for (const m of early.splice(0)) handle(s, m);
  setInterval(() => scope.postMessage({ type: "stats", stats: s.stats() }), 500);
}
