/**
 * The simulation settings a scenario asks for: its sections over the defaults, its holder
 * preset, and as many clients and holders as its actions name. Apart from the runner, so
 * the page (which shows a scenario's settings) loads neither the runner nor the file schema.
 */
import { type ConfigPatch, defaultConfig, mergeConfig, type SimConfig } from "../sim/config";
import type { Scenario } from "./schema";

/** What a run may override in a scenario's settings (RunOptions has these and more). */
export interface ConfigOverrides {
  seed?: number;
  nodes?: number;
  checkers?: boolean;
  hashTrace?: boolean;
  stopOnViolation?: boolean;
}

/** The simulation settings a scenario asks for (with overrides applied). */
export function scenarioConfig(s: Scenario, opts: ConfigOverrides = {}): SimConfig {
  const patch: ConfigPatch = {
    seed: opts.seed ?? s.seed,
    nodes: opts.nodes ?? s.cluster.nodes ?? defaultConfig().nodes,
    spares: s.cluster.spares ?? 0,
    raft: dropUndefined({ ...s.cluster, nodes: undefined, spares: undefined }),
    network: dropUndefined(s.network),
    clients: dropUndefined({ ...s.clients, count: s.clients.count ?? clientsNeeded(s) }),
    lease: dropUndefined(s.lease),
    holders: dropUndefined({
      ...(s.holders.preset === undefined ? {} : HOLDER_PRESETS[s.holders.preset]),
      ...s.holders,
      preset: undefined,
      count: s.holders.count ?? holdersNeeded(s),
    }),
    storage: dropUndefined(s.storage),
    checkers: opts.checkers ?? true,
    hashTrace: opts.hashTrace ?? true,
    stopOnViolation: opts.stopOnViolation ?? false,
  };
  return mergeConfig(defaultConfig(), patch);
}

/** Holder presets from the seed documents. */
const HOLDER_PRESETS = {
  /** etcd's client sends the next keepalive a third of the TTL after each answer. */
  etcd: { renewFraction: 1 / 3 },
  /** DHCP renews at T1 = half of the lease. */
  dhcp: { renewFraction: 1 / 2, rebindFraction: 7 / 8 },
  /** Database replicas (WSFC's availability group): the lease holder is the primary, renewing at a quarter of the TTL. */
  primary: { replicas: true, renewFraction: 1 / 4 },
} as const;

function holdersNeeded(s: Scenario): number {
  let n = 0;
  for (const a of s.actions) {
    const ref = a.do === "release" || a.do === "gc-pause" ? a.holder : "node" in a ? a.node : "";
    const m = /^h(\d+)$/.exec(ref);
    if (m) n = Math.max(n, Number(m[1]));
  }
  return n;
}

function clientsNeeded(s: Scenario): number {
  let n = 0;
  for (const a of s.actions) {
    if (a.do !== "propose" && a.do !== "read" && a.do !== "lease-query") continue;
    const m = /^c(\d+)$/.exec(a.client);
    n = Math.max(n, m ? Number(m[1]) : 1);
  }
  return n;
}

function dropUndefined<T extends object>(o: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as { [K in keyof T]: Exclude<T[K], undefined> };
}
