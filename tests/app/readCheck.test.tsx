/** "Check the reads" on the page: the dialog's words for each answer, the drawing's layout, and the store's request and answer. */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ReadCheckBody } from "../../src/app/reads/ReadCheck";
import { readsLayout, WIDTH } from "../../src/app/reads/readsLayout";
import { createLabStore } from "../../src/app/store";
import type { ToWorker } from "../../src/worker/protocol";
import type { ReadCheckOp, ReadCheckResult, ReadViolationView } from "../../src/worker/readCheckTypes";

const S = 1_000_000;
function op(client: string, operation: string, label: string, call: number, ret: number | null, over: Partial<ReadCheckOp> = {}): ReadCheckOp {
  return {
    client,
    session: `${client}.1`,
    seq: Math.round(call),
    operation,
    key: "x",
    value: null,
    outcome: ret === null ? "info" : "ok",
    answer: null,
    callUs: call,
    returnUs: ret,
    label,
    ...over,
  };
}

/** h2 reads 'a' at 7.2 s after c1's write of 'b' finished at 6.9 s; c3's write of 'c' never answered. */
const VIOLATION: ReadViolationView = {
  key: "x",
  ops: [
    op("c1", "put", "write x 'a'", 5.0 * S, 5.3 * S),
    op("c1", "put", "write x 'b'", 6.5 * S, 6.9 * S),
    op("c3", "put", "write x 'c'", 7.0 * S, null),
    op("h2", "get", "read x → 'a'", 7.2 * S, 7.3 * S),
  ],
  stuck: 3,
  missed: 1,
  sentence:
    "h2's read of x at 7.200 s returned 'a', but the write of 'b' by c1 had already finished at 6.900 s: a linearizable store must return 'b' or something written later.",
  onKey: 9,
};
const RESULT: ReadCheckResult = { kind: "violation", untilUs: 8 * S, reads: 3, writes: 5, keys: 2, violation: VIOLATION, badKeys: ["x", "y"] };

const html = (result: ReadCheckResult | null): string => renderToStaticMarkup(<ReadCheckBody titleId="t" result={result} />);

describe("the read check's dialog", () => {
  it("a violation: the sentence, the read that cannot be placed and the write it should have seen", () => {
    const h = html(RESULT);
    expect(h).toContain("Not linearizable: a read returned an old value");
    expect(h).toContain("h2&#x27;s read of x at 7.200 s returned &#x27;a&#x27;, but the write of &#x27;b&#x27; by c1 had already finished at 6.900 s");
    expect(h).toContain("Cannot be placed: h2: read x → &#x27;a&#x27; (called at 7.200 s, answered at 7.300 s)");
    expect(h).toContain("Should have been seen: c1: write x &#x27;b&#x27; (called at 6.500 s, answered at 6.900 s)");
    expect(h).toContain("c3: write x &#x27;c&#x27; (called at 7.000 s, no answer came)");
    expect(h).toContain("Showing 4 of the 9 operations on key x");
    expect(h).toContain("Other keys with a violation: y.");
    expect(h).toContain('data-testid="reads-timeline"');
  });

  it("ok, unknown, no reads and still checking, in plain words", () => {
    expect(html({ kind: "ok", untilUs: 8 * S, reads: 12, writes: 1, keys: 3 })).toContain("All 12 reads and 1 write on 3 keys are linearizable");
    const unknown = html({ kind: "unknown", untilUs: 8 * S, reads: 4, writes: 4, keys: 2, maxSteps: 200_000, undecided: ["k2"] });
    expect(unknown).toContain("Could not decide within the step budget");
    expect(unknown).toContain("200,000 orderings per key and ran out on k2");
    expect(unknown).not.toMatch(/linearizable|Not linearizable/);
    const none = html({ kind: "no-reads", untilUs: 3 * S, writes: 0 });
    expect(none).toContain("No reads to check");
    expect(none).toContain("did not read any keys (from 0 s up to 3.000 s). Turn on the key-value clients in Settings");
    expect(html(null)).toContain("Checking the reads…");
  });
});

describe("the read check's drawing", () => {
  it("one row per client, the stuck read and the missed write marked, an unanswered write open to the right edge", () => {
    const l = readsLayout(VIOLATION);
    expect(l.rows.map((r) => r.client)).toEqual(["c1", "c3", "h2"]);
    const stuck = l.bars.find((b) => b.role === "stuck");
    expect(stuck?.label).toBe("✗ read x → 'a'");
    expect(stuck?.index).toBe(3);
    const missed = l.bars.find((b) => b.role === "missed");
    expect(missed?.label).toBe("write x 'b': should have been seen");
    const open = l.bars.find((b) => b.open);
    expect(open?.index).toBe(2);
    expect(open?.x1).toBeGreaterThan(WIDTH - 20);
    // Bars follow time: the missed write ends before the read starts.
    expect((missed?.x1 as number) < (stuck?.x0 as number)).toBe(true);
    expect(l.guides.map((g) => g.text)).toEqual(["c1's write finished 6.900 s", "h2's read called 7.200 s"]);
    expect(l.ticks.length).toBeGreaterThan(1);
  });

  it("labels of one client's operations close together do not overlap (above, then below the bar)", () => {
    const ops = [0, 1, 2, 3].map((i) => op("c1", "get", `read x → 'value${i}'`, (10 + i * 0.05) * S, (10.02 + i * 0.05) * S));
    const l = readsLayout({ key: "x", ops, stuck: 3, missed: null, sentence: "", onKey: 4 });
    const placed = l.bars.map((b) => ({ y: b.labelY, from: b.anchor === "start" ? b.labelX : b.labelX - b.label.length * 10, to: b.anchor === "start" ? b.labelX + b.label.length * 9.5 : b.labelX }));
    expect(new Set(placed.map((p) => p.y)).size).toBe(2);
    for (let i = 1; i < placed.length; i++) {
      const a = placed[i - 1] as (typeof placed)[number];
      const b = placed[i] as (typeof placed)[number];
      expect(a.y !== b.y || a.to <= b.from).toBe(true);
    }
  });
});

describe("a crowded row (many short reads by one client)", () => {
  it("shows the stuck read's words, and no two labels in one lane overlap: those with no room are left out", () => {
    const ops = Array.from({ length: 12 }, (_, i) => op("c1", "get", `read k1 → 'a'`, (3 + i * 0.1) * S, (3.02 + i * 0.1) * S));
    const l = readsLayout({ key: "k1", ops, stuck: 11, missed: null, sentence: "", onKey: 12 });
    const stuck = l.bars.find((b) => b.role === "stuck");
    expect(stuck?.label).toBe("✗ read k1 → 'a'");
    const shown = l.bars.filter((b) => b.label !== "");
    expect(shown.length).toBeLessThan(ops.length);
    const span = (b: (typeof shown)[number]) => {
      const w = b.label.length * 9;
      return b.anchor === "start" ? [b.labelX, b.labelX + w] : [b.labelX - w, b.labelX];
    };
    for (const a of shown)
      for (const b of shown) {
        if (a === b || a.labelY !== b.labelY) continue;
        const [a0, a1] = span(a) as [number, number];
        const [b0, b1] = span(b) as [number, number];
        expect(a1 <= b0 || b1 <= a0, `"${a.label}" at ${a0} and "${b.label}" at ${b0} overlap`).toBe(true);
      }
    // Every operation keeps its words on hover, shown or not.
    expect(l.bars.every((b) => b.title.includes("read k1"))).toBe(true);
  });
});

describe("the store's read check", () => {
  it("sends the request, shows only the answer to the latest one, and closes", () => {
    const store = createLabStore();
    const sent: ToWorker[] = [];
    store.setState({ send: (m) => sent.push(m) });
    store.getState().checkReads();
    expect(sent).toEqual([{ type: "check-reads", requestId: 1 }]);
    expect(store.getState().readCheck).toEqual({ requestId: 1, result: null });
    store.getState().checkReads();
    store.getState().receive({ type: "read-check", requestId: 1, result: RESULT });
    expect(store.getState().readCheck?.result).toBeNull();
    store.getState().receive({ type: "read-check", requestId: 2, result: RESULT });
    expect(store.getState().readCheck?.result).toBe(RESULT);
    store.getState().closeReadCheck();
    expect(store.getState().readCheck).toBeNull();
    store.getState().receive({ type: "read-check", requestId: 2, result: RESULT });
    expect(store.getState().readCheck).toBeNull();
  });
});
