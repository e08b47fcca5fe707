/** Issue 11, part 9: share links that livelocked or stalled the dashboard are refused when decoded. */
import { describe, expect, it } from "vitest";
import { decodeRunPayload, encodeRunPayload } from "../../src/app/sharing/link";

async function refusal(scenario: unknown): Promise<string> {
  const r = await decodeRunPayload(await encodeRunPayload(JSON.stringify(scenario)));
  if (r.ok) throw new Error("expected the link to be refused");
  return r.errors.join("\n");
}

describe("links found by fuzzing", () => {
  it("zero latency and zero think time (stayed at 'Starting the simulation…' forever)", async () => {
    const text = await refusal({
      network: { latencyMinMs: 0, latencyMaxMs: 0 },
      clients: { count: 2, workload: "random", thinkTimeMinMs: 0, thinkTimeMaxMs: 0 },
    });
    expect(text).toMatch(/clients\.thinkTimeMinMs: must be between 1 and 600000 \(got 0\): with no think time and no latency/);
  });

  it("an absurd clock jump (froze the page)", async () => {
    expect(await refusal({ actions: [{ at: "1s", do: "clock-jump", node: "n1", by: "99999999999999999999h" }] })).toMatch(
      /actions\[0\]\.by: duration out of range/,
    );
    expect(await refusal({ actions: [{ at: "1s", do: "clock-jump", node: "n1", by: -1e308 }] })).toMatch(/actions\[0\]\.by: /);
  });

  it("more than 1,000 actions (20,000 never opened)", async () => {
    expect(await refusal({ actions: Array(20_000).fill({ at: "1s", do: "heal" }) })).toMatch(/at most 1000 actions/);
  });
});
