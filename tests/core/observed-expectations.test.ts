/**
 * The expectations lesson writers asked for: a lease's granted TTL, why the service refused a
 * holder, the leader's lease events, a broken clock bound, and messages by sender and
 * receiver. Each is checked both ways: true when the run shows it, false when it does not.
 */
import { describe, expect, it } from "vitest";
import { type RunResult, runScenario } from "../../src/core/scenario/runner";
import { parseScenario } from "../../src/core/scenario/schema";

function run(input: Record<string, unknown>): RunResult {
  const parsed = parseScenario({ name: "t", seed: 4, duration: "4s", ...input });
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  return runScenario(parsed.scenario);
}

const oks = (r: RunResult): boolean[] => r.expectations.map((x) => x.ok);

/** A DHCP-style pool of two: a and b leased, the last place (b) shortened to 2 s, c refused until one runs out. */
const pool = {
  duration: "8s",
  lease: { poolSize: 2, poolShortenAt: 1, poolShortTtlMs: 2000, poolDenyRenewalsWhenFull: true },
  holders: { count: 3, ttlMs: 12000, leaseNames: ["a", "b", "c"] },
};

describe("lease-ttl: the TTL the service granted", () => {
  it("the first lease gets the 12 s asked for; the last place in the pool only 2 s", () => {
    const r = run({
      ...pool,
      expect: [
        { that: "lease-ttl", name: "a", atLeast: "12s", atMost: "12s" },
        { that: "lease-ttl", name: "b", atMost: "2s" },
        { that: "lease-ttl", name: "b", atLeast: "3s" },
        { that: "lease-ttl", name: "a", atMost: "11s" },
        { that: "lease-ttl", name: "nothing", atLeast: "1ms" },
      ],
    });
    expect(oks(r)).toEqual([true, true, false, false, false]);
    expect(r.expectations[1]?.detail).toMatch(/^granted 2 s /);
    expect(r.expectations[4]?.detail).toBe("nothing has not been granted");
  });

  it("a TTL below the service's minimum is raised to it", () => {
    const r = run({
      lease: { minTtlMs: 1500 },
      holders: { count: 1, ttlMs: 600 },
      expect: [
        { that: "lease-ttl", name: "lock", atLeast: "1500ms", atMost: "1500ms" },
        { that: "lease-ttl", name: "lock", atMost: "600ms" },
      ],
    });
    expect(oks(r)).toEqual([true, false]);
  });

  it("needs a bound", () => {
    const p = parseScenario({ expect: [{ that: "lease-ttl", name: "a" }] });
    expect(p.ok ? [] : p.errors).toEqual(["expect[0]: lease-ttl needs atLeast or atMost (or both)"]);
  });
});

describe("refused: why the service said no", () => {
  it("a second holder is denied a held lock; the holder that has it never is", () => {
    const r = run({
      holders: { count: 2 },
      expect: [
        { at: "1900ms", that: "refused", holder: "h2", reason: "held" },
        { at: "1900ms", that: "refused", holder: "h1", reason: "held" },
        { at: "1900ms", that: "refused", holder: "h2", reason: "held", atLeast: 2, atMost: 5 },
        { at: "1900ms", that: "refused", holder: "h2", reason: "held", since: "1800ms", atLeast: 2 },
        { at: "1900ms", that: "refused", reason: "not-leader" },
      ],
    });
    expect(oks(r)).toEqual([true, false, true, false, false]);
    expect(r.expectations[1]?.detail).toBe("0 refusal(s) for held");
  });

  it("a full pool: the newcomer's grant is refused for pool-exhausted, renewals for pool-short", () => {
    const r = run({
      ...pool,
      expect: [
        { that: "refused", holder: "h3", reason: "pool-exhausted" },
        { that: "refused", holder: "h2", reason: "pool-short", name: "b" },
        { that: "refused", holder: "h1", reason: "pool-exhausted" },
        { that: "refused", reason: "held" },
      ],
    });
    expect(oks(r)).toEqual([true, true, false, false]);
  });

  it("after the leader crashes, a node that is not leader turns the holder's refresh away: not-leader", () => {
    const r = run({
      holders: { count: 1 },
      actions: [{ at: "2s", do: "crash", node: "leader" }],
      expect: [
        { at: "1999ms", that: "refused", holder: "h1", reason: "not-leader" },
        { that: "refused", holder: "h1", reason: "not-leader" },
      ],
    });
    expect(oks(r)).toEqual([false, true]);
  });

  it("knows its reasons and its holders", () => {
    const p = parseScenario({ expect: [{ that: "refused", reason: "busy" }] });
    expect(p.ok ? [] : p.errors).toEqual([expect.stringMatching(/^expect\[0\]\.reason: /)]);
    const r = run({ holders: { count: 1 }, expect: [{ that: "refused", holder: "h7", reason: "held" }] });
    expect(r.expectations[0]).toMatchObject({ ok: false, detail: "h7 is not a holder" });
  });
});

describe("lease-event: the leader's lease tracker", () => {
  it("extended: a new leader gives the lease a fresh TTL (none before the crash)", () => {
    const r = run({
      holders: { count: 1 },
      actions: [{ at: "2s", do: "crash", node: "leader" }],
      expect: [
        { at: "1999ms", that: "lease-event", event: "extended" },
        { at: "1999ms", that: "lease-event", event: "extended", atMost: 0 },
        { that: "lease-event", event: "extended", name: "lock", atLeast: 1, atMost: 1 },
        { that: "lease-event", event: "extended", name: "other" },
        { that: "lease-event", event: "timed", name: "lock" },
      ],
    });
    expect(oks(r)).toEqual([false, true, true, false, true]);
  });

  it("expiring: the leader proposes an expiry once a crashed holder stops refreshing", () => {
    const crashed = run({
      holders: { count: 1, ttlMs: 1000 },
      actions: [{ at: "2s", do: "crash", node: "h1" }],
      expect: [
        { at: "1999ms", that: "lease-event", event: "expiring" },
        { that: "lease-event", event: "expiring", name: "lock", since: "2s" },
      ],
    });
    expect(oks(crashed)).toEqual([false, true]);
    const healthy = run({ holders: { count: 1, ttlMs: 1000 }, expect: [{ that: "lease-event", event: "expiring" }] });
    expect(oks(healthy)).toEqual([false]);
  });
});

describe("clock-bound-broken", () => {
  it("honest clocks break no bound", () => {
    const r = run({ holders: { count: 2 }, expect: [{ that: "clock-bound-broken" }, { that: "clock-bound-broken", node: "n9" }] });
    expect(r.expectations.map((x) => `${x.ok} ${x.detail}`)).toEqual(["false no bound broken", "false n9 is not a node or a holder"]);
  });
});

describe("messages by sender and receiver", () => {
  it("counts only what `from` sent to `to`", () => {
    // Seed 4 elects n2: only n2 sends appends until it crashes at 2 s.
    const r = run({
      holders: { count: 1 },
      actions: [{ at: "2s", do: "crash", node: "n2" }],
      expect: [
        { at: "1900ms", that: "messages", type: "AppendEntries", from: "n2", atLeast: 50 },
        { at: "1900ms", that: "messages", type: "AppendEntries", from: "n1", atLeast: 1 },
        { at: "1900ms", that: "messages", type: "AppendEntries", from: "n2", to: "n3", atLeast: 10, atMost: 50 },
        { at: "1900ms", that: "messages", type: "AppendEntries", to: "n2", atMost: 0 },
        { at: "1900ms", that: "messages", type: "LeaseRefresh", from: "h1", to: "n2", atLeast: 1 },
        { at: "1900ms", that: "messages", type: "LeaseRefresh", from: "h1", to: "n1", atLeast: 1 },
        { at: "1900ms", that: "messages", type: "LeaseRefresh", from: "h5", atMost: 0 },
      ],
    });
    expect(oks(r)).toEqual([true, false, true, true, true, false, false]);
    expect(r.expectations[6]?.detail).toBe("h5 is not a process");
  });
});

describe("messages atOnce: a burst at one instant", () => {
  it("DHCP's retries go one server at a time; at T2 the refresh goes to all five at once", () => {
    const r = run({
      duration: "13s",
      holders: { count: 1, preset: "dhcp", ttlMs: 12000, retryBackoffMaxMs: 400 },
      actions: [{ at: "1s", do: "partition", groups: [["h1"], ["n1", "n2", "n3", "n4", "n5"]] }],
      expect: [
        { at: "10s", that: "messages", type: "LeaseRefresh", from: "h1", since: "6s", atLeast: 3 },
        { at: "10s", that: "messages", type: "LeaseRefresh", from: "h1", since: "6s", atLeast: 2, atOnce: true },
        { at: "12s", that: "messages", type: "LeaseRefresh", from: "h1", since: "6s", atLeast: 5, atOnce: true },
        { at: "12s", that: "messages", type: "LeaseRefresh", from: "h1", since: "6s", atLeast: 6, atOnce: true },
      ],
    });
    expect(oks(r)).toEqual([true, false, true, false]);
    expect(r.expectations[2]?.detail).toMatch(/^at most 5 sent at one instant/);
  });
});

describe('"since": "step"', () => {
  it("is for a lesson's conditions: a scenario's expectation gives a time", () => {
    const p = parseScenario({ expect: [{ that: "messages", type: "AppendEntries", since: "step", atLeast: 1 }] });
    expect(p.ok ? [] : p.errors).toEqual(['expect[0].since: "step" is for a lesson\'s conditions; a scenario\'s expectation gives a time']);
  });
});

describe("the observer's saved state (time travel keeps it in its snapshots)", () => {
  it("restores the refusals, lease events and sends it had, dropping what came after", async () => {
    const { RunObserver, observerNeeds } = await import("../../src/core/scenario/observer");
    const { buildSimulation } = await import("../../src/core/scenario/runner");
    const p = parseScenario({ name: "t", seed: 4, duration: "4s", holders: { count: 2 } });
    if (!p.ok) throw new Error(p.errors.join("; "));
    const o = new RunObserver(
      observerNeeds([
        { that: "refused", reason: "held" },
        { that: "lease-event", event: "refresh" },
        { that: "messages", type: "LeaseRefresh", from: "h1" },
      ]),
    );
    const sim = buildSimulation(p.scenario, { onTrace: (e) => o.observe(e) });
    sim.advanceTo(2_000_000);
    const saved = o.save();
    const counts = () => [o.refusals.length, o.leaseEvents.length, o.sends.get("LeaseRefresh")?.from.length ?? 0];
    const then = counts();
    expect(then.every((n) => n > 0)).toBe(true);
    sim.advanceTo(4_000_000);
    expect(counts().every((n, i) => n > (then[i] as number))).toBe(true);
    o.load(saved);
    expect(counts()).toEqual(then);
    expect(o.save()).toEqual(saved);
  });
});
