/**
 * The inspector: what is selected (a node, a holder, the storage, a message) with every
 * fault for it one click away, and its full state on request.
 */
import { formatDuration, formatInstant } from "../core/sim/time";
import { useId, useState } from "react";
import { MAX_DRIFT_PPM } from "../core/sim/clock";
import type { Action } from "../core/sim/sim";
import type { ClientView, HolderView, InspectTarget, MessageView, NodeView, SimView } from "../worker/protocol";
import { driftWords } from "../worker/holderWords";
import { stateText } from "./format";
import { localTime } from "../core/sim/clock";
import { driftText } from "./ring/geometry";
import { selectInspection, selectSelect, selectSelected, selectSend, selectView, useLab } from "./store";

function useAct(): (action: Action) => void {
  const send = useLab(selectSend);
  return (action) => send({ type: "act", action });
}

/** Seconds typed by the user -> whole µs, or null when it is not a sensible duration. */
export function secondsToUs(raw: string): number | null {
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0 || n > 3600) return null;
  return Math.max(1, Math.round(n * 1_000_000));
}

export function Inspector() {
  const view = useLab(selectView) as SimView;
  const selected = useLab(selectSelected);
  const select = useLab(selectSelect);
  let body: React.ReactNode;
  if (selected === null) {
    body = <Hint view={view} />;
  } else if (selected.kind === "node") {
    const n = view.nodes.find((x) => x.id === selected.id);
    body = n ? <NodeActions n={n} view={view} /> : <Gone what={selected.id} />;
  } else if (selected.kind === "holder") {
    const h = view.holders.find((x) => x.id === selected.id);
    body = h ? <HolderActions h={h} view={view} /> : <Gone what={selected.id} />;
  } else if (selected.kind === "client") {
    const c = (view.clients ?? []).find((x) => x.id === selected.id);
    body = c ? <ClientFacts c={c} view={view} /> : <Gone what={selected.id} />;
  } else if (selected.kind === "storage") {
    body = view.storage ? <StorageActions view={view} /> : <Gone what="the storage" />;
  } else {
    const m = view.messages.find((x) => x.id === selected.id);
    body = m ? <MessageActions m={m} view={view} /> : <p>That message has arrived or was dropped. Pick another one in flight.</p>;
  }
  return (
    <section className="panel inspector" aria-labelledby="inspector-title">
      <div className="panel-head">
        <h2 id="inspector-title">Inspector</h2>
        {selected !== null && (
          <button type="button" className="small" onClick={() => select(null)}>
            Close
          </button>
        )}
      </div>
      {body}
    </section>
  );
}

function Gone({ what }: { what: string }) {
  return <p>{what} is not part of this run.</p>;
}

function Hint({ view }: { view: SimView }) {
  const select = useLab(selectSelect);
  return (
    <div className="hint-box">
      <p>Click a node, a holder, a client, the storage or a message in flight to act on it. Or pick one:</p>
      <div className="chips">
        {view.nodes.map((n) => (
          <button type="button" key={n.id} className="chip" onClick={() => select({ kind: "node", id: n.id })}>
            Select {n.id}
          </button>
        ))}
        {view.holders.map((h) => (
          <button type="button" key={h.id} className="chip" onClick={() => select({ kind: "holder", id: h.id })}>
            Select {h.id}
          </button>
        ))}
        {(view.clients ?? []).map((c) => (
          <button type="button" key={c.id} className="chip" onClick={() => select({ kind: "client", id: c.id })}>
            Select {c.id}
          </button>
        ))}
      </div>
      <InFlight view={view} />
    </div>
  );
}

/** Messages shown by name in the hint, so they can be chosen without a pointer (pause first: they move). */
export const MESSAGES_LISTED = 12;

/** The messages in flight as buttons: the keyboard's way to inspect or drop one. */
function InFlight({ view }: { view: SimView }) {
  const select = useLab(selectSelect);
  const n = view.messages.length;
  if (n === 0) return <p className="small-print">No message is in flight right now.</p>;
  return (
    <details className="in-flight">
      <summary>
        {n} message{n === 1 ? "" : "s"} in flight{view.playing ? " (pause to pick one)" : ""}
      </summary>
      <div className="chips">
        {view.messages.slice(0, MESSAGES_LISTED).map((m) => (
          <button type="button" key={m.id} className="chip" onClick={() => select({ kind: "message", id: m.id })}>
            {m.label} {m.from} → {m.to}
          </button>
        ))}
        {n > MESSAGES_LISTED && <span className="small-print">and {n - MESSAGES_LISTED} more (click them in the ring)</span>}
      </div>
    </details>
  );
}

function Duration({ label, value, onChange }: { label: string; value: string; onChange: (v: string) => void }) {
  const id = useId();
  return (
    <span className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} type="number" min="0.01" max="3600" step="0.1" value={value} onChange={(e) => onChange(e.target.value)} />
    </span>
  );
}

function FullState({ target }: { target: InspectTarget }) {
  const send = useLab(selectSend);
  const inspection = useLab(selectInspection);
  const mine = inspection !== null && JSON.stringify(inspection.target) === JSON.stringify(target);
  return (
    <div className="full-state">
      <button type="button" className="small" onClick={() => send({ type: "inspect", target })}>
        {mine ? "Refresh full state" : "Show full state"}
      </button>
      {mine && (
        <>
          <h4 className="inspection-title">{inspection.title}</h4>
          <pre className="inspection">{inspection.text}</pre>
        </>
      )}
    </div>
  );
}

/** "Paused: wakes in 1.2 s", while a process is paused. */
function PausedFact({ until, now }: { until: number | null; now: number }) {
  if (until === null) return null;
  return (
    <>
      <dt>Paused</dt>
      <dd>wakes in {formatDuration(Math.max(0, until - now))}</dd>
    </>
  );
}

/** Sets a process's clock drift, in percent (+ runs fast, − runs slow; the engine counts ppm: 1 % = 10000 ppm). */
function DriftControl({ id, driftPpm: current }: { id: string; driftPpm: number }) {
  const act = useAct();
  const [drift, setDrift] = useState(String(current / 10_000));
  const fieldId = useId();
  const driftPpm = Math.round(Number(drift) * 10_000);
  const maxPct = MAX_DRIFT_PPM / 10_000;
  const ok = drift.trim() !== "" && Number.isFinite(driftPpm) && Math.abs(driftPpm) <= MAX_DRIFT_PPM;
  return (
    <>
      <div className="actions">
        <span className="field">
          <label htmlFor={fieldId}>drift (%): + fast, − slow</label>
          <input id={fieldId} type="number" step="1" min={-maxPct} max={maxPct} value={drift} onChange={(e) => setDrift(e.target.value)} />
        </span>
        <button type="button" disabled={!ok} onClick={() => act({ type: "clock", proc: id, driftPpm })}>
          Set drift of {id}
        </button>
        {ok && <span className="small-print">{driftWords(driftPpm)}</span>}
      </div>
      {!ok && (
        <p className="field-error">
          Drift must be a percentage from −{maxPct} (slow) to {maxPct} (fast).
        </p>
      )}
    </>
  );
}

/** What a key-value client is, what it is asking now, and its requests on the wire. */
function ClientFacts({ c, view }: { c: ClientView; view: SimView }) {
  const act = useAct();
  const wire = view.messages.filter((m) => m.from === c.id || m.to === c.id);
  const down = c.status === "down";
  return (
    <div className="inspect-body">
      <h3>
        {c.id}: a key-value client{down ? " (down)" : ""}
      </h3>
      <p>A key-value client: it sends puts and reads through the leader, and tries another server when one does not answer or is not the leader. It takes no part in Raft or the leases.</p>
      <dl className="facts">
        <dt>Requests made</dt>
        <dd>{c.sent}</dd>
        <dt>Waiting on</dt>
        <dd data-testid="client-current">
          {c.current === null
            ? "nothing: thinking before the next request"
            : `request #${c.current.seq}, ${c.current.text}, sent to ${c.current.server}${c.current.attempts > 1 ? ` (try ${c.current.attempts})` : ""}`}
        </dd>
        {c.queued > 0 && (
          <>
            <dt>Queued</dt>
            <dd>{c.queued} more</dd>
          </>
        )}
        <dt>On the wire</dt>
        <dd>{wire.length === 0 ? "no message in flight" : wire.map((m) => `${m.label} ${m.from} → ${m.to}`).join("; ")}</dd>
      </dl>
      <div className="actions">
        {down ? (
          <button type="button" onClick={() => act({ type: "restart", proc: c.id })}>
            Restart {c.id}
          </button>
        ) : (
          <button type="button" onClick={() => act({ type: "crash", proc: c.id })}>
            Crash {c.id}
          </button>
        )}
      </div>
      <FullState target={{ kind: "client", id: c.id }} />
    </div>
  );
}

function NodeActions({ n, view }: { n: NodeView; view: SimView }) {
  const act = useAct();
  const [pauseS, setPauseS] = useState("3");
  const pauseUs = secondsToUs(pauseS);
  return (
    <div className="inspect-body">
      <h3>
        {n.id}: {stateText(n)}, term {n.term}
      </h3>
      <dl className="facts">
        <dt>Commit index</dt>
        <dd data-testid="commit-index">{n.commitIndex ?? "unknown (down)"}</dd>
        <dt>Last log index</dt>
        <dd>{n.lastIndex}</dd>
        <dt>Voted for</dt>
        <dd>{n.votedFor ?? "nobody"}</dd>
        <dt>In the cluster</dt>
        <dd>{n.member ? "yes, a voter" : "no: a spare or removed server, it votes in no majority"}</dd>
        <dt>Believes the leader is</dt>
        <dd>{n.leaderHint ?? "unknown"}</dd>
        <dt>Local clock</dt>
        <dd>
          {formatInstant(localTime(n.clock, view.now))} ({driftText(n.driftPpm) || "no drift"})
        </dd>
        {n.electionTimerAt !== null && (
          <>
            <dt>Election timer</dt>
            <dd>fires in {formatDuration(Math.max(0, n.electionTimerAt - view.now))}</dd>
          </>
        )}
        <PausedFact until={n.pausedUntil} now={view.now} />
      </dl>
      <div className="actions">
        <button type="button" className="danger" disabled={n.status === "down"} onClick={() => act({ type: "crash", proc: n.id })}>
          Kill {n.id}
        </button>
        <button type="button" disabled={n.status !== "down"} onClick={() => act({ type: "restart", proc: n.id })}>
          Restart {n.id}
        </button>
        <button
          type="button"
          disabled={n.status !== "up"}
          onClick={() => act({ type: "timeout", proc: n.id })}
          title="Make its election timer fire now: it starts an election"
        >
          Time out {n.id}
        </button>
        <button
          type="button"
          disabled={n.status !== "up" || !n.member || view.leader === null || view.leader === n.id}
          onClick={() => act({ type: "transfer", to: n.id })}
          title="Planned failover (Raft dissertation 3.10): the leader stops taking writes, brings this node's log up to date, then tells it to start an election at once"
        >
          Transfer leadership to {n.id}
        </button>
      </div>
      <div className="actions">
        {n.member ? (
          <button
            type="button"
            disabled={view.leader === null || view.config.length <= 1}
            onClick={() => act({ type: "remove-node", proc: n.id })}
            title="Membership change (Raft dissertation 4): the leader writes a configuration without this server to the log; it takes effect at once, one change at a time"
          >
            Remove {n.id} from the cluster
          </button>
        ) : (
          <button
            type="button"
            disabled={view.leader === null}
            onClick={() => act({ type: "add-node", proc: n.id })}
            title="Membership change (Raft dissertation 4): the leader writes a configuration with this server to the log and catches it up"
          >
            Add {n.id} to the cluster
          </button>
        )}
      </div>
      <div className="actions">
        <Duration label="seconds" value={pauseS} onChange={setPauseS} />
        <button type="button" disabled={n.status !== "up" || pauseUs === null} onClick={() => pauseUs && act({ type: "pause", proc: n.id, durationUs: pauseUs })}>
          Pause {n.id}
        </button>
        <button type="button" disabled={n.status !== "paused"} onClick={() => act({ type: "resume", proc: n.id })}>
          Resume {n.id}
        </button>
      </div>
      <DriftControl id={n.id} driftPpm={n.driftPpm} />
      <FullState target={{ kind: "node", id: n.id }} />
    </div>
  );
}

function HolderActions({ h, view }: { h: HolderView; view: SimView }) {
  const act = useAct();
  const [pauseS, setPauseS] = useState("3");
  const pauseUs = secondsToUs(pauseS);
  return (
    <div className="inspect-body">
      <h3>
        holder {h.id}: {h.state}
        {h.token !== null ? `, token ${h.token}` : ""}
        {h.status === "paused" ? " (paused)" : ""}
      </h3>
      <dl className="facts">
        <dt>Wants lease</dt>
        <dd>{h.leaseName}</dd>
        <dt>Its own deadline</dt>
        <dd>{deadlineWords(h, view.now)}</dd>
        <dt>Talks to</dt>
        <dd>{h.target ?? "—"}</dd>
        <dt>Writes</dt>
        <dd>
          {h.writesAccepted} accepted, {h.writesRejected} rejected
        </dd>
        {h.gcPauseArmedUs !== null && (
          <>
            <dt>GC pause armed</dt>
            <dd>{formatDuration(h.gcPauseArmedUs)} after its next lease check</dd>
          </>
        )}
        <PausedFact until={h.pausedUntil} now={view.now} />
      </dl>
      <div className="actions">
        <Duration label="seconds" value={pauseS} onChange={setPauseS} />
        <button
          type="button"
          disabled={h.status !== "up" || pauseUs === null}
          onClick={() => pauseUs && act({ type: "pause", proc: h.id, durationUs: pauseUs })}
          title="Freeze it now, like a stop-the-world garbage collection"
        >
          Pause holder {h.id}
        </button>
        <button
          type="button"
          disabled={h.status === "down" || pauseUs === null}
          onClick={() => pauseUs && act({ type: "gc-pause", holder: h.id, durationUs: pauseUs })}
          title="Freeze it at the worst moment: right after it checks its lease, before it writes"
        >
          GC pause {h.id} before its write
        </button>
        <button type="button" disabled={h.status !== "paused"} onClick={() => act({ type: "resume", proc: h.id })}>
          Resume holder {h.id}
        </button>
      </div>
      <div className="actions">
        <button type="button" className="danger" disabled={h.status === "down"} onClick={() => act({ type: "crash", proc: h.id })}>
          Crash holder {h.id}
        </button>
        <button type="button" disabled={h.status !== "down"} onClick={() => act({ type: "restart", proc: h.id })}>
          Restart holder {h.id}
        </button>
        <button type="button" disabled={h.status !== "up" || h.token === null} onClick={() => act({ type: "release", holder: h.id })}>
          Release {h.id}'s lease
        </button>
      </div>
      <DriftControl id={h.id} driftPpm={h.driftPpm} />
      <FullState target={{ kind: "holder", id: h.id }} />
    </div>
  );
}

/** A holder's own deadline in words, including the case that matters most: passed while it was frozen. */
export function deadlineWords(h: Pick<HolderView, "deadlineAt" | "status">, now: number): string {
  if (h.deadlineAt === null) return "—";
  const left = h.deadlineAt - now;
  if (left >= 0) return `${formatDuration(left)} left (by its own clock, with a safety margin)`;
  const ago = `passed ${formatDuration(-left)} ago`;
  return h.status === "paused" ? `${ago}, but it is paused and has not noticed` : ago;
}

function StorageActions({ view }: { view: SimView }) {
  const act = useAct();
  const s = view.storage;
  if (s === null) return null;
  return (
    <div className="inspect-body">
      <h3>
        storage {s.id}: fencing {s.fencing ? "on" : "off"}
      </h3>
      <p>
        {s.accepted} writes accepted, {s.rejected} rejected.
      </p>
      <div className="actions">
        <button type="button" onClick={() => act({ type: "fencing", on: !s.fencing })}>
          Turn fencing {s.fencing ? "off" : "on"}
        </button>
        <button type="button" className="danger" disabled={s.status === "down"} onClick={() => act({ type: "crash", proc: s.id })}>
          Kill storage
        </button>
        <button type="button" disabled={s.status !== "down"} onClick={() => act({ type: "restart", proc: s.id })}>
          Restart storage
        </button>
      </div>
      <FullState target={{ kind: "storage" }} />
    </div>
  );
}

function MessageActions({ m, view }: { m: MessageView; view: SimView }) {
  const act = useAct();
  const select = useLab(selectSelect);
  return (
    <div className="inspect-body">
      <h3>
        {m.label} from {m.from} to {m.to}
      </h3>
      <p>{m.detail}</p>
      <dl className="facts">
        <dt>Sent</dt>
        <dd>{formatInstant(m.sentAt)}</dd>
        <dt>Arrives</dt>
        <dd>
          {formatInstant(m.deliverAt)}
          {m.queued ? " (waiting: its receiver is paused)" : ` (in ${formatDuration(Math.max(0, m.deliverAt - view.now))})`}
        </dd>
        <dt>Fate</dt>
        <dd>{m.fate === "ok" ? "will arrive" : m.fate === "loss" ? "will be lost" : `blocked (${m.fate})`}</dd>
      </dl>
      <div className="actions">
        <button
          type="button"
          className="danger"
          onClick={() => {
            act({ type: "drop-message", id: m.id });
            select(null);
          }}
        >
          Drop this message
        </button>
      </div>
      <FullState target={{ kind: "message", id: m.id }} />
    </div>
  );
}
