/**
 * The invariant checkers, run on every trace event. Each family lives in checkers/:
 *
 * - raft.ts: Raft's safety properties (paper, Figure 3), per-node monotonicity of the
 *   persisted term and the commit index, and the durability of acknowledged writes;
 * - persistence.ts: the persistence rule (persist before sending what depends on it);
 * - lease.ts: the lease service's properties, and what the holders believe;
 * - storage.ts: fencing at the storage;
 * - primary.ts: at most one database replica accepting writes as primary at a time.
 *
 * Checkers routes each event to the families that judge it. Its switch names every event
 * kind, so a new kind does not compile until it is placed here.
 */
import { LeaseChecker } from "./checkers/lease";
import { checkPersistBeforeSend } from "./checkers/persistence";
import { PrimaryChecker } from "./checkers/primary";
import { RaftChecker } from "./checkers/raft";
import { StorageChecker } from "./checkers/storage";
import type { CheckerHost } from "./checkers/types";
import type { TraceEvent } from "./trace";

export { entryDigest } from "./checkers/raft";
export { type BoundBroken, type CheckerHost, type HolderTiming, INVARIANTS, type Invariant, type Violation } from "./checkers/types";

/** The families' state, handed to a clone. */
interface CheckerParts {
  readonly raft: RaftChecker;
  readonly lease: LeaseChecker;
  readonly storage: StorageChecker;
  readonly primary: PrimaryChecker;
}

export class Checkers {
  private readonly raft: RaftChecker;
  private readonly lease: LeaseChecker;
  private readonly storage: StorageChecker;
  private readonly primary: PrimaryChecker;

  constructor(
    private readonly host: CheckerHost,
    parts?: CheckerParts,
    faultFreeAtStart = true,
  ) {
    this.raft = parts?.raft ?? new RaftChecker(host);
    this.lease = parts?.lease ?? new LeaseChecker(host, undefined, faultFreeAtStart);
    this.storage = parts?.storage ?? new StorageChecker(host);
    this.primary = parts?.primary ?? new PrimaryChecker(host);
  }

  clone(host: CheckerHost): Checkers {
    return new Checkers(host, { raft: this.raft.clone(host), lease: this.lease.clone(host), storage: this.storage.clone(host), primary: this.primary.clone(host) });
  }

  /** Whether the client command (clientId, seq) is committed; answers for commands not yet acknowledged to the client. */
  isCommitted(clientId: string, seq: number): boolean {
    return this.raft.isCommitted(clientId, seq);
  }

  /** A string switch tests its cases in order: the two kinds of half of all events come first. */
  observe(e: TraceEvent): void {
    switch (e.kind) {
      case "deliver":
        return;
      case "send":
        checkPersistBeforeSend(this.host, e.from, e.to, e);
        if (e.msg.type === "LeaseRefresh" || (e.msg.type === "ClientWrite" && e.msg.op.type === "grant")) this.lease.markSend(e.from);
        this.primary.onSend(e);
        return;
      case "hard":
        this.raft.onHard(e.proc, e.term);
        return;
      case "log":
        this.raft.onLog(e.proc, e.from, e.lastIndex);
        return;
      case "role":
        if (e.role === "leader") this.raft.onLeader(e.proc, e.term);
        return;
      case "commit":
        this.raft.onCommit(e.proc, e.index);
        return;
      case "snapshot":
        // A snapshot installed starts the node's state machine over from it.
        if (this.raft.onSnapshot(e.proc, e) && e.op === "install") this.lease.forgetApplied(e.proc);
        return;
      case "apply":
        this.raft.onApply(e.proc, e.from, e.to);
        return;
      case "crash":
        this.raft.crashed(e.proc);
        this.lease.crashed(e.proc);
        return;
      case "pause":
      case "partition":
      case "cut":
      case "disconnect":
      case "slow-link":
      case "clock":
        this.lease.faultHappened();
        return;
      case "network":
        if (e.dropRate > 0) this.lease.faultHappened();
        return;
      case "drop":
        if (e.reason !== "down") this.lease.faultHappened();
        return;
      case "lease":
        this.lease.onLease(e.proc, e);
        return;
      case "storage":
        this.storage.onStorage(e.proc, e);
        return;
      case "holder":
        this.lease.onHolder(e.proc, e);
        return;
      case "replica":
        this.primary.onReplica(e.proc, e);
        return;
      case "client":
        this.raft.onClient(e);
        return;
      // Nothing to check, or judged through other events: named, so a new kind must be placed.
      case "vote":
      case "config":
      case "transfer":
      case "readlease":
      case "lease-read":
      case "write-wait":
      case "restart":
      case "resume":
      case "heal":
      case "connect":
      case "timeout":
      case "note":
      case "violation":
        return;
      default: {
        const unhandled: never = e;
        throw new Error(`checkers: unhandled trace event ${(unhandled as TraceEvent).kind}`);
      }
    }
  }
}
