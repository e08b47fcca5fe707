import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { initialTransition, transition } from "xstate";
import { type HolderEvent, holderMachine } from "../../src/core/holder/holderMachine";
import { holderTransition } from "../../src/core/holder/transition";
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

describe("holderTransition (the cached-scope transition) is xstate's transition()", () => {
  it("gives the same snapshots and actions on random walks of the statechart (property)", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.integer({ min: 0, max: 11 }), fc.integer({ min: 0, max: 400_000 }), fc.double({ min: 0, max: 0.999, noNaN: true })),
          { maxLength: 60 },
        ),
        (steps) => {
          let [ref] = initialTransition(holderMachine, { cfg });
          let fast = ref;
          let pending: { type: string }[] = [];
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
            for (const a of ra) {
              const p = a.params as { event?: { type: string }; delay?: number; sendId?: string } | undefined;
              // Raises and cancels come from `after` (the action type the machine's typing infers does not list them).
              const type: string = a.type;
              if (type === "xstate.raise" && p?.delay !== undefined && p.event) pending.push(p.event);
              if (type === "xstate.cancel") pending = pending.filter((e) => e.type !== p?.sendId);
            }
            ref = r;
            fast = f;
          }
        },
      ),
      { numRuns: 200, seed: 424242 },
    );
  });
});
