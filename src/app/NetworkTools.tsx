/**
 * The network tools: put processes (nodes, holders, the storage) into partition groups,
 * heal, cut or slow one link one way, and set loss and duplication rates.
 */
import { useId, useState } from "react";
import { MAX_SLOW_LINK_US } from "../core/sim/config";
import type { Action } from "../core/sim/sim";
import type { SimView } from "../worker/protocol";
import { useShallow } from "zustand/react/shallow";
import { selectSend, useLab } from "./store";

export const GROUP_NAMES = ["A", "B", "C"] as const;

/** Every process of the run that can be partitioned: nodes, then holders, then the storage. */
export function processIds(view: SimView): string[] {
  return [...view.nodes.map((n) => n.id), ...view.holders.map((h) => h.id), ...(view.storage ? [view.storage.id] : [])];
}

/**
 * Group assignment -> partition groups. Processes left unassigned stay reachable by
 * everyone; fewer than two non-empty groups is no partition at all (null).
 */
export function partitionGroups(assign: Readonly<Record<string, number>>, ids: readonly string[]): string[][] | null {
  const groups: string[][] = GROUP_NAMES.map(() => []);
  for (const id of ids) {
    const g = assign[id];
    if (g !== undefined && g >= 0 && g < groups.length) (groups[g] as string[]).push(id);
  }
  const nonEmpty = groups.filter((g) => g.length > 0);
  return nonEmpty.length >= 2 ? nonEmpty : null;
}

/** The current partition as a group index per process (for starting the editor from what is in force). */
function currentAssign(groups: SimView["network"]["groups"]): Record<string, number> {
  const a: Record<string, number> = {};
  groups.forEach((g, i) => {
    for (const id of g) if (i < GROUP_NAMES.length) a[id] = i;
  });
  return a;
}

/** The network panel; its editors start afresh with each new run (the processes may differ). */
export function NetworkTools() {
  const runId = useLab((s) => s.view?.runId ?? 0);
  return <NetworkToolsForRun key={runId} />;
}

function NetworkToolsForRun() {
  const view = useLab(
    useShallow((s) => {
      const v = s.view as SimView;
      return { network: v.network, leader: v.leader, ids: processIds(v).join(" ") };
    }),
  );
  const send = useLab(selectSend);
  const act = (action: Action): void => send({ type: "act", action });
  const ids = view.ids.split(" ");
  const [assign, setAssign] = useState<Record<string, number>>(() => currentAssign(view.network.groups));
  const groups = partitionGroups(assign, ids);
  const [cutFrom, setCutFrom] = useState(ids[0] ?? "");
  const [cutTo, setCutTo] = useState(ids[1] ?? "");
  const [lossPct, setLossPct] = useState(String(Math.round(view.network.dropRate * 100)));
  const [dupPct, setDupPct] = useState(String(Math.round(view.network.duplicateRate * 100)));
  const [slowMs, setSlowMs] = useState("300");
  const slowUs = Number(slowMs) * 1000;
  const slowOk = slowMs.trim() !== "" && Number.isInteger(slowUs) && slowUs >= 0 && slowUs <= MAX_SLOW_LINK_US;
  const slowId = useId();
  const loss = Number(lossPct);
  const dup = Number(dupPct);
  const ratesOk = Number.isFinite(loss) && loss >= 0 && loss <= 100 && Number.isFinite(dup) && dup >= 0 && dup <= 100;
  const fromId = useId();
  const toId = useId();
  const lossId = useId();
  const dupId = useId();
  const leader = view.leader;
  const partitioned =
    view.network.groups.length > 0 || view.network.cuts.length > 0 || view.network.slow.length > 0 || view.network.isolated.length > 0;

  return (
    <section className="panel network-tools" aria-labelledby="network-title">
      <h2 id="network-title">Network</h2>
      <p className="status-line" data-testid="network-status">
        {view.network.groups.length > 0
          ? `Partitioned: ${view.network.groups.map((g) => `{${g.join(", ")}}`).join(" | ")}`
          : "No partition: every process reaches every other."}
        {view.network.cuts.length > 0 && ` Cut one way: ${view.network.cuts.map((c) => `${c.from} → ${c.to}`).join(", ")}.`}
        {view.network.isolated.length > 0 && ` Disconnected: ${view.network.isolated.join(", ")}.`}
        {view.network.slow.length > 0 &&
          ` Slow one way: ${view.network.slow.map((c) => `${c.from} → ${c.to} +${c.delayUs / 1000} ms`).join(", ")}.`}
      </p>
      <div className="actions">
        <button type="button" disabled={leader === null} onClick={() => leader && act({ type: "partition", groups: [[leader], ["others"]] })}>
          Isolate the leader
        </button>
        <button type="button" disabled={!partitioned} onClick={() => act({ type: "heal" })} aria-keyshortcuts="H">
          Heal network
        </button>
      </div>
      <details className="partition-editor">
        <summary>Partition into groups…</summary>
        <p className="small-print">Put each process in group A, B or C. Processes in no group still reach everyone.</p>
        <table className="group-table">
          <thead>
            <tr>
              <th scope="col">Process</th>
              <th scope="col">none</th>
              {GROUP_NAMES.map((g) => (
                <th scope="col" key={g}>
                  {g}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {ids.map((id) => (
              <tr key={id}>
                <th scope="row">{id}</th>
                {[-1, 0, 1, 2].map((g) => (
                  <td key={g}>
                    <input
                      type="radio"
                      name={`group-${id}`}
                      aria-label={`${id} in ${g < 0 ? "no group" : `group ${GROUP_NAMES[g]}`}`}
                      checked={(assign[id] ?? -1) === g}
                      onChange={() =>
                        setAssign((a) => {
                          const next = { ...a };
                          if (g < 0) delete next[id];
                          else next[id] = g;
                          return next;
                        })
                      }
                    />
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
        <div className="actions">
          <button type="button" disabled={groups === null} onClick={() => groups && act({ type: "partition", groups })}>
            Apply partition
          </button>
          {groups === null && <span className="small-print">Put processes in at least two groups.</span>}
        </div>
      </details>
      <details>
        <summary>Cut or slow one link, one way…</summary>
        <div className="actions">
          <span className="field">
            <label htmlFor={fromId}>from</label>
            <select id={fromId} value={cutFrom} onChange={(e) => setCutFrom(e.target.value)}>
              {ids.map((id) => (
                <option key={id}>{id}</option>
              ))}
            </select>
          </span>
          <span className="field">
            <label htmlFor={toId}>to</label>
            <select id={toId} value={cutTo} onChange={(e) => setCutTo(e.target.value)}>
              {ids.map((id) => (
                <option key={id}>{id}</option>
              ))}
            </select>
          </span>
          <button type="button" disabled={cutFrom === cutTo} onClick={() => act({ type: "cut", from: cutFrom, to: cutTo })}>
            Cut link {cutFrom} → {cutTo}
          </button>
        </div>
        <div className="actions">
          <span className="field">
            <label htmlFor={slowId}>extra delay (ms)</label>
            <input id={slowId} type="number" min="0" step="10" value={slowMs} onChange={(e) => setSlowMs(e.target.value)} />
          </span>
          <button
            type="button"
            disabled={cutFrom === cutTo || !slowOk}
            onClick={() => act({ type: "slow-link", from: cutFrom, to: cutTo, delayUs: slowUs })}
            title="Messages this way take longer; the way back stays fast (0 ms: back to normal; Heal clears it)"
          >
            Slow link {cutFrom} → {cutTo}
          </button>
        </div>
        {!slowOk && <p className="field-error">The extra delay is whole milliseconds from 0 to {MAX_SLOW_LINK_US / 1000}.</p>}
      </details>
      <details>
        <summary>Loss and duplication…</summary>
        <div className="actions">
          <span className="field">
            <label htmlFor={lossId}>loss %</label>
            <input id={lossId} type="number" min="0" max="100" step="1" value={lossPct} onChange={(e) => setLossPct(e.target.value)} />
          </span>
          <span className="field">
            <label htmlFor={dupId}>duplicates %</label>
            <input id={dupId} type="number" min="0" max="100" step="1" value={dupPct} onChange={(e) => setDupPct(e.target.value)} />
          </span>
          <button type="button" disabled={!ratesOk} onClick={() => act({ type: "network", dropRate: loss / 100, duplicateRate: dup / 100 })}>
            Set network rates
          </button>
        </div>
        {!ratesOk && <p className="field-error">Rates are percentages from 0 to 100.</p>}
      </details>
    </section>
  );
}
