/** The trace hash of events without a field-by-field case: their JSON, long strings by length. */
import { describe, expect, it } from "vitest";
import { HASHED_STRING_CHARS, TraceHasher, type TraceEvent } from "../../src/core/sim/trace";

function hashOf(value: string): string {
  const h = new TraceHasher();
  const e = { kind: "client", t: 1, n: 0, phase: "ok", clientId: "c1", seq: 3, op: { type: "get", key: "k1" }, result: { kind: "kv", value } };
  h.add(e as unknown as TraceEvent);
  return h.hex;
}

describe("trace hash", () => {
  it("covers the text of short strings", () => {
    expect(hashOf("c1:1;")).not.toBe(hashOf("c1:2;"));
  });

  it("counts a long string by its length, not its text", () => {
    const a = "x".repeat(HASHED_STRING_CHARS + 10);
    const b = "y".repeat(HASHED_STRING_CHARS + 10);
    expect(hashOf(a)).toBe(hashOf(b));
    expect(hashOf(a)).not.toBe(hashOf(`${a}z`));
  });
});
