/** Panels off screen: while a run plays they get panel updates at most once per OFF_SCREEN_INTERVAL_MS; anything else reaches them at once. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createLabStore, createPanelGate, type LabStore, OFF_SCREEN_INTERVAL_MS, PANEL_INTERVAL_MS, type PanelGate } from "../../src/app/store";
import { emptyColumns } from "../../src/worker/messageColumns";
import type { SimView } from "../../src/worker/protocol";

function view(over: Partial<SimView>): SimView {
  return { runId: 1, epoch: 0, playing: true, violations: 0, lastStep: [], newEvents: [], newMessages: emptyColumns(), newMarks: [], now: 0, storage: null, nodes: [], ...over } as unknown as SimView;
}

let lab: LabStore;
let gate: PanelGate;
let stop: () => void;
/** A panel update of the store (the store throttles them itself; the test's clock moves past its interval each time). */
function panelUpdate(over: Partial<SimView>): void {
  vi.advanceTimersByTime(PANEL_INTERVAL_MS);
  lab.getState().receive({ type: "view", view: view(over) });
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["performance"] });
  lab = createLabStore();
  lab.getState().receive({ type: "view", view: view({ now: 0 }) });
  gate = createPanelGate(lab);
  stop = gate.connect();
});
afterEach(() => vi.useRealTimers());

describe("a panel's gate", () => {
  it("on screen, every panel update goes through", () => {
    let heard = 0;
    gate.subscribe(() => heard++);
    panelUpdate({ now: 1 });
    panelUpdate({ now: 2 });
    expect(gate.getState().view?.now).toBe(2);
    expect(heard).toBe(2);
  });

  it("off screen while playing, panel updates wait up to the interval, and coming on screen catches up at once", () => {
    gate.setOnScreen(false);
    // The gate passed just now (connect): the next updates within the interval are held.
    vi.advanceTimersByTime(1);
    const shownAt = gate.getState().view?.now;
    panelUpdate({ now: 1 });
    panelUpdate({ now: 2 });
    expect(gate.getState().view?.now).toBe(shownAt);
    expect(lab.getState().view?.now).toBe(2);
    // After the interval, one goes through.
    vi.advanceTimersByTime(OFF_SCREEN_INTERVAL_MS);
    panelUpdate({ now: 3 });
    expect(gate.getState().view?.now).toBe(3);
    panelUpdate({ now: 4 });
    expect(gate.getState().view?.now).toBe(3);
    gate.setOnScreen(true);
    expect(gate.getState().view?.now).toBe(4);
  });

  it("off screen, a paused view, a new run and the user's selection go through at once", () => {
    gate.setOnScreen(false);
    vi.advanceTimersByTime(1);
    panelUpdate({ now: 1, playing: false });
    expect(gate.getState().view?.now).toBe(1);
    // Play again: the first playing view goes through, the next waits.
    panelUpdate({ now: 2 });
    expect(gate.getState().view?.now).toBe(2);
    panelUpdate({ now: 3 });
    expect(gate.getState().view?.now).toBe(2);
    lab.getState().select({ kind: "node", id: "n1" });
    expect(gate.getState().selected).toEqual({ kind: "node", id: "n1" });
    expect(gate.getState().view?.now).toBe(3);
    panelUpdate({ now: 4 });
    panelUpdate({ now: 0, runId: 2 });
    expect(gate.getState().view?.runId).toBe(2);
  });

  it("disconnected, it shows the store as it is", () => {
    gate.setOnScreen(false);
    stop();
    panelUpdate({ now: 7 });
    expect(gate.getState().view?.now).toBe(7);
  });
});
