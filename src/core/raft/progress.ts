/**
 * What a leader knows of one follower's log, and how that changes (after etcd-io/raft's
 * tracker.Progress): plain data, and plain functions over it. The leader owns one per peer.
 */
import type { LocalUs } from "../sim/time";

/**
 * How many appends with entries may be unacknowledged at once to one follower (etcd's
 * MaxInflightMsgs). One: the simulated network, unlike etcd's TCP streams, reorders
 * messages between two nodes, and an append that overtakes an earlier one is refused for
 * the gap, which sends the follower back to probe and its entries a second time. With one
 * append at a time, entries proposed meanwhile go out together once it is acknowledged.
 */
export const MAX_INFLIGHT_APPENDS = 1;

/**
 * A follower in "snapshot" state gets the snapshot again after this many heartbeats without
 * an answer (the message or its answer may be lost; etcd learns that from its transport).
 */
export const SNAPSHOT_RESEND_HEARTBEATS = 4;

/**
 * What the leader knows of one follower's log, after etcd-io/raft's tracker.Progress.
 *
 * - "probe": the leader does not know where the follower's log matches its own. It sends
 *   one append from `next` and waits for the answer (`probeSent`); a heartbeat re-asks
 *   with an empty append at next - 1 if the answer is slow or lost.
 * - "replicate": the follower matches up to `match` and takes entries in order. The
 *   leader sends each entry once, advancing `next` as it sends, with at most
 *   MAX_INFLIGHT_APPENDS appends unacknowledged (`inflight`). A rejection falls back to
 *   probe; a lost append shows up when a heartbeat reply says match is still behind.
 * - "snapshot": the entries the follower needs are compacted away, so it was sent the
 *   snapshot (InstallSnapshot, section 7) at `pendingSnapshot`. No appends go to it until it
 *   answers with a match at or past that index (etcd's StateSnapshot).
 */
export interface Progress {
  state: "probe" | "replicate" | "snapshot";
  /** Next index to send. In replicate it moves when entries are sent; in probe, on answers. */
  next: number;
  /** Highest index known to be replicated on the peer. */
  match: number;
  /** Probe: an append is outstanding; wait for its answer (or the next heartbeat). */
  probeSent: boolean;
  /** The last index of each unacknowledged append with entries, ascending (in probe: the probe's). */
  inflight: number[];
  /** Replicate: a heartbeat went out after the latest append, so its answer should follow that append's. */
  heartbeatAfterAppend: boolean;
  /** Heard from the peer since the last CheckQuorum round. */
  active: boolean;
  /** Local time this leader last heard from the peer (its vote, or any reply). */
  lastHeardAt: LocalUs;
  /** Snapshot: the index of the snapshot sent (0 otherwise). */
  pendingSnapshot: number;
  /** Snapshot: heartbeats since the snapshot was sent (see SNAPSHOT_RESEND_HEARTBEATS). */
  snapshotHeartbeats: number;
}

/** What a leader knows of a follower it starts with: nothing, so it probes from `next` (its own log's end + 1). */
export function freshProgress(next: number, active: boolean, lastHeardAt: LocalUs): Progress {
  return {
    state: "probe",
    next,
    match: 0,
    probeSent: false,
    inflight: [],
    heartbeatAfterAppend: false,
    active,
    lastHeardAt,
    pendingSnapshot: 0,
    snapshotHeartbeats: 0,
  };
}

/** Back to probing from `next`: nothing in flight, no snapshot pending. */
export function becomeProbe(pr: Progress, next: number): void {
  pr.state = "probe";
  pr.next = next;
  pr.probeSent = false;
  pr.inflight = [];
  pr.heartbeatAfterAppend = false;
  pr.pendingSnapshot = 0;
  pr.snapshotHeartbeats = 0;
}

/**
 * The probe was answered: stream from match. The probe's entries, if they are past match,
 * stay in flight: they will be accepted when they arrive.
 */
export function becomeReplicate(pr: Progress): void {
  pr.state = "replicate";
  pr.probeSent = false;
  pr.inflight = pr.inflight.filter((last) => last > pr.match);
  pr.next = (pr.inflight.length > 0 ? (pr.inflight[pr.inflight.length - 1] as number) : pr.match) + 1;
}

/** The snapshot at `index` was sent: no appends until the follower answers at or past it. */
export function becomeSnapshot(pr: Progress, index: number): void {
  pr.state = "snapshot";
  pr.pendingSnapshot = index;
  pr.snapshotHeartbeats = 0;
  pr.probeSent = false;
  pr.inflight = [];
  pr.heartbeatAfterAppend = false;
}

/**
 * Whether a refusal of an append at prevLogIndex `rejectIndex` is news: in probe, the
 * refusal of the outstanding probe (at next - 1); in replicate, of anything past match
 * that was sent (an older refusal, at or below match, is stale).
 */
export function rejectionIsCurrent(pr: Progress, rejectIndex: number): boolean {
  if (pr.state === "snapshot") return false;
  if (pr.state === "probe") return rejectIndex === pr.next - 1;
  return rejectIndex > pr.match && rejectIndex < pr.next;
}
