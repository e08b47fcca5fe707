/** The page's store: panel views are throttled while playing, live views are not, and no event line is lost. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PANEL_INTERVAL_MS, selectHighlight, useLab } from "../../src/app/store";
import type { EventLine, SimView } from "../../src/worker/protocol";

function view(over: Partial<SimView>): SimView {
  return { runId: 1, playing: true, violations: 0, lastStep: [], newEvents: [], now: 0, storage: null, nodes: [], ...over } as unknown as SimView;
}
const line = (n: number): EventLine => ({ n, t: n, category: "note", text: `line ${n}`, procs: [] });

describe("store", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["performance"] });
    useLab.setState({ view: null, liveView: null, events: [] });
  });
  afterEach(() => vi.useRealTimers());

  it("while playing, panels get at most one view per interval; the ring gets every view; lines are kept", () => {
    const { receive } = useLab.getState();
    receive({ type: "view", view: view({ now: 1, newEvents: [line(1)] }) });
    expect(useLab.getState().view?.now).toBe(1);
    vi.advanceTimersByTime(10);
    receive({ type: "view", view: view({ now: 2, newEvents: [line(2)] }) });
    expect(useLab.getState().liveView?.now).toBe(2);
    expect(useLab.getState().view?.now).toBe(1);
    expect(useLab.getState().events.map((e) => e.n)).toEqual([1]);
    vi.advanceTimersByTime(PANEL_INTERVAL_MS);
    receive({ type: "view", view: view({ now: 3, newEvents: [line(3)] }) });
    expect(useLab.getState().view?.now).toBe(3);
    expect(useLab.getState().events.map((e) => e.n)).toEqual([1, 2, 3]);
  });

  it("a paused view, a step, a violation and a new run go through at once", () => {
    const { receive } = useLab.getState();
    receive({ type: "view", view: view({ now: 1 }) });
    receive({ type: "view", view: view({ now: 2, playing: false }) });
    expect(useLab.getState().view?.now).toBe(2);
    receive({ type: "view", view: view({ now: 3, playing: false, lastStep: ["n1 received"] }) });
    expect(useLab.getState().view?.now).toBe(3);
    receive({ type: "view", view: view({ now: 4 }) });
    receive({ type: "view", view: view({ now: 5, violations: 1 }) });
    expect(useLab.getState().view?.now).toBe(5);
    receive({ type: "view", view: view({ now: 0, runId: 2, newEvents: [line(9)] }) });
    expect(useLab.getState().view?.runId).toBe(2);
    expect(useLab.getState().events.map((e) => e.n)).toEqual([9]);
  });

  it("unchanged parts of a view keep their identity", () => {
    const { receive } = useLab.getState();
    receive({ type: "view", view: view({ playing: false, storage: { id: "s1" } as SimView["storage"], now: 1 }) });
    const before = useLab.getState().view?.storage;
    receive({ type: "view", view: view({ playing: false, storage: { id: "s1" } as SimView["storage"], now: 2 }) });
    expect(useLab.getState().view?.storage).toBe(before);
  });
});

describe("highlight", () => {
  it("a hovered event's processes show while hovered, and the standing highlight comes back after", () => {
    useLab.getState().setHighlight(["n1", "h2"]);
    expect(selectHighlight(useLab.getState())).toEqual(["n1", "h2"]);
    useLab.getState().setHover(["n3"]);
    expect(selectHighlight(useLab.getState())).toEqual(["n3"]);
    useLab.getState().setHover(null);
    expect(selectHighlight(useLab.getState())).toEqual(["n1", "h2"]);
  });
});

describe("exports through the store", () => {
  it("an answer resolves its own request; a failure rejects only its own; silence times out", async () => {
    const sent: { requestId: number }[] = [];
    useLab.setState({ send: (m) => m.type === "export" && sent.push(m) });
    const { requestExport, receive } = useLab.getState();
    const a = requestExport("scenario");
    const b = requestExport("trace");
    const [ra, rb] = sent;
    receive({ type: "export", requestId: rb?.requestId ?? -1, what: "trace", filename: "", mime: "", text: "", note: null, error: "too big" });
    receive({ type: "error", message: "an unrelated problem" });
    receive({ type: "export", requestId: ra?.requestId ?? -1, what: "scenario", filename: "f.json", mime: "application/json", text: "{}", note: null });
    await expect(a).resolves.toMatchObject({ filename: "f.json", text: "{}" });
    await expect(b).rejects.toThrow("too big");
    await expect(requestExport("history", 5)).rejects.toThrow(/did not answer/);
  });
});
