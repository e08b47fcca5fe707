/**
 * The lease timeline: for each lease, the leader's view of who holds it (one lane) and
 * each holder's own belief (one lane per holder), side by side on one time axis that
 * runs from 3 TTLs ago to 1 TTL ahead, or where the user zoomed and scrolled it
 * (TimelineZoom.tsx). The gap between "I still hold it" and "it has
 * expired" is the point. x positions are percentages and y positions are em, so the
 * SVG needs no measuring and scales with the presenter zoom.
 */
import { formatInstant } from "../../core/sim/time";
import { type ReactNode, useId, useMemo, useState } from "react";
import type { HolderView, LeaseRowView, SimView } from "../../worker/protocol";
import { selectHighlight, selectSelect, selectView, useLab } from "../store";
import { textOn } from "../theme";
import "./LeaseTimeline.css";
import {
  type Bar,
  FOLLOW_NOW,
  historyStart,
  type HolderLane,
  holderColor,
  holderLanes,
  holderLaneSummary,
  holderLaneWords,
  leaderBars,
  leaderCountdown,
  leaderDeadline,
  leaderMarks,
  leaseDetails,
  leaseSummary,
  MARK_GLYPH,
  MARK_TEXT,
  maxTtlMs,
  type PlacedMark,
  pct,
  type Slide,
  slideOf,
  stateWords,
  type TimeWindow,
  type Tick,
  ticks,
  windowSpan,
  xPct,
  type ZoomState,
  zoomedWindow,
} from "./timelineScale";
import { ZoomArea, ZoomControls } from "./TimelineZoom";

/** Lane geometry, in em of the track's font size. */
const LANE = 2.2;
const BAR_Y = 0.2;
const BAR_H = 1.2;
const LABEL_Y = 1.08;
/** Marks are drawn smaller (MARK_SCALE em) in a strip under the bar. */
const MARK_SCALE = 0.85;
const MARK_Y = 2.05;
/** A bar needs this share of the track (percent) for its "h2 #33" label. */
const LABEL_MIN_PCT = 9;

const em = (v: number): string => `${Math.round(v * 1000) / 1000}em`;

export function LeaseTimeline() {
  const view = useLab(selectView);
  if (view === null) return null;
  return <LeaseTimelineView view={view} />;
}

/** The panel for a given view (the store-free part, for tests). */
export function LeaseTimelineView({ view }: { view: SimView }) {
  const ttl = maxTtlMs(view.leases);
  // The window's size changes only with the TTL, so the scale does not jump.
  const span = useMemo(() => windowSpan(ttl), [ttl]);
  const [zoom, setZoom] = useState<ZoomState>(FOLLOW_NOW);
  const earliest = historyStart(view.leases, view.now);
  const w = zoomedWindow(view.now, span, zoom, earliest);
  const nowX = xPct(view.now, w);
  const tickList = ticks(w);
  const slide = slideOf(w);
  const ids = useIds();
  const leaderNode = view.leader;
  return (
    <section className="panel lease-timeline" aria-labelledby="lease-timeline-title">
      <h2 id="lease-timeline-title">Lease timeline</h2>
      {view.leases.length === 0 ? (
        <p className="lt-empty">No lease holders in this run. Add some in Settings.</p>
      ) : (
        <>
          <Patterns ids={ids} />
          <p className="lt-intro">
            Top lane: who the <strong>leader</strong> thinks holds the lease. Lanes below: what each <strong>holder</strong> believes. From{" "}
            {formatInstant(Math.max(0, w.from))} to {formatInstant(w.to)}; now is {formatInstant(view.now)}.
          </p>
          <ZoomControls zoom={zoom} setZoom={setZoom} w={w} earliest={earliest} />
          <ZoomArea zoom={zoom} setZoom={setZoom} w={w} earliest={earliest}>
            <Axis ticks={tickList} nowX={nowX} slide={slide} />
            {view.leases.map((row) => (
              <LeaseBlock
                key={row.name}
                row={row}
                holders={view.holders}
                w={w}
                ticks={tickList}
                ids={ids}
                leader={leaderNode}
                nowX={nowX}
                slide={slide}
              />
            ))}
          </ZoomArea>
          <Legend ids={ids} />
        </>
      )}
    </section>
  );
}

interface PatternIds {
  readonly future: string;
  readonly grace: string;
}

function useIds(): PatternIds {
  const raw = useId().replace(/[^A-Za-z0-9_-]/g, "");
  return useMemo(() => ({ future: `lt-future-${raw}`, grace: `lt-grace-${raw}` }), [raw]);
}

/** Hatch patterns shared by every lane (one hidden SVG per panel). */
function Patterns({ ids }: { ids: PatternIds }) {
  return (
    <svg className="lt-defs" width="0" height="0" aria-hidden="true" focusable="false">
      <defs>
        <pattern id={ids.future} patternUnits="userSpaceOnUse" width="6" height="6" patternTransform="rotate(45)">
          <line x1="0" y1="0" x2="0" y2="6" stroke="#1a1a1a" strokeWidth="1.6" strokeOpacity="0.45" />
        </pattern>
        <pattern id={ids.grace} patternUnits="userSpaceOnUse" width="7" height="7">
          <path d="M0 0 L7 7 M7 0 L0 7" stroke="#1a1a1a" strokeWidth="1.2" strokeOpacity="0.7" />
        </pattern>
      </defs>
    </svg>
  );
}

/** The shared time axis: tick labels in seconds of virtual time, and "now". */
function Axis({ ticks: tickList, nowX, slide }: { ticks: readonly Tick[]; nowX: number; slide: Slide }) {
  return (
    <div className="lt-row lt-axis-row" aria-hidden="true">
      <div className="lt-labels" />
      <svg className="lt-axis" style={{ height: em(AXIS_H) }}>
        <title>Time axis, seconds of virtual time</title>
        <Sliding slide={slide}>
          {tickList.map((t) =>
            t.x < 3 || t.x > 97 ? null : (
              <g key={t.key}>
                <line x1={pct(slide.at(t.x))} x2={pct(slide.at(t.x))} y1={em(AXIS_H - 0.45)} y2={em(AXIS_H)} className="lt-tick" />
                <text x={pct(slide.at(t.x))} y={em(AXIS_H - 0.6)} textAnchor="middle" className="lt-tick-label">
                  {t.label}
                </text>
              </g>
            ),
          )}
        </Sliding>
        <text x={pct(nowX)} y={em(0.9)} textAnchor={nowX > 94 ? "end" : "middle"} className="lt-now-label">
          now ▾
        </text>
      </svg>
    </div>
  );
}

const AXIS_H = 2.6;

/** A nested <svg> moved by the slide's shift: what is inside keeps its x while the window slides (see slideOf). */
function Sliding({ slide, children }: { slide: Slide; children?: ReactNode }) {
  return (
    // Inside the track's role="img" (its title says it all) or the hidden axis: nothing here for assistive technology.
    <svg x={pct(slide.shift)} y="0" width="100%" height="100%" overflow="visible" className="lt-slide" aria-hidden="true">
      {children}
    </svg>
  );
}

interface LeaseBlockProps {
  readonly row: LeaseRowView;
  readonly holders: readonly HolderView[];
  readonly w: TimeWindow;
  readonly ticks: readonly Tick[];
  readonly ids: PatternIds;
  readonly leader: string | null;
  /** Where now is on the track (percent); it moves when the window is scrolled. */
  readonly nowX: number;
  readonly slide: Slide;
}

function LeaseBlock({ row, holders, w, ticks: tickList, ids, leader, nowX, slide }: LeaseBlockProps) {
  const select = useLab(selectSelect);
  const highlight = useLab(selectHighlight);
  const lBars = leaderBars(row, w);
  const lMarks = leaderMarks(row, w);
  const lDeadline = leaderDeadline(row, w);
  const lanes = holderLanes(row, holders, w);
  const summary = leaseSummary(row, w.now);
  const titleId = `lt-title-${row.name.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  const laneCount = 1 + lanes.length;
  const leaderId = row.leaderId ?? leader;
  const svgTitle = [
    `Timeline of lease ${row.name}.`,
    leaderLaneWords(row, w.now),
    ...lanes.map((l) => holderLaneSummary(l, row.name, w.now)),
  ].join(" ");
  return (
    <article className="lt-lease" aria-label={summary}>
      <h3 className="lt-head">
        <span className="lt-name">{row.name}</span>
        <span className={`lt-state lt-state-${row.state}`}>{stateWords(row)}</span>
        {row.token > 0 && <span className="lt-token">token {row.token}</span>}
        <span className="lt-countdown">{leaderCountdown(row, w.now)}</span>
      </h3>
      <p className="lt-detail">{leaseDetails(row)}</p>
      <div className="lt-row">
        <div className="lt-labels">
          <div className="lt-lane-label lt-leader-label" style={{ height: em(LANE) }}>
            {leaderId !== null ? (
              <button
                type="button"
                className="lt-lane-btn"
                onClick={() => select({ kind: "node", id: leaderId })}
                aria-label={`Inspect leader ${leaderId}`}
              >
                leader {leaderId}
              </button>
            ) : (
              <span className="lt-lane-text">leader: none</span>
            )}
          </div>
          {lanes.map((l) => (
            <div key={l.id} className={highlight.includes(l.id) ? "lt-lane-label lt-hl" : "lt-lane-label"} style={{ height: em(LANE) }}>
              <button
                type="button"
                className="lt-lane-btn"
                onClick={() => select({ kind: "holder", id: l.id })}
                aria-label={`Inspect holder ${l.id}`}
              >
                <span className="lt-swatch" style={{ background: holderColor(l.id) }} aria-hidden="true" />
                {l.id}
              </button>
              <span className="lt-lane-state">{laneStateGlyph(l.holder)}</span>
            </div>
          ))}
        </div>
        <svg className="lt-track" style={{ height: em(LANE * laneCount) }} role="img" aria-labelledby={titleId}>
          <title id={titleId}>{svgTitle}</title>
          <rect x="0" y="0" width="100%" height={em(LANE)} className="lt-leader-band" />
          {lanes.map((l, i) =>
            i % 2 === 1 ? <rect key={l.id} x="0" y={em(LANE * (i + 1))} width="100%" height={em(LANE)} className="lt-band" /> : null,
          )}
          <Sliding slide={slide}>
            {tickList.map((t) => (
              <line key={t.key} x1={pct(slide.at(t.x))} x2={pct(slide.at(t.x))} y1="0" y2="100%" className="lt-grid" />
            ))}
          </Sliding>
          <line x1="0" x2="100%" y1={em(LANE)} y2={em(LANE)} className="lt-lane-sep" />
          <Lane y0={0} bars={lBars} marks={lMarks} ids={ids} slide={slide} />
          {lDeadline !== null && (
            <line x1={pct(lDeadline)} x2={pct(lDeadline)} y1={em(0.05)} y2={em(BAR_Y + BAR_H + 0.15)} className="lt-leader-deadline">
              <title>{`leader's expiry deadline, ${formatInstant(row.leaderExpiresAt ?? 0)}`}</title>
            </line>
          )}
          {lanes.map((l, i) => (
            <HolderLaneG key={l.id} lane={l} y0={LANE * (i + 1)} ids={ids} nowX={nowX} slide={slide} />
          ))}
          <line x1={pct(nowX)} x2={pct(nowX)} y1="0" y2="100%" className="lt-now" />
        </svg>
      </div>
    </article>
  );
}

const SHORT_STATE: Record<string, string> = { requesting: "asking", releasing: "releasing", released: "released" };

function laneStateGlyph(h: HolderView | null): string {
  const words = holderLaneWords(h);
  // The lane label has room for one short word; the full state is in the SVG's title.
  if (h !== null && h.status === "paused") return "paused";
  return SHORT_STATE[words] ?? words;
}

function leaderLaneWords(row: LeaseRowView, now: number): string {
  const open = row.leaderSpans.find((s) => s.to === null);
  if (open === undefined) return "Leader's view: nobody holds it now.";
  return `Leader's view: ${open.holder} holds token ${open.token}; ${leaderCountdown(row, now)}.`;
}

interface LaneProps {
  readonly y0: number;
  readonly bars: readonly Bar[];
  readonly marks: readonly PlacedMark[];
  readonly ids: PatternIds;
  readonly slide: Slide;
}

/** Bars (solid up to now, hatched after) and marks of one lane. */
function Lane({ y0, bars, marks, ids, slide }: LaneProps) {
  return (
    <g>
      {bars.map((b) => (
        <BarG key={b.key} bar={b} y0={y0} ids={ids} />
      ))}
      <Marks marks={marks} y0={y0} slide={slide} />
    </g>
  );
}

function BarG({ bar, y0, ids }: { bar: Bar; y0: number; ids: PatternIds }) {
  const color = holderColor(bar.holder);
  const y = em(y0 + BAR_Y);
  const h = em(BAR_H);
  const total = bar.solid + bar.future;
  const futureX = bar.x + bar.solid;
  return (
    <g className={bar.open ? "lt-bar lt-open" : "lt-bar"}>
      <title>{`${bar.holder}, token ${bar.token}${bar.open ? ", still open" : bar.endKind !== null ? `, ended: ${bar.endKind}` : ""}`}</title>
      {bar.solid > 0 && <rect x={pct(bar.x)} y={y} width={pct(bar.solid)} height={h} fill={color} className="lt-solid" />}
      {bar.future > 0 && (
        <>
          <rect x={pct(futureX)} y={y} width={pct(bar.future)} height={h} fill={color} fillOpacity={0.35} />
          <rect x={pct(futureX)} y={y} width={pct(bar.future)} height={h} fill={`url(#${ids.future})`} className="lt-future" />
        </>
      )}
      {total >= LABEL_MIN_PCT && (
        // A nested viewport clips the label to its bar (it never runs into the next one).
        <svg x={pct(bar.x)} y={y} width={pct(total)} height={h} className="lt-bar-clip" aria-hidden="true">
          <text
            x="0"
            dx="0.3em"
            y={em(LABEL_Y - BAR_Y)}
            className="lt-bar-label"
            fill={bar.solid >= LABEL_MIN_PCT ? textOn(color) : "#1a1a1a"}
          >
            {`${bar.holder} #${bar.token}`}
          </text>
        </svg>
      )}
    </g>
  );
}

function Marks({ marks, y0, slide }: { marks: readonly PlacedMark[]; y0: number; slide: Slide }) {
  if (marks.length === 0) return null;
  return (
    <Sliding slide={slide}>
      <g className="lt-marks" fontSize={`${MARK_SCALE}em`}>
        {marks.map((m) => (
          <text
            key={m.key}
            x={pct(slide.at(m.x))}
            y={em((y0 + MARK_Y) / MARK_SCALE)}
            textAnchor="middle"
            className={`lt-mark lt-mark-${m.kind}`}
          >
            <title>{m.title}</title>
            {m.glyph}
          </text>
        ))}
      </g>
    </Sliding>
  );
}

function HolderLaneG({ lane, y0, ids, nowX, slide }: { lane: HolderLane; y0: number; ids: PatternIds; nowX: number; slide: Slide }) {
  const color = holderColor(lane.id);
  const y = em(y0 + BAR_Y);
  const h = em(BAR_H);
  const paused = lane.holder !== null && lane.holder.status === "paused";
  return (
    <g className="lt-holder-lane">
      <Lane y0={y0} bars={lane.bars} marks={lane.marks} ids={ids} slide={slide} />
      {lane.ahead !== null && (
        <g>
          <title>{`${lane.id} expects to hold it until its own deadline`}</title>
          <rect x={pct(lane.ahead.x)} y={y} width={pct(lane.ahead.width)} height={h} fill={color} fillOpacity={0.35} />
          <rect x={pct(lane.ahead.x)} y={y} width={pct(lane.ahead.width)} height={h} fill={`url(#${ids.future})`} className="lt-future" />
        </g>
      )}
      {lane.grace !== null && (
        <rect x={pct(lane.grace.x)} y={y} width={pct(lane.grace.width)} height={h} fill={`url(#${ids.grace})`} className="lt-grace">
          <title>{`${lane.id}'s grace period`}</title>
        </rect>
      )}
      {lane.deadline !== null && (
        <line
          x1={pct(lane.deadline)}
          x2={pct(lane.deadline)}
          y1={em(y0 + 0.05)}
          y2={em(y0 + BAR_Y + BAR_H + 0.15)}
          className="lt-holder-deadline"
        >
          <title>{`${lane.id}'s own deadline`}</title>
        </line>
      )}
      {paused && (
        <text x={pct(nowX)} dx="-0.4em" y={em(y0 + LABEL_Y)} textAnchor="end" className="lt-paused">
          ❚❚ paused
        </text>
      )}
    </g>
  );
}

const LEGEND_MARKS = [
  "grant",
  "refresh",
  "refresh-denied",
  "deny",
  "expiring",
  "expire",
  "revoke",
  "extended",
  "jeopardy",
  "grace",
  "grace-renewed",
  "lost",
] as const;

function Legend({ ids }: { ids: PatternIds }) {
  return (
    <div className="lt-legend">
      <ul className="lt-legend-bars" aria-label="Bars">
        <li>
          <svg className="lt-key" viewBox="0 0 24 12" aria-hidden="true">
            <rect x="0" y="1" width="24" height="10" fill="#56B4E9" />
          </svg>
          held
        </li>
        <li>
          <svg className="lt-key" viewBox="0 0 24 12" aria-hidden="true">
            <rect x="0" y="1" width="24" height="10" fill="#56B4E9" fillOpacity={0.35} />
            <rect x="0" y="1" width="24" height="10" fill={`url(#${ids.future})`} />
          </svg>
          ahead, until the deadline
        </li>
        <li>
          <svg className="lt-key" viewBox="0 0 24 12" aria-hidden="true">
            <rect x="0" y="1" width="24" height="10" fill={`url(#${ids.grace})`} stroke="#1a1a1a" strokeDasharray="2 2" />
          </svg>
          grace period
        </li>
        <li>
          <span className="lt-key-line lt-key-leader" aria-hidden="true" />
          leader's expiry
        </li>
        <li>
          <span className="lt-key-line lt-key-holder" aria-hidden="true" />
          holder's deadline
        </li>
      </ul>
      <ul className="lt-legend-marks" aria-label="Marks">
        {LEGEND_MARKS.map((k) => (
          <li key={k}>
            <span className={`lt-key-glyph lt-mark-${k}`} aria-hidden="true">
              {MARK_GLYPH[k]}
            </span>
            {MARK_TEXT[k]}
          </li>
        ))}
      </ul>
    </div>
  );
}
