/**
 * Local and virtual time are both microseconds, and mixing them up is the mistake the tool
 * teaches. The types keep them apart (sim/time.ts): these lines must not compile, and the
 * typecheck `npm test` runs fails on an unused @ts-expect-error if the brands go.
 */
import { describe, expect, it } from "vitest";
import { localTime, newClock, virtualAt, withDrift } from "../../src/core/sim/clock";
import type { ProcessContext } from "../../src/core/sim/process";
import type { LocalUs, VirtualUs } from "../../src/core/sim/time";
import { formatDuration, formatInstant } from "../../src/core/sim/time";

function scheduleAt(_at: VirtualUs): void {}

describe("the two clocks' types", () => {
  it("a local reading is not a virtual time: only the clock module converts", () => {
    const clock = withDrift(newClock(), 0, 100_000);
    const now: VirtualUs = 2_000_000;
    const reading: LocalUs = localTime(clock, now);
    // @ts-expect-error a process's clock reading is not a time on the simulator's clock
    scheduleAt(reading);
    // @ts-expect-error nor the other way round
    localTime(clock, reading);
    // @ts-expect-error a context's `now` is local
    scheduleAt(({ now: 0 } as unknown as ProcessContext).now);
    const back: VirtualUs = virtualAt(clock, reading, 0);
    scheduleAt(back);
    expect(reading).toBe(2_200_000);
    expect(back).toBe(now);
  });
});

describe("time as text, in one place", () => {
  it("durations in the unit that reads best; instants as seconds with fixed decimals", () => {
    expect([40, 1_500, 250_000, 1_000_000, 1_234_567, 12_500_000, 185_000_000, -1_500_000].map((us) => formatDuration(us))).toEqual([
      "40 µs",
      "1.5 ms",
      "250 ms",
      "1 s",
      "1.235 s",
      "12.5 s",
      "3 min 5 s",
      "-1.5 s",
    ]);
    expect(formatDuration(1_234_567, 1)).toBe("1.2 s");
    expect(formatInstant(12_345_678)).toBe("12.346 s");
    expect(formatInstant(0, 1)).toBe("0.0 s");
  });
});
