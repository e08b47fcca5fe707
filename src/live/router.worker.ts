/**
 * A live run's router, in a thread of its own: every message between processes passes through
 * it (core/live/router.ts decides each one's fate, and records the run). It hands each copy to
 * its receiver's port when due, and feeds the page the recording as it grows.
 */
import { MAX_RECORDED_INPUTS } from "../core/live/recording";
import { LiveRouter } from "../core/live/router";
import type { VirtualUs } from "../core/sim/time";
import type { ProcId } from "../core/sim/trace";
import { epochMs, type FromRouter, type ProcessToRouter, type RouterToProcess, type RunClock, runTimeAt, type ToRouter, timerDelayMs } from "./protocol";

interface Scope {
  postMessage(msg: FromRouter): void;
  addEventListener(type: "message", listener: (e: MessageEvent<ToRouter>) => void): void;
}
const scope = self as unknown as Scope;

/** Real ms between feeds to the page. */
const FEED_MS = 50;
/** How far behind the router's clock the watermark trails (real ms): a report takes less to arrive. */
const LAG_MS = 150;

let router: LiveRouter | null = null;
let run: RunClock = { r0: 0, v0: 0, speed: 1 };
let last: VirtualUs = 0;
const ports = new Map<ProcId, MessagePort>();
/** Copies due to a process whose new worker's port has not come yet. */
const held = new Map<ProcId, RouterToProcess[]>();
let timer: ReturnType<typeof setTimeout> | null = null;
let toldFull = false;
let finishing: { alive: Set<ProcId>; digests: Record<ProcId, string>; until: ReturnType<typeof setTimeout> } | null = null;


function now(): VirtualUs {
  last = Math.max(last, runTimeAt(run, epochMs()));
  return last;
}

scope.addEventListener("message", (e) => {
  try {
    handle(e.data);
  } catch (err) {
    scope.postMessage({ type: "error", message: `the router failed: ${err instanceof Error ? err.message : String(err)}` });
  }
});

function handle(msg: ToRouter): void {
  if (msg.type === "init") {
    router = new LiveRouter(msg.config);
    run = msg.run;
    for (const { id, port } of msg.ports) attach(id, port);
    setInterval(feed, FEED_MS);
    return;
  }
  const r = router;
  if (r === null) return;
  switch (msg.type) {
    case "act":
      scope.postMessage({ type: "acted", requestId: msg.requestId, refused: r.act(now(), msg.action) });
      arm();
      return;
    case "crashed":
      r.crashed(now(), msg.id);
      ports.delete(msg.id);
      held.delete(msg.id);
      finishing?.alive.delete(msg.id);
      return;
    case "restart": {
      const { incarnation, clock } = r.restarted(msg.id);
      held.set(msg.id, []);
      scope.postMessage({ type: "restarted", requestId: msg.requestId, incarnation, clock });
      return;
    }
    case "port":
      attach(msg.id, msg.port);
      for (const m of held.get(msg.id) ?? []) msg.port.postMessage(m);
      held.delete(msg.id);
      return;
    case "speed":
      run = msg.run;
      arm();
      return;
    case "finish":
      finish(r, msg.alive);
      return;
  }
}

function attach(id: ProcId, port: MessagePort): void {
  ports.set(id, port);
  port.onmessage = (e: MessageEvent<ProcessToRouter>) => fromProcess(e.data);
}

function fromProcess(m: ProcessToRouter): void {
  const r = router;
  if (r === null) return;
  if (m.type === "report") {
    r.report(now(), m.id, m.incarnation, m.inputs, m.sends, m.after);
    arm();
    return;
  }
  const f = finishing;
  if (f?.alive.has(m.id)) {
    f.digests[m.id] = m.digest;
    f.alive.delete(m.id);
    if (f.alive.size === 0) done(r);
  }
}

/** Hands over the copies due now, then waits for the next one. */
function arm(): void {
  const r = router;
  if (r === null || finishing !== null) return;
  if (timer !== null) clearTimeout(timer);
  timer = null;
  const t = now();
  for (const m of r.due(t)) {
    const out: RouterToProcess = { type: "deliver", msg: m };
    const port = ports.get(m.to);
    if (port !== undefined) port.postMessage(out);
    else held.get(m.to)?.push(out);
  }
  const next = r.nextDueAt();
  if (next !== null) timer = setTimeout(arm, timerDelayMs(run, t, next));
}

function feed(): void {
  const r = router;
  if (r === null || finishing !== null) return;
  const t = now();
  const { items, rewritten } = r.takeScript();
  const waiting: Record<ProcId, number> = {};
  for (const [id, n] of r.waitingFor()) waiting[id] = n;
  scope.postMessage({ type: "feed", items, plans: r.takePlans(), rewritten, watermark: Math.max(0, t - LAG_MS * 1000 * run.speed), now: t, waiting, inputs: r.inputs });
  if (r.full && !toldFull) {
    toldFull = true;
    scope.postMessage({ type: "full", inputs: MAX_RECORDED_INPUTS, now: t });
  }
}

/** The run ends: no more deliveries; each live process reports its digest (over its port, after its last report). */
function finish(r: LiveRouter, alive: readonly ProcId[]): void {
  if (timer !== null) clearTimeout(timer);
  timer = null;
  finishing = { alive: new Set(alive.filter((id) => ports.has(id))), digests: {}, until: setTimeout(() => done(r), 3000) };
  if (finishing.alive.size === 0) done(r);
}

function done(r: LiveRouter): void {
  const f = finishing;
  if (f === null) return;
  clearTimeout(f.until);
  const script = r.recording(0, run.speed, f.digests);
  // The script is in time order: its last item is its latest.
  const endAt = Math.max(now(), script.script[script.script.length - 1]?.input.at ?? 0);
  scope.postMessage({ type: "recording", recording: { ...script, endAt } });
  finishing = { ...f, alive: new Set() };
}
