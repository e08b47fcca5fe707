/**
 * Plain words for what the simulator does: message labels, log entry labels, and one
 * sentence per trace event for the event log. Read-only; no Raft logic here.
 */
import { formatDuration } from "../core/sim/time";
import type { Command } from "../core/raft/types";
import type { Payload, TraceEvent } from "../core/sim/trace";
import type { EntryKind, EventCategory } from "./protocol";
import { driftWords, holderChangeDetail, holderChangeText } from "./holderWords";

/**
 * A message's short label alone ("append", "vote", "refresh"), with no detail built (the
 * label describeMessage gives). The journal labels every message sent with it, so it must not allocate.
 */
export function messageLabel(p: Payload): string {
  switch (p.type) {
    case "RequestVote":
      return p.preVote ? "pre-vote" : "vote";
    case "TimeoutNow":
      return "timeout now";
    case "RequestVoteResp":
      return p.preVote ? "pre-vote reply" : "vote reply";
    case "AppendEntries":
      return p.entries.length === 0 ? "heartbeat" : "append";
    case "InstallSnapshot":
      return "snapshot";
    case "AppendEntriesResp":
      return "append reply";
    case "ClientWrite":
      return p.op.type === "grant" ? "acquire" : p.op.type === "revoke" ? "release" : p.op.type;
    case "ClientRead":
      return "read";
    case "ClientReply": {
      if (!p.ok) return "not leader";
      const k = p.result.kind;
      return k === "granted" ? "granted" : k === "denied" ? "denied" : k === "revoked" ? "released" : "reply";
    }
    case "LeaseRefresh":
      return "refresh";
    case "LeaseRefreshReply":
      return p.ok ? "refreshed" : "refresh refused";
    case "StorageWrite":
      return "write";
    case "StorageReply":
      return p.accepted ? "write ok" : "write rejected";
  }
}

/** A short label ("append", "vote", "refresh": messageLabel) and one line of detail for a message. */
export function describeMessage(p: Payload): { label: string; detail: string } {
  return { label: messageLabel(p), detail: messageDetail(p) };
}

/** One line of detail for a message. */
function messageDetail(p: Payload): string {
  switch (p.type) {
    case "RequestVote":
      return `${p.preVote ? "PreVote" : "RequestVote"} for term ${p.term}, last log ${p.lastLogIndex} (term ${p.lastLogTerm})${p.transfer ? ", asked to take over by the leader" : ""}`;
    case "TimeoutNow":
      return `TimeoutNow, term ${p.term}: take over leadership and start an election at once`;
    case "RequestVoteResp":
      return `${p.granted ? "granted" : "refused"} ${p.preVote ? "pre-vote" : "vote"}, term ${p.term}`;
    case "AppendEntries": {
      const n = p.entries.length;
      return n === 0
        ? `heartbeat, term ${p.term}, commit ${p.leaderCommit}`
        : `AppendEntries term ${p.term}: ${n} entr${n === 1 ? "y" : "ies"} after ${p.prevLogIndex} (term ${p.prevLogTerm}), commit ${p.leaderCommit}`;
    }
    case "InstallSnapshot":
      return `InstallSnapshot term ${p.term}: state up to ${p.snapshot.index} (term ${p.snapshot.term}), in one message`;
    case "AppendEntriesResp":
      return p.success ? `ok, matches up to ${p.matchIndex}, term ${p.term}` : `rejected at ${p.rejectIndex}, term ${p.term}`;
    case "ClientWrite": {
      const op = p.op;
      if (op.type === "grant") return `${p.clientId} asks for lease ${op.name} (TTL ${op.ttlMs} ms)`;
      if (op.type === "revoke") return `${p.clientId} releases lease ${op.name} (token ${op.token})`;
      return `${p.clientId} #${p.seq}: ${op.type} ${op.key}`;
    }
    case "ClientRead":
      return `${p.clientId} #${p.seq}: ${p.query.type}`;
    case "ClientReply": {
      if (!p.ok) return `not the leader${p.leaderHint ? `; try ${p.leaderHint}` : ""}`;
      const r = p.result;
      if (r.kind === "granted") return `lease ${r.name} granted, token ${r.token}, TTL ${r.ttlMs} ms`;
      if (r.kind === "denied") return `lease ${r.name} denied: ${r.reason}${r.holder ? ` (held by ${r.holder})` : ""}`;
      if (r.kind === "revoked") return `lease ${r.name} released (token ${r.token})`;
      return `reply to #${p.seq}`;
    }
    case "LeaseRefresh":
      return `${p.holder} refreshes ${p.name} (token ${p.token})`;
    case "LeaseRefreshReply":
      return p.ok
        ? `${p.name} refreshed for ${p.ttlMs} ms`
        : `${p.name} refresh refused: ${p.reason}${p.leaderHint ? `; leader is ${p.leaderHint}` : ""}`;
    case "StorageWrite":
      return `${p.holder} writes ${p.resource} with token ${p.token}`;
    case "StorageReply":
      return p.accepted ? `write to ${p.resource} accepted` : `write to ${p.resource} rejected: storage has seen token ${p.highest}`;
  }
}

/** A short label for a log entry ("noop", "put k2", "grant lock h1", "expire lock"). */
export function describeCommand(c: Command): string {
  switch (c.type) {
    case "noop":
      return "noop";
    case "config":
      return `config ${c.voters.join(",")}`;
    case "system": {
      const op = c.op;
      if (op.type === "checkpoint") return "checkpoint";
      return `${op.type} ${op.name}`;
    }
    case "client": {
      const op = c.op;
      switch (op.type) {
        case "grant":
          return `grant ${op.name} ${op.holder}`;
        case "revoke":
          return `revoke ${op.name} ${op.holder}`;
        case "put":
          return op.lease ? `put ${op.key} (lease ${op.lease})` : `put ${op.key}`;
        default:
          return `${op.type} ${op.key}`;
      }
    }
  }
}

/** The kind of a log entry (the log grid's glyph): every key-value write (put, append, delete, cas) is "put". */
export function entryKind(c: Command): EntryKind {
  switch (c.type) {
    case "noop":
      return "noop";
    case "config":
      return "config";
    case "system":
      return c.op.type;
    case "client":
      return c.op.type === "grant" || c.op.type === "revoke" ? c.op.type : "put";
  }
}

const DROP_WORDS: Record<string, string> = {
  partition: "blocked by the partition",
  cut: "blocked by a cut link",
  loss: "lost by the network",
  down: "its receiver is down",
  user: "dropped by you",
  "inbox-full": "its receiver's inbox is full",
};

export function dropWords(reason: string): string {
  return DROP_WORDS[reason] ?? reason;
}

/** "; AppendEntriesResp 200 ms–300 ms" for each type of message with its own latency. */
function byType(table: Readonly<Record<string, { readonly minUs: number; readonly maxUs: number }>> | undefined): string {
  return Object.entries(table ?? {})
    .map(([type, r]) => `; ${type} ${us(r.minUs)}–${us(r.maxUs)}`)
    .join("");
}

function us(t: number): string {
  return formatDuration(t, 1);
}

export interface Described {
  readonly category: EventCategory;
  readonly text: string;
  /** The same in internal names (states, events, ppm), for "Show full state". */
  readonly detail?: string;
  readonly procs: readonly string[];
}

/**
 * One sentence for a trace event, or null when it is not worth a line (sends,
 * deliveries, persistence, applies: the drawings show those).
 * `prevHolderState` gives a holder's previous state, for "holding → jeopardy".
 */
export function describeEvent(e: TraceEvent, prevHolderState: string | undefined, labelOf: (id: number) => string | undefined): Described | null {
  switch (e.kind) {
    case "role":
    case "vote":
    case "log":
    case "commit":
    case "config":
    case "transfer":
    case "snapshot":
      return describeRaft(e);
    case "lease":
      return describeLease(e);
    case "holder": {
      const prev = prevHolderState;
      if (prev === e.state) return null;
      return {
        category: "holder",
        text: holderChangeText(e.proc, prev, e.state, e.token, e.event),
        detail: holderChangeDetail(prev, e.state, e.event),
        procs: [e.proc],
      };
    }
    case "replica":
      return { category: "holder", text: replicaText(e.proc, e.role, e.leaseName, e.token, e.cause), procs: [e.proc] };
    case "storage":
      return e.accepted
        ? {
            category: "storage",
            text: `storage accepted ${e.holder}'s write to ${e.resource} with token ${e.token}${e.fencing ? "" : " (fencing off)"}`,
            procs: [e.proc, e.holder],
          }
        : {
            category: "storage",
            text: `storage rejected ${e.holder}'s write to ${e.resource} with token ${e.token}: it has already seen token ${e.highest}`,
            procs: [e.proc, e.holder],
          };
    case "client":
      if (e.phase === "fail") return { category: "note", text: `${e.clientId}'s request #${e.seq} failed${e.note ? `: ${e.note}` : ""}`, procs: [e.clientId] };
      if (e.phase === "info" && e.note) return { category: "note", text: `${e.clientId}'s request #${e.seq}: ${e.note}`, procs: [e.clientId] };
      return null;
    case "drop": {
      const label = labelOf(e.id) ?? "message";
      return { category: "message", text: `${label} ${e.from} → ${e.to} dropped: ${dropWords(e.reason)}`, procs: [e.from, e.to] };
    }
    case "crash":
    case "restart":
    case "pause":
    case "resume":
    case "clock":
    case "partition":
    case "heal":
    case "cut":
    case "network":
    case "disconnect":
    case "connect":
    case "slow-link":
    case "timeout":
      return describeFault(e);
    case "readlease":
    case "lease-read":
    case "write-wait":
      return describeReads(e);
    case "note":
      return { category: "note", text: e.text, procs: [] };
    case "violation":
      return { category: "violation", text: `VIOLATION ${e.invariant}: ${e.detail}`, procs: e.nodes.slice() };
    // No sentence in the event log (a Step lists them: stepLine), named so a new kind must be placed.
    case "send":
    case "deliver":
    case "hard":
    case "apply":
      return null;
    default: {
      const unhandled: never = e;
      throw new Error(`describeEvent: unhandled trace event ${(unhandled as TraceEvent).kind}`);
    }
  }
}

type RaftEvent = Extract<TraceEvent, { kind: "role" | "vote" | "log" | "commit" | "config" | "transfer" | "snapshot" }>;

/** Elections, replication, configuration and snapshots, in words. */
function describeRaft(e: RaftEvent): Described | null {
  switch (e.kind) {
    case "role": {
      const p = e.proc;
      switch (e.role) {
        case "leader":
          return { category: "election", text: `${p} became leader for term ${e.term}`, procs: [p] };
        case "candidate":
          return { category: "election", text: `${p} started an election for term ${e.term} (${e.reason})`, procs: [p] };
        case "precandidate":
          return { category: "election", text: `${p} asked for pre-votes for term ${e.term + 1} (${e.reason})`, procs: [p] };
        case "follower":
          return {
            category: "election",
            text: `${p} became a follower in term ${e.term}${e.leader ? ` (leader ${e.leader})` : ""}: ${e.reason}`,
            procs: e.leader ? [p, e.leader] : [p],
          };
      }
      return null;
    }
    case "vote":
      return { category: "election", text: `${e.proc} voted for ${e.candidate} in term ${e.term}`, procs: [e.proc, e.candidate] };
    case "log":
      if (e.truncatedFrom !== null) {
        return {
          category: "replication",
          text: `${e.proc} dropped its conflicting entries from index ${e.truncatedFrom} and now ends at ${e.lastIndex} (term ${e.lastTerm})`,
          procs: [e.proc],
        };
      }
      return null;
    case "commit":
      return { category: "replication", text: `${e.proc} committed up to index ${e.index}`, procs: [e.proc] };
    case "config":
      return {
        category: "election",
        text: `${e.proc} now uses the configuration {${e.voters.join(", ")}} (from index ${e.index}; it counts majorities of ${Math.floor(e.voters.length / 2) + 1})`,
        procs: [e.proc],
      };
    case "transfer":
      switch (e.phase) {
        case "started":
          return { category: "election", text: `${e.proc} hands leadership to ${e.to}: it takes no new writes and ${e.reason}`, procs: [e.proc, e.to] };
        case "timeout-now":
          return { category: "election", text: `${e.proc} tells ${e.to} to start an election now (TimeoutNow): ${e.reason}`, procs: [e.proc, e.to] };
        case "aborted":
          return { category: "election", text: `${e.proc} stopped handing leadership to ${e.to}: ${e.reason}`, procs: [e.proc, e.to] };
      }
      return null;
    case "snapshot":
      return {
        category: "replication",
        text:
          e.op === "take"
            ? `${e.proc} took a snapshot of its state up to index ${e.index} and dropped its log entries up to ${e.logStart}`
            : `${e.proc} installed the leader's snapshot up to index ${e.index} (term ${e.term}); its log now ends at ${e.lastIndex}`,
        procs: [e.proc],
      };
  }
}

type ProcessFault = "crash" | "restart" | "pause" | "resume" | "clock" | "timeout";
type NetworkFault = "partition" | "heal" | "cut" | "network" | "disconnect" | "connect" | "slow-link";
type FaultEvent = Extract<TraceEvent, { kind: ProcessFault | NetworkFault }>;

/** Faults: a process's (crash, pause, clock) and the network's (partitions, cuts, loss, slow links). */
function describeFault(e: FaultEvent): Described {
  switch (e.kind) {
    case "crash":
      return { category: "fault", text: `${e.proc} crashed`, procs: [e.proc] };
    case "restart":
      return { category: "fault", text: `${e.proc} restarted`, procs: [e.proc] };
    case "pause":
      return { category: "fault", text: `${e.proc} paused (frozen until ${us(e.untilUs)})`, procs: [e.proc] };
    case "resume":
      return { category: "fault", text: `${e.proc} resumed after its pause`, procs: [e.proc] };
    case "clock":
      return {
        category: "fault",
        text: `${e.proc}'s clock now runs ${driftWords(e.driftPpm)}${e.jumpUs !== 0 ? `, jumped ${us(e.jumpUs)}` : ""}`,
        detail: `drift ${e.driftPpm} ppm, jump ${e.jumpUs} µs`,
        procs: [e.proc],
      };
    case "partition":
      return {
        category: "fault",
        text: `network partitioned into ${e.groups.map((g) => `{${g.join(", ")}}`).join(" | ")}`,
        procs: e.groups.flat(),
      };
    case "heal":
      return { category: "fault", text: "network healed: every link works again", procs: [] };
    case "cut":
      return { category: "fault", text: `link ${e.from} → ${e.to} cut (one way)`, procs: [e.from, e.to] };
    case "network":
      return {
        category: "fault",
        text: `network: loss ${pct(e.dropRate)}, duplicates ${pct(e.duplicateRate)}, latency ${us(e.latencyMinUs)}–${us(e.latencyMaxUs)}${byType(e.latencyByType)}`,
        procs: [],
      };
    case "disconnect":
      return { category: "fault", text: `${e.proc} is cut off from every other process`, procs: [e.proc] };
    case "connect":
      return { category: "fault", text: `${e.proc} is connected again`, procs: [e.proc] };
    case "slow-link":
      return {
        category: "fault",
        text:
          e.delayUs === 0
            ? `messages ${e.from} → ${e.to} travel at normal speed again`
            : `messages ${e.from} → ${e.to} now take ${us(e.delayUs)} longer (one way)`,
        procs: [e.from, e.to],
      };
    case "timeout":
      return { category: "fault", text: `${e.proc}'s election timer was forced to fire`, procs: [e.proc] };
  }
}

function pct(x: number): string {
  return `${Math.round(x * 1000) / 10}%`;
}

function describeLease(e: Extract<TraceEvent, { kind: "lease" }>): Described | null {
  const who = e.holder ?? "?";
  const procs = e.holder ? [e.proc, e.holder] : [e.proc];
  switch (e.op) {
    case "grant":
      return { category: "lease", text: `lease ${e.name} granted to ${who} with fencing token ${e.token}`, procs };
    case "deny":
      return { category: "lease", text: `${who}'s request for lease ${e.name} denied${e.reason ? `: ${e.reason}` : ""}`, procs };
    case "revoke":
      return { category: "lease", text: `${who} released lease ${e.name} (token ${e.token})`, procs };
    case "expire":
      return { category: "lease", text: `lease ${e.name} of ${who} (token ${e.token}) expired`, procs };
    case "expire-skipped":
      return {
        category: "lease",
        text: `${e.proc} skipped the expiry of lease ${e.name} (token ${e.token}): ${skipReason(e.reason, who)}`,
        procs,
      };
    case "free":
      return { category: "lease", text: `lease ${e.name} is free again after its lock-delay`, procs: [e.proc] };
    case "refresh":
      return {
        category: "lease",
        text: `${e.proc} refreshed ${who}'s lease ${e.name} (token ${e.token})${e.ttlMs !== undefined ? ` for ${e.ttlMs} ms` : ""}`,
        procs,
      };
    case "refresh-denied":
      return { category: "lease", text: `${e.proc} refused ${who}'s refresh of ${e.name}: ${e.reason ?? "unknown lease"}`, procs };
    case "expiring":
      return { category: "lease", text: `${e.proc} saw lease ${e.name} (${who}, token ${e.token}) run out and proposed its expiry`, procs };
    case "extended":
      return { category: "lease", text: `new leader ${e.proc} gave lease ${e.name} (${who}) a fresh TTL`, procs };
    case "checkpoint":
    case "timed":
      return null;
  }
}

/** Why an Expire was applied as a no-op (a compare-and-expire that found the lease changed). */
function skipReason(reason: string | undefined, holder: string): string {
  switch (reason) {
    case "granted-again":
      return `${holder} was granted it again after the leader decided, so it holds it for a full TTL`;
    case "granted-to-another":
      return `it already belongs to ${holder} under a newer token`;
    case "already-ended":
      return "it had already ended";
    default:
      return reason ?? "the lease changed";
  }
}

/** Every trace event in words, sends and deliveries included (what one Step did). */
export function stepLine(e: TraceEvent): string {
  switch (e.kind) {
    case "send": {
      const d = describeMessage(e.msg);
      return `${e.from} sent ${d.label} to ${e.to}: ${d.detail}`;
    }
    case "deliver":
      return `${e.to} received message ${e.id} from ${e.from}`;
    case "hard":
      return `${e.proc} saved term ${e.term}, vote ${e.votedFor ?? "none"} to disk`;
    case "log":
      return `${e.proc} saved its log to disk: now ends at ${e.lastIndex} (term ${e.lastTerm})`;
    case "apply":
      return `${e.proc} applied entries ${e.from}–${e.to}`;
    case "lease":
      if (e.op === "timed") return `${e.proc} started timing lease ${e.name} for ${e.holder ?? "?"}`;
      if (e.op === "checkpoint") return `${e.proc} checkpointed lease ${e.name}`;
      break;
    case "client":
      return `${e.clientId} request #${e.seq}: ${e.phase}`;
    case "holder":
      return `${e.proc} is now ${e.state}${e.token !== null ? ` (token ${e.token})` : ""}`;
    default:
      break;
  }
  return describeEvent(e, undefined, () => undefined)?.text ?? e.kind;
}

export { describeAction } from "../core/scenario/actions";

/** Read leases and reads under a lease (docs/reads.md), in plain words. */
function describeReads(e: Extract<TraceEvent, { kind: "readlease" | "lease-read" | "write-wait" }>): Described {
  switch (e.kind) {
    case "readlease": {
      const text =
        e.phase === "granted"
          ? `${e.proc} lends ${e.peer} a read lease: ${e.peer} may answer reads by itself for a while, and every write waits until ${e.peer} has it`
          : e.phase === "held"
            ? `${e.proc} now holds a read lease from ${e.peer}: it answers reads from its own copy`
            : e.phase === "expired"
              ? e.proc === e.peer
                ? `${e.proc}'s read lease ran out`
                : `${e.proc} stops waiting for ${e.peer}: ${e.peer}'s read lease ran out`
              : `${e.proc} gives up its read lease from ${e.peer} (${e.reason})`;
      return { category: "replication", text, detail: `readlease ${e.phase} peer=${e.peer} untilLocal=${e.untilLocal} (${e.reason})`, procs: [e.proc, e.peer] };
    }
    case "lease-read":
      return {
        category: "replication",
        text:
          e.via === "local"
            ? `${e.proc} answered ${e.client}'s read by itself, under its read lease (no trip to the leader)`
            : `leader ${e.proc} answered ${e.client}'s read at once, under its leader lease (no heartbeat round)`,
        detail: `lease-read via=${e.via} client=${e.client} seq=${e.seq} index=${e.index}`,
        procs: [e.proc, e.client],
      };
    case "write-wait":
      return {
        category: "replication",
        text:
          e.waitingOn.length === 0
            ? `${e.proc} holds the answer for entry ${e.index}: a new leader first waits out read leases it does not know of`
            : `${e.proc} holds the answer for entry ${e.index} until ${e.waitingOn.join(", ")} ${e.waitingOn.length === 1 ? "has" : "have"} it, or ${e.waitingOn.length === 1 ? "its read lease runs" : "their read leases run"} out`,
        detail: `write-wait index=${e.index} waitingOn=${e.waitingOn.join(",")}`,
        procs: [e.proc, ...e.waitingOn],
      };
  }
}

/** A database replica's role change, in words (docs/failover.md). */
export function replicaText(id: string, role: "primary" | "secondary" | "offline", lease: string, token: number | null, cause: string): string {
  if (role === "primary") return `${id} became the primary of ${lease} (token ${token ?? "?"}): it now accepts the clients' writes`;
  if (role === "offline")
    return `${id} took itself offline: it could not renew its lease on ${lease} before its own deadline, so its watchdog stopped it accepting writes`;
  if (cause === "REFRESH_LOST") return `${id} stepped down to secondary: the lease service says its lease on ${lease} is gone`;
  if (cause === "start") return `${id} started as a secondary of ${lease}: it follows the primary's writes and waits for the lease`;
  return `${id} is a secondary of ${lease}: it follows the primary's writes and tries for the lease`;
}
