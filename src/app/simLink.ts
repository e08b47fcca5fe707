/** Starts the simulation worker and connects it to the page's store. Returns a function that stops it. */
import type { FromWorker, RunSettings, ToWorker } from "../worker/protocol";
import type { Scenario } from "../core/scenario/schema";
import { momentOptionsMessage, useMomentOptions } from "./pace";
import type { LabStore } from "./store";

/** The first message to the worker: a plain run, or a link's scenario with its cursor. */
export function startMessage(settings: RunSettings, run: Scenario | undefined, at?: number): ToWorker {
  const msg: ToWorker = run === undefined ? { type: "start", settings } : { type: "start", settings, scenario: run };
  return at === undefined ? msg : { ...msg, at };
}

/** Starts the worker with page settings, or with a share link's run (or `first`: a lesson's start), feeding `lab`; returns a function that stops it. */
export function connectSimulation(
  lab: LabStore,
  settings: RunSettings,
  notices: readonly string[],
  run?: Scenario,
  first?: ToWorker,
  at?: number,
): () => void {
  let worker: Worker;
  try {
    worker = new Worker(new URL("../worker/sim.worker.ts", import.meta.url), { type: "module", name: "lease-lab-sim" });
  } catch (e) {
    lab.setState({
      settings,
      notices,
      error: `The simulation worker could not be created: ${e instanceof Error ? e.message : String(e)}`,
    });
    return () => {};
  }
  const { receive } = lab.getState();
  worker.addEventListener("message", (e: MessageEvent<FromWorker>) => receive(e.data));
  worker.addEventListener("error", (e: ErrorEvent) => {
    lab.setState({ error: `The simulation worker failed: ${e.message || "it could not be loaded"}` });
  });
  const send = (msg: ToWorker): void => worker.postMessage(msg);
  lab.setState({ settings, notices, view: null, liveView: null, error: null, send });
  // Pause-on and the automatic slow-down first, so an autoplaying run starts with them.
  send(momentOptionsMessage(useMomentOptions.getState()));
  send(first ?? startMessage(settings, run, at));
  // A hidden tab costs nothing: the worker stops advancing until the page is shown again.
  const onVisibility = (): void => send({ type: "hidden", hidden: document.visibilityState === "hidden" });
  document.addEventListener("visibilitychange", onVisibility);
  if (document.visibilityState === "hidden") onVisibility();
  return () => {
    document.removeEventListener("visibilitychange", onVisibility);
    worker.terminate();
    lab.setState({ send: () => {} });
  };
}
