/** The journal's bounded histories in shared chunks. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { DiagramMessage } from "../../src/worker/protocol";
import { unpackMessages } from "../../src/worker/messageColumns";
import { CHUNK_ITEMS, messagePacker, MessageHistory, plainPacker, ChunkedHistory } from "../../src/worker/chunkedHistory";

const message = (id: number): DiagramMessage => ({
  id,
  from: `n${id % 5}`,
  to: `n${(id + 1) % 5}`,
  sentAt: id * 1_000_003,
  endAt: id * 1_000_003 + 700,
  label: id % 3 === 0 ? "append" : "heartbeat",
  outcome: id % 7 === 0 ? "dropped" : "delivered",
  reason: id % 7 === 0 ? "partitioned" : null,
});

describe("ChunkedHistory", () => {
  it("always gives the newest `limit` items, as a plain list would", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1500 }), fc.integer({ min: 0, max: 3000 }), (limit, n) => {
        const r = new ChunkedHistory<number>(limit, plainPacker<number>(), 8);
        const all: number[] = [];
        for (let i = 0; i < n; i++) {
          r.push(i);
          all.push(i);
        }
        expect(r.newest()).toEqual(all.slice(Math.max(0, all.length - limit)));
        expect(r.length).toBeLessThan(limit + CHUNK_ITEMS + 1);
      }),
      { numRuns: 60 },
    );
  });

  it("a saved copy stays as it was, loads back, and shares its full chunks with the next one", () => {
    const r = new ChunkedHistory<DiagramMessage, ReturnType<typeof messagePacker.pack>>(1000, messagePacker, 34);
    for (let i = 0; i < 900; i++) r.push(message(i));
    const a = r.save();
    const before = r.newest();
    for (let i = 900; i < 1300; i++) r.push(message(i));
    const b = r.save();
    const shared = r.savedBytes(b).shared.filter((c) => r.savedBytes(a).shared.includes(c));
    expect(shared.length).toBeGreaterThan(0);
    const back = new ChunkedHistory<DiagramMessage, ReturnType<typeof messagePacker.pack>>(1000, messagePacker, 34);
    back.load(a);
    expect(back.newest()).toEqual(before);
    expect(before).toEqual(Array.from({ length: 900 }, (_, i) => message(i)));
    back.load(b);
    expect(back.newest()).toEqual(Array.from({ length: 1000 }, (_, i) => message(i + 300)));
  });
});

describe("MessageHistory", () => {
  it("gives its newest n messages in fresh columns too, the same messages as newest(n), across chunks whose names come in other orders (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1200 }), fc.integer({ min: 0, max: 2500 }), fc.integer({ min: 0, max: 1300 }), (limit, n, k) => {
        const cols = new MessageHistory(limit);
        for (let i = 0; i < n; i++) {
          const m = message(i);
          // Names first seen in another order from chunk to chunk: codes must be translated.
          cols.push(m.id, m.from, m.to, m.sentAt, m.endAt, i % CHUNK_ITEMS === 0 && i % 2 === 1 ? "snapshot" : m.label, m.reason);
        }
        for (const want of [k, 0, 1, CHUNK_ITEMS + 3, limit]) {
          const packed = cols.newestColumns(want);
          expect(unpackMessages(packed)).toEqual(cols.newest(want));
          expect(new Set(packed.names).size).toBe(packed.names.length);
        }
        expect(unpackMessages(cols.newestColumns())).toEqual(cols.newest());
      }),
      { numRuns: 60 },
    );
  });

  it("gives what a ChunkedHistory of message objects gives, newest n of any n, and saved copies load back as they were (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1200 }), fc.integer({ min: 0, max: 2500 }), fc.integer({ min: 0, max: 2500 }), (limit, n, saveAt) => {
        const plain = new ChunkedHistory<DiagramMessage, ReturnType<typeof messagePacker.pack>>(limit, messagePacker, 34);
        const cols = new MessageHistory(limit);
        let saved: ReturnType<MessageHistory["save"]> | null = null;
        let atSave: DiagramMessage[] = [];
        for (let i = 0; i < n; i++) {
          const m = message(i);
          plain.push(m);
          cols.push(m.id, m.from, m.to, m.sentAt, m.endAt, m.label, m.reason);
          if (i === saveAt) {
            saved = cols.save();
            atSave = cols.newest();
          }
        }
        expect(cols.length).toBe(plain.length);
        expect(cols.newest()).toEqual(plain.newest());
        for (const k of [0, 1, 7, CHUNK_ITEMS, limit]) expect(cols.newest(k)).toEqual(plain.newest(k));
        if (saved !== null) {
          const back = new MessageHistory(limit);
          back.load(saved);
          expect(back.newest()).toEqual(atSave);
          // And it goes on from there as the original did.
          back.push(1e9, "n1", "n2", 5, 6, "append", null);
          expect(back.newest(1)).toEqual([{ id: 1e9, from: "n1", to: "n2", sentAt: 5, endAt: 6, label: "append", outcome: "delivered", reason: null }]);
          expect(cols.newest()).toEqual(plain.newest());
        }
      }),
      { numRuns: 60 },
    );
  });
});

