import { describe, expect, it } from "vitest";
import { type Sent, SentIndex } from "../../src/worker/sentIndex";

const send = (id: number): Sent => ({ kind: "send", id, from: "n1", to: "n2", deliverAt: id, msg: { type: "TimeoutNow", term: 1 }, dup: false, t: id, n: id });

describe("SentIndex (the journal's messages on the wire)", () => {
  it("answers as a Map would: each message once, until taken", () => {
    const s = new SentIndex();
    s.set(send(1));
    s.set(send(2));
    expect(s.take(2)?.id).toBe(2);
    expect(s.take(2)).toBeUndefined();
    expect(s.take(1)?.id).toBe(1);
    expect(s.take(3)).toBeUndefined();
  });

  it("keeps a message still on the wire when thousands sent after it take its slot", () => {
    const s = new SentIndex();
    s.set(send(5));
    for (let id = 6; id < 20_000; id++) {
      s.set(send(id));
      expect(s.take(id)?.id).toBe(id);
    }
    s.set(send(5 + 4096 * 5)); // its very slot again
    expect(s.take(5)?.id).toBe(5);
    expect(s.take(5)).toBeUndefined();
    expect(s.take(5 + 4096 * 5)?.id).toBe(5 + 4096 * 5);
  });

  it("round-trips through a map (a saved journal)", () => {
    const s = new SentIndex();
    for (const id of [3, 3 + 4096, 9]) s.set(send(id));
    const m = s.toMap();
    expect([...m.keys()].sort((a, b) => a - b)).toEqual([3, 9, 4099]);
    const back = SentIndex.fromMap(m);
    expect(back.take(3)?.id).toBe(3);
    expect(back.take(4099)?.id).toBe(4099);
    expect(back.take(9)?.id).toBe(9);
  });
});
