import { describe, expect, it } from "vitest";
import { cellLabel, commitState, LogGridView, shortLabel } from "../../src/app/panels/LogGrid";
import { termColor } from "../../src/app/theme";
import { ENTRY_KINDS, KIND_ORDER, kindBadge, knownTokens } from "../../src/app/panels/logKinds";
import type { EntryKind, EntryView, NodeView, SimView } from "../../src/worker/protocol";
import { renderWithLab } from "../support/lab";
import { nodeFixture, viewFixture } from "../support/views";

function entries(from: number, to: number, termOf: (i: number) => number, labelOf: (i: number) => string = () => "noop"): EntryView[] {
  const out: EntryView[] = [];
  for (let i = from; i <= to; i++) out.push({ index: i, term: termOf(i), label: labelOf(i), kind: kindOfLabel(labelOf(i)) });
  return out;
}

function kindOfLabel(l: string): EntryKind {
  const w = l.split(" ")[0] ?? "";
  return w === "grant" || w === "checkpoint" || w === "expire" || w === "revoke" || w === "free" || w === "noop" ? w : "put";
}

function node(id: string, over: Partial<NodeView>): NodeView {
  return nodeFixture({ id, term: 3, ...over });
}

const label = (i: number): string => (i === 11 ? "grant lock h1" : i === 12 ? "put k2" : "noop");
const term = (i: number): number => (i < 11 ? 2 : 3);

/** Window 9..14. n1 leads (commit 12), n2 is caught up to 13, n3 is behind (has 9..10), n4 is down. */
function fixture(): SimView {
  const nodes: NodeView[] = [
    node("n1", {
      role: "leader",
      commitIndex: 12,
      lastIndex: 14,
      entries: entries(9, 14, term, label),
      progress: [
        { peer: "n2", next: 14, match: 13 },
        { peer: "n3", next: 11, match: 10 },
        { peer: "n4", next: 15, match: 14 },
      ],
    }),
    node("n2", { commitIndex: 12, lastIndex: 13, entries: entries(9, 13, term, label) }),
    node("n3", { commitIndex: 10, lastIndex: 10, entries: entries(9, 10, term, label) }),
    node("n4", { status: "down", role: null, commitIndex: null, lastIndex: 14, entries: entries(9, 14, term, label) }),
  ];
  return viewFixture({ now: 5_000_000, nodes, logWindow: { from: 9, to: 14 }, leader: "n1" });
}

/** The markup of one node's row. */
function rowOf(html: string, id: string): string {
  const at = html.indexOf(`data-node="${id}"`);
  expect(at).toBeGreaterThan(-1);
  const start = html.lastIndexOf("<tr", at);
  const end = html.indexOf("</tr>", start);
  return html.slice(start, end);
}

/** The <td> for log index i in a row's markup (cells carry "index i," in their aria-label). */
function cellOf(row: string, i: number): string {
  const at = row.indexOf(`aria-label="index ${i},`);
  expect(at).toBeGreaterThan(-1);
  const open = row.lastIndexOf("<td", at);
  return row.slice(open, row.indexOf("</td>", at));
}

describe("log grid helpers", () => {
  it("classifies entries against the commit index, unknown while down", () => {
    expect(commitState(12, 12)).toBe("committed");
    expect(commitState(13, 12)).toBe("uncommitted");
    expect(commitState(1, null)).toBe("unknown");
  });

  it("names a cell the way a screen reader should say it", () => {
    expect(cellLabel({ index: 12, term: 3, label: "grant lock h1", kind: "grant" }, "committed", { match: false, next: false }, new Set([12]))).toBe(
      "index 12, term 3, committed, lease grant: fencing token 12 (the entry's index) (grant lock h1)",
    );
    expect(cellLabel({ index: 13, term: 3, label: "grant lock h2", kind: "grant" }, "committed", { match: false, next: false }, new Set([12]))).toBe(
      "index 13, term 3, committed, lease request: no new token (refused while another holds it, a holder's repeat, or not applied yet) (grant lock h2)",
    );
    expect(cellLabel({ index: 13, term: 3, label: "noop", kind: "noop" }, "uncommitted", { match: true, next: false })).toBe(
      "index 13, term 3, uncommitted, no-op of a new leader (noop), leader's match index",
    );
  });

  it("shortens labels for wide cells", () => {
    expect(shortLabel("grant lock h1")).toBe("+h1");
    expect(shortLabel("revoke lock h2")).toBe("−h2");
    expect(shortLabel("put k2 (lease lock)")).toBe("k2");
    expect(shortLabel("expire lock")).toBe("exp");
    expect(shortLabel("noop")).toBe("noop");
  });
});

describe("entry kinds", () => {
  it("draws a grant as G with its token (its index), a request that gave none as G, every other kind as its letter", () => {
    expect(kindBadge({ index: 12, kind: "grant" }, new Set([12]))).toBe("G12");
    expect(kindBadge({ index: 13, kind: "grant" }, new Set([12]))).toBe("G");
    expect(
      [...knownTokens([{ token: 30, leaderSpans: [{ token: 12 }], holderSpans: [{ token: 20 }] }, { token: 0, leaderSpans: [], holderSpans: [] }])].sort(),
    ).toEqual([12, 20, 30]);
    expect(kindBadge({ index: 40, kind: "checkpoint" })).toBe("C");
    expect(kindBadge({ index: 41, kind: "expire" })).toBe("E");
    expect(kindBadge({ index: 42, kind: "revoke" })).toBe("R");
    expect(kindBadge({ index: 43, kind: "put" })).toBe("P");
    expect(kindBadge({ index: 44, kind: "noop" })).toBe("—");
  });

  it("gives every kind its own letter and colour, all in the legend", () => {
    const kinds = Object.keys(ENTRY_KINDS) as EntryKind[];
    expect(new Set(kinds.map((k) => ENTRY_KINDS[k].glyph)).size).toBe(kinds.length);
    expect(new Set(kinds.map((k) => ENTRY_KINDS[k].color)).size).toBe(kinds.length);
    expect([...KIND_ORDER].sort()).toEqual([...kinds].sort());
  });

  it("marks checkpoint cells with C and grant cells with their token, with a legend", () => {
    const v = fixture();
    const lab = (i: number): string => (i === 10 ? "checkpoint" : label(i));
    const leases = [{ ...(v.leases[0] ?? {}), token: 11, leaderSpans: [], holderSpans: [] }] as unknown as SimView["leases"];
    const h = renderWithLab(<LogGridView view={{ ...v, leases, nodes: v.nodes.map((n) => ({ ...n, entries: entries(9, n.lastIndex, term, lab) })) }} />);
    const n1 = rowOf(h, "n1");
    expect(cellOf(n1, 10)).toMatch(/class="lg-kind lg-kind-checkpoint"[^>]*>C</);
    expect(cellOf(n1, 11)).toMatch(/class="lg-kind lg-kind-grant"[^>]*>G11</);
    expect(h).toContain('aria-label="Kinds of entry"');
    expect(h).toContain("checkpoint: the leader writes down each lease&#x27;s time left");
  });
});

describe("LogGridView markup", () => {
  const html = renderWithLab(<LogGridView view={fixture()} />);

  it("is an accessible table: caption, index headers, row headers", () => {
    expect(html).toContain('aria-labelledby="log-grid-title"');
    expect(html).toMatch(/<caption[^>]*>Log entries per node, indexes 9–14/);
    for (let i = 9; i <= 14; i++) expect(html).toContain(`<th scope="col" class="lg-index">${i}</th>`);
    expect(html.match(/<th scope="row"/g)?.length).toBe(4);
    expect(rowOf(html, "n1")).toContain('aria-label="n1, leader, term 3, commit index 12, the leader. Inspect"');
  });

  it("marks committed and uncommitted cells in words and classes, with the term colour", () => {
    const n1 = rowOf(html, "n1");
    const c12 = cellOf(n1, 12);
    expect(c12).toContain('aria-label="index 12, term 3, committed, key-value write (put k2)"');
    expect(c12).toContain("lg-committed");
    expect(c12).toContain(`--lg-bg:${termColor(3)}`);
    expect(cellOf(n1, 10)).toContain(`--lg-bg:${termColor(2)}`);
    const c13 = cellOf(n1, 13);
    expect(c13).toContain('aria-label="index 13, term 3, uncommitted, no-op of a new leader (noop)"');
    expect(c13).toContain("lg-uncommitted");
    expect(cellOf(n1, 11)).toContain('title="index 11, term 3, committed, lease request: no new token');
  });

  it("puts the commit bar after the cell at each node's commit index, and only there", () => {
    const n1 = rowOf(html, "n1");
    expect(cellOf(n1, 12)).toContain("lg-commit-after");
    expect(cellOf(n1, 11)).not.toContain("lg-commit-after");
    expect(cellOf(n1, 13)).not.toContain("lg-commit-after");
    expect(cellOf(rowOf(html, "n3"), 10)).toContain("lg-commit-after");
    expect(rowOf(html, "n4")).not.toContain("lg-commit");
  });

  it("draws the bar on the left edge when nothing in the window is committed", () => {
    const v = fixture();
    const nodes = v.nodes.map((n) => (n.id === "n3" ? { ...n, commitIndex: 4 } : n));
    const h = renderWithLab(<LogGridView view={{ ...v, nodes }} />);
    const n3 = rowOf(h, "n3");
    expect(cellOf(n3, 9)).toContain("lg-commit-before");
    expect(n3).not.toContain("lg-commit-after");
  });

  it("shows the leader's match ✓ and next ▸ on follower rows", () => {
    const n2 = rowOf(html, "n2");
    expect(cellOf(n2, 13)).toContain("leader&#x27;s match index");
    expect(cellOf(n2, 13)).toContain('class="lg-match"');
    expect(cellOf(n2, 14)).toContain('aria-label="index 14, no entry, leader&#x27;s next index"');
    expect(cellOf(n2, 14)).toContain('class="lg-next"');
    const n3 = rowOf(html, "n3");
    expect(cellOf(n3, 10)).toContain('class="lg-match"');
    expect(cellOf(n3, 11)).toContain('class="lg-next"');
    expect(n3).toContain("leader&#x27;s match index 10, next index 11");
    // next past the window: a ▸ after the last cell.
    expect(cellOf(rowOf(html, "n4"), 14)).toContain("lg-next lg-out-right");
    // Never on the leader's own row.
    expect(rowOf(html, "n1")).not.toMatch(/lg-match|lg-next/);
  });

  it("shows no match/next markers without a leader", () => {
    const h = renderWithLab(<LogGridView view={{ ...fixture(), leader: null }} />);
    expect(h).not.toMatch(/class="lg-(match|next)/);
    expect(h).toContain("match (no leader now)");
  });

  it("greys a down node's row, says down, and leaves its commit unknown", () => {
    const n4 = rowOf(html, "n4");
    expect(n4).toContain("lg-row-down");
    expect(n4).toContain(">down</span>");
    expect(n4).toContain("n4, down, term 3, commit index unknown");
    expect(cellOf(n4, 12)).toContain('aria-label="index 12, term 3, commit unknown (node down), key-value write (put k2)"');
    expect(n4).not.toContain("lg-committed");
    expect(n4).not.toContain("lg-uncommitted");
  });

  it("shows short labels only when there are few columns", () => {
    expect(html).toContain('<span class="lg-short">+h1</span>');
    const v = fixture();
    const wide = { ...v, logWindow: { from: 1, to: 24 }, nodes: v.nodes.map((n) => ({ ...n, entries: entries(1, 24, term, label) })) };
    const h = renderWithLab(<LogGridView view={wide} />);
    expect(h).not.toContain("lg-short");
    expect(h.match(/<th scope="col" class="lg-index">/g)?.length).toBe(24);
  });

  it("labels every other index when three-digit indexes crowd 24 columns, keeping all headers", () => {
    const v = fixture();
    const crowded = {
      ...v,
      logWindow: { from: 90, to: 113 },
      nodes: v.nodes.map((n) => ({ ...n, entries: entries(90, 113, term, label) })),
    };
    const h = renderWithLab(<LogGridView view={crowded} />);
    expect(h).toContain('<th scope="col" class="lg-index">100</th>');
    expect(h).toContain('<th scope="col" class="lg-index lg-index-minor">101</th>');
    expect(h.match(/<th scope="col" class="lg-index[^"]*">/g)?.length).toBe(24);
  });

  it("says so when every log is empty", () => {
    const v = fixture();
    const h = renderWithLab(
      <LogGridView view={{ ...v, logWindow: { from: 1, to: 0 }, nodes: v.nodes.map((n) => ({ ...n, entries: [] })) }} />,
    );
    expect(h).toContain("Every log is empty so far.");
    expect(h).not.toContain("<table");
  });
});

describe("a node whose whole log is before the window", () => {
  it("says where its log ends instead of showing an empty row", () => {
    const v = fixture();
    const behind = { ...v, nodes: v.nodes.map((n) => (n.id === "n3" ? { ...n, lastIndex: 4, entries: [] } : n)) };
    const row = rowOf(renderWithLab(<LogGridView view={behind} />), "n3");
    expect(row).toContain("ends at 4");
    expect(rowOf(renderWithLab(<LogGridView view={v} />), "n3")).not.toContain("ends at");
  });
});

describe("the snapshot boundary", () => {
  it("a row says where its snapshot ends, and cells compacted into it say so (not 'no entry')", () => {
    const v = fixture();
    // n3 installed the leader's snapshot up to 11: its log starts at 12 and is empty.
    const snap = { ...v, nodes: v.nodes.map((n) => (n.id === "n3" ? { ...n, lastIndex: 11, firstIndex: 12, snapshotIndex: 11, commitIndex: 11, entries: [] } : n)) };
    const row = rowOf(renderWithLab(<LogGridView view={snap} />), "n3");
    expect(row).toContain("snapshot ≤ 11");
    for (const i of [9, 10, 11]) {
      expect(cellOf(row, i)).toContain("lg-snap");
      expect(cellOf(row, i)).toContain(`index ${i}, in n3&#x27;s snapshot (up to 11), no longer in its log`);
    }
    expect(cellOf(row, 12)).toContain("no entry");
    // Without a snapshot, no boundary is drawn.
    expect(rowOf(renderWithLab(<LogGridView view={v} />), "n3")).not.toContain("snapshot ≤");
  });
});
