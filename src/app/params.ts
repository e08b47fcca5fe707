/**
 * Run settings <-> the page's query string. Every setting has a parameter, so the URL
 * always names the exact run: ?seed=7&nodes=5&holders=3&speed=0.05&election=150-300
 * &heartbeat=50&latency=10-20&ttl=2000&renew=0.33&grace=0&clients=2&spares=1
 * &checkpoint=on&checkpointevery=500&lockdelay=1000&driftmargin=50000&slack=1.5&pool=2, and
 * the paused moment &t=12.345 (seconds; the run opens paused there).
 * Bad values fall back to defaults, each with one sentence saying what was ignored.
 */
import { configProblems, defaultConfig, MAX_CLIENTS, MAX_HOLDERS, MAX_NODES } from "../core/sim/config";
import type { Scenario } from "../core/scenario/schema";
import { configFor, settingsFromScenario, timingOf } from "../worker/settings";
import { DEFAULT_SPEED, MAX_SPEED, MIN_SPEED, type RunSettings, type TimingSettings } from "../worker/protocol";
import { runPayloadFromHash } from "./sharing/linkHash";
import { type KnobValues, knobProblem, NUMBER_KNOBS } from "./leaseKnobs";

export const DEFAULT_TIMING: TimingSettings = timingOf(defaultConfig());

export const DEFAULT_SETTINGS: RunSettings = {
  seed: 1,
  nodes: 5,
  spares: 0,
  clients: { count: 2, workload: "random" },
  holders: 3,
  speed: DEFAULT_SPEED,
  autoplay: true,
  timing: DEFAULT_TIMING,
};

export interface ParsedParams {
  readonly settings: RunSettings;
  /** One sentence per ignored parameter, for the user. */
  readonly problems: readonly string[];
  /** A run opened from a share link (#run=…): the worker runs this scenario, with the cursor at its ui.at. */
  readonly run?: Scenario;
  /** The moment to open at (virtual µs), from ?t= (seconds): the run opens paused there (it overrides a link's ui.at). */
  readonly at?: number;
}

/** The furthest moment ?t= may name, in seconds: the browser explores a run up to an hour to open it (host.ts MAX_OPEN_US). */
export const MAX_MOMENT_S = 3600;
const MOMENT = /^\d+(\.\d{1,6})?$/;

/** ?t= as virtual µs, or the sentence saying why it was ignored. */
function momentParam(raw: string): number | string {
  const s = raw.trim();
  const n = Number(s);
  if (MOMENT.test(s) && n <= MAX_MOMENT_S) return Math.round(n * 1_000_000);
  return `Ignored ?t=${shown(raw)}: t must be a moment of the run in seconds, from 0 to ${MAX_MOMENT_S}, like 12.5 (at most 6 decimals). Opening at the start instead.`;
}

/** The moment `us` as ?t= writes it: seconds, exact to the microsecond, without trailing zeros ("12.345", "3"). */
export function momentText(us: number): string {
  return (Math.max(0, Math.round(us)) / 1_000_000).toFixed(6).replace(/\.?0+$/, "");
}

const WHOLE = /^-?\d+$/;
const DECIMAL = /^\d+(\.\d+)?$|^\.\d+$/;
const RANGE = /^(\d+(?:\.\d+)?)(?:-(\d+(?:\.\d+)?))?$/;

function wholeIn(raw: string, lo: number, hi: number): number | null {
  const s = raw.trim();
  if (!WHOLE.test(s)) return null;
  const n = Number(s);
  return Number.isSafeInteger(n) && n >= lo && n <= hi ? n : null;
}

function decimalIn(raw: string, lo: number, hi: number): number | null {
  const s = raw.trim();
  const n = Number(s);
  return DECIMAL.test(s) && n >= lo && n <= hi ? n : null;
}

/** "150-300" or "200" (a range of one) -> [min, max] within [lo, hi], min <= max. */
function rangeIn(raw: string, lo: number, hi: number): [number, number] | null {
  const m = RANGE.exec(raw.trim());
  if (!m) return null;
  const a = Number(m[1]);
  const b = m[2] === undefined ? a : Number(m[2]);
  return a >= lo && b <= hi && a <= b ? [a, b] : null;
}

function shown(raw: string): string {
  return raw.length > 40 ? `${raw.slice(0, 40)}…` : raw;
}

export function parseParams(search: string): ParsedParams {
  const q = new URLSearchParams(search);
  const problems: string[] = [];
  const d = DEFAULT_SETTINGS;
  const dt = DEFAULT_TIMING;

  function pick<T>(name: string, parse: (raw: string) => T | null, fallback: T, rule: string, show: (v: T) => string): T {
    const raw = q.get(name);
    if (raw === null) return fallback;
    const v = parse(raw);
    if (v !== null) return v;
    problems.push(`Ignored ?${name}=${shown(raw)}: ${name} must be ${rule}. Using ${name} ${show(fallback)} instead.`);
    return fallback;
  }
  const num = (v: number): string => String(v);
  const range = (v: [number, number]): string => `${v[0]}-${v[1]}`;

  const seed = pick("seed", (r) => wholeIn(r, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER), d.seed, "a whole number, like 42", num);
  const nodes = pick("nodes", (r) => wholeIn(r, 1, MAX_NODES), d.nodes, `a whole number from 1 to ${MAX_NODES}`, num);
  const spares = pick(
    "spares",
    (r) => wholeIn(r, 0, MAX_NODES - nodes),
    d.spares,
    `a whole number from 0 to ${MAX_NODES - nodes} (nodes and spares make at most ${MAX_NODES})`,
    num,
  );
  const clients = pick("clients", (r) => wholeIn(r, 0, MAX_CLIENTS), d.clients.count, `a whole number from 0 to ${MAX_CLIENTS}`, num);
  const holders = pick("holders", (r) => wholeIn(r, 0, MAX_HOLDERS), d.holders, `a whole number from 0 to ${MAX_HOLDERS}`, num);
  const speed = pick(
    "speed",
    (r) => decimalIn(r, MIN_SPEED, MAX_SPEED),
    d.speed,
    `a number from ${MIN_SPEED} to ${MAX_SPEED} (virtual seconds per real second)`,
    num,
  );
  const election = pick(
    "election",
    (r) => rangeIn(r, 1, 60_000),
    [dt.electionTimeoutMinMs, dt.electionTimeoutMaxMs] as [number, number],
    "a range of milliseconds like 150-300",
    range,
  );
  const heartbeat = pick("heartbeat", (r) => decimalIn(r, 1, 60_000), dt.heartbeatIntervalMs, "a number of milliseconds like 50", num);
  const latency = pick(
    "latency",
    (r) => rangeIn(r, 0, 60_000),
    [dt.latencyMinMs, dt.latencyMaxMs] as [number, number],
    "a range of milliseconds like 10-20",
    range,
  );
  const ttl = pick("ttl", (r) => decimalIn(r, 1, 3_600_000), dt.leaseTtlMs, "a number of milliseconds like 2000", num);
  const renew = pick("renew", (r) => decimalIn(r, 0.01, 0.99), dt.renewFraction, "a fraction of the TTL from 0.01 to 0.99, like 0.33", (v) =>
    v.toFixed(2),
  );
  const grace = pick("grace", (r) => decimalIn(r, 0, 3_600_000), dt.gracePeriodMs, "a number of milliseconds like 500", num);

  let timing: TimingSettings = {
    electionTimeoutMinMs: election[0],
    electionTimeoutMaxMs: election[1],
    heartbeatIntervalMs: heartbeat,
    latencyMinMs: latency[0],
    latencyMaxMs: latency[1],
    leaseTtlMs: ttl,
    renewFraction: renew,
    gracePeriodMs: grace,
    ...parseKnobs(q, problems),
  };
  const base = { seed, nodes, spares, clients: { count: clients, workload: clients > 0 ? ("random" as const) : ("none" as const) }, holders, speed };
  // Settings that are fine one by one can still clash (a heartbeat longer than the election timeout).
  const clash = configProblems(configFor({ ...base, autoplay: true, timing }));
  if (clash.length > 0) {
    problems.push(`Ignored the timing settings: ${clash.join("; ")}. Using the default timing instead.`);
    timing = dt;
  }
  const rawT = q.get("t");
  const moment = rawT === null ? undefined : momentParam(rawT);
  if (typeof moment === "string") problems.push(moment);
  const at = typeof moment === "number" ? moment : undefined;
  // A run opened at a moment opens paused there, so that moment is what is shown.
  const settings = { ...base, autoplay: at === undefined ? d.autoplay : false, timing };
  return at === undefined ? { settings, problems } : { settings, problems, at };
}

/** ?checkpoint=on&checkpointevery=500&lockdelay=1000&driftmargin=50000&slack=1.5&pool=2, each checked by the engine's own range. */
function parseKnobs(q: URLSearchParams, problems: string[]): KnobValues {
  const dt = DEFAULT_TIMING;
  const raw = q.get("checkpoint");
  let checkpoint = dt.checkpoint;
  if (raw !== null) {
    if (raw === "on" || raw === "off") checkpoint = raw === "on";
    else problems.push(`Ignored ?checkpoint=${shown(raw)}: checkpoint must be on or off. Using checkpoint ${dt.checkpoint ? "on" : "off"} instead.`);
  }
  const out: Record<string, number> = {};
  for (const k of NUMBER_KNOBS) {
    const r = q.get(k.param);
    const fallback = dt[k.key];
    out[k.key] = fallback;
    if (r === null) continue;
    const n = r.trim() === "" ? Number.NaN : Number(r);
    const problem = Number.isFinite(n) ? knobProblem(k, n) : `must be a number (got ${shown(r)})`;
    if (problem === null) out[k.key] = n;
    else problems.push(`Ignored ?${k.param}=${shown(r)}: ${k.label} ${problem}. Using ${fallback} instead.`);
  }
  return { ...(out as Omit<KnobValues, "checkpoint">), checkpoint };
}

/** The query string that reproduces `s` (only what differs from the defaults, seed always). */
export function toSearch(s: RunSettings): string {
  const q = new URLSearchParams();
  const d = DEFAULT_SETTINGS;
  const t = s.timing;
  const dt = DEFAULT_TIMING;
  q.set("seed", String(s.seed));
  if (s.nodes !== d.nodes) q.set("nodes", String(s.nodes));
  if (s.spares !== d.spares) q.set("spares", String(s.spares));
  if (s.holders !== d.holders) q.set("holders", String(s.holders));
  if (s.clients.count !== d.clients.count) q.set("clients", String(s.clients.count));
  if (s.speed !== d.speed) q.set("speed", String(s.speed));
  if (t.electionTimeoutMinMs !== dt.electionTimeoutMinMs || t.electionTimeoutMaxMs !== dt.electionTimeoutMaxMs)
    q.set("election", `${t.electionTimeoutMinMs}-${t.electionTimeoutMaxMs}`);
  if (t.heartbeatIntervalMs !== dt.heartbeatIntervalMs) q.set("heartbeat", String(t.heartbeatIntervalMs));
  if (t.latencyMinMs !== dt.latencyMinMs || t.latencyMaxMs !== dt.latencyMaxMs) q.set("latency", `${t.latencyMinMs}-${t.latencyMaxMs}`);
  if (t.leaseTtlMs !== dt.leaseTtlMs) q.set("ttl", String(t.leaseTtlMs));
  if (t.renewFraction !== dt.renewFraction) q.set("renew", String(Math.round(t.renewFraction * 1000) / 1000));
  if (t.gracePeriodMs !== dt.gracePeriodMs) q.set("grace", String(t.gracePeriodMs));
  if (t.checkpoint !== dt.checkpoint) q.set("checkpoint", t.checkpoint ? "on" : "off");
  for (const k of NUMBER_KNOBS) if (t[k.key] !== dt[k.key]) q.set(k.param, String(t[k.key]));
  return `?${q.toString()}`;
}

/**
 * How the page starts: from a share link in the hash (#run=1.…) when there is one, else
 * from the query parameters as parseParams reads them. A link with a cursor position
 * (ui.at) opens paused at that moment, so the shared moment is what is shown; without
 * one the run plays. A link that cannot be read is explained, each problem in its own
 * sentence, and the page starts the query-parameter (or default) run instead.
 */
export async function bootParams(search: string, hash: string): Promise<ParsedParams> {
  const fromQuery = parseParams(search);
  const payload = runPayloadFromHash(hash);
  if (payload === null) return fromQuery;
  // The decoder (and the scenario check it loads) is a chunk of its own: only a share link needs it.
  const { decodeRunPayload } = await import("./sharing/link");
  const link = await decodeRunPayload(payload);
  if (!link.ok) {
    return {
      settings: fromQuery.settings,
      problems: [
        "The share link in the address (#run=…) could not be opened, so a normal run started instead:",
        ...link.errors,
        ...fromQuery.problems,
      ],
    };
  }
  const settings = openedSettings(link.scenario, fromQuery.settings.speed);
  // ?t= (the moment the page was at) wins over the moment the link was made at.
  if (fromQuery.at === undefined) return { settings, problems: fromQuery.problems.filter((p) => p.startsWith("Ignored ?t=")), run: link.scenario };
  return { settings: { ...settings, autoplay: false }, problems: [], run: link.scenario, at: fromQuery.at };
}

/**
 * The page's settings for a run opened from a link or a file: a run with a cursor position
 * (ui.at) opens paused there, so the shared moment is what is shown; without one it plays.
 */
export function openedSettings(sc: Scenario, speed: number): RunSettings {
  return settingsFromScenario(sc, { speed, autoplay: sc.ui?.at === undefined });
}
