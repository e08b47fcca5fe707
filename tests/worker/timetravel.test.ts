/**
 * Time travel through the worker's host, driven as the page drives it: play with a fake
 * clock, act, seek, step back, branch; and the run exported as a scenario file, run by
 * the CLI's runner, gives the very same trace hash.
 */
import { fakeHost } from "../support/host";
import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS } from "../../src/app/params";
import { runScenario } from "../../src/core/scenario/runner";
import { parseScenarioText } from "../../src/core/scenario/schema";
import { SimHost } from "../../src/worker/host";
import { unpackMessages } from "../../src/worker/messageColumns";
import type { FromWorker, RunSettings, SimView } from "../../src/worker/protocol";

function harness() {
  const { host, posts, last, tick, errors } = fakeHost();
  /** Plays for `ms` of fake real time in 40 ms ticks. */
  const play = (ms: number): void => {
    host.handle({ type: "play" });
    for (let t = 0; t < ms; t += 40) tick(40);
    host.handle({ type: "pause" });
  };
  const exported = (what: "scenario" | "trace" | "history"): Extract<FromWorker, { type: "export" }> => {
    host.handle({ type: "export", what, requestId: 99 });
    const m = posts.at(-1);
    if (m?.type !== "export") throw new Error(`no export answer: ${JSON.stringify(m)}`);
    return m;
  };
  return { host, posts, last, play, exported, errors };
}

const settings = (over: Partial<RunSettings> = {}): RunSettings => ({ ...DEFAULT_SETTINGS, autoplay: false, speed: 1, ...over });

/** What the screen shows of a view, to compare two moments. */
function drawn(v: SimView) {
  return {
    now: v.now,
    leader: v.leader,
    nodes: v.nodes.map((n) => `${n.id}:${n.status}:${n.role}:${n.term}:${n.commitIndex}:${n.lastIndex}`),
    holders: v.holders.map((h) => `${h.id}:${h.status}:${h.state}:${h.token}`),
    storage: v.storage?.writes.map((w) => `${w.t}:${w.holder}:${w.token}:${w.accepted}`),
    messages: v.messages.map((m) => m.id),
    hash: v.traceHash,
  };
}

describe("time travel in the host", () => {
  it("the browser's action log exported as a scenario and run by the CLI runner gives the same trace hash", () => {
    const h = harness();
    h.host.handle({ type: "start", settings: settings({ seed: 21 }) });
    h.play(1500);
    const leader = h.last().leader as string;
    h.host.handle({ type: "act", action: { type: "crash", proc: leader } });
    h.play(1000);
    h.host.handle({ type: "act", action: { type: "gc-pause", holder: "h1", durationUs: 3_000_000 } });
    h.host.handle({ type: "act", action: { type: "clock", proc: "n2", driftPpm: 30_000 } });
    h.play(900);
    // A step leaves the clock in the middle of a microsecond's events: acting there must still replay exactly.
    h.host.handle({ type: "step" });
    h.host.handle({ type: "act", action: { type: "restart", proc: leader } });
    h.play(2000);
    const browser = h.last();
    expect(browser.timeline.actions).toHaveLength(4);
    const file = h.exported("scenario");
    const parsed = parseScenarioText(file.text);
    if (!parsed.ok) throw new Error(parsed.errors.join("\n"));
    expect(parsed.scenario.duration).toBe(browser.now);
    const cli = runScenario(parsed.scenario);
    expect(cli.traceHash, `seed 21: ${file.text}`).toBe(browser.traceHash);
    expect(cli.leader).toBe(browser.leader);
    // And opened again in a fresh host (what a share link does), it lands on the same state.
    const again = harness();
    again.host.handle({ type: "start", settings: settings(), scenario: parsed.scenario });
    expect(drawn(again.last())).toEqual(drawn(browser));
  });

  it("scrubbing back and forward shows exactly the state of that moment, and the page is told to start its history afresh", () => {
    const h = harness();
    h.host.handle({ type: "start", settings: settings({ seed: 4 }) });
    h.play(2000);
    h.host.handle({ type: "act", action: { type: "partition", groups: [["n1", "n2"], ["others"]] } });
    h.play(3000);
    const at = h.last().now;
    const before = drawn(h.last());
    h.play(4000);
    const end = drawn(h.last());
    const epoch = h.last().epoch;
    h.host.handle({ type: "seek", t: at });
    const back = h.last();
    expect(drawn(back)).toEqual(before);
    expect(back.epoch).not.toBe(epoch);
    expect(back.playing).toBe(false);
    // The history sent with the jump ends at the cursor.
    expect(back.newEvents.length).toBeGreaterThan(0);
    expect(back.newEvents.every((l) => l.t <= at)).toBe(true);
    const sent = unpackMessages(back.newMessages);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((m) => m.endAt <= at)).toBe(true);
    h.host.handle({ type: "seek", t: end.now });
    expect(drawn(h.last())).toEqual(end);
    // Past the end is clamped to the end.
    h.host.handle({ type: "seek", t: end.now + 60_000_000 });
    expect(h.last().now).toBe(end.now);
  });

  it("step back goes back exactly one event; markers mark elections", () => {
    const h = harness();
    h.host.handle({ type: "start", settings: settings({ seed: 8 }) });
    h.play(1200);
    expect(h.last().timeline.markers.some((m) => m.kind === "election")).toBe(true);
    h.host.handle({ type: "step" });
    const one = drawn(h.last());
    const handled = h.last().eventsHandled;
    h.host.handle({ type: "step" });
    h.host.handle({ type: "stepBack" });
    expect(h.last().eventsHandled).toBe(handled);
    expect(drawn(h.last())).toEqual(one);
  });

  it("acting in the past branches; the old future can be returned to", () => {
    const h = harness();
    h.host.handle({ type: "start", settings: settings({ seed: 3 }) });
    h.play(5000);
    const main = drawn(h.last());
    h.host.handle({ type: "seek", t: 2_000_000 });
    h.host.handle({ type: "act", action: { type: "crash", proc: h.last().leader as string } });
    const t = h.last().timeline;
    expect(t.branches.map((b) => b.name)).toEqual(["main", "branch 2"]);
    expect(t.branch).toBe(1);
    expect(t.branches[1]?.forkedAt).toBe(2_000_000);
    expect(t.branches[1]?.firstAction).toMatch(/^crash n\d$/);
    // The action is a marker too, after the elections of its past, in time order.
    const actionMarkers = t.markers.filter((m) => m.kind === "action");
    expect(actionMarkers.map((m) => [m.t, m.label, m.n])).toEqual([[2_000_000, t.branches[1]?.firstAction, -1]]);
    expect(t.markers.map((m) => m.t)).toEqual(t.markers.map((m) => m.t).sort((a, b) => a - b));
    h.play(1000);
    h.host.handle({ type: "switchBranch", branch: 0 });
    expect(drawn(h.last())).toEqual(main);
    expect(h.last().timeline.actions).toHaveLength(0);
    h.host.handle({ type: "switchBranch", branch: 7 });
    expect(h.errors().at(-1)).toMatch(/no branch 7/);
  });

  it("a run too long to open, or with clashing settings, is refused with a message; the current run stays, or the first one falls back", () => {
    const long = parseScenarioText(JSON.stringify({ seed: 3, duration: "2h", holders: { count: 2 }, ui: { at: "90m" } }));
    const clash = parseScenarioText(JSON.stringify({ cluster: { heartbeatIntervalMs: 500, electionTimeoutMinMs: 150, electionTimeoutMaxMs: 300 } }));
    if (!long.ok || !clash.ok) throw new Error("fixtures must parse");
    const h = harness();
    h.host.handle({ type: "start", settings: settings({ seed: 17 }), scenario: long.scenario });
    expect(h.errors().at(-1)).toMatch(/cannot open this run at 5400.000 s/);
    // Nothing ran before: the page's own settings started instead.
    expect(h.last().seed).toBe(17);
    const runId = h.last().runId;
    h.host.handle({ type: "start", settings: settings(), scenario: clash.scenario });
    expect(h.errors().at(-1)).toMatch(/cannot start: .*heartbeat/i);
    h.host.handle({ type: "step" });
    expect(h.last().runId).toBe(runId);
    expect(h.last().seed).toBe(17);
  });

  it("opening a file or link takes bounded time: it stops short of a moment too far, says so, and Play goes on", () => {
    const parsed = parseScenarioText(JSON.stringify({ seed: 3, duration: "60s", holders: { count: 2 }, ui: { at: "30s" } }));
    if (!parsed.ok) throw new Error("fixture must parse");
    const posts: FromWorker[] = [];
    let real = 0;
    // Every reading of the clock costs 700 ms: the 8 s opening budget runs out after a dozen simulated seconds.
    const host = new SimHost({ post: (m) => posts.push(m), nowMs: () => (real += 700), setTimer: () => null, clearTimer: () => {} });
    host.handle({ type: "start", settings: settings(), scenario: parsed.scenario });
    const view = posts.flatMap((p) => (p.type === "view" ? [p.view] : [])).at(-1) as SimView;
    expect(view.now).toBeLessThan(30_000_000);
    expect(view.now).toBeGreaterThan(0);
    expect(view.timeline.end).toBe(view.now);
    const error = posts.find((p) => p.type === "error");
    expect(error?.type === "error" && error.message).toMatch(/The shared moment \(30.000 s\) was too far to reach at once/);
  });

  it("an exported run with a nemesis keeps the nemesis's quiet time when it grows longer than the file", () => {
    const parsed = parseScenarioText(JSON.stringify({ seed: 5, duration: "4s", nemesis: { faults: ["crash", "partition"] } }));
    if (!parsed.ok) throw new Error("fixture must parse");
    const h = harness();
    h.host.handle({ type: "start", settings: settings({ autoplay: false }), scenario: parsed.scenario });
    h.play(8000);
    const browser = h.last();
    expect(browser.now).toBeGreaterThan(4_000_000);
    const again = parseScenarioText(h.exported("scenario").text);
    if (!again.ok) throw new Error(again.errors.join("; "));
    expect(again.scenario.nemesis?.quietAfter).toBe(3_000_000);
    expect(runScenario(again.scenario).traceHash).toBe(browser.traceHash);
  });

  it("restart begins the run again: a run made here without its clicks, an opened file with its own actions", () => {
    const h = harness();
    h.host.handle({ type: "start", settings: settings({ seed: 2 }) });
    h.play(1000);
    h.host.handle({ type: "act", action: { type: "crash", proc: "n1" } });
    const runId = h.last().runId;
    h.host.handle({ type: "restart" });
    expect(h.last().runId).toBe(runId + 1);
    expect(h.last().timeline.actions).toHaveLength(0);
    expect(h.last().seed).toBe(2);
    const file = parseScenarioText(JSON.stringify({ seed: 4, duration: "3s", actions: [{ at: "1s", do: "crash", node: "n2" }] }));
    if (!file.ok) throw new Error("fixture must parse");
    h.host.handle({ type: "start", settings: settings(), scenario: file.scenario });
    h.host.handle({ type: "act", action: { type: "heal" } });
    h.host.handle({ type: "restart" });
    h.host.handle({ type: "pause" });
    expect(h.last().seed).toBe(4);
    expect(h.last().now).toBe(0);
    expect(h.last().timeline.actions.map((a) => a.text)).toEqual(["crash n2"]);
    expect(h.last().timeline.branches).toHaveLength(1);
  });

  it("a failed export answers its own request with the reason", () => {
    const h = harness();
    h.host.handle({ type: "export", what: "scenario", requestId: 5 });
    const m = h.posts.at(-1);
    expect(m).toMatchObject({ type: "export", requestId: 5, text: "", error: "no simulation is running yet" });
  });

  it("exports the trace as NDJSON and the client history, replayed up to the cursor", () => {
    const h = harness();
    h.host.handle({ type: "start", settings: settings({ seed: 6 }) });
    h.play(1000);
    const v = h.last();
    const trace = h.exported("trace");
    const lines = trace.text.trim().split("\n");
    expect(lines).toHaveLength(v.eventsProcessed);
    expect(JSON.parse(lines[0] as string)).toHaveProperty("t");
    expect(trace.filename).toBe("lease-lab-seed-6-trace.ndjson");
    const history = JSON.parse(h.exported("history").text);
    expect(history.seed).toBe(6);
    expect(history.operations.length).toBeGreaterThan(0);
  });
});
