/**
 * The lease holders: one statechart drawn from the holder machine (shared by every
 * holder: a state is lit while some holder is in it, with that holder's badge on it),
 * and a table of the holders below it.
 */
import { eventWordsOf, stateWordsOf } from "../../worker/holderWords";
import { memo, useMemo } from "react";
import type { HolderView, SimView } from "../../worker/protocol";
import { selectHighlight, selectSelect, selectSelected, selectView, useLab } from "../store";
import { OKABE_ITO, PAUSED_COLOR } from "../theme";
import { graceText, holderBadgeText, holderRowLabel, holderStateWords, holderStatusText, replicaRoleText, STATE_MEANING, timeLeftText } from "./explain";
import {
  boxForState,
  type ChartEdge,
  holderChartLayout,
  LABEL_LINE,
  placeBadges,
  type StateBox,
  type StatechartLayout,
} from "./statechartLayout";
import "./panels.css";

/** A colour per top-level state (always with the state's name written in its box). */
const TONE: Record<string, string> = {
  idle: "#8a8a8a",
  requesting: OKABE_ITO.skyBlue,
  holding: OKABE_ITO.green,
  jeopardy: OKABE_ITO.orange,
  grace: OKABE_ITO.yellow,
  lost: OKABE_ITO.vermillion,
  releasing: OKABE_ITO.purple,
  released: "#8a8a8a",
};

/** `hex` mixed with white: share 0 is white, 1 the colour itself. */
export function tint(hex: string, share: number): string {
  const n = Number.parseInt(hex.slice(1), 16);
  const mix = (c: number): number => Math.round(255 + (c - 255) * share);
  const r = mix((n >> 16) & 255);
  const g = mix((n >> 8) & 255);
  const b = mix(n & 255);
  return `#${((1 << 24) | (r << 16) | (g << 8) | b).toString(16).slice(1)}`;
}

const toneOf = (id: string): string => TONE[id.split(".")[0] as string] ?? OKABE_ITO.blue;

export const DOWN_BOX = "down";

/** Which box each holder is drawn in (box id, or DOWN_BOX), in holder order. */
export function occupancy(layout: StatechartLayout, holders: readonly HolderView[]): Map<string, HolderView[]> {
  const out = new Map<string, HolderView[]>();
  const put = (k: string, h: HolderView): void => {
    const list = out.get(k);
    if (list === undefined) out.set(k, [h]);
    else list.push(h);
  };
  for (const h of holders) {
    if (h.status === "down" || h.state === "down") {
      put(DOWN_BOX, h);
      continue;
    }
    const box = boxForState(layout, h.state);
    if (box === null) continue;
    put(box, h);
    // Parents are lit too (less strongly).
    let p = layout.byId.get(box)?.parent ?? null;
    while (p !== null) {
      if (!out.has(`~${p}`)) out.set(`~${p}`, []);
      p = layout.byId.get(p)?.parent ?? null;
    }
  }
  return out;
}

/** The statechart's accessible description: who is where. */
export function chartSummary(holders: readonly HolderView[]): string {
  if (holders.length === 0) return "Holder statechart: no holders in this run.";
  const where = holders.map((h) => `${h.id} ${h.status === "down" ? "down" : h.state}${h.status === "paused" ? " (paused)" : ""}`);
  return `Holder statechart. ${where.join("; ")}.`;
}

export function HolderPanel() {
  const view = useLab(selectView);
  const select = useLab(selectSelect);
  const selected = useLab(selectSelected);
  const highlight = useLab(selectHighlight);
  if (view === null) return null;
  const selectedHolder = selected !== null && selected.kind === "holder" ? selected.id : null;
  return <HolderPanelView view={view} select={select} selected={selectedHolder} highlight={highlight} />;
}

export interface HolderPanelProps {
  readonly view: SimView;
  readonly select: (s: { kind: "holder"; id: string }) => void;
  /** The selected holder's id, if a holder is selected. */
  readonly selected: string | null;
  readonly highlight: readonly string[];
}

/** The panel itself, from props (HolderPanel feeds it from the store). */
export function HolderPanelView({ view, select, selected, highlight }: HolderPanelProps) {
  const layout = holderChartLayout();
  const holders = view.holders;
  const occ = useMemo(() => occupancy(layout, holders), [layout, holders]);
  return (
    <section className="panel holders-panel" aria-labelledby="holders-title">
      <h2 id="holders-title">{holders.some((h) => h.role !== null) ? "Database replicas (lease holders)" : "Lease holders"}</h2>
      {holders.length === 0 ? (
        <p className="muted">No lease holders in this run. Add some in Settings.</p>
      ) : (
        <>
          <svg
            className="statechart"
            viewBox={`0 0 ${layout.width} ${layout.height}`}
            style={{ width: `${layout.width / 16}rem` }}
            role="img"
            aria-label={chartSummary(holders)}
          >
            <defs>
              <marker id="sc-arrow" viewBox="0 0 8 8" refX="7.5" refY="4" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                <path d="M0,0 L8,4 L0,8 z" fill="#3a3a3a" />
              </marker>
              <marker
                id="sc-arrow-small"
                viewBox="0 0 8 8"
                refX="7.5"
                refY="4"
                markerWidth="5"
                markerHeight="5"
                orient="auto-start-reverse"
              >
                <path d="M0,0 L8,4 L0,8 z" fill="#6b6b6b" />
              </marker>
            </defs>
            <StateBoxes layout={layout} occ={occ} />
            <Edges layout={layout} />
            <Badges layout={layout} occ={occ} selected={selected} highlight={highlight} />
          </svg>
          {layout.notes.length > 0 && (
            <p className="sc-notes">
              Also, from several states:{" "}
              {layout.notes.map((n, i) => (
                <span key={n.text}>
                  {i > 0 ? "; " : ""}
                  “{eventWordsOf(n.event)}” from {n.from.map(stateWordsOf).join(", ")} → {stateWordsOf(n.to)}
                </span>
              ))}
              .
            </p>
          )}
          <HolderTable view={view} selected={selected} select={select} />
        </>
      )}
    </section>
  );
}

function StateBoxes({ layout, occ }: { layout: StatechartLayout; occ: ReadonlyMap<string, HolderView[]> }) {
  const downLit = (occ.get(DOWN_BOX)?.length ?? 0) > 0;
  return (
    <g className="sc-boxes">
      {layout.boxes.map((b) => (
        <Box key={b.id} box={b} lit={b.compound ? occ.has(`~${b.id}`) || occ.has(b.id) : occ.has(b.id)} initial={b.id === layout.initial} />
      ))}
      <g className={downLit ? "sc-box sc-down lit" : "sc-box sc-down"}>
        <rect
          x={layout.down.x}
          y={layout.down.y}
          width={layout.down.w}
          height={layout.down.h}
          rx={6}
          fill={downLit ? "#e4e4e4" : "#fff"}
          stroke={downLit ? "#4a4a4a" : "#9a9a9a"}
          strokeWidth={downLit ? 2 : 1}
          strokeDasharray="4 3"
        />
        <text x={layout.down.x + 6} y={layout.down.y + 14} className="sc-name">
          ✕ down
        </text>
      </g>
    </g>
  );
}

const Box = memo(function Box({ box, lit, initial }: { box: StateBox; lit: boolean; initial: boolean }) {
  const tone = toneOf(box.id);
  const fill = lit ? tint(tone, box.compound ? 0.18 : 0.5) : "#fff";
  const stroke = lit ? "#1a1a1a" : box.compound ? tint(tone, 0.9) : "#8a8a8a";
  return (
    <g className={`sc-box${lit ? " lit" : ""}${box.compound ? " compound" : ""}`} data-state={box.id}>
      <rect
        x={box.x}
        y={box.y}
        width={box.w}
        height={box.h}
        rx={box.compound ? 8 : 6}
        fill={fill}
        stroke={stroke}
        strokeWidth={lit ? 2 : box.compound ? 1.5 : 1}
      />
      <title>{stateWordsOf(box.id)}</title>
      <text x={box.x + 6} y={box.y + 13} className={box.compound ? "sc-name sc-compound-name" : "sc-name"}>
        {initial ? "▸ " : ""}
        {box.key}
      </text>
    </g>
  );
});

/** The arrows and their labels never change: drawn once. */
const Edges = memo(function Edges({ layout }: { layout: StatechartLayout }) {
  return (
    <g className="sc-edges">
      {layout.edges.map((e) => (
        <Edge key={e.id} e={e} />
      ))}
    </g>
  );
});

function Edge({ e }: { e: ChartEdge }) {
  const d = e.points.map((p, i) => `${i === 0 ? "M" : "L"}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(" ");
  return (
    <g className={e.inner ? "sc-edge inner" : "sc-edge"}>
      <title>{`${e.from} → ${e.to}: ${e.events.join(", ")}`}</title>
      <path d={d} fill="none" markerEnd={e.inner ? "url(#sc-arrow-small)" : "url(#sc-arrow)"} />
      {e.label !== null && (
        <text x={e.label.x} y={e.label.y} textAnchor={e.label.anchor} className="sc-label">
          {e.label.lines.map((l, i) => (
            <tspan key={l} x={e.label?.x} dy={i === 0 ? 0 : LABEL_LINE}>
              {l}
            </tspan>
          ))}
        </text>
      )}
    </g>
  );
}

function Badges({
  layout,
  occ,
  selected,
  highlight,
}: {
  layout: StatechartLayout;
  occ: ReadonlyMap<string, HolderView[]>;
  selected: string | null;
  highlight: readonly string[];
}) {
  const out: React.ReactNode[] = [];
  for (const [k, hs] of occ) {
    if (k.startsWith("~") || hs.length === 0) continue;
    const box = k === DOWN_BOX ? { ...layout.down, badgeY: layout.down.y + layout.down.h - 12 } : layout.byId.get(k);
    if (box === undefined) continue;
    const places = placeBadges(
      box,
      hs.map((h) => ({ id: h.id, text: holderBadgeText(h) })),
    );
    for (const p of places) {
      const one = p.ids.length === 1 ? hs.find((h) => h.id === p.ids[0]) : undefined;
      const paused = one?.status === "paused";
      const on = p.ids.some((id) => id === selected || highlight.includes(id));
      out.push(
        <g key={`${k}:${p.ids.join(",")}`} className={`sc-badge${on ? " on" : ""}${paused ? " paused" : ""}`}>
          <rect x={p.x} y={box.badgeY - 7} width={p.w} height={14} rx={7} fill={paused ? PAUSED_COLOR : "#1a1a1a"} />
          <text x={p.x + p.w / 2} y={box.badgeY + 3.5} textAnchor="middle" fill={paused ? "#000" : "#fff"}>
            {p.text}
          </text>
        </g>,
      );
    }
  }
  return <g className="sc-badges">{out}</g>;
}

function HolderTable({
  view,
  selected,
  select,
}: {
  view: SimView;
  selected: string | null;
  select: (s: { kind: "holder"; id: string }) => void;
}) {
  return (
    <table className="holders-table">
      <thead>
        <tr>
          <th scope="col">{view.holders.some((h) => h.role !== null) ? "Replica" : "Holder"}</th>
          <th scope="col">State</th>
          <th scope="col">Token</th>
          <th scope="col" title="Until its own deadline, on its own clock">
            Time left
          </th>
          <th scope="col" title="The node it believes leads">
            Leader
          </th>
          <th scope="col">
            Writes <span aria-hidden="true">✓/✗</span>
            <span className="sr-only">accepted / rejected</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {view.holders.map((h) => (
          <HolderRow
            key={h.id}
            h={h}
            timeLeft={h.status === "down" ? "—" : timeLeftText(h.deadlineAt, view.now)}
            selected={h.id === selected}
            select={select}
          />
        ))}
      </tbody>
    </table>
  );
}

/** One holder's row; it gets its time left as text, so rows without a lease skip re-rendering. */
const HolderRow = memo(function HolderRow({
  h,
  timeLeft,
  selected,
  select,
}: {
  h: HolderView;
  timeLeft: string;
  selected: boolean;
  select: (s: { kind: "holder"; id: string }) => void;
}) {
  const down = h.status === "down";
  const grace = graceText(h);
  const status = holderStatusText(h);
  const role = replicaRoleText(h);
  return (
    <tr aria-label={holderRowLabel(h)} className={`holder-row${selected ? " selected" : ""}${down ? " down" : ""}`}>
      <th scope="row">
        <button
          type="button"
          className="small holder-pick"
          aria-label={`Inspect holder ${h.id}`}
          aria-current={selected ? "true" : undefined}
          onClick={() => select({ kind: "holder", id: h.id })}
        >
          {h.id}
        </button>
      </th>
      <td>
        {role !== null && <div className={`replica-role role-${h.role}`}>{role}</div>}
        <span
          className="state-chip"
          style={{ borderColor: down ? "#9a9a9a" : toneOf(h.state) }}
          title={STATE_MEANING[down ? "down" : (h.state.split(".")[0] as string)]}
        >
          {down ? "✕ down (crashed)" : holderStateWords(h.state)}
        </span>
        {status !== "running" && !down && (
          <div className="sub status-flag">
            {h.status === "paused" && <span aria-hidden="true">⏸ </span>}
            {status}
          </div>
        )}
      </td>
      <td className="num">{h.token ?? "—"}</td>
      <td className="time">
        {timeLeft}
        {grace !== null && !down && <div className="sub">{grace}</div>}
      </td>
      <td>{h.target ?? "—"}</td>
      <td className="num">
        <span className="ok">✓{h.writesAccepted}</span> <span className={h.writesRejected > 0 ? "bad" : ""}>✗{h.writesRejected}</span>
      </td>
    </tr>
  );
});
