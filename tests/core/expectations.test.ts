/**
 * The scenario format as outside authors of classic Raft lab tests (MIT 6.824 style) need it
 * (issue 11, part 8): expectations that wait (`within`), that compare nodes with each other
 * (terms-agree, logs-agree), that count messages, and actions that may find nothing to act on.
 */
import { describe, expect, it } from "vitest";
import { type RunResult, runScenario } from "../../src/core/scenario/runner";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseScenario, parseScenarioText } from "../../src/core/scenario/schema";
import type { TraceEvent } from "../../src/core/sim/trace";

function run(input: Record<string, unknown>, onTrace?: (e: TraceEvent) => void): RunResult {
  const parsed = parseScenario({ name: "t", seed: 4, duration: "4s", ...input });
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  return runScenario(parsed.scenario, onTrace === undefined ? {} : { onTrace });
}

const outcome = (r: RunResult): string[] => r.expectations.map((x) => `${x.ok ? "pass" : "FAIL"} ${x.detail}`);

describe("expectations over time: within", () => {
  it("a leader within 1 s of the start (6.824's checkOneLeader); at the very start there is none", () => {
    const r = run({ expect: [{ at: "0ms", within: "1s", that: "leader-exists" }, { at: "0ms", that: "leader-exists" }] });
    const [waited, atOnce] = r.expectations;
    expect(waited?.ok).toBe(true);
    expect(waited?.detail).toMatch(/within 1 s: held after \d+(\.\d+)? ms/);
    // It held at a moment after its `at`, and says when.
    expect(waited?.at).toBeGreaterThan(0);
    expect(atOnce?.ok).toBe(false);
  });

  it("fails, saying it never held, when the time runs out", () => {
    const r = run({ expect: [{ at: "1s", within: "200ms", that: "no-leader" }] });
    expect(outcome(r)).toEqual([expect.stringMatching(/^FAIL .*within 200 ms: never held\)$/)]);
  });

  it("later checks keep their own times while one waits", () => {
    const r = run({
      actions: [{ at: "2s", do: "crash", node: "leader" }],
      expect: [
        { at: "2s", within: "1500ms", that: "leader-exists" },
        { at: "2001ms", that: "term-at-most", term: 1 },
      ],
    });
    expect(r.expectations.map((x) => x.ok)).toEqual([true, true]);
    expect(r.expectations[1]?.at).toBe(2_001_000);
  });
});

describe("expectations that compare nodes", () => {
  it("terms-agree: every running node in one term; a node cut off without PreVote raises its own", () => {
    expect(run({ expect: [{ at: "3s", that: "terms-agree" }] }).expectations[0]?.ok).toBe(true);
    const cut = run({
      cluster: { preVote: false, checkQuorum: false },
      actions: [{ at: "1s", do: "partition", groups: [["n1"], ["others"]] }],
      expect: [{ at: "3s", that: "terms-agree" }],
    });
    expect(cut.expectations[0]?.ok).toBe(false);
  });

  it("logs-agree: every running node with the same log once the writes settle; not while one is cut off", () => {
    const writes = [1, 2, 3].map((i) => ({ at: `${1000 + i * 100}ms`, do: "propose", key: `k${i}`, value: `${i}` }));
    const settled = run({ actions: writes, expect: [{ at: "2s", within: "1s", that: "logs-agree" }, { at: "2s", that: "logs-agree", index: 2 }] });
    expect(settled.expectations.map((x) => x.ok)).toEqual([true, true]);
    const cut = run({
      actions: [{ at: "900ms", do: "partition", groups: [["n1"], ["others"]] }, ...writes],
      expect: [{ at: "3s", that: "logs-agree" }],
    });
    expect(outcome(cut)).toEqual([expect.stringMatching(/^FAIL the logs end at different indexes/)]);
  });
});

describe("leaders that can reach a majority", () => {
  it("a leader cut off with no CheckQuorum still believes it leads; connected counts only the one that can reach a majority", () => {
    const r = run({
      cluster: { checkQuorum: false },
      actions: [{ at: "1s", do: "partition", groups: [["leader"], ["others"]] }],
      expect: [
        { at: "3s", that: "leader-count", count: 2 },
        { at: "3s", that: "leader-count", count: 1, connected: true },
      ],
    });
    expect(outcome(r)).toEqual([expect.stringMatching(/^pass/), expect.stringMatching(/^pass leader\(s\): n\d$/)]);
  });
});

describe("message counts", () => {
  it("an idle cluster sends a steady stream of heartbeats: counted by type, with bytes", () => {
    // 5 nodes, heartbeats every 50 ms to 4 followers: about 80 appends a second.
    const r = run({
      expect: [
        { at: "3s", that: "messages", type: "AppendEntries", since: "2s", atLeast: 60, atMost: 100 },
        { at: "3s", that: "messages", type: "AppendEntries", since: "2s", bytesAtMost: 100 },
        { at: "3s", that: "messages", type: "InstallSnapshot", atMost: 0 },
      ],
    });
    expect(r.expectations.map((x) => x.ok)).toEqual([true, false, true]);
    expect(r.expectations[1]?.detail).toMatch(/^\d+ sent, \d+ bytes$/);
  });
});

describe("optional actions", () => {
  it("an action with nothing to act on fails the run, unless it is optional", () => {
    // At 1 ms there is no leader yet.
    const strict = run({ actions: [{ at: "1ms", do: "crash", node: "leader" }] });
    expect(strict.ok).toBe(false);
    expect(strict.actionFailures).toHaveLength(1);
    const optional = run({ actions: [{ at: "1ms", do: "crash", node: "leader", optional: true }] });
    expect(optional.actionFailures).toHaveLength(1);
    expect(optional.ok).toBe(true);
  });
});

describe("a slow link, one way (scenarios/raft/slow-link.json)", () => {
  it("without PreVote, the follower behind the slow link raises the term and unseats the leader: the scenario fails", () => {
    const parsed = parseScenarioText(readFileSync(join(import.meta.dirname, "../../scenarios/raft/slow-link.json"), "utf8"));
    if (!parsed.ok) throw new Error(parsed.errors.join("; "));
    const withPreVote = runScenario(parsed.scenario);
    expect(withPreVote.ok).toBe(true);
    const without = runScenario({ ...parsed.scenario, cluster: { ...parsed.scenario.cluster, preVote: false } });
    expect(without.expectations.filter((x) => !x.ok).map((x) => x.description)).toContain("at 4.000 s: the highest term is at most 1");
  });
});

describe("naming a role once (as)", () => {
  it("crash the leader as old, then restart old: the very node that was leader comes back as a follower", () => {
    const crashed: string[] = [];
    const restarted: string[] = [];
    const r = run(
      {
        duration: "5s",
        actions: [
          { at: "2s", do: "crash", node: "leader", as: "old" },
          { at: "3s", do: "restart", node: "old" },
        ],
        expect: [{ at: "5s", that: "leader-exists" }],
      },
      (e) => {
        if (e.kind === "crash") crashed.push(e.proc);
        if (e.kind === "restart") restarted.push(e.proc);
      },
    );
    expect(r.ok).toBe(true);
    expect(crashed).toHaveLength(1);
    expect(restarted).toEqual(crashed);
    expect(r.nodes.find((n) => n.id === crashed[0])?.role).toBe("follower");
  });

  it("a random reference is drawn once; a name that is a process or a role is refused", () => {
    const moves: string[] = [];
    const r = run(
      {
        duration: "3s",
        actions: [
          { at: "1s", do: "disconnect", node: "any-node", as: "x" },
          { at: "2s", do: "connect", node: "x" },
          { at: "2s", do: "crash", node: "follower", as: "leader" },
        ],
      },
      (e) => {
        if (e.kind === "disconnect" || e.kind === "connect") moves.push(`${e.kind} ${e.proc}`);
      },
    );
    const target = moves[0]?.split(" ")[1];
    expect(moves).toEqual([`disconnect ${target}`, `connect ${target}`]);
    expect(r.actionFailures.map((f) => f.error)).toEqual(['as "leader": that is already the name of a process or a role']);
  });
});

describe("latency by type of message (6.824's long reordering: replies slower than requests)", () => {
  /** The latency of every send of each type, from the trace (µs). */
  function latencies(input: Record<string, unknown>): Map<string, number[]> {
    const out = new Map<string, number[]>();
    run(input, (e) => {
      if (e.kind !== "send") return;
      const list = out.get(e.msg.type) ?? [];
      list.push(e.deliverAt - e.t);
      out.set(e.msg.type, list);
    });
    return out;
  }

  it("a setting: append replies take 200-300 ms, everything else the network's 10-20 ms", () => {
    const l = latencies({ duration: "2s", network: { latencyByType: { AppendEntriesResp: { minMs: 200, maxMs: 300 } } } });
    const replies = l.get("AppendEntriesResp") ?? [];
    const appends = l.get("AppendEntries") ?? [];
    expect(replies.length).toBeGreaterThan(20);
    expect(Math.min(...replies)).toBeGreaterThanOrEqual(200_000);
    expect(Math.max(...replies)).toBeLessThanOrEqual(300_000);
    expect(appends.length).toBeGreaterThan(20);
    expect(Math.max(...appends)).toBeLessThanOrEqual(20_000);
  });

  it("an action sets it during the run, and null puts a type back on the usual range", () => {
    const at = (ms: number) => ms * 1000;
    const slow: number[] = [];
    run(
      {
        duration: "3s",
        actions: [
          { at: "1s", do: "network", latencyByType: { AppendEntries: { minMs: 100, maxMs: 100 } } },
          { at: "2s", do: "network", latencyByType: { AppendEntries: null } },
        ],
      },
      (e) => {
        if (e.kind === "send" && e.msg.type === "AppendEntries" && e.deliverAt - e.t === 100_000) slow.push(e.t);
      },
    );
    expect(slow.length).toBeGreaterThan(10);
    expect(Math.min(...slow)).toBeGreaterThanOrEqual(at(1000));
    expect(Math.max(...slow)).toBeLessThan(at(2000));
  });

  it("refuses a type that is not a message, and a range upside down", () => {
    const bad = parseScenario({ network: { latencyByType: { Heartbeat: { minMs: 1, maxMs: 2 } } } });
    expect(bad.ok ? [] : bad.errors).toEqual([expect.stringMatching(/^network\.latencyByType\.Heartbeat: Heartbeat is not a type of message \(RequestVote, /)]);
    const flipped = parseScenario({ actions: [{ at: "1s", do: "network", latencyByType: { AppendEntries: { minMs: 5, maxMs: 1 } } }] });
    expect(flipped.ok ? [] : flipped.errors).toEqual(["actions[0].latencyByType: maxMs must be at least minMs"]);
  });
});

describe("a partition that names a process twice in one group", () => {
  it("a role and the id it resolves to put the node in its group once (it used to refuse: 'in two groups')", () => {
    // Seed 4 elects n2 first (the run without the partition shows it).
    const first = run({ duration: "1s", expect: [{ that: "leader-is", node: "n2" }] });
    expect(outcome(first)).toEqual([expect.stringMatching(/^pass/)]);
    const r = run({
      duration: "3s",
      actions: [{ at: "1s", do: "partition", groups: [["leader", "n2"], ["others"]] }],
      expect: [{ at: "3s", that: "leader-is-not", node: "n2" }, { at: "3s", that: "leader-exists" }],
    });
    expect(r.actionFailures).toEqual([]);
    expect(outcome(r).every((x) => x.startsWith("pass"))).toBe(true);
  });

  it("one process in two different groups is still refused, and the run goes on", () => {
    const r = run({ duration: "2s", actions: [{ at: "1s", do: "partition", groups: [["n1", "n2"], ["n2", "n3"]] }] });
    expect(r.actionFailures.map((f) => f.error)).toEqual(["partition: n2 is in two groups"]);
  });
});

describe("the event log's sentence for latency by type", () => {
  it("names each type with its range", async () => {
    const { describeEvent } = await import("../../src/worker/describe");
    const events: TraceEvent[] = [];
    run({ duration: "1s", actions: [{ at: "500ms", do: "network", latencyByType: { AppendEntriesResp: { minMs: 200, maxMs: 300 } } }] }, (e) => {
      if (e.kind === "network") events.push(e);
    });
    expect(events.map((e) => describeEvent(e, undefined, () => undefined)?.text)).toEqual([
      "network: loss 0%, duplicates 0%, latency 10 ms–20 ms; AppendEntriesResp 200 ms–300 ms",
    ]);
  });
});
