/** The page's store: panel views are throttled while playing, live views are not, and no event line is lost. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createLabStore, type LabStore, PANEL_INTERVAL_MS, selectHighlight } from "../../src/app/store";
import { emptyColumns } from "../../src/worker/messageColumns";
import type { EventLine, SimView } from "../../src/worker/protocol";

function view(over: Partial<SimView>): SimView {
  return { runId: 1, playing: true, violations: 0, lastStep: [], newEvents: [], newMessages: emptyColumns(), newMarks: [], now: 0, storage: null, nodes: [], ...over } as unknown as SimView;
}
const line = (n: number): EventLine => ({ n, t: n, category: "note", text: `line ${n}`, procs: [] });

/** Each test has a store of its own, as each page has. */
let lab: LabStore;
beforeEach(() => {
  lab = createLabStore();
});

describe("store", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["performance"] });
  });
  afterEach(() => vi.useRealTimers());

  it("while playing, panels get at most one view per interval; the ring gets every view; lines are kept", () => {
    const { receive } = lab.getState();
    receive({ type: "view", view: view({ now: 1, newEvents: [line(1)] }) });
    expect(lab.getState().view?.now).toBe(1);
    vi.advanceTimersByTime(10);
    receive({ type: "view", view: view({ now: 2, newEvents: [line(2)] }) });
    expect(lab.getState().liveView?.now).toBe(2);
    expect(lab.getState().view?.now).toBe(1);
    expect(lab.getState().events.map((e) => e.n)).toEqual([1]);
    vi.advanceTimersByTime(PANEL_INTERVAL_MS);
    receive({ type: "view", view: view({ now: 3, newEvents: [line(3)] }) });
    expect(lab.getState().view?.now).toBe(3);
    expect(lab.getState().events.map((e) => e.n)).toEqual([1, 2, 3]);
  });

  it("a paused view, a step, a violation and a new run go through at once", () => {
    const { receive } = lab.getState();
    receive({ type: "view", view: view({ now: 1 }) });
    receive({ type: "view", view: view({ now: 2, playing: false }) });
    expect(lab.getState().view?.now).toBe(2);
    receive({ type: "view", view: view({ now: 3, playing: false, lastStep: ["n1 received"] }) });
    expect(lab.getState().view?.now).toBe(3);
    receive({ type: "view", view: view({ now: 4 }) });
    receive({ type: "view", view: view({ now: 5, violations: 1 }) });
    expect(lab.getState().view?.now).toBe(5);
    receive({ type: "view", view: view({ now: 0, runId: 2, newEvents: [line(9)] }) });
    expect(lab.getState().view?.runId).toBe(2);
    expect(lab.getState().events.map((e) => e.n)).toEqual([9]);
  });

  it("unchanged parts of a view keep their identity", () => {
    const { receive } = lab.getState();
    receive({ type: "view", view: view({ playing: false, storage: { id: "s1" } as SimView["storage"], now: 1 }) });
    const before = lab.getState().view?.storage;
    receive({ type: "view", view: view({ playing: false, storage: { id: "s1" } as SimView["storage"], now: 2 }) });
    expect(lab.getState().view?.storage).toBe(before);
  });
});

describe("highlight", () => {
  it("a hovered event's processes show while hovered, and the standing highlight comes back after", () => {
    lab.getState().setHighlight(["n1", "h2"]);
    expect(selectHighlight(lab.getState())).toEqual(["n1", "h2"]);
    lab.getState().setHover(["n3"]);
    expect(selectHighlight(lab.getState())).toEqual(["n3"]);
    lab.getState().setHover(null);
    expect(selectHighlight(lab.getState())).toEqual(["n1", "h2"]);
  });
});

describe("exports through the store", () => {
  it("an answer resolves its own request; a failure rejects only its own; silence times out", async () => {
    const sent: { requestId: number }[] = [];
    lab.setState({ send: (m) => m.type === "export" && sent.push(m) });
    const { requestExport, receive } = lab.getState();
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

describe("one store per app", () => {
  it("two stores share nothing: views, held-back lines and export requests", async () => {
    vi.useFakeTimers({ toFake: ["performance"] });
    try {
      const other = createLabStore();
      lab.getState().receive({ type: "view", view: view({ now: 1, newEvents: [line(1)] }) });
      // Held back in `lab` (inside the panel interval); `other` never sees it.
      lab.getState().receive({ type: "view", view: view({ now: 2, newEvents: [line(2)] }) });
      other.getState().receive({ type: "view", view: view({ now: 7, newEvents: [line(7)] }) });
      expect(other.getState().events.map((e) => e.n)).toEqual([7]);
      vi.advanceTimersByTime(PANEL_INTERVAL_MS);
      lab.getState().receive({ type: "view", view: view({ now: 3, newEvents: [line(3)] }) });
      expect(lab.getState().events.map((e) => e.n)).toEqual([1, 2, 3]);
      expect(other.getState().view?.now).toBe(7);
    } finally {
      vi.useRealTimers();
    }
    const sentA: { requestId: number }[] = [];
    const sentB: { requestId: number }[] = [];
    const other = createLabStore();
    lab.setState({ send: (m) => m.type === "export" && sentA.push(m) });
    other.setState({ send: (m) => m.type === "export" && sentB.push(m) });
    const a = lab.getState().requestExport("scenario");
    const b = other.getState().requestExport("scenario");
    // Both stores number their requests from 1: an answer reaches only the store it is given to.
    expect(sentA[0]?.requestId).toBe(sentB[0]?.requestId);
    const answer = (sent: { requestId: number }[], text: string) =>
      ({ type: "export", requestId: sent[0]?.requestId ?? -1, what: "scenario", filename: text, mime: "", text, note: null }) as const;
    other.getState().receive(answer(sentB, "B"));
    lab.getState().receive(answer(sentA, "A"));
    await expect(a).resolves.toMatchObject({ text: "A" });
    await expect(b).resolves.toMatchObject({ text: "B" });
  });

  it("the time cursor sends through its own store", () => {
    const sent: unknown[] = [];
    lab.setState({ send: (m) => sent.push(m) });
    lab.getState().cursor.jump(5);
    expect(sent).toEqual([{ type: "seek", t: 5 }]);
  });
});
