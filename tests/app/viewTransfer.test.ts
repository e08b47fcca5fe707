/**
 * The views as they cross from the worker to the page, end to end without a browser: the
 * worker's host posts them through a structured clone with its transfer list (as
 * postMessage does), and the page's store takes them in. What the store accumulates from
 * deltas, across rewinds, must equal what a full send at the same moment gives.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS } from "../../src/app/params";
import { createLabStore, type LabStore } from "../../src/app/store";
import { type HostEnv, SimHost } from "../../src/worker/host";
import { DIAGRAM_MESSAGE_LIMIT, type FromWorker, type SimView } from "../../src/worker/protocol";

interface Wire {
  readonly host: SimHost;
  readonly store: LabStore;
  /** Runs the pending timer after `ms` of fake real time. */
  tick(ms: number): void;
  readonly views: SimView[];
}

/** A host whose posts cross as postMessage would carry them (cloned, buffers transferred) into a store. */
function wire(): Wire {
  const store = createLabStore();
  const views: SimView[] = [];
  let real = 0;
  let pending: (() => void) | null = null;
  const env: HostEnv = {
    post: (msg, transfer) => {
      const crossed = structuredClone(msg, { transfer: transfer === undefined ? [] : [...transfer] }) as FromWorker;
      if (crossed.type === "view") views.push(crossed.view);
      store.getState().receive(crossed);
    },
    nowMs: () => real,
    setTimer: (fn) => {
      pending = fn;
      return fn;
    },
    clearTimer: (h) => {
      if (pending === h) pending = null;
    },
  };
  return {
    host: new SimHost(env),
    store,
    views,
    tick: (ms) => {
      real += ms;
      const p = pending;
      pending = null;
      p?.();
    },
  };
}

const settings = { ...DEFAULT_SETTINGS, autoplay: false, seed: 3, nodes: 7, holders: 4, speed: 5 };

function play(w: Wire, ticks: number): void {
  w.host.handle({ type: "play" });
  for (let i = 0; i < ticks; i++) w.tick(40);
  w.host.handle({ type: "pause" });
}

/** What the diagram is fed now, and the same after a full send at the same moment (a seek to where the run is). */
function accumulatedAndFull(w: Wire): { acc: ReturnType<LabStore["getState"]>; full: ReturnType<LabStore["getState"]> } {
  const acc = w.store.getState();
  w.host.handle({ type: "seek", t: acc.view?.now ?? 0 });
  const full = w.store.getState();
  expect(full.view?.epoch).not.toBe(acc.view?.epoch);
  return { acc, full };
}

describe("views crossing to the page", () => {
  it("the messages and marks accumulated from deltas equal a full send, through a rewind, a step back and past the bound", () => {
    const w = wire();
    w.host.handle({ type: "start", settings });
    play(w, 20);
    const mid = w.store.getState().view?.now ?? 0;
    play(w, 20);
    // Back in time: the worker sends the history up to there whole (here less than the bound), then deltas again.
    w.host.handle({ type: "seek", t: mid });
    const back = w.store.getState().diagramMessages;
    expect(back.length).toBeGreaterThan(100);
    expect(back.length).toBeLessThan(DIAGRAM_MESSAGE_LIMIT);
    expect(back.every((m) => m.endAt <= mid)).toBe(true);
    play(w, 20);
    for (let i = 0; i < 5; i++) w.host.handle({ type: "step" });
    w.host.handle({ type: "stepBack" });
    play(w, 20);
    const early = accumulatedAndFull(w);
    expect(early.acc.diagramMessages.length).toBeLessThan(DIAGRAM_MESSAGE_LIMIT);
    expect(early.acc.diagramMessages).toEqual(early.full.diagramMessages);
    expect(early.acc.diagramMarks).toEqual(early.full.diagramMarks);
    play(w, 300);
    const { acc, full } = accumulatedAndFull(w);
    // Long enough that the bound dropped the oldest.
    expect(acc.diagramMessages.length).toBe(DIAGRAM_MESSAGE_LIMIT);
    expect(acc.diagramMessages).toEqual(full.diagramMessages);
    expect(acc.diagramMarks.length).toBeGreaterThan(10);
    expect(acc.diagramMarks).toEqual(full.diagramMarks);
    expect(acc.events).toEqual(full.events);
    // Each message once, oldest first by when it ended.
    expect(new Set(acc.diagramMessages.map((m) => m.id)).size).toBe(acc.diagramMessages.length);
    for (let i = 1; i < acc.diagramMessages.length; i++) expect(acc.diagramMessages[i]?.endAt).toBeGreaterThanOrEqual(acc.diagramMessages[i - 1]?.endAt ?? 0);
  });

  it("most views while playing carry a handful of messages, in columns; the one after a jump carries the whole history", () => {
    const w = wire();
    w.host.handle({ type: "start", settings });
    play(w, 150);
    const playing = w.views.filter((v) => v.playing).slice(10);
    const counts = playing.map((v) => v.newMessages.nums.length / 3);
    expect(Math.max(...counts)).toBeLessThan(1000);
    expect(counts.reduce((a, b) => a + b, 0)).toBeGreaterThan(100);
    w.host.handle({ type: "seek", t: (w.store.getState().view?.now ?? 0) / 2 });
    const jump = w.views.at(-1);
    expect((jump?.newMessages.nums.length ?? 0) / 3).toBe(w.store.getState().diagramMessages.length);
    // The store keeps the view without its deltas (they are in its own lists).
    expect(w.store.getState().view?.newMessages.nums.length).toBe(0);
    expect(w.store.getState().view?.newEvents.length).toBe(0);
  });
});
