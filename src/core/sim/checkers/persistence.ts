/**
 * The persistence rule (Raft paper, Figure 2: "respond to RPCs only after updating stable
 * storage"): every Raft message a node sends depends only on what its disk already holds.
 */
import { type Disk, diskLastIndex } from "../../raft/server";
import type { Payload, ProcId, TraceEvent } from "../trace";
import type { CheckerHost } from "./types";

function reportUnpersisted(host: CheckerHost, from: ProcId, what: string): void {
  host.report({ invariant: "persist-before-send", nodes: [from], detail: `${from} sent ${what}` });
}

/**
 * Checks one message as it is sent against the sender's disk (persist-before-send). Only
 * Raft's own messages depend on the disk: the others (most of a lease run's) return at once,
 * before the disk is looked up.
 */
export function checkPersistBeforeSend(host: CheckerHost, from: ProcId, to: ProcId, e: TraceEvent & { kind: "send" }): void {
  const m = e.msg;
  switch (m.type) {
    // A pre-vote or a TimeoutNow depends on nothing persisted; the rest are not Raft's.
    case "StorageWrite":
    case "StorageReply":
    case "LeaseRefresh":
    case "LeaseRefreshReply":
    case "ClientWrite":
    case "ClientRead":
    case "ClientReply":
    case "TimeoutNow":
      return;
    case "AppendEntries":
    case "AppendEntriesResp":
    case "RequestVote":
    case "RequestVoteResp":
    case "InstallSnapshot": {
      const disk = host.diskOf(from);
      if (disk !== undefined) checkRaftMessage(host, from, to, m, disk);
      return;
    }
    default: {
      const unhandled: never = m;
      throw new Error(`checkers: unhandled message ${(unhandled as { type: string }).type}`);
    }
  }
}

type RaftMessage = Extract<Payload, { readonly type: "AppendEntries" | "AppendEntriesResp" | "RequestVote" | "RequestVoteResp" | "InstallSnapshot" }>;

function checkRaftMessage(host: CheckerHost, from: ProcId, to: ProcId, m: RaftMessage, disk: Disk): void {
  switch (m.type) {
    case "RequestVote":
      if (!m.preVote && (disk.hard.term !== m.term || disk.hard.votedFor !== from))
        reportUnpersisted(host, from, `a vote request for term ${m.term} before persisting its own vote`);
      return;
    case "RequestVoteResp":
      if (m.granted && !m.preVote && (disk.hard.term !== m.term || disk.hard.votedFor !== to)) {
        reportUnpersisted(host, from, `a vote for ${to} in term ${m.term} before persisting it`);
      }
      return;
    case "AppendEntries":
      if (disk.hard.term < m.term) reportUnpersisted(host, from, `an append in term ${m.term} before persisting that term`);
      else if (diskLastIndex(disk) < m.prevLogIndex + m.entries.length)
        reportUnpersisted(host, from, `entries up to ${m.prevLogIndex + m.entries.length} it has not persisted`);
      return;
    case "AppendEntriesResp":
      if (disk.hard.term < m.term) reportUnpersisted(host, from, `an append reply in term ${m.term} before persisting that term`);
      else if (m.success && diskLastIndex(disk) < m.matchIndex) reportUnpersisted(host, from, `an acknowledgement of index ${m.matchIndex} before persisting it`);
      return;
    case "InstallSnapshot":
      if (disk.hard.term < m.term) reportUnpersisted(host, from, `a snapshot in term ${m.term} before persisting that term`);
      else if ((disk.start.snapshot?.index ?? 0) < m.snapshot.index) reportUnpersisted(host, from, `a snapshot up to ${m.snapshot.index} it has not persisted`);
      return;
    default: {
      const unhandled: never = m;
      throw new Error(`checkers: unhandled Raft message ${(unhandled as { type: string }).type}`);
    }
  }
}
