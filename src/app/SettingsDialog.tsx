/** The settings dialog: seed, cluster size, holders, and the timing knobs. Starting a run with bad settings is impossible; the current run is kept. */
import { useEffect, useId, useRef, useState } from "react";
import { configProblems } from "../core/sim/config";
import type { RunSettings, TimingSettings } from "../worker/protocol";
import { configFor } from "../worker/settings";
import { DEFAULT_TIMING } from "./params";
import { useLab, useLabStore } from "./store";
import { startRun, useUi } from "./ui";
import { trapTab } from "./focusTrap";
import { knobProblem, NUMBER_KNOBS } from "./leaseKnobs";
import { type ReadsDraft, type ReadsKey, ReadsPolicy, readsDraftOf, readsFromDraft } from "./ReadsSettings";

type Draft = Record<Exclude<keyof TimingSettings, ReadsKey> | "seed" | "nodes" | "spares" | "holders" | "clients", string> & ReadsDraft;

function draftOf(s: RunSettings): Draft {
  const t = s.timing;
  return {
    seed: String(s.seed),
    nodes: String(s.nodes),
    spares: String(s.spares),
    holders: String(s.holders),
    clients: String(s.clients.count),
    electionTimeoutMinMs: String(t.electionTimeoutMinMs),
    electionTimeoutMaxMs: String(t.electionTimeoutMaxMs),
    heartbeatIntervalMs: String(t.heartbeatIntervalMs),
    latencyMinMs: String(t.latencyMinMs),
    latencyMaxMs: String(t.latencyMaxMs),
    leaseTtlMs: String(t.leaseTtlMs),
    renewFraction: String(Math.round(t.renewFraction * 1000) / 1000),
    gracePeriodMs: String(t.gracePeriodMs),
    checkpoint: t.checkpoint ? "on" : "off",
    checkpointIntervalMs: String(t.checkpointIntervalMs),
    lockDelayMs: String(t.lockDelayMs),
    driftMarginPpm: String(t.driftMarginPpm),
    expirySlackFactor: String(t.expirySlackFactor),
    poolSize: String(t.poolSize),
    ...readsDraftOf(t),
  };
}

/** A draft -> settings, or the problems with it in words. */
export function settingsFromDraft(d: Draft, base: RunSettings): { settings: RunSettings | null; problems: string[] } {
  const problems: string[] = [];
  const num = (key: Exclude<keyof Draft, ReadsKey>, label: string): number => {
    const raw = d[key].trim();
    const n = Number(raw);
    if (raw === "" || !Number.isFinite(n)) {
      problems.push(`${label} must be a number.`);
      return 0;
    }
    return n;
  };
  const seed = num("seed", "Seed");
  if (!Number.isSafeInteger(seed)) problems.push("Seed must be a whole number.");
  const holders = num("holders", "Holders");
  if (!Number.isInteger(holders) || holders < 0 || holders > 20) problems.push("Holders must be a whole number from 0 to 20.");
  const clients = num("clients", "Clients");
  if (!Number.isInteger(clients) || clients < 0 || clients > 10) problems.push("Clients must be a whole number from 0 to 10.");
  const timing: TimingSettings = {
    electionTimeoutMinMs: num("electionTimeoutMinMs", "Election timeout (min)"),
    electionTimeoutMaxMs: num("electionTimeoutMaxMs", "Election timeout (max)"),
    heartbeatIntervalMs: num("heartbeatIntervalMs", "Heartbeat"),
    latencyMinMs: num("latencyMinMs", "Latency (min)"),
    latencyMaxMs: num("latencyMaxMs", "Latency (max)"),
    leaseTtlMs: num("leaseTtlMs", "Lease TTL"),
    renewFraction: num("renewFraction", "Renew at"),
    gracePeriodMs: num("gracePeriodMs", "Grace period"),
    checkpoint: d.checkpoint === "on",
    checkpointIntervalMs: 0,
    lockDelayMs: 0,
    driftMarginPpm: 0,
    expirySlackFactor: 0,
    poolSize: 0,
  };
  const knobs: Record<string, number> = {};
  for (const k of NUMBER_KNOBS) {
    const n = num(k.key, k.label);
    knobs[k.key] = n;
    // The engine's own range and words: "Lock-delay (ms) must be between 0 and 3600000 (got -5)."
    const bad = d[k.key].trim() === "" || !Number.isFinite(n) ? null : knobProblem(k, n);
    if (bad !== null) problems.push(`${k.label} ${bad}.`);
  }
  Object.assign(timing, knobs, readsFromDraft(d, problems));
  const settings: RunSettings = {
    ...base,
    seed,
    nodes: Number(d.nodes),
    spares: Number(d.spares),
    holders,
    clients: { count: clients, workload: clients > 0 ? "random" : "none" },
    timing,
    autoplay: true,
  };
  if (problems.length === 0) problems.push(...configProblems(configFor(settings)));
  return { settings: problems.length === 0 ? settings : null, problems };
}

function Field({ label, value, onChange, hint, ...rest }: { label: string; value: string; onChange: (v: string) => void; hint?: string; step?: string }) {
  const id = useId();
  return (
    <div className="form-field">
      <label htmlFor={id}>{label}</label>
      <input id={id} type="number" value={value} step={rest.step ?? "1"} onChange={(e) => onChange(e.target.value)} />
      {hint && <span className="small-print">{hint}</span>}
    </div>
  );
}

/** The lease policies: checkpoints, lock-delay, the holder's drift margin, the leader's slack, the pool. */
function LeasePolicy({ draft, set }: { draft: Draft; set: (k: keyof Draft) => (v: string) => void }) {
  const cpId = useId();
  return (
    <fieldset className="form-fieldset">
      <legend>Lease policy</legend>
      <div className="form-grid">
        <div className="form-field">
          <label htmlFor={cpId}>
            <input
              id={cpId}
              type="checkbox"
              checked={draft.checkpoint === "on"}
              onChange={(e) => set("checkpoint")(e.target.checked ? "on" : "off")}
            />{" "}
            Checkpoints
          </label>
          <span className="small-print">etcd: the leader writes each lease's time left, so a new leader does not restart it at full</span>
        </div>
        {NUMBER_KNOBS.map((k) => (
          <Field key={k.key} label={k.label} value={draft[k.key]} onChange={set(k.key)} hint={k.hint} step={k.step} />
        ))}
      </div>
    </fieldset>
  );
}

export function SettingsDialog() {
  const open = useUi((u) => u.settingsOpen);
  const close = useUi((u) => u.closeSettings);
  const current = useLab((s) => s.settings);
  const lab = useLabStore();
  const [draft, setDraft] = useState<Draft | null>(null);
  const first = useRef<HTMLSelectElement>(null);
  const nodesId = useId();
  const sparesId = useId();
  useEffect(() => {
    if (!open) return;
    // Escape closes the dialog even from inside a field (the page's shortcuts ignore fields).
    const onKey = (e: KeyboardEvent): void => {
      if (e.key === "Escape") close();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [open, close]);
  // The draft starts from the run's settings when the dialog opens, and only then
  // (views arrive 25 times a second; they must not overwrite what the user is typing).
  useEffect(() => {
    const s = lab.getState().settings;
    if (open && s !== null) {
      setDraft(draftOf(s));
      queueMicrotask(() => first.current?.focus());
    }
  }, [open, lab]);
  if (!open || current === null || draft === null) return null;
  const set = (k: keyof Draft) => (v: string) => setDraft({ ...draft, [k]: v });
  const { settings, problems } = settingsFromDraft(draft, current);
  return (
    <div className="overlay" role="presentation">
      <div className="dialog" role="dialog" aria-modal="true" aria-labelledby="settings-title" onKeyDown={trapTab}>
        <h2 id="settings-title">Settings</h2>
        <p className="small-print">A run is fully determined by these settings and the seed: the same values give the same run, every time.</p>
        <div className="form-grid">
          <div className="form-field">
            <label htmlFor={nodesId}>Cluster size</label>
            <select id={nodesId} ref={first} value={draft.nodes} onChange={(e) => set("nodes")(e.target.value)}>
              {[3, 5, 7].map((n) => (
                <option key={n} value={n}>
                  {n} nodes
                </option>
              ))}
            </select>
          </div>
          <div className="form-field">
            <label htmlFor={sparesId}>Spare servers</label>
            <select id={sparesId} value={draft.spares} onChange={(e) => set("spares")(e.target.value)}>
              {[0, 1, 2].map((n) => (
                <option key={n} value={n}>
                  {n === 0 ? "none" : `${n} (outside the cluster, to add)`}
                </option>
              ))}
            </select>
          </div>
          <div className="form-field">
            <Field label="Seed" value={draft.seed} onChange={set("seed")} />
            <button type="button" className="small" onClick={() => set("seed")(String(Math.floor(Math.random() * 1_000_000)))}>
              New random seed
            </button>
          </div>
          <Field label="Lease holders" value={draft.holders} onChange={set("holders")} hint="0 to 20, all wanting one lease" />
          <Field label="Key-value clients" value={draft.clients} onChange={set("clients")} hint="0 to 10, writing and reading keys" />
          <Field label="Election timeout min (ms)" value={draft.electionTimeoutMinMs} onChange={set("electionTimeoutMinMs")} />
          <Field label="Election timeout max (ms)" value={draft.electionTimeoutMaxMs} onChange={set("electionTimeoutMaxMs")} />
          <Field label="Heartbeat (ms)" value={draft.heartbeatIntervalMs} onChange={set("heartbeatIntervalMs")} />
          <Field label="Latency min (ms)" value={draft.latencyMinMs} onChange={set("latencyMinMs")} />
          <Field label="Latency max (ms)" value={draft.latencyMaxMs} onChange={set("latencyMaxMs")} />
          <Field label="Lease TTL (ms)" value={draft.leaseTtlMs} onChange={set("leaseTtlMs")} hint="raised to 1.5 × the max election timeout if lower" />
          <Field label="Renew at (share of TTL)" value={draft.renewFraction} onChange={set("renewFraction")} step="0.01" hint="etcd 0.33, DHCP 0.5" />
          <Field label="Grace period (ms)" value={draft.gracePeriodMs} onChange={set("gracePeriodMs")} hint="Chubby-style; 0 for none" />
        </div>
        <LeasePolicy draft={draft} set={set} />
        <ReadsPolicy draft={draft} set={set} />
        {problems.length > 0 && (
          <ul className="field-error" role="alert" aria-label="Problems with these settings">
            {problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        )}
        <div className="actions dialog-actions">
          <button
            type="button"
            className="primary"
            disabled={settings === null}
            onClick={() => {
              if (settings === null) return;
              startRun(lab, settings);
              close();
            }}
          >
            Start this run
          </button>
          <button type="button" onClick={() => {
              const d = draftOf({ ...current, timing: DEFAULT_TIMING });
              setDraft({ ...d, seed: draft.seed, nodes: draft.nodes, spares: draft.spares, holders: draft.holders, clients: draft.clients });
            }}>
            Default timing
          </button>
          <button type="button" onClick={close}>
            Cancel
          </button>
        </div>
      </div>
    </div>
  );
}
