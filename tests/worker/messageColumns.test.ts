/** The diagram's messages in columns, as they cross from the worker to the page: packed, transferred, unpacked. */
import { describe, expect, it } from "vitest";
import { columnBuffers, columnsLength, emptyColumns, packMessages, unpackMessages } from "../../src/worker/messageColumns";
import type { DiagramMessage } from "../../src/worker/protocol";

const delivered = (id: number, from: string, to: string, label: string): DiagramMessage => ({
  id,
  from,
  to,
  sentAt: id * 1000 + 0.5,
  endAt: id * 1000 + 777,
  label,
  outcome: "delivered",
  reason: null,
});
const dropped = (id: number, reason: string): DiagramMessage => ({ ...delivered(id, "n2", "n1", "vote"), outcome: "dropped", reason });

const sample: DiagramMessage[] = [
  delivered(1, "n1", "n2", "append"),
  dropped(2, "lost on the way"),
  delivered(3, "n2", "n1", "append reply"),
  dropped(4, "partition"),
  delivered(2 ** 40, "h1", "n3", "grant"),
  delivered(6, "n1", "s1", "write"),
];

describe("message columns", () => {
  it("unpack(pack(x)) is x: ids, times, names, outcomes and reasons", () => {
    const p = packMessages(sample);
    expect(columnsLength(p)).toBe(sample.length);
    // Each name once.
    expect(new Set(p.names).size).toBe(p.names.length);
    expect(unpackMessages(p)).toEqual(sample);
    expect(unpackMessages(packMessages([]))).toEqual([]);
    expect(unpackMessages(emptyColumns())).toEqual([]);
  });

  it("refuses a message whose outcome and reason disagree", () => {
    expect(() => packMessages([{ ...delivered(1, "n1", "n2", "x"), reason: "why" }])).toThrow(/delivered with reason/);
  });

  it("crosses as a transfer: the buffers are handed over (the sender's copies are emptied) and the page reads the same messages", () => {
    const p = packMessages(sample);
    const buffers = columnBuffers(p);
    expect(buffers.length).toBe(2);
    const received = structuredClone({ view: { newMessages: p } }, { transfer: buffers });
    expect(p.nums.length).toBe(0);
    expect(p.codes.length).toBe(0);
    expect(unpackMessages(received.view.newMessages)).toEqual(sample);
    // Nothing to hand over for no messages (an empty list is sent as it is).
    expect(columnBuffers(emptyColumns())).toEqual([]);
  });

  it("a view's messages take far less room than the objects", async () => {
    const { serialize } = await import("node:v8");
    const many = Array.from({ length: 500 }, (_, i) => (i % 7 === 0 ? dropped(i, "lost on the way") : delivered(i, `n${i % 7}`, `n${(i + 3) % 7}`, "heartbeat")));
    const packed = serialize(packMessages(many)).length;
    const objects = serialize(many).length;
    expect(packed * 3).toBeLessThan(objects);
  });
});
