/**
 * The log grid: one row per node, one column per log index in the shared window. Each
 * cell shows what the entry does (a framed letter: G12 a grant whose fencing token is 12,
 * C a checkpoint, E an expiry…: logKinds.ts) and its term (colour plus number); committed entries are solid,
 * uncommitted ones hatched with a dashed border; a thick bar follows each node's
 * commit index; on follower rows, the leader's match (✓) and next (▸) indexes.
 */
import { type CSSProperties, memo } from "react";
import type { EntryView, NodeView, SimView } from "../../worker/protocol";
import { nodeLabel, nodeState } from "../format";
import { useShallow } from "zustand/react/shallow";
import { selectHighlight, selectSelect, useLab } from "../store";
import { ROLE_COLOR, ROLE_GLYPH, termColor, textOn } from "../theme";
import { ENTRY_KINDS, KIND_ORDER, kindBadge, kindSentence, knownTokens } from "./logKinds";
import "./LogGrid.css";

/** At most this many columns get a short label under the term (wider cells). */
export const SHORT_LABEL_MAX_COLUMNS = 12;

export function LogGrid() {
  // Nodes, window and leader only (not the clock or the leases). Node views change often (an election timer reset is enough), so the rows memoise on what they draw.
  const part = useLab(useShallow((s) => (s.view === null ? null : { nodes: s.view.nodes, logWindow: s.view.logWindow, leader: s.view.leader, leases: s.view.leases })));
  if (part === null) return null;
  return <LogGridView view={part} />;
}

/** A very short form of an entry label, for wide cells: "grant lock h1" -> "+h1". */
export function shortLabel(label: string): string {
  const words = label.split(" ");
  const first = words[0] ?? "";
  switch (first) {
    case "noop":
      return "noop";
    case "grant":
      return `+${words[2] ?? words[1] ?? ""}`;
    case "revoke":
      return `−${words[2] ?? words[1] ?? ""}`;
    case "expire":
      return "exp";
    case "refresh":
      return "ref";
    case "checkpoint":
      return "ckpt";
    case "put":
    case "get":
    case "delete":
    case "del":
      return words[1] ?? first;
    default:
      return first.slice(0, 4);
  }
}

/** Committed, uncommitted, or unknown (a down node has no commit index). */
export type CommitState = "committed" | "uncommitted" | "unknown";

export function commitState(index: number, commitIndex: number | null): CommitState {
  if (commitIndex === null) return "unknown";
  return index <= commitIndex ? "committed" : "uncommitted";
}

/** The accessible name of a cell: "index 12, term 3, committed, grant lock h1". */
export function cellLabel(e: EntryView, state: CommitState, marks: { match: boolean; next: boolean }, tokens: ReadonlySet<number> = new Set()): string {
  const commit = state === "unknown" ? "commit unknown (node down)" : state;
  const extra = `${marks.match ? ", leader's match index" : ""}${marks.next ? ", leader's next index" : ""}`;
  return `index ${e.index}, term ${e.term}, ${commit}, ${kindSentence(e, tokens)} (${e.label})${extra}`;
}

/** The leader's progress for one follower, or null. */
interface Progress {
  readonly next: number;
  readonly match: number;
}

export function LogGridView({ view }: { view: Pick<SimView, "nodes" | "logWindow" | "leader"> & Partial<Pick<SimView, "leases">> }) {
  const from = view.logWindow.from;
  const to = view.logWindow.to;
  const cols = Math.max(0, to - from + 1);
  const leaderNode = view.leader === null ? null : (view.nodes.find((n) => n.id === view.leader) ?? null);
  const progress = new Map<string, Progress>();
  if (leaderNode !== null) for (const p of leaderNode.progress) progress.set(p.peer, { next: p.next, match: p.match });
  const indexes: number[] = [];
  for (let i = from; i <= to; i++) indexes.push(i);
  const short = cols > 0 && cols <= SHORT_LABEL_MAX_COLUMNS;
  // Three-digit indexes do not fit narrow columns: label every other one (all stay in the markup).
  const crowded = cols > 16 && to >= 100;
  const highlight = useLab(selectHighlight);
  const tokenList = [...knownTokens(view.leases ?? [])].sort((a, b) => a - b).join(",");
  return (
    <section className="panel log-grid" aria-labelledby="log-grid-title">
      <h2 id="log-grid-title">Raft logs</h2>
      {cols === 0 ? (
        <p className="lg-empty">Every log is empty so far.</p>
      ) : (
        <div className="lg-scroll">
          <table className="lg-table" style={{ width: `min(100%, max(22rem, ${4.5 + cols * 3}rem))` }}>
            <caption className="lg-caption">
              Log entries per node, indexes {from}–{to}
            </caption>
            <colgroup>
              <col className="lg-col-node" />
              {indexes.map((i) => (
                <col key={i} />
              ))}
            </colgroup>
            <thead>
              <tr>
                <th scope="col" className="lg-corner">
                  node
                </th>
                {indexes.map((i) => (
                  <th key={i} scope="col" className={crowded && i % 2 === 1 ? "lg-index lg-index-minor" : "lg-index"}>
                    {i}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {view.nodes.map((n) => {
                const p = n.id === view.leader ? null : (progress.get(n.id) ?? null);
                return (
                  <LogRow
                    key={n.id}
                    node={n}
                    entries={n.entries}
                    from={from}
                    to={to}
                    short={short}
                    isLeader={n.id === view.leader}
                    next={p?.next ?? null}
                    match={p?.match ?? null}
                    highlighted={highlight.includes(n.id)}
                    tokens={tokenList}
                  />
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {cols > 0 && <KindLegend />}
      {cols > 0 && <Legend leader={leaderNode?.id ?? null} />}
    </section>
  );
}

interface LogRowProps {
  readonly node: NodeView;
  readonly entries: readonly EntryView[];
  readonly from: number;
  readonly to: number;
  readonly short: boolean;
  readonly isLeader: boolean;
  readonly next: number | null;
  readonly match: number | null;
  readonly highlighted: boolean;
  /** The known fencing tokens, "5,38" (a string, so the row's memo compares it cheaply). */
  readonly tokens: string;
}

function sameEntries(a: readonly EntryView[], b: readonly EntryView[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as EntryView;
    const y = b[i] as EntryView;
    if (x.index !== y.index || x.term !== y.term || x.label !== y.label || x.kind !== y.kind) return false;
  }
  return true;
}

/** Re-renders only when something drawn in the row changed (panel views arrive up to 10 times a second). */
function sameRow(a: LogRowProps, b: LogRowProps): boolean {
  return (
    a.from === b.from &&
    a.to === b.to &&
    a.short === b.short &&
    a.isLeader === b.isLeader &&
    a.next === b.next &&
    a.match === b.match &&
    a.highlighted === b.highlighted &&
    a.tokens === b.tokens &&
    a.node.id === b.node.id &&
    a.node.status === b.node.status &&
    a.node.role === b.node.role &&
    a.node.term === b.node.term &&
    a.node.commitIndex === b.node.commitIndex &&
    a.node.lastIndex === b.node.lastIndex &&
    a.node.firstIndex === b.node.firstIndex &&
    a.node.snapshotIndex === b.node.snapshotIndex &&
    sameEntries(a.entries, b.entries)
  );
}

const LogRow = memo(function LogRow({ node, entries, from, to, short, isLeader, next, match, highlighted, tokens: tokenList }: LogRowProps) {
  const tokens = new Set(tokenList === "" ? [] : tokenList.split(",").map(Number));
  const select = useLab(selectSelect);
  const st = nodeState(node);
  const down = st === "down";
  const paused = node.status === "paused";
  const commit = node.commitIndex;
  const byIndex = new Map<number, EntryView>();
  for (const e of entries) byIndex.set(e.index, e);
  const cells = [];
  // Commit high-water mark: a bar after the cell at commitIndex, or on the left edge when nothing in the window is committed.
  const commitBefore = commit !== null && commit < from;
  // Markers outside the window are shown at the edge (before the first cell, after the last).
  const matchBefore = match !== null && match < from && match > 0;
  const nextBefore = next !== null && next < from;
  const nextAfter = next !== null && next > to;
  for (let i = from; i <= to; i++) {
    const e = byIndex.get(i);
    const isMatch = match === i;
    const isNext = next === i;
    const cls = ["lg-cell"];
    if (commit !== null && commit === i) cls.push("lg-commit-after");
    if (i === from && commitBefore) cls.push("lg-commit-before");
    const markers = (
      <>
        {i === from && matchBefore && (
          <span className="lg-match lg-out-left" title={`match index ${match}, before this window`} aria-hidden="true">
            ‹✓
          </span>
        )}
        {i === from && nextBefore && (
          <span className="lg-next lg-out-left" title={`next index ${next}, before this window`} aria-hidden="true">
            ‹▸
          </span>
        )}
        {i === to && nextAfter && (
          <span className="lg-next lg-out-right" title={`next index ${next}: the follower has everything`} aria-hidden="true">
            ▸
          </span>
        )}
        {isMatch && (
          <span className="lg-match" aria-hidden="true">
            ✓
          </span>
        )}
        {isNext && (
          <span className="lg-next" aria-hidden="true">
            ▸
          </span>
        )}
      </>
    );
    if (e === undefined && i < node.firstIndex) {
      // Compacted away: the snapshot holds what this entry did.
      cls.push("lg-snap");
      const what = `index ${i}, in ${node.id}'s snapshot (up to ${node.snapshotIndex}), no longer in its log${isMatch ? ", leader's match index" : ""}${isNext ? ", leader's next index" : ""}`;
      cells.push(
        <td key={i} className={cls.join(" ")} aria-label={what} title={what}>
          <span className="lg-snap-mark" aria-hidden="true">
            S
          </span>
          {markers}
        </td>,
      );
      continue;
    }
    if (e === undefined) {
      cls.push("lg-none");
      const what = `index ${i}, no entry${isMatch ? ", leader's match index" : ""}${isNext ? ", leader's next index" : ""}`;
      cells.push(
        <td key={i} className={cls.join(" ")} aria-label={what} title={what}>
          {markers}
        </td>,
      );
      continue;
    }
    const state = commitState(i, commit);
    cls.push(`lg-${state}`);
    const bg = termColor(e.term);
    const label = cellLabel(e, state, { match: isMatch, next: isNext }, tokens);
    cells.push(
      <td
        key={i}
        className={cls.join(" ")}
        style={{ "--lg-bg": bg, "--lg-fg": textOn(bg) } as CSSProperties}
        aria-label={label}
        title={label}
      >
        <span className={`lg-kind lg-kind-${e.kind}`} style={{ "--lg-kind": ENTRY_KINDS[e.kind].color } as CSSProperties}>
          {kindBadge(e, tokens)}
        </span>
        <span className="lg-term">{e.term}</span>
        {short && <span className="lg-short">{e.kind === "grant" && tokens.has(e.index) ? `token ${e.index}` : shortLabel(e.label)}</span>}
        {markers}
      </td>,
    );
  }
  const rowCls = ["lg-row", `lg-row-${st}`];
  if (isLeader) rowCls.push("lg-row-leader");
  if (paused) rowCls.push("lg-row-paused");
  if (highlighted) rowCls.push("lg-hl");
  const progressText =
    match !== null && next !== null ? `, leader's match index ${match}, next index ${next}` : isLeader ? ", the leader" : "";
  const commitText = commit === null ? ", commit index unknown" : `, commit index ${commit}`;
  return (
    <tr className={rowCls.join(" ")} data-node={node.id}>
      <th scope="row" className="lg-node">
        <button
          type="button"
          className="lg-node-btn"
          onClick={() => select({ kind: "node", id: node.id })}
          aria-label={`${nodeLabel(node)}${commitText}${progressText}. Inspect`}
          title={`${nodeLabel(node)}${commitText}${progressText}`}
        >
          <span className="lg-glyph" style={{ color: down ? "#6b6b6b" : ROLE_COLOR[st] }} aria-hidden="true">
            {ROLE_GLYPH[st]}
          </span>
          <span className="lg-id">{node.id}</span>
        </button>
        {(down || paused) && (
          <span className="lg-down-word" aria-hidden="true">
            {down ? "down" : "paused"}
          </span>
        )}
        {node.snapshotIndex > 0 && (
          <span
            className="lg-snap-word"
            title={`${node.id} has a snapshot of its state up to index ${node.snapshotIndex}; its log starts at ${node.firstIndex}`}
          >
            snapshot ≤ {node.snapshotIndex}
          </span>
        )}
        {node.lastIndex < from && (
          // Its whole log lies before the window: say where it ends instead of an empty row.
          <span className="lg-down-word" title={`${node.id}'s log ends at index ${node.lastIndex}`}>
            ends at {node.lastIndex}
          </span>
        )}
      </th>
      {cells}
    </tr>
  );
}, sameRow);

function Legend({ leader }: { leader: string | null }) {
  return (
    <ul className="lg-legend" aria-label="Key">
      <li>
        <span className="lg-key lg-key-committed" aria-hidden="true">
          3
        </span>
        solid: committed
      </li>
      <li>
        <span className="lg-key lg-key-uncommitted" aria-hidden="true">
          3
        </span>
        hatched, dashed border: not yet committed
      </li>
      <li>
        <span className="lg-key lg-key-commit" aria-hidden="true" />
        commit index
      </li>
      <li className={leader !== null ? undefined : "lg-legend-off"}>
        <span className="lg-key-glyph" aria-hidden="true">
          ✓
        </span>
        {leader !== null ? `match: leader ${leader} knows the follower has up to here` : "match (no leader now)"}
      </li>
      <li className={leader !== null ? undefined : "lg-legend-off"}>
        <span className="lg-key-glyph" aria-hidden="true">
          ▸
        </span>
        next: the index the leader sends next
      </li>
      <li>
        <span className="lg-key lg-snap" aria-hidden="true">
          S
        </span>
        compacted into the node's snapshot ("snapshot ≤ N": its state up to index N)
      </li>
      <li>number = term; ✕ down rows are grey</li>
    </ul>
  );
}

/** What the letters in the cells mean. */
export function KindLegend() {
  return (
    <ul className="lg-legend lg-kind-legend" aria-label="Kinds of entry">
      {KIND_ORDER.map((k) => (
        <li key={k} data-kind={k}>
          <span className={`lg-kind lg-kind-${k}`} style={{ "--lg-kind": ENTRY_KINDS[k].color } as CSSProperties} aria-hidden="true">
            {k === "grant" ? "G12" : ENTRY_KINDS[k].glyph}
          </span>
          {ENTRY_KINDS[k].words}
        </li>
      ))}
    </ul>
  );
}
