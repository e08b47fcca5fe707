/** Run settings -> simulator configuration (shared by the worker and the page's URL checks). */
import { defaultConfig, mergeConfig, type SimConfig } from "../core/sim/config";
import { DEFAULT_SPEED, MAX_SPEED, MIN_SPEED, type RunSettings } from "./protocol";

export function configFor(s: RunSettings): SimConfig {
  const t = s.timing;
  return mergeConfig(defaultConfig(), {
    seed: s.seed,
    nodes: s.nodes,
    raft: {
      electionTimeoutMinMs: t.electionTimeoutMinMs,
      electionTimeoutMaxMs: t.electionTimeoutMaxMs,
      heartbeatIntervalMs: t.heartbeatIntervalMs,
    },
    network: { latencyMinMs: t.latencyMinMs, latencyMaxMs: t.latencyMaxMs },
    clients: { count: s.clients.count, workload: s.clients.workload },
    holders: { count: s.holders, ttlMs: t.leaseTtlMs, renewFraction: t.renewFraction, gracePeriodMs: t.gracePeriodMs },
  });
}

export function clampSpeed(speed: number): number {
  if (!Number.isFinite(speed)) return DEFAULT_SPEED;
  return Math.min(MAX_SPEED, Math.max(MIN_SPEED, speed));
}

