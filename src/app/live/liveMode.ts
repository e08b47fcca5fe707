/**
 * Live mode on the page: the switch between the simulated run and a live one (src/live/), and
 * what the Live panel shows. In live mode the page keeps the simulation worker, which draws the
 * live run's shadow (worker/liveShadow.ts), and takes over the store's `send`: the user's actions
 * go to the live cluster, which the page owns; everything else (time travel, the views) still
 * goes to the worker. "Open in the simulator" ends the live run and gives its recording to the
 * worker to replay whole.
 */
import { create } from "zustand";
import type { LiveRecording } from "../../core/live/recording";
import type { Action } from "../../core/sim/actions";
import { formatDuration } from "../../core/sim/time";
import type { LiveCluster, LiveState } from "../../live/cluster";
import type { RunSettings, SimView, ToWorker } from "../../worker/protocol";
import type { LabStore } from "../store";

export type LabMode = "simulated" | "live" | "replay";

export interface LiveModeState {
  readonly mode: LabMode;
  /** The live run's threads and figures (live mode), refreshed a few times a second. */
  readonly state: LiveState | null;
  /** A live run opened in the simulator: its recording (the worker's comparison is the lab store's replayCheck). */
  readonly recording: LiveRecording | null;
  /** Something is under way ("Starting the threads…", "Stopping the threads…"). */
  readonly busy: string | null;
}

export const useLiveMode = create<LiveModeState>(() => ({ mode: "simulated", state: null, recording: null, busy: null }));

/** The live run now (one per page), and the store's own `send`, to the simulation worker. */
let current: { cluster: LiveCluster; base: (msg: ToWorker) => void; lab: LabStore } | null = null;

/** Resolves "leader", "follower", "any-node" and ids from what the dashboard shows now. */
export function resolverFor(view: SimView | null): (ref: string) => string | null {
  return (ref) => {
    if (view === null) return null;
    const up = view.nodes.filter((n) => n.status !== "down");
    if (ref === "leader") return view.leader;
    if (ref === "follower") return up.find((n) => n.id !== view.leader)?.id ?? null;
    if (ref === "any-node") return up[Math.floor(Math.random() * up.length)]?.id ?? null;
    if (ref === "any-holder") return view.holders[Math.floor(Math.random() * view.holders.length)]?.id ?? null;
    const ids = [...view.nodes.map((n) => n.id), ...view.holders.map((h) => h.id), ...view.clients.map((c) => c.id), ...(view.storage === null ? [] : ["s1"])];
    return ids.includes(ref) ? ref : null;
  };
}

/** Starts a live run of the page's settings, at the dashboard's speed. */
export async function enterLive(lab: LabStore): Promise<void> {
  if (current !== null) return;
  const st = lab.getState();
  const settings = st.settings;
  if (settings === null) return;
  useLiveMode.setState({ busy: "Starting one thread per process…", recording: null });
  // A speed chosen while the live run's code loads is the live run's speed (the view may not show it yet).
  const base = st.send;
  let asked: number | null = null;
  const starting = (msg: ToWorker): void => {
    if (msg.type === "setSpeed") asked = msg.speed;
    base(msg);
  };
  // A message about the run before (its recording filled up, an action refused) is not about this one.
  lab.setState({ replayCheck: null, liveRebuilds: 0, error: null, send: starting });
  try {
    await startCluster(lab, settings, base, () => asked);
  } catch (e) {
    // A chunk that cannot load (offline, an old tab after a deploy) or a worker the browser refuses: the simulated run goes on.
    if (lab.getState().send === starting) lab.setState({ send: base });
    useLiveMode.setState({ busy: null });
    lab.setState({ error: `Live mode could not start: ${e instanceof Error ? e.message : String(e)}` });
  }
}

async function startCluster(lab: LabStore, settings: RunSettings, base: (msg: ToWorker) => void, asked: () => number | null): Promise<void> {
  const [{ LiveCluster }, { scenarioConfig }, { scenarioFromSettings }] = await Promise.all([
    import("../../live/cluster"),
    import("../../core/scenario/settings"),
    import("../../worker/settings"),
  ]);
  // Read after the chunks load: the speed may have changed meanwhile.
  const speed = asked() ?? lab.getState().view?.speed ?? settings.speed;
  const run: RunSettings = { ...settings, speed };
  const config = scenarioConfig(scenarioFromSettings(run));
  let queued = false;
  const cluster: LiveCluster = new LiveCluster(config, speed, {
    feed: (f) => base({ type: "live-feed", items: f.items, plans: f.plans, rewritten: f.rewritten, watermark: f.watermark }),
    changed: () => {
      if (queued) return;
      queued = true;
      setTimeout(() => {
        queued = false;
        if (current?.cluster === cluster) useLiveMode.setState({ state: cluster.state() });
      }, 250);
    },
    error: (message) => lab.setState({ error: message }),
    full: (inputs, at) => {
      if (current?.cluster !== cluster) return;
      void openInSimulator(lab).then(() =>
        lab.setState({
          error: `The live run's recording is full (${inputs.toLocaleString("en")} inputs, ${formatDuration(at)} of live time), so the run ended and opened in the simulator. Start a new live run to go on.`,
        }),
      );
    },
  });
  current = { cluster, base, lab };
  // Benchmark hook (bench/live.ts), only with ?bench in the address: the live run, to drive faults and speeds the UI does not offer.
  if (new URLSearchParams(location.search).has("bench")) (globalThis as { leaseLabLive?: LiveCluster }).leaseLabLive = cluster;
  base({ type: "live-start", settings: run, config });
  lab.setState({ send: liveSend });
  useLiveMode.setState({ mode: "live", state: cluster.state(), busy: null });
}

/** What the store's `send` does in live mode. */
function liveSend(msg: ToWorker): void {
  const c = current;
  if (c === null) return;
  switch (msg.type) {
    case "act":
      void act(c.cluster, c.lab, msg.action);
      return;
    case "setSpeed":
      c.cluster.setSpeed(msg.speed);
      c.base(msg);
      return;
    case "restart":
      // Reset: a new live run of the same settings.
      leave(c.lab);
      void enterLive(c.lab);
      return;
    case "start":
    case "lesson-start":
    case "live-open":
      // Another run opens (new settings, a scenario, a lesson): the live one ends.
      leave(c.lab);
      c.base(msg);
      return;
    default:
      c.base(msg);
  }
}

async function act(cluster: LiveCluster, lab: LabStore, action: Action): Promise<void> {
  const why = await cluster.act(action, resolverFor(lab.getState().view));
  if (why !== null) lab.setState({ error: `${action.type} did nothing: ${why}` });
}

/** Ends the live run (every worker terminated) and gives the store its own `send` back. */
function leave(lab: LabStore): void {
  const c = current;
  if (c === null) return;
  current = null;
  c.cluster.dispose();
  lab.setState({ send: c.base });
  useLiveMode.setState({ mode: "simulated", state: null, busy: null });
}

/** Back to a simulated run of the page's settings. */
export function leaveLive(lab: LabStore): void {
  const c = current;
  leave(lab);
  const st = lab.getState();
  if (st.settings !== null) (c?.base ?? st.send)({ type: "start", settings: { ...st.settings, speed: st.view?.speed ?? st.settings.speed } });
  useLiveMode.setState({ mode: "simulated", recording: null });
}

/** "Check every call": each worker reports its state's digest after each call, and the dashboard's replay compares its own. */
export function setVerify(on: boolean): void {
  const c = current;
  if (c === null) return;
  c.cluster.setVerify(on);
  // The box shows it at once (the panel's figures are otherwise refreshed a few times a second).
  useLiveMode.setState({ state: c.cluster.state() });
}

/** Ends the live run and opens its recording in the simulator (the worker replays it whole and compares the digests). */
export async function openInSimulator(lab: LabStore): Promise<void> {
  const c = current;
  if (c === null) return;
  useLiveMode.setState({ busy: "Stopping the threads and gathering the recording…" });
  let recording: LiveRecording;
  try {
    recording = await c.cluster.finish();
  } catch (e) {
    // Its recording is lost: every worker is terminated and the page's simulated run starts again.
    if (current?.cluster === c.cluster) leaveLive(lab);
    lab.setState({ error: `The live run could not be opened in the simulator (${e instanceof Error ? e.message : String(e)}); its threads are stopped and the simulated run is back.` });
    return;
  }
  leave(lab);
  const st = lab.getState();
  if (st.settings !== null) c.base({ type: "live-open", settings: { ...st.settings, speed: st.view?.speed ?? st.settings.speed }, recording });
  lab.setState({ replayCheck: null });
  useLiveMode.setState({ mode: "replay", recording, busy: null });
}

/** The recording as a file to save (the file format of docs/live.md, which the CLI's --replay reads). */
export async function recordingFile(rec: LiveRecording): Promise<{ name: string; text: string }> {
  const { recordingToText } = await import("../../core/live/schema");
  return { name: `lease-lab-live-seed-${rec.config.seed}.json`, text: recordingToText(rec) };
}

/**
 * Opens a saved recording in the simulator. A file that is not one is refused with what is
 * wrong in it; the run on screen stays as it was.
 */
export async function openRecordingFile(lab: LabStore, file: File): Promise<void> {
  const { MAX_RECORDING_BYTES, parseRecordingText } = await import("../../core/live/schema");
  let recording: LiveRecording;
  try {
    if (file.size > MAX_RECORDING_BYTES) throw new Error(`it is ${(file.size / 1e6).toFixed(0)} MB, over the ${MAX_RECORDING_BYTES / 1024 / 1024} MB a recording may be`);
    recording = parseRecordingText(await file.text());
  } catch (e) {
    lab.setState({ error: `${file.name} could not be opened as a live run's recording: ${e instanceof Error ? e.message : String(e)}` });
    return;
  }
  if (current !== null) leave(lab);
  const st = lab.getState();
  if (st.settings === null) return;
  lab.setState({ replayCheck: null });
  st.send({ type: "live-open", settings: { ...st.settings, speed: st.view?.speed ?? st.settings.speed }, recording });
  useLiveMode.setState({ mode: "replay", recording, busy: null });
}
