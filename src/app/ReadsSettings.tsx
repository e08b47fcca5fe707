/**
 * The Settings dialog's "Reads" section (docs/reads.md): how the leader confirms a read
 * (ReadIndex or its lease), the clock drift the leases allow for, and the followers lent
 * read leases and for how long. Ranges come from the engine's schema (core/sim/config.ts).
 */
import { useId } from "react";
import { defaultConfig, SETTING_FIELDS } from "../core/sim/config";
import type { TimingSettings } from "../worker/protocol";
import type { ReadsMode } from "../worker/readCheckTypes";

export type ReadsKey = "reads" | "leaseDriftBoundPpm" | "readLeaseFollowers" | "readLeaseMs";
export type ReadsDraft = Partial<Record<ReadsKey, string>>;

const RAFT_DEFAULTS = defaultConfig().raft;

/** The draft's reads fields for the run's settings (the engine's defaults where the settings say nothing). */
export function readsDraftOf(t: TimingSettings): Record<ReadsKey, string> {
  return {
    reads: t.reads ?? RAFT_DEFAULTS.reads,
    leaseDriftBoundPpm: String(t.leaseDriftBoundPpm ?? RAFT_DEFAULTS.leaseDriftBoundPpm),
    readLeaseFollowers: String(t.readLeaseFollowers ?? RAFT_DEFAULTS.readLeaseFollowers),
    readLeaseMs: String(t.readLeaseMs ?? RAFT_DEFAULTS.readLeaseMs),
  };
}

const NUMBERS: readonly { key: Exclude<ReadsKey, "reads">; label: string }[] = [
  { key: "leaseDriftBoundPpm", label: "Drift bound (ppm)" },
  { key: "readLeaseFollowers", label: "Read-lease followers" },
  { key: "readLeaseMs", label: "Read lease (ms)" },
];

/** The reads settings of a draft (a missing field keeps the default), with each problem in the engine's words. */
export function readsFromDraft(d: ReadsDraft, problems: string[]): Partial<Pick<TimingSettings, ReadsKey>> {
  const out: { -readonly [K in ReadsKey]?: TimingSettings[K] } = {};
  if (d.reads !== undefined) out.reads = d.reads === "leader-lease" ? "leader-lease" : "read-index";
  for (const { key, label } of NUMBERS) {
    const raw = d[key];
    if (raw === undefined) continue;
    const n = Number(raw.trim());
    const problem = SETTING_FIELDS.raft[key].problem(raw.trim() === "" ? Number.NaN : n);
    if (problem !== null) problems.push(`${label} ${problem}.`);
    else out[key] = n;
  }
  return out;
}

/** The section: a choice of the way of reading, and three numbers, each with one plain sentence. */
export function ReadsPolicy({ draft, set }: { draft: ReadsDraft; set: (k: ReadsKey) => (v: string) => void }) {
  const modeId = useId();
  const ids = { leaseDriftBoundPpm: useId(), readLeaseFollowers: useId(), readLeaseMs: useId() };
  const hint: Record<Exclude<ReadsKey, "reads">, string> = {
    leaseDriftBoundPpm: "the leases assume no clock runs faster or slower than this: 20000 ppm = 2 %",
    readLeaseFollowers: "followers lent a read lease answer reads themselves; every write then waits for them",
    readLeaseMs: "how long a read lease lasts: a write waits at most this long for a cut-off holder",
  };
  return (
    <fieldset className="form-fieldset">
      <legend>Reads</legend>
      <div className="form-grid">
        <div className="form-field">
          <label htmlFor={modeId}>Reads at the leader</label>
          <select id={modeId} value={draft.reads ?? "read-index"} onChange={(e) => set("reads")(e.target.value as ReadsMode)}>
            <option value="read-index">ReadIndex</option>
            <option value="leader-lease">Leader's lease</option>
          </select>
          <span className="small-print">
            before answering, the leader checks it still leads: ReadIndex asks a majority each time; the leader's lease skips that while its
            lease holds
          </span>
        </div>
        {NUMBERS.map(({ key, label }) =>
          key === "readLeaseFollowers" ? (
            <div className="form-field" key={key}>
              <label htmlFor={ids[key]}>{label}</label>
              <select id={ids[key]} value={draft[key] ?? "0"} onChange={(e) => set(key)(e.target.value)}>
                {[0, 1, 2, 3, 4].map((n) => (
                  <option key={n} value={n}>
                    {n === 0 ? "none" : `${n}`}
                  </option>
                ))}
              </select>
              <span className="small-print">{hint[key]}</span>
            </div>
          ) : (
            <div className="form-field" key={key}>
              <label htmlFor={ids[key]}>{label}</label>
              <input id={ids[key]} type="number" value={draft[key] ?? ""} step={key === "readLeaseMs" ? "100" : "1000"} onChange={(e) => set(key)(e.target.value)} />
              <span className="small-print">{hint[key]}</span>
            </div>
          ),
        )}
      </div>
    </fieldset>
  );
}
