/**
 * The random nemesis: at random intervals, a random fault from the seeded stream.
 *
 * Swarm testing (Groce et al., "Swarm Testing", ISSTA 2012; TigerBeetle's VOPR): unless a
 * scenario pins the kinds of fault, each run draws its own mix from its seed (a random subset
 * of the kinds, each with a weight) and its own rates and intervals. One fixed mix of every
 * fault spreads every run thin; a run that only crashes leaders, or only delays messages and
 * restarts nodes, reaches states a uniform mix almost never does. The mix is written to the
 * trace as a note at time 0, so a failing seed says what it ran.
 *
 * Some kinds are patterns over time rather than one action: the nemesis then keeps a small
 * plan (actions due at later times) or watches the cluster every millisecond for a moment
 * (a leader that replicated to a minority only; a node that just voted; a lease about to
 * expire). At `quietAfterUs` it drops its plans, heals everything and stops, so a run can
 * end by checking that the cluster recovers.
 */
import { localTime } from "./clock";
import { holderSettings } from "./config";
import { Rng } from "./rng";
import type { Action, Simulation } from "./sim";

/**
 * "gc": a lease holder pauses right after checking its lease, before it writes (Kleppmann's story).
 * "leader-crash": watch for a leader with an entry of its term on some but not a majority, crash it then (Figure 8).
 * "restart-storm": crash and restart one node several times with short gaps; or crash a node right after
 *   it voted and restart it at once (a lost vote shows there).
 * "leader-isolate": partition the leader with one follower from the rest (a minority leader, stale reads).
 * "slow-link": one link gets slow one way (its replies still come quickly), often healed later.
 * "delay": a latency spike, so messages of one term arrive after those of the next.
 * "transfer": the leader hands leadership to a random follower (a planned failover, dissertation 3.10),
 *   which may be behind, paused or cut off: the handover must then be given up.
 * "membership": the leader adds a server outside the configuration (a spare, or one removed before) or
 *   removes a member, one at a time (dissertation 4), never below three members; the leader may remove itself.
 * "holder-expiry": crash a lease holder and restart it just around the time the leader expires its lease,
 *   so its new grant races the Expire.
 */
export type FaultKind =
  | "crash"
  | "partition"
  | "cut"
  | "pause"
  | "clock"
  | "network"
  | "gc"
  | "leader-crash"
  | "restart-storm"
  | "leader-isolate"
  | "delay"
  | "slow-link"
  | "transfer"
  | "membership"
  | "holder-expiry";

export const ALL_FAULTS: readonly FaultKind[] = [
  "crash",
  "partition",
  "cut",
  "pause",
  "clock",
  "network",
  "gc",
  "leader-crash",
  "restart-storm",
  "leader-isolate",
  "delay",
  "slow-link",
  "transfer",
  "membership",
  "holder-expiry",
];

/** Kinds that act on lease holders: without holders (or without includeClients) a swarm does not draw them. */
const HOLDER_FAULTS: readonly FaultKind[] = ["gc", "holder-expiry"];

export interface NemesisConfig {
  readonly intervalMinUs: number;
  readonly intervalMaxUs: number;
  /** The kinds to draw from, equally likely; null: swarm, each run draws its own mix from its seed. */
  readonly faults: readonly FaultKind[] | null;
  /** After this virtual time: heal, restart, resume, reset clocks and network; then stop. */
  readonly quietAfterUs: number;
  /** Pause clients and lease holders too, and crash holders (not only nodes). */
  readonly includeClients: boolean;
}

/** One run's fault mix: drawn from the seed in swarm mode, fixed otherwise. Plain data. */
export interface NemesisMix {
  readonly swarm: boolean;
  readonly kinds: readonly FaultKind[];
  /** Relative weight of each kind (same order as kinds). */
  readonly weights: readonly number[];
  readonly intervalMinUs: number;
  readonly intervalMaxUs: number;
  /** Upper bounds of the loss and duplication rates a "network" fault sets. */
  readonly dropMax: number;
  readonly duplicateMax: number;
  readonly pauseMaxUs: number;
  /** Longest latency of a "delay" spike. */
  readonly delayMaxUs: number;
  /** Gaps between a crash and its restart in a restart storm. */
  readonly restartGapMaxUs: number;
}

type Watch =
  | {
      readonly kind: "leader-minority";
      readonly untilUs: number;
      readonly restartAfterUs: number;
      /** Wait for the leader's commit index to pass this first (crash right after a commit), or 0. */
      readonly commitAbove: number;
      /** Leader crashes still to come in this streak after this one. */
      readonly more: number;
    }
  | { readonly kind: "voter"; readonly untilUs: number; readonly restartAfterUs: number }
  | { readonly kind: "holder-expiry"; readonly untilUs: number; readonly holder: string; readonly lease: string; readonly leadUs: number };

interface Planned {
  readonly at: number;
  readonly action: Action;
}

/** How often the nemesis looks while it watches for a moment (µs). */
const WATCH_POLL_US = 1000;

export class NemesisState {
  done = false;
  /** Drawn at the first tick (time 0), from the nemesis's own stream. */
  mix: NemesisMix | null = null;
  /** When the next random fault is due (absolute µs). */
  nextFaultAt = 0;
  /** Actions planned for later, in time order. */
  plan: Planned[] = [];
  watch: Watch | null = null;
  /** No holder-expiry fault before this time: let a raced grant play out (absolute µs). */
  holderCooldownUntil = 0;
  /** The delay to the next tick, set by nemesisStep; null before the first tick. */
  private nextTickUs: number | null = null;

  constructor(
    readonly cfg: NemesisConfig,
    readonly rng: Rng,
  ) {
    if (cfg.intervalMinUs <= 0 || cfg.intervalMaxUs < cfg.intervalMinUs) throw new Error("nemesis interval must be a positive range");
    if (cfg.faults !== null && cfg.faults.length === 0) throw new Error("nemesis needs at least one kind of fault");
  }
  clone(): NemesisState {
    const c = new NemesisState(this.cfg, Rng.restore(this.rng.snapshot()));
    c.done = this.done;
    c.mix = this.mix;
    c.nextFaultAt = this.nextFaultAt;
    c.plan = this.plan.slice();
    c.watch = this.watch;
    c.holderCooldownUntil = this.holderCooldownUntil;
    c.nextTickUs = this.nextTickUs;
    return c;
  }
  /** The delay to the next tick: 0 for the first (the mix is drawn and noted at time 0). */
  nextDelayUs(): number {
    return this.nextTickUs ?? 0;
  }
  setNextTick(us: number): void {
    this.nextTickUs = Math.max(1, us);
  }
  drawInterval(): number {
    const m = this.mix as NemesisMix;
    return this.rng.int(m.intervalMinUs, m.intervalMaxUs);
  }
}

/** A log-uniform draw in [lo, hi] (whole µs): small values as likely as large ones by order of magnitude. */
function logUniform(rng: Rng, lo: number, hi: number): number {
  if (hi <= lo) return lo;
  const f = rng.int(0, 1_000_000) / 1_000_000;
  return Math.min(hi, Math.max(lo, Math.round(lo * (hi / lo) ** f)));
}

/** Draws (swarm) or fixes the run's mix. Uses only the nemesis's stream; `sim` is read for who exists. */
export function drawMix(cfg: NemesisConfig, rng: Rng, sim: Pick<Simulation, "holderIds">): NemesisMix {
  const holders = cfg.includeClients && sim.holderIds.length > 0;
  if (cfg.faults !== null) {
    return {
      swarm: false,
      kinds: cfg.faults,
      weights: cfg.faults.map(() => 1),
      intervalMinUs: cfg.intervalMinUs,
      intervalMaxUs: cfg.intervalMaxUs,
      dropMax: 0.3,
      duplicateMax: 0.1,
      pauseMaxUs: 2_000_000,
      delayMaxUs: 1_000_000,
      restartGapMaxUs: 50_000,
    };
  }
  const usable = ALL_FAULTS.filter((k) => holders || !HOLDER_FAULTS.includes(k));
  // Each kind is in with even odds (at least one); a kind that is in gets a weight of 1 to 8.
  let kinds = usable.filter(() => rng.chance(0.5));
  if (kinds.length === 0) kinds = [rng.pick(usable)];
  const weights = kinds.map(() => rng.int(1, 8));
  // The interval range is a random sub-range of the configured one.
  const a = logUniform(rng, cfg.intervalMinUs, cfg.intervalMaxUs);
  const b = logUniform(rng, cfg.intervalMinUs, cfg.intervalMaxUs);
  return {
    swarm: true,
    kinds,
    weights,
    intervalMinUs: Math.min(a, b),
    intervalMaxUs: Math.max(a, b),
    dropMax: rng.int(2, 40) / 100,
    duplicateMax: rng.int(0, 15) / 100,
    pauseMaxUs: logUniform(rng, 50_000, 3_000_000),
    delayMaxUs: logUniform(rng, 100_000, 2_000_000),
    restartGapMaxUs: logUniform(rng, 2_000, 200_000),
  };
}

/** The mix in one line, as the trace note and the CLI print it. */
export function describeMix(m: NemesisMix): string {
  const ms = (us: number): string => `${Math.round(us / 1000)}ms`;
  const kinds = m.kinds.map((k, i) => `${k}×${m.weights[i]}`).join(" ");
  return (
    `${m.swarm ? "swarm" : "fixed"} mix: ${kinds}; every ${ms(m.intervalMinUs)}–${ms(m.intervalMaxUs)}; ` +
    `loss ≤${m.dropMax}, dup ≤${m.duplicateMax}, pause ≤${ms(m.pauseMaxUs)}, delay ≤${ms(m.delayMaxUs)}, restart gap ≤${ms(m.restartGapMaxUs)}`
  );
}

function pickWeighted(rng: Rng, m: NemesisMix): FaultKind {
  const total = m.weights.reduce((s, w) => s + w, 0);
  let r = rng.int(1, total);
  for (let i = 0; i < m.kinds.length; i++) {
    r -= m.weights[i] as number;
    if (r <= 0) return m.kinds[i] as FaultKind;
  }
  return m.kinds[m.kinds.length - 1] as FaultKind;
}

/** The actions for one nemesis tick. Pure apart from the nemesis's own state and stream. */
export function nemesisStep(n: NemesisState, sim: Simulation): Action[] {
  if (n.done) return [];
  const now = sim.now;
  if (n.mix === null) {
    n.mix = drawMix(n.cfg, n.rng, sim);
    n.nextFaultAt = now + n.drawInterval();
    n.setNextTick(n.nextFaultAt - now);
    return [{ type: "note", text: `nemesis: ${describeMix(n.mix)}` }];
  }
  if (now >= n.cfg.quietAfterUs) {
    n.done = true;
    n.plan = [];
    n.watch = null;
    const out: Action[] = [{ type: "note", text: "nemesis: quiet period, healing everything" }, { type: "heal" }];
    const net = sim.config.network;
    out.push({ type: "network", dropRate: 0, duplicateRate: 0, latencyMinUs: net.latencyMinMs * 1000, latencyMaxUs: net.latencyMaxMs * 1000 });
    for (const id of [...sim.nodeIds, ...sim.clientIds, ...sim.holderIds]) {
      const st = sim.status(id);
      if (st === "down") out.push({ type: "restart", proc: id });
      if (st === "paused") out.push({ type: "resume", proc: id });
      if (sim.clockOf(id).driftPpm !== 0) out.push({ type: "clock", proc: id, driftPpm: 0 });
    }
    return out;
  }
  const out: Action[] = [];
  while (n.plan.length > 0 && (n.plan[0] as Planned).at <= now) out.push((n.plan.shift() as Planned).action);
  if (n.watch !== null) out.push(...watchStep(n, sim));
  if (now >= n.nextFaultAt) {
    out.push(...randomFault(n, sim));
    n.nextFaultAt = now + n.drawInterval();
  }
  let next = n.nextFaultAt;
  if (n.plan.length > 0) next = Math.min(next, (n.plan[0] as Planned).at);
  if (n.watch !== null) next = Math.min(next, now + WATCH_POLL_US);
  n.setNextTick(next - now);
  return out;
}

function schedule(n: NemesisState, at: number, action: Action): void {
  let i = n.plan.length;
  while (i > 0 && (n.plan[i - 1] as Planned).at > at) i--;
  n.plan.splice(i, 0, { at, action });
}

/** The up leader's view: an entry of its own term, uncommitted, held by the leader and fewer than a majority. */
function leaderWithMinorityEntry(sim: Simulation, needFollower: boolean): string | null {
  const id = sim.leader();
  if (id === null || sim.status(id) !== "up") return null;
  const node = sim.server(id).node;
  if (node === null || node.role !== "leader") return null;
  const last = node.lastIndex;
  if (last <= node.commitIndex || node.termAt(last) !== node.term) return null;
  const quorum = Math.floor(sim.nodeIds.length / 2) + 1;
  let have = 1;
  for (const p of Object.values(node.progress)) if (p.match >= last) have++;
  if (have >= quorum) return null;
  // Replicated to a minority (some follower has it), or, late in the watch, only on the leader.
  const followers = have - 1;
  return followers > 0 || !needFollower ? id : null;
}

/** A node that granted its vote in its current term and has heard from no leader of that term. */
function freshVoter(sim: Simulation): string | null {
  for (const id of sim.nodeIds) {
    if (sim.status(id) !== "up") continue;
    const node = sim.server(id).node;
    if (node === null) continue;
    if (node.role === "follower" && node.leader === null && node.votedFor !== null && node.votedFor !== id) return id;
  }
  return null;
}

/** Watch for a leader to crash: while it has an entry on a minority only, and half the time right after its commit index moves. */
function leaderWatch(rng: Rng, now: number, more: number, sim: Simulation): Watch {
  const l = sim.leader();
  const afterCommit = rng.chance(0.5);
  const commitAbove = afterCommit ? Math.max(1, l === null ? 1 : (sim.server(l).node?.commitIndex ?? 1)) : 0;
  return { kind: "leader-minority", untilUs: now + 1_500_000, restartAfterUs: rng.int(5_000, 800_000), commitAbove, more };
}

function watchStep(n: NemesisState, sim: Simulation): Action[] {
  const w = n.watch as Watch;
  const now = sim.now;
  switch (w.kind) {
    case "leader-minority": {
      // For the first half of the watch, insist that some follower has the entry (a true minority).
      const half = now < w.untilUs - 500_000;
      const l = sim.leader();
      const committed = l === null ? 0 : (sim.server(l).node?.commitIndex ?? 0);
      const id = w.commitAbove > 0 && committed <= w.commitAbove ? null : leaderWithMinorityEntry(sim, half);
      if (id === null) {
        if (now >= w.untilUs) n.watch = null;
        else if (w.commitAbove > 0 && l !== null && committed < w.commitAbove) n.watch = { ...w, commitAbove: committed };
        return [];
      }
      n.watch = null;
      schedule(n, now + w.restartAfterUs, { type: "restart", proc: id });
      // A streak: the next leader too (Figure 8 takes three leader crashes in a row).
      if (w.more > 0) n.watch = leaderWatch(n.rng, now, w.more - 1, sim);
      return [
        { type: "note", text: `nemesis: leader ${id} has an entry on a minority only; crashing it` },
        { type: "crash", proc: id },
      ];
    }
    case "voter": {
      const id = freshVoter(sim);
      if (id === null) {
        if (now >= w.untilUs) n.watch = null;
        return [];
      }
      n.watch = null;
      schedule(n, now + w.restartAfterUs, { type: "restart", proc: id });
      return [
        { type: "note", text: `nemesis: ${id} just voted; crashing and restarting it` },
        { type: "crash", proc: id },
      ];
    }
    case "holder-expiry": {
      const h = w.holder;
      if (sim.status(h) !== "down") {
        n.watch = null;
        return [];
      }
      const leader = sim.leader();
      const tracker = leader === null ? null : sim.server(leader).tracker;
      const expires = tracker?.expiresAt(w.lease) ?? null;
      // Restart when the leader's clock is leadUs before (negative: after) its expiry of the lease;
      // or when no leader times the lease any more, or the watch runs out.
      const leaderNow = leader === null ? 0 : localTime(sim.clockOf(leader), now);
      const due = expires === null ? now >= w.untilUs : expires - leaderNow <= w.leadUs || now >= w.untilUs;
      if (!due) return [];
      n.watch = null;
      // Leave the holders alone for a while, so a grant that raced the Expire can show what it does.
      n.holderCooldownUntil = now + w.leadUs + 3_000_000;
      return [
        {
          type: "note",
          text: `nemesis: restarting ${h} ${expires === null ? "(its lease is no longer timed)" : `${Math.round((expires - leaderNow) / 1000)}ms before ${leader} expires ${w.lease}`}`,
        },
        { type: "restart", proc: h },
      ];
    }
  }
}

/** One random fault: a kind drawn from the run's mix, then its action (or the start of its pattern). */
function randomFault(n: NemesisState, sim: Simulation): Action[] {
  const rng = n.rng;
  const mix = n.mix as NemesisMix;
  const nodes = sim.nodeIds;
  const picked = pickWeighted(rng, mix);
  // Without holders there is nothing to GC-pause or expire: pause or crash something instead.
  const noHolders = sim.holderIds.length === 0 || !n.cfg.includeClients;
  const kind = picked === "gc" && sim.holderIds.length === 0 ? "pause" : picked === "holder-expiry" && noHolders ? "crash" : picked;
  switch (kind) {
    case "gc": {
      const target = rng.pick(sim.holderIds);
      if (sim.status(target) !== "up") return [];
      return [{ type: "gc-pause", holder: target, durationUs: rng.int(500_000, 4_000_000) }];
    }
    case "crash":
      return crashOrRestart(n, sim);
    case "partition":
      return randomPartition(rng, nodes);
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
      return [{ type: "pause", proc: target, durationUs: rng.int(10_000, Math.max(10_000, mix.pauseMaxUs)) }];
    }
    case "clock": {
      const target = rng.pick(nodes);
      if (rng.chance(0.2)) return [{ type: "clock", proc: target, jumpUs: rng.int(-500_000, 500_000) }];
      return [{ type: "clock", proc: target, driftPpm: rng.chance(0.3) ? 0 : rng.int(-200_000, 200_000) }];
    }
    case "network": {
      if (rng.chance(0.4)) return [{ type: "network", dropRate: 0, duplicateRate: 0 }];
      return [
        {
          type: "network",
          dropRate: rng.int(0, Math.round(mix.dropMax * 100)) / 100,
          duplicateRate: rng.int(0, Math.round(mix.duplicateMax * 100)) / 100,
        },
      ];
    }
    case "leader-crash": {
      if (n.watch !== null) return [];
      n.watch = leaderWatch(rng, sim.now, rng.int(0, 3), sim);
      return [];
    }
    case "restart-storm":
      return restartStorm(n, sim);
    case "leader-isolate":
      return isolateLeader(n, sim);
    case "delay":
      return latencySpike(n, sim);
    case "slow-link": {
      if (nodes.length < 2) return [];
      const from = rng.pick(nodes);
      const to = rng.pick(nodes.filter((x) => x !== from));
      const delayUs = rng.int(20_000, Math.max(20_000, mix.delayMaxUs));
      if (rng.chance(0.6)) schedule(n, sim.now + logUniform(rng, 100_000, 3_000_000), { type: "slow-link", from, to, delayUs: 0 });
      return [{ type: "slow-link", from, to, delayUs }];
    }
    case "transfer": {
      const l = sim.leader();
      if (l === null || sim.status(l) !== "up") return [];
      return [{ type: "transfer", to: rng.pick(nodes.filter((x) => x !== l)) }];
    }
    case "membership":
      return membershipChange(rng, sim);
    case "holder-expiry":
      return crashHolderBeforeExpiry(n, sim);
    default: {
      // A new kind of fault must be drawn here: the compiler names this line.
      const unhandled: never = kind;
      throw new Error(`nemesis: unhandled fault ${unhandled as string}`);
    }
  }
}

/** "crash": crash a node (or, a fifth of the time, a holder), or restart one that is down. */
function crashOrRestart(n: NemesisState, sim: Simulation): Action[] {
  const rng = n.rng;
  // Holders crash too (their leases must then expire), a fifth of the time.
  const pool = n.cfg.includeClients && sim.holderIds.length > 0 && rng.chance(0.2) ? sim.holderIds : sim.nodeIds;
  const down = pool.filter((id) => sim.status(id) === "down");
  const up = pool.filter((id) => sim.status(id) !== "down");
  // Restart more eagerly as more nodes are down, so the cluster keeps coming back.
  if (down.length > 0 && (up.length === 0 || rng.chance(down.length / pool.length + 0.2))) {
    return [{ type: "restart", proc: rng.pick(down) }];
  }
  return up.length > 0 ? [{ type: "crash", proc: rng.pick(up) }] : [];
}

/** "partition": heal, or split the nodes into two (sometimes three) random groups. */
function randomPartition(rng: Rng, nodes: readonly string[]): Action[] {
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

/** "restart-storm": watch for a node that just voted; or crash and restart one node several times. */
function restartStorm(n: NemesisState, sim: Simulation): Action[] {
  const rng = n.rng;
  const mix = n.mix as NemesisMix;
  const now = sim.now;
  if (n.watch === null && rng.chance(0.4)) {
    // Crash a node right after it voted, and bring it back before the next candidate's request lands.
    n.watch = { kind: "voter", untilUs: now + 1_500_000, restartAfterUs: rng.int(1_000, Math.max(1_000, Math.min(mix.restartGapMaxUs, 15_000))) };
    return [];
  }
  const l = sim.leader();
  const target = l !== null && rng.chance(0.5) ? l : rng.pick(sim.nodeIds);
  const rounds = rng.int(2, 5);
  let t = now;
  for (let i = 0; i < rounds; i++) {
    t += rng.int(1_000, Math.max(1_000, mix.restartGapMaxUs));
    schedule(n, t, { type: "restart", proc: target });
    if (i === rounds - 1) break;
    t += rng.int(5_000, 300_000);
    schedule(n, t, { type: "crash", proc: target });
  }
  return [{ type: "note", text: `nemesis: restart storm of ${target}, ${rounds} rounds` }, { type: "crash", proc: target }];
}

/** "leader-isolate": the leader and one follower on one side, the rest on the other; often healed later. */
function isolateLeader(n: NemesisState, sim: Simulation): Action[] {
  const rng = n.rng;
  const nodes = sim.nodeIds;
  const l = sim.leader();
  if (l === null || nodes.length < 3) return [];
  const others = nodes.filter((x) => x !== l);
  const buddy = rng.pick(others);
  const rest = others.filter((x) => x !== buddy);
  if (rng.chance(0.6)) schedule(n, sim.now + logUniform(rng, 100_000, 3_000_000), { type: "heal" });
  return [{ type: "partition", groups: [[l, buddy], rest] }];
}

/** "delay": raise the latency for a while, then set it back to the configured range. */
function latencySpike(n: NemesisState, sim: Simulation): Action[] {
  const rng = n.rng;
  const net = sim.config.network;
  const base = net.latencyMinMs * 1000;
  const spike = rng.int(Math.max(base, 50_000), Math.max(base, 50_000, (n.mix as NemesisMix).delayMaxUs));
  schedule(n, sim.now + logUniform(rng, 50_000, 2_000_000), {
    type: "network",
    latencyMinUs: base,
    latencyMaxUs: net.latencyMaxMs * 1000,
  });
  return [{ type: "network", latencyMinUs: base, latencyMaxUs: spike }];
}

/** "membership": the leader adds a server outside the configuration, or removes a member (never below three). */
function membershipChange(rng: Rng, sim: Simulation): Action[] {
  const l = sim.leader();
  const node = l === null ? null : sim.server(l).node;
  if (l === null || node === null || sim.status(l) !== "up") return [];
  const members = node.config;
  const outside = sim.nodeIds.filter((x) => !members.includes(x));
  if (outside.length > 0 && (members.length <= 3 || rng.chance(0.5))) return [{ type: "add-node", proc: rng.pick(outside) }];
  if (members.length > 3) return [{ type: "remove-node", proc: rng.pick(members) }];
  return [];
}

/** "holder-expiry": crash a holder whose lease the leader times, and watch to restart it near the expiry. */
function crashHolderBeforeExpiry(n: NemesisState, sim: Simulation): Action[] {
  const rng = n.rng;
  const now = sim.now;
  if (n.watch !== null || now < n.holderCooldownUntil) return [];
  const leader = sim.leader();
  if (leader === null) return [];
  const sm = sim.stateOf(leader);
  const tracker = sim.server(leader).tracker;
  if (sm === null || tracker === null) return [];
  const leaderNow = localTime(sim.clockOf(leader), now);
  const held = sm.leaseList().filter((l) => l.state === "held" && l.holder !== null);
  const candidates = held
    .map((l) => ({ lease: l.name, holder: (l.holder as string).split(".")[0] as string }))
    .filter((c) => sim.holderIds.includes(c.holder) && sim.status(c.holder) !== "down");
  if (candidates.length === 0) return [];
  const c = rng.pick(candidates);
  // A restarted holder asks for a grant startAfterMs after it starts. Restart it so that request
  // reaches the leader from 80 ms before to 150 ms after the leader's expiry time (its expiry
  // check runs every expiryCheckIntervalMs after that): the new grant races the Expire.
  const startAfterUs = holderSettings(sim.config, sim.holderIds.indexOf(c.holder)).startAfterMs * 1000;
  const leadUs = startAfterUs + rng.int(-150_000, 80_000);
  // Only while the leader times the lease long enough ahead that the holder is down for a while.
  const expires = tracker.expiresAt(c.lease);
  if (expires === null || expires - leaderNow < leadUs + 100_000) return [];
  n.watch = { kind: "holder-expiry", untilUs: now + 10_000_000, holder: c.holder, lease: c.lease, leadUs };
  return [{ type: "note", text: `nemesis: crashing ${c.holder}, to restart it near the expiry of ${c.lease}` }, { type: "crash", proc: c.holder }];
}
