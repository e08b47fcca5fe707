/** The simulation worker: a thin shell around SimHost. All simulation runs here, never on the page's thread. */
import { SimHost } from "./host";
import type { FromWorker, ToWorker } from "./protocol";

interface WorkerScope {
  postMessage(msg: FromWorker): void;
  addEventListener(type: "message", listener: (e: MessageEvent<ToWorker>) => void): void;
}

const scope = self as unknown as WorkerScope;

const host = new SimHost({
  post: (msg) => scope.postMessage(msg),
  nowMs: () => performance.now(),
  setTimer: (fn, delayMs) => setTimeout(fn, delayMs),
  clearTimer: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
});

scope.addEventListener("message", (e) => host.handle(e.data));
