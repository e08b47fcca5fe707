/**
 * The persistence rule (Raft paper, Figure 2: "respond to RPCs only after updating stable
 * storage"): every Raft message a node sends depends only on what its disk already holds.
 */
import { diskLastIndex } from "../../raft/server";
import type { ProcId, TraceEvent } from "../trace";
import type { CheckerHost } from "./types";

function reportUnpersisted(host: CheckerHost, from: ProcId, what: string): void {
  host.report({ invariant: "persist-before-send", nodes: [from], detail: `${from} sent ${what}` });
}

/** Checks one message as it is sent against the sender's disk (persist-before-send). */
export function checkPersistBeforeSend(host: CheckerHost, from: ProcId, to: ProcId, e: TraceEvent & { kind: "send" }): void {
  const m = e.msg;
  const disk = host.diskOf(from);
  if (disk === undefined) return;
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
    // A pre-vote or a TimeoutNow depends on nothing persisted; the rest are not Raft's.
    case "TimeoutNow":
    case "ClientWrite":
    case "ClientRead":
    case "ClientReply":
    case "LeaseRefresh":
    case "LeaseRefreshReply":
    case "StorageWrite":
    case "StorageReply":
      return;
    default: {
      const unhandled: never = m;
      throw new Error(`checkers: unhandled message ${(unhandled as { type: string }).type}`);
    }
  }
}
