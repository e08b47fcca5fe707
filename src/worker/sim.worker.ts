/** The simulation worker: a thin shell around SimHost. All simulation runs here, never on the page's thread. */
import { SimHost } from "./host";
import { partsFor } from "./parts";
import type { FromWorker, ToWorker } from "./protocol";

interface WorkerScope {
  postMessage(msg: FromWorker, transfer?: Transferable[]): void;
  addEventListener(type: "message", listener: (e: MessageEvent<ToWorker>) => void): void;
}

const scope = self as unknown as WorkerScope;

const host = new SimHost({
  post: (msg, transfer) => scope.postMessage(msg, transfer === undefined ? [] : [...transfer]),
  nowMs: () => performance.now(),
  setTimer: (fn, delayMs) => setTimeout(fn, delayMs),
  clearTimer: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
});

/**
 * Messages are handled in order. One that needs a part not loaded yet (a lesson, the reads'
 * check, an export: parts.ts) waits for it, and so does every message after it. A part that
 * fails to load is the host's to report: it answers as it answers any failure.
 */
let waiting: Promise<void> | null = null;
scope.addEventListener("message", (e) => {
  const msg = e.data;
  const load = partsFor(msg);
  if (waiting === null && load === null) {
    host.handle(msg);
    return;
  }
  const handled = (waiting ?? Promise.resolve())
    .then(() => load ?? undefined)
    .catch(() => undefined)
    .then(() => host.handle(msg));
  waiting = handled;
  void handled.finally(() => {
    if (waiting === handled) waiting = null;
  });
});
