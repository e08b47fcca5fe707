/**
 * A live process's timer must not go off before it is due: setTimeout takes whole ms and cuts
 * the fraction off, and a timer that went off early was set again for the rest, which the
 * browser stretches to 4 ms (nested timers): every timer went off ~4 real ms late.
 */
import { describe, expect, it } from "vitest";
import { timerDelayMs } from "../../src/live/protocol";

describe("timerDelayMs", () => {
  const run = { r0: 0, v0: 0, speed: 1 };
  it("rounds up to whole ms, so setTimeout's truncation never makes a timer early", () => {
    expect(timerDelayMs(run, 0, 49_700)).toBe(50);
    expect(timerDelayMs({ ...run, speed: 10 }, 0, 49_700)).toBe(5);
    expect(timerDelayMs(run, 0, 50_000)).toBe(50);
    expect(timerDelayMs(run, 1_000, 1_300)).toBe(1);
    expect(timerDelayMs(run, 2_000, 1_000)).toBe(0);
  });
});
