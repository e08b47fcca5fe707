/**
 * The discrete-event simulator. Virtual time is integer microseconds; the queue is
 * ordered by (time, sequence); the only randomness is the seeded PRNG, forked per
 * node and per purpose. The same seed and the same actions give the same trace,
 * however time is advanced.
 */
import type { LeaseHolder } from "../holder/holder";
import type { KvClient } from "../kv/client";
import type { CoreStateMachine } from "../kv/statemachine";
import type { Disk, RaftServer } from "../raft/server";
import type { NodeId } from "../raft/types";
import type { FencedStorage } from "../storage/storage";
import { type Action, type ActionHost, applyAction, type ProcRef, resolve } from "./actions";
import { Checkers, type HolderTiming } from "./checkers";
import { buildCluster, type LogicOf, logicOf, type ProcessKind } from "./cluster";
import { configProblems, type SimConfig } from "./config";
import { Kernel, type TraceListener } from "./kernel";
import { describeMix, type NemesisConfig, NemesisState, nemesisStep } from "./nemesis";
import { Network, type NetworkShape } from "./network";
import { ActionRefused } from "./refusal";
import { Rng } from "./rng";
import type { ProcId } from "./trace";

export type { Action, ProcRef } from "./actions";
export type { ProcStatus } from "./cluster";
export type { ActionFailure, Envelope, SimSnapshot, TraceListener } from "./kernel";

/**
 * A simulation: the cluster its settings describe (cluster.ts), on the kernel (kernel.ts),
 * with the network (network.ts) and the actions (actions.ts).
 */
export class Simulation extends Kernel {
  readonly nodeIds: readonly NodeId[];
  readonly clientIds: readonly ProcId[];
  readonly holderIds: readonly ProcId[];
  /** The fenced storage process, present when there are holders. */
  readonly storageId: ProcId | null;
  /** What the actions may touch (actions.ts). */
  private readonly host: ActionHost;

  /** `onTrace` listens from the very first event (the constructor already emits some). */
  constructor(config: SimConfig, nemesis?: NemesisConfig, onTrace?: TraceListener) {
    const problems = configProblems(config);
    if (problems.length > 0) throw new Error(`invalid simulation settings: ${problems.join("; ")}`);
    const root = Rng.fromSeed(config.seed);
    super(config, Network.fromSettings(config.network, root.fork("net")), root.fork("refs"), onTrace);
    // A run with loss or a nemesis is not fault-free from the start (see renewed-lease-kept).
    const faultFree = config.network.dropRate === 0 && nemesis === undefined;
    this.checkers = config.checkers ? new Checkers(this, undefined, faultFree) : null;
    const cluster = buildCluster(config, root);
    this.nodeIds = cluster.nodeIds;
    this.clientIds = cluster.clientIds;
    this.holderIds = cluster.holderIds;
    this.storageId = cluster.storageId;
    this.procs = cluster.procs;
    this.host = this.actionHost();
    for (const p of this.procs.values()) this.run(p, (ctx) => p.logic.start(ctx));
    if (nemesis !== undefined) {
      this.nemesisState = new NemesisState(nemesis, root.fork("nemesis"));
      this.push({ type: "nemesis", at: this._now + this.nemesisState.nextDelayUs() });
    }
  }

  /** The random nemesis's fault mix in words (drawn at time 0), or null without a nemesis or before time 0 has run. */
  get nemesisMix(): string | null {
    const m = this.nemesisState?.mix ?? null;
    return m === null ? null : describeMix(m);
  }
  /** A process's logic, which must be of `kind` (else an error naming both). */
  logic<K extends ProcessKind>(id: ProcId, kind: K): LogicOf[K] {
    const l = logicOf(this.proc(id), kind);
    if (l === null) throw new Error(`${id} is not a ${KIND_WORDS[kind]}`);
    return l;
  }
  server(id: NodeId): RaftServer {
    return this.logic(id, "node");
  }
  client(id: ProcId): KvClient {
    return this.logic(id, "client");
  }
  holder(id: ProcId): LeaseHolder {
    return this.logic(id, "holder");
  }
  storage(): FencedStorage | null {
    return this.storageId === null ? null : this.logic(this.storageId, "storage");
  }
  diskOf(id: ProcId): Disk | undefined {
    return logicOf(this.procs.get(id), "node")?.disk;
  }
  stateOf(id: ProcId): CoreStateMachine | null {
    return logicOf(this.procs.get(id), "node")?.stateMachine ?? null;
  }
  holderTiming(id: ProcId): HolderTiming | null {
    return logicOf(this.procs.get(id), "holder")?.timing ?? null;
  }
  /** The up node that leads the highest term, if any. */
  leader(): NodeId | null {
    let best: NodeId | null = null;
    let bestTerm = -1;
    for (const id of this.nodeIds) {
      const p = this.proc(id);
      const node = logicOf(p, "node")?.node ?? null;
      if (p.status !== "down" && node !== null && node.role === "leader" && node.term > bestTerm) {
        best = id;
        bestTerm = node.term;
      }
    }
    return best;
  }
  /** The network's current shape: partition groups, one-way cuts, slow links, rates and latency. */
  network(): NetworkShape {
    return this.net.view();
  }
  /** Runs an action now. Throws ActionRefused when it cannot run. */
  act(action: Action): void {
    this.apply(action);
  }

  /** Resolves "leader", "follower", "any-node", "any-client", "any-holder", a name given with `as`, or an id. */
  resolve(ref: ProcRef): ProcId {
    return resolve(this.host, ref);
  }

  protected apply(action: Action): void {
    applyAction(this.host, action);
  }

  protected nemesisTick(): boolean {
    const n = this.nemesisState;
    if (n === null) return false;
    const actions = nemesisStep(n, this);
    for (const a of actions) {
      try {
        this.apply(a);
      } catch (err) {
        // Decided before the tick's earlier actions ran (e.g. a hand-over after a planned
        // crash of the leader): skipped, and said so, like a user's action that cannot run.
        // Anything but a refusal is a bug: the run stops there.
        if (!(err instanceof ActionRefused)) {
          this.actionBroke(a, err);
          return true;
        }
        this.emit({ kind: "note", text: `nemesis: ${a.type} skipped: ${err.message}` });
      }
    }
    this.push({ type: "nemesis", at: this._now + n.nextDelayUs() });
    return true;
  }

  /** The kernel's parts the actions use; everything else stays private. Reads the current fields (restore() replaces them). */
  private actionHost(): ActionHost {
    const sim = this;
    return {
      get now() {
        return sim._now;
      },
      nodeIds: this.nodeIds,
      clientIds: this.clientIds,
      holderIds: this.holderIds,
      get net() {
        return sim.net;
      },
      get refRng() {
        return sim.refRng;
      },
      get names() {
        return sim.names;
      },
      set names(n) {
        sim.names = n;
      },
      has: (id) => this.procs.has(id),
      proc: (id) => this.proc(id),
      procs: () => this.procs.values(),
      leader: () => this.leader(),
      storage: () => this.storage(),
      emit: (body) => this.emit(body),
      run: (p, fn) => this.run(p, fn),
      wake: (p) => this.wake(p),
      rearm: (p) => this.rearm(p),
      wakeAt: (p, at) => this.push({ type: "wake", at, proc: p.id, gen: p.pauseGen }),
      drop: (env, reason) => this.drop(env, reason),
      unsend: (id) => {
        const removed = this.queue.removeWhere((q) => q.type === "deliver" && q.env.id === id);
        return removed.flatMap((q) => (q.type === "deliver" ? [q.env] : []));
      },
    };
  }
}

const KIND_WORDS: { readonly [K in ProcessKind]: string } = { node: "Raft node", client: "client", holder: "lease holder", storage: "storage" };

export type { NemesisConfig } from "./nemesis";
export { ActionRefused } from "./refusal";
