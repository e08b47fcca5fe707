/**
 * The random nemesis: at random intervals, a random fault from the seeded stream
 * (crash, restart, partition, heal, one-way cut, pause, clock drift or jump,
 * message loss and duplication). At `quietAfterUs` it heals everything and stops,
 * so a run can end by checking that the cluster recovers.
 */
import { Rng } from "./rng";
import type { Action, Simulation } from "./sim";

/** "gc": a lease holder pauses right after checking its lease, before it writes (Kleppmann's story). */
export type FaultKind = "crash" | "partition" | "cut" | "pause" | "clock" | "network" | "gc";

export const ALL_FAULTS: readonly FaultKind[] = ["crash", "partition", "cut", "pause", "clock", "network", "gc"];

export interface NemesisConfig {
  readonly intervalMinUs: number;
  readonly intervalMaxUs: number;
  readonly faults: readonly FaultKind[];
  /** After this virtual time: heal, restart, resume, reset clocks and network; then stop. */
  readonly quietAfterUs: number;
  /** Pause clients and lease holders too, and crash holders (not only nodes). */
  readonly includeClients: boolean;
}

export class NemesisState {
  done = false;
  constructor(
    readonly cfg: NemesisConfig,
    readonly rng: Rng,
  ) {
    if (cfg.intervalMinUs <= 0 || cfg.intervalMaxUs < cfg.intervalMinUs) throw new Error("nemesis interval must be a positive range");
    if (cfg.faults.length === 0) throw new Error("nemesis needs at least one kind of fault");
  }
  clone(): NemesisState {
    const c = new NemesisState(this.cfg, Rng.restore(this.rng.snapshot()));
    c.done = this.done;
    return c;
  }
  nextDelayUs(): number {
    return this.rng.int(this.cfg.intervalMinUs, this.cfg.intervalMaxUs);
  }
}

/** The actions for one nemesis tick. Pure apart from the nemesis's own stream. */
export function nemesisStep(n: NemesisState, sim: Simulation): Action[] {
  if (n.done) return [];
  const rng = n.rng;
  const nodes = sim.nodeIds;
  if (sim.now >= n.cfg.quietAfterUs) {
    n.done = true;
    const out: Action[] = [{ type: "note", text: "nemesis: quiet period, healing everything" }, { type: "heal" }];
    out.push({ type: "network", dropRate: 0, duplicateRate: 0 });
    for (const id of [...nodes, ...sim.clientIds, ...sim.holderIds]) {
      const st = sim.status(id);
      if (st === "down") out.push({ type: "restart", proc: id });
      if (st === "paused") out.push({ type: "resume", proc: id });
      if (sim.clockOf(id).driftPpm !== 0) out.push({ type: "clock", proc: id, driftPpm: 0 });
    }
    return out;
  }
  const picked = rng.pick(n.cfg.faults);
  // Without holders there is nothing to GC-pause at the worst moment: pause something instead.
  const kind = picked === "gc" && sim.holderIds.length === 0 ? "pause" : picked;
  switch (kind) {
    case "gc": {
      const target = rng.pick(sim.holderIds);
      if (sim.status(target) !== "up") return [];
      return [{ type: "gc-pause", holder: target, durationUs: rng.int(500_000, 4_000_000) }];
    }
    case "crash": {
      // Holders crash too (their leases must then expire), a fifth of the time.
      const pool = n.cfg.includeClients && sim.holderIds.length > 0 && rng.chance(0.2) ? sim.holderIds : nodes;
      const down = pool.filter((id) => sim.status(id) === "down");
      const up = pool.filter((id) => sim.status(id) !== "down");
      // Restart more eagerly as more nodes are down, so the cluster keeps coming back.
      if (down.length > 0 && (up.length === 0 || rng.chance(down.length / pool.length + 0.2))) {
        return [{ type: "restart", proc: rng.pick(down) }];
      }
      return up.length > 0 ? [{ type: "crash", proc: rng.pick(up) }] : [];
    }
    case "partition": {
      if (rng.chance(0.35)) return [{ type: "heal" }];
      const shuffled = rng.shuffle(nodes);
      const groups = rng.chance(0.2) && nodes.length >= 3 ? 3 : 2;
      const cuts = rng
        .shuffle(Array.from({ length: nodes.length - 1 }, (_, i) => i + 1))
        .slice(0, groups - 1)
        .sort((a, b) => a - b);
      const out: string[][] = [];
      let prev = 0;
      for (const c of [...cuts, nodes.length]) {
        out.push(shuffled.slice(prev, c));
        prev = c;
      }
      return [{ type: "partition", groups: out.filter((g) => g.length > 0) }];
    }
    case "cut": {
      if (nodes.length < 2) return [];
      const from = rng.pick(nodes);
      const to = rng.pick(nodes.filter((x) => x !== from));
      return [{ type: "cut", from, to }];
    }
    case "pause": {
      const pool = n.cfg.includeClients ? [...nodes, ...sim.clientIds, ...sim.holderIds] : [...nodes];
      const target = rng.pick(pool);
      if (sim.status(target) !== "up") return [];
      return [{ type: "pause", proc: target, durationUs: rng.int(10_000, 2_000_000) }];
    }
    case "clock": {
      const target = rng.pick(nodes);
      if (rng.chance(0.2)) return [{ type: "clock", proc: target, jumpUs: rng.int(-500_000, 500_000) }];
      return [{ type: "clock", proc: target, driftPpm: rng.chance(0.3) ? 0 : rng.int(-200_000, 200_000) }];
    }
    case "network": {
      if (rng.chance(0.4)) return [{ type: "network", dropRate: 0, duplicateRate: 0 }];
      return [{ type: "network", dropRate: rng.int(0, 30) / 100, duplicateRate: rng.int(0, 10) / 100 }];
    }
  }
}
