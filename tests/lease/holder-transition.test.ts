import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { initialTransition, transition } from "xstate";
import { type HolderEvent, holderMachine } from "../../src/core/holder/holderMachine";
import { holderTransition, planStats, xstateTransition } from "../../src/core/holder/transition";
import { configProblems, defaultConfig, MAX_HOLDERS, mergeConfig } from "../../src/core/sim/config";
import { Simulation } from "../../src/core/sim/sim";
import type { HolderSettings } from "../../src/core/holder/types";

const cfg: HolderSettings = {
  id: "h1",
  servers: ["n1", "n2", "n3"],
  storage: "s1",
  leaseName: "lock",
  resource: "lock",
  ttlMs: 2000,
  renewFraction: 1 / 3,
  rebindFraction: 0,
  renewJitter: 0.1,
  driftMarginPpm: 20_000,
  gracePeriodMs: 1000,
  requestTimeoutMs: 300,
  retryBackoffMinMs: 50,
  retryBackoffMaxMs: 800,
  acquireRetryMs: 500,
  workIntervalMs: 250,
  workGapMs: 20,
  holdForMs: 0,
  startAfterMs: 0,
  registerKey: true,
  replicas: false,
  selfFence: true,
};

/** Actions as comparable data (executable actions carry functions). */
const plain = (actions: readonly { type: string; params?: unknown }[]) => actions.map((a) => ({ type: a.type, params: a.params }));

describe("the holder's context", () => {
  it("has fewer than 20 fields (xstate's assign would make a larger one a slow dictionary object in V8)", () => {
    const [s0] = initialTransition(holderMachine, { cfg });
    expect(Object.keys(s0.context).length).toBeLessThan(20);
  });
});

describe("holderTransition (plans replayed, else the cached-scope transition) is xstate's transition()", () => {
  it("gives the same snapshots and actions on random walks of the statechart (property)", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.integer({ min: 0, max: 11 }), fc.integer({ min: 0, max: 400_000 }), fc.double({ min: 0, max: 0.999, noNaN: true })),
          { maxLength: 60 },
        ),
        (steps) => {
          const [start, startActions] = initialTransition(holderMachine, { cfg });
          let ref = start;
          let fast = ref;
          let pending = timersAsked([], startActions);
          let now = 0;
          for (const [pick, dt, rand] of steps) {
            now += dt;
            const c = ref.context;
            const inputs: HolderEvent[] = [
              { type: "GRANTED", token: 7, ttlMs: 2000, nowUs: now, rand },
              { type: "DENIED", reason: "held", nowUs: now, rand },
              { type: "WRITE_REJECTED", hint: null, from: 0, nowUs: now, rand },
              { type: "REVOKED", nowUs: now, rand },
              { type: "RENEWED", reqId: c.reqId, ttlMs: 2000, nowUs: now, rand },
              { type: "REFRESH_REJECTED", reason: "not-leader", hint: 1, from: 0, nowUs: now, rand },
              { type: "REFRESH_LOST", reason: "expired", nowUs: now, rand },
              { type: "RELEASE", nowUs: now, rand },
            ];
            // Otherwise fire one of the timers the machine asked for.
            const event =
              pick < inputs.length
                ? inputs[pick]
                : pending.length > 0
                  ? ({ ...pending[pick % pending.length], nowUs: now, rand } as HolderEvent)
                  : inputs[0];
            if (event === undefined) continue;
            const [r, ra] = transition(holderMachine, ref, event);
            const [f, fa] = holderTransition(fast, event);
            expect(f.value).toEqual(r.value);
            expect(f.context).toEqual(r.context);
            expect(plain(fa)).toEqual(plain(ra));
            pending = timersAsked(pending, ra);
            ref = r;
            fast = f;
          }
        },
      ),
      { numRuns: 200, seed: 424242 },
    );
  });
});

/** The timers still armed after these actions: raises with a finite delay add one, cancels drop theirs. */
function timersAsked(armed: readonly { type: string }[], actions: readonly { type: string; params?: unknown }[]): { type: string }[] {
  let out = armed.slice();
  for (const a of actions) {
    const p = a.params as { event?: { type: string }; delay?: number; sendId?: string } | undefined;
    if (a.type === "xstate.raise" && p?.delay !== undefined && Number.isFinite(p.delay) && p.event) out.push(p.event);
    if (a.type === "xstate.cancel") out = out.filter((e) => e.type !== p?.sendId);
  }
  return out;
}

/** Settings that steer the statechart down different branches (grace, watchdog, hold time, rebinding). */
const settingsArb = fc.record({
  gracePeriodMs: fc.constantFrom(0, 1000),
  selfFence: fc.boolean(),
  holdForMs: fc.constantFrom(0, 1500, 6000),
  rebindFraction: fc.constantFrom(0, 0.875),
  requestTimeoutMs: fc.constantFrom(300, 900),
  startAfterMs: fc.constantFrom(0, 500),
});

/** One step of a walk: which event, how far the clock moves, the random draw, and the event's fields. */
const stepArb = fc.record({
  /** 0: release (it ends the walk, so it is rare); 1 to 13: a reply; 14 and up: a timer the machine armed. */
  pick: fc.integer({ min: 0, max: 29 }),
  dt: fc.integer({ min: 0, max: 900_000 }),
  rand: fc.double({ min: 0, max: 0.999, noNaN: true }),
  hint: fc.option(fc.integer({ min: 0, max: 2 })),
  from: fc.integer({ min: -1, max: 2 }),
  reqBack: fc.integer({ min: 0, max: 9 }),
  ttlMs: fc.constantFrom(1000, 2000, 3000),
  reason: fc.constantFrom("not-leader" as const, "pool-short" as const),
});

describe("holderTransition on random settings and events (property, random seed)", () => {
  it("gives xstate's snapshots and actions, from one table shared by every holder", () => {
    fc.assert(
      fc.property(settingsArb, fc.array(stepArb, { maxLength: 150 }), (patch, steps) => {
        const settings: HolderSettings = { ...cfg, ...patch };
        const [start, startActions] = initialTransition(holderMachine, { cfg: settings });
        let ref = start;
        let fast = ref;
        // The timers the machine asked for (the first one, startDelay, from its initial state).
        let pending = timersAsked([], startActions);
        let now = 0;
        for (const st of steps) {
          now += st.dt;
          const c = ref.context;
          const base = { nowUs: now, rand: st.rand };
          const inputs: HolderEvent[] = [
            { type: "GRANTED", token: 7 + st.reqBack, ttlMs: st.ttlMs, ...base },
            { type: "DENIED", reason: "held", ...base },
            { type: "WRITE_REJECTED", hint: st.hint, from: st.from, ...base },
            { type: "REVOKED", ...base },
            // An answer to a refresh still awaited, an older one, or one never sent.
            { type: "RENEWED", reqId: c.reqId - st.reqBack, ttlMs: st.ttlMs, ...base },
            { type: "REFRESH_REJECTED", reason: st.reason, hint: st.hint, from: st.from, ...base },
            { type: "REFRESH_LOST", reason: "expired", ...base },
            { type: "RELEASE", ...base },
          ];
          const timer = pending.length > 0 ? pending[st.pick % pending.length] : undefined;
          const event =
            st.pick === 0
              ? inputs[inputs.length - 1]
              : st.pick < 14 || timer === undefined
                ? inputs[st.pick % (inputs.length - 1)]
                : ({ ...timer, ...base } as HolderEvent);
          if (event === undefined) continue;
          let r: typeof ref;
          let ra: readonly { type: string; params?: unknown }[];
          try {
            [r, ra] = transition(holderMachine, ref, event);
          } catch (e) {
            // xstate throws (e.g. a renewal of an unknown refresh): so must the fast path.
            expect(() => holderTransition(fast, event)).toThrow((e as Error).message);
            return;
          }
          const [f, fa] = holderTransition(fast, event);
          expect(f.value).toEqual(r.value);
          expect(f.context).toEqual(r.context);
          expect(Object.keys(f.context)).toEqual(Object.keys(r.context));
          expect(plain(fa)).toEqual(plain(ra));
          pending = timersAsked(pending, ra);
          ref = r;
          fast = f;
        }
      }),
      { numRuns: 300 },
    );
  });

  it("is a replayed plan for almost every step of a run with 20 holders (xstate takes only the first of each kind)", () => {
    const before = planStats();
    const sim = new Simulation(
      mergeConfig(defaultConfig(), { seed: 5, nodes: 5, holders: { count: 20, leaseNames: ["a", "b", "c", "d", "e"] } }),
    );
    sim.advanceTo(20_000_000);
    const after = planStats();
    const replayed = after.replayed - before.replayed;
    const byXstate = after.byXstate - before.byXstate;
    expect(after.refused).toBe(0);
    expect(replayed).toBeGreaterThan(1000);
    expect(byXstate).toBeLessThan(replayed / 10);
  });

  it("xstateTransition is xstate's transition() too (the fallback)", () => {
    const [s0] = initialTransition(holderMachine, { cfg });
    const e: HolderEvent = { type: "xstate.after.startDelay.holder.idle", nowUs: 0, rand: 0.5 };
    const [r, ra] = transition(holderMachine, s0, e);
    const [f, fa] = xstateTransition(s0, e);
    expect(f.value).toEqual(r.value);
    expect(f.context).toEqual(r.context);
    expect(plain(fa)).toEqual(plain(ra));
  });
});

describe("how many holders a simulation takes", () => {
  it("takes up to 100 (the benchmarks' 100-holder run) while the page offers 50", () => {
    expect(MAX_HOLDERS).toBe(50);
    expect(configProblems(mergeConfig(defaultConfig(), { holders: { count: 100 } }))).toEqual([]);
    expect(configProblems(mergeConfig(defaultConfig(), { holders: { count: 101 } })).join(" ")).toMatch(/holders\.count/);
  });
});
