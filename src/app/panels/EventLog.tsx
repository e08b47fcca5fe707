/**
 * The event log: what happened, in plain words, newest first, filtered by category
 * and text. Hovering or focusing a line highlights the processes it is about.
 */
import { formatInstant } from "../../core/sim/time";
import { type KeyboardEvent, memo, useCallback, useMemo, useState } from "react";
import type { EventCategory, EventLine } from "../../worker/protocol";
import { selectEvents, selectSetHover, useLab } from "../store";
import { OKABE_ITO } from "../theme";
import { countByCategory, DEFAULT_EVENT_CATEGORIES, EVENT_CATEGORIES, EVENT_LINES_SHOWN, filterEvents } from "./explain";
import "./panels.css";

/** A colour per category, always beside the category's name. */
const CATEGORY_COLOR: Record<EventCategory, string> = {
  election: OKABE_ITO.orange,
  replication: OKABE_ITO.blue,
  lease: OKABE_ITO.purple,
  holder: OKABE_ITO.green,
  storage: OKABE_ITO.skyBlue,
  fault: "#1a1a1a",
  message: "#9a9a9a",
  violation: OKABE_ITO.vermillion,
  note: OKABE_ITO.yellow,
};

export function EventLog() {
  const events = useLab(selectEvents);
  // Hovering a line highlights its processes for the moment, without losing a standing highlight.
  const setHover = useLab(selectSetHover);
  return <EventLogView events={events} setHighlight={setHover} />;
}

export interface EventLogProps {
  /** Oldest first (as the store keeps them). */
  readonly events: readonly EventLine[];
  /** Highlights a line's processes while it is hovered or focused; null when it is left. */
  readonly setHighlight: (procs: readonly string[] | null) => void;
  /** Initial filter state (tests). */
  readonly initialCategories?: ReadonlySet<EventCategory>;
  readonly initialQuery?: string;
}

/** The panel itself, from props (EventLog feeds it from the store). */
export function EventLogView({ events, setHighlight, initialCategories = DEFAULT_EVENT_CATEGORIES, initialQuery = "" }: EventLogProps) {
  const [enabled, setEnabled] = useState<ReadonlySet<EventCategory>>(initialCategories);
  const [query, setQuery] = useState(initialQuery);
  // The machine's own names (states, events, ppm) only on request.
  const [full, setFull] = useState(false);
  const counts = useMemo(() => countByCategory(events), [events]);
  const shown = useMemo(() => filterEvents(events, enabled, query), [events, enabled, query]);
  const toggle = (c: EventCategory): void => {
    const next = new Set(enabled);
    if (next.has(c)) next.delete(c);
    else next.add(c);
    setEnabled(next);
  };
  const enter = useCallback((procs: readonly string[]) => setHighlight(procs), [setHighlight]);
  const leave = useCallback(() => setHighlight(null), [setHighlight]);
  const firstN = shown[0]?.n;
  return (
    <section className="panel event-log" aria-labelledby="events-title">
      <h2 id="events-title">Event log</h2>
      <fieldset className="event-filters">
        <legend className="sr-only">Show these kinds of events</legend>
        {EVENT_CATEGORIES.map((c) => (
          <label key={c}>
            <input type="checkbox" checked={enabled.has(c)} onChange={() => toggle(c)} />
            <span className="swatch" style={{ background: CATEGORY_COLOR[c] }} aria-hidden="true" />
            {c} <span className="count">({counts[c]})</span>
          </label>
        ))}
      </fieldset>
      <div className="event-search">
        <input
          type="search"
          aria-label="Filter events"
          placeholder="Filter events: words or process ids (n3, h1)"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
        <label className="event-full">
          <input type="checkbox" checked={full} onChange={(e) => setFull(e.target.checked)} /> Show full state (internal names)
        </label>
        <span className="muted">
          {shown.length === EVENT_LINES_SHOWN ? `newest ${EVENT_LINES_SHOWN} shown` : `${shown.length} shown`}
        </span>
      </div>
      <ul className="event-list" aria-label="Events, newest first" onKeyDown={moveFocus}>
        {shown.length === 0 ? (
          <li className="empty">{events.length === 0 ? "Nothing has happened yet." : "No event matches the filters."}</li>
        ) : (
          shown.map((line) => <EventRow key={line.n} line={line} first={line.n === firstN} full={full} onEnter={enter} onLeave={leave} />)
        )}
      </ul>
    </section>
  );
}

/** Arrow keys, Home and End move the focus between lines (one tab stop for the whole list). */
function moveFocus(e: KeyboardEvent<HTMLUListElement>): void {
  const li = (e.target as HTMLElement).closest("li");
  if (li === null) return;
  let next: Element | null = null;
  if (e.key === "ArrowDown") next = li.nextElementSibling;
  else if (e.key === "ArrowUp") next = li.previousElementSibling;
  else if (e.key === "Home") next = li.parentElement?.firstElementChild ?? null;
  else if (e.key === "End") next = li.parentElement?.lastElementChild ?? null;
  else return;
  if (next instanceof HTMLElement) {
    e.preventDefault();
    next.focus();
  }
}

const EventRow = memo(function EventRow({
  line,
  first,
  full,
  onEnter,
  onLeave,
}: {
  line: EventLine;
  first: boolean;
  full: boolean;
  onEnter: (procs: readonly string[]) => void;
  onLeave: () => void;
}) {
  const violation = line.category === "violation";
  return (
    <li
      className={violation ? "violation" : undefined}
      tabIndex={first ? 0 : -1}
      onMouseEnter={() => onEnter(line.procs)}
      onMouseLeave={onLeave}
      onFocus={() => onEnter(line.procs)}
      onBlur={onLeave}
    >
      <span className="t">{formatInstant(line.t)}</span>
      <span className="cat" style={{ borderColor: CATEGORY_COLOR[line.category] }}>
        {violation ? `⚠ ${line.category}` : line.category}
      </span>
      <span className="text">
        {line.text}
        {full && line.detail !== undefined && <code className="event-detail">{line.detail}</code>}
      </span>
    </li>
  );
});
