/** Reads the run settings from the page's query string (?seed=, ?nodes=, ?clients=, ?holders=, ?speed=). Bad values fall back to defaults, with a message. */
import { MAX_CLIENTS, MAX_HOLDERS, MAX_NODES } from "../core/sim/config";
import { DEFAULT_SPEED, MAX_SPEED, MIN_SPEED, type RunSettings } from "../worker/protocol";

export const DEFAULT_SETTINGS: RunSettings = {
  seed: 1,
  nodes: 5,
  clients: { count: 2, workload: "random" },
  holders: 3,
  speed: DEFAULT_SPEED,
  autoplay: true,
};

export interface ParsedParams {
  readonly settings: RunSettings;
  /** One sentence per ignored parameter, for the user. */
  readonly problems: readonly string[];
}

const WHOLE = /^-?\d+$/;
const DECIMAL = /^\d+(\.\d+)?$|^\.\d+$/;

function wholeIn(raw: string, lo: number, hi: number): number | null {
  const s = raw.trim();
  if (!WHOLE.test(s)) return null;
  const n = Number(s);
  return Number.isSafeInteger(n) && n >= lo && n <= hi ? n : null;
}

export function parseParams(search: string): ParsedParams {
  const q = new URLSearchParams(search);
  const problems: string[] = [];
  const d = DEFAULT_SETTINGS;

  const pick = (name: string, parse: (raw: string) => number | null, fallback: number, rule: string): number => {
    const raw = q.get(name);
    if (raw === null) return fallback;
    const v = parse(raw);
    if (v !== null) return v;
    const shown = raw.length > 40 ? `${raw.slice(0, 40)}…` : raw;
    problems.push(`Ignored ?${name}=${shown}: ${name} must be ${rule}. Using ${name} ${fallback} instead.`);
    return fallback;
  };

  const seed = pick("seed", (r) => wholeIn(r, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER), d.seed, "a whole number, like 42");
  const nodes = pick("nodes", (r) => wholeIn(r, 1, MAX_NODES), d.nodes, `a whole number from 1 to ${MAX_NODES}`);
  const clients = pick("clients", (r) => wholeIn(r, 0, MAX_CLIENTS), d.clients.count, `a whole number from 0 to ${MAX_CLIENTS}`);
  const holders = pick("holders", (r) => wholeIn(r, 0, MAX_HOLDERS), d.holders, `a whole number from 0 to ${MAX_HOLDERS}`);
  const speed = pick(
    "speed",
    (r) => {
      const s = r.trim();
      const n = Number(s);
      return DECIMAL.test(s) && n >= MIN_SPEED && n <= MAX_SPEED ? n : null;
    },
    d.speed,
    `a number from ${MIN_SPEED} to ${MAX_SPEED} (virtual seconds per real second)`,
  );

  return {
    settings: { seed, nodes, clients: { count: clients, workload: clients > 0 ? "random" : "none" }, holders, speed, autoplay: d.autoplay },
    problems,
  };
}
