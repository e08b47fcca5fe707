/** The full description of one thing in the simulation, for the inspector (text, pretty JSON). */
import { holderStateOf } from "../core/holder/holder";
import type { Simulation } from "../core/sim/sim";
import { describeCommand, describeMessage } from "./describe";
import type { InspectTarget } from "./protocol";

/** Log entries shown in a node's inspection (the newest ones). */
const INSPECT_LOG_ENTRIES = 60;
/** Entries of an AppendEntries shown in a message's inspection. */
const INSPECT_MESSAGE_ENTRIES = 20;

function json(x: unknown): string {
  return JSON.stringify(x, (_k, v) => (v === Number.POSITIVE_INFINITY ? "∞" : v === Number.NEGATIVE_INFINITY ? "-∞" : v), 2);
}

export function inspect(sim: Simulation, target: InspectTarget): { title: string; text: string } {
  switch (target.kind) {
    case "node": {
      const server = sim.server(target.id);
      const node = server.node;
      const disk = sim.diskOf(target.id);
      const log = node?.log ?? disk?.log ?? [];
      const snap = node?.snapshot ?? disk?.start.snapshot ?? null;
      const sm = server.stateMachine;
      return {
        title: `Node ${target.id}`,
        text: json({
          status: sim.status(target.id),
          clock: sim.clockOf(target.id),
          persisted: {
            term: disk?.hard.term ?? 0,
            votedFor: disk?.hard.votedFor ?? null,
            snapshotIndex: disk?.start.snapshot?.index ?? 0,
            snapshotTerm: disk?.start.snapshot?.term ?? 0,
            logStartsAfter: disk?.start.index ?? 0,
            logLength: disk?.log.length ?? 0,
          },
          snapshot:
            snap === null
              ? "none yet (the log starts at 1)"
              : { index: snap.index, term: snap.term, voters: snap.voters, digest: snap.digest.toString(16) },
          volatile:
            node === null
              ? "none (the node is down: everything not on disk is gone)"
              : {
                  role: node.role,
                  term: node.term,
                  leader: node.leader,
                  commitIndex: node.commitIndex,
                  lastApplied: server.lastApplied,
                  snapshotIndex: node.snapshotIndex,
                  snapshotTerm: node.snapshotTerm,
                  firstIndex: node.firstIndex,
                  lastIndex: node.lastIndex,
                  electionDeadlineLocalUs: node.role === "leader" ? null : node.electionDeadline,
                  votes: node.votes,
                  progress: node.progress,
                },
          log: log.slice(-INSPECT_LOG_ENTRIES).map((e) => `${e.index} (term ${e.term}): ${describeCommand(e.cmd)}`),
          stateMachine: sm === null ? null : { kv: Object.fromEntries(sm.entries()), leases: sm.leaseList() },
        }),
      };
    }
    case "holder": {
      const h = sim.holder(target.id);
      return {
        title: `Holder ${target.id}`,
        text: json({
          status: sim.status(target.id),
          clock: sim.clockOf(target.id),
          ...holderStateOf(h),
          settings: h.settings,
          timers: h.timers,
          recentWrites: h.storageResults.slice(-10),
        }),
      };
    }
    case "client": {
      const c = sim.client(target.id);
      return {
        title: `Client ${target.id}`,
        text: json({ status: sim.status(target.id), clientId: c.clientId, clock: sim.clockOf(target.id), ...c.progress, settings: c.cfg }),
      };
    }
    case "storage": {
      const s = sim.storage();
      if (s === null) throw new Error("there is no storage in this run (it has no lease holders)");
      return {
        title: `Storage ${sim.storageId}`,
        text: json({ fencing: s.fencing, resources: s.resources(), totals: s.totals, recentWrites: s.log.slice(-20) }),
      };
    }
    case "message": {
      const m = sim.inFlight().find((x) => x.env.id === target.id);
      if (m === undefined) throw new Error(`message ${target.id} is no longer in flight (it arrived or was dropped)`);
      const env = m.env;
      const p = env.payload;
      const payload =
        p.type === "AppendEntries" && p.entries.length > INSPECT_MESSAGE_ENTRIES
          ? { ...p, entries: p.entries.slice(0, INSPECT_MESSAGE_ENTRIES), entriesNotShown: p.entries.length - INSPECT_MESSAGE_ENTRIES }
          : p;
      return {
        title: `Message ${env.id}: ${describeMessage(p).label} ${env.from} → ${env.to}`,
        text: json({
          from: env.from,
          to: env.to,
          sentAtUs: env.sentAt,
          deliverAtUs: env.deliverAt,
          fate: env.fate,
          duplicate: env.dup,
          waitingInInbox: m.queued,
          payload,
        }),
      };
    }
  }
}
