/** The fencing check on storage: fencing-monotonic, and with fencing off, storage-corruption. */
import type { ProcId, TraceEvent } from "../trace";
import type { CheckerHost } from "./types";

export class StorageChecker {
  constructor(
    private readonly host: CheckerHost,
    /** Per resource: the highest token storage has accepted. */
    private readonly storageMax = new Map<string, number>(),
  ) {}

  clone(host: CheckerHost): StorageChecker {
    return new StorageChecker(host, new Map(this.storageMax));
  }

  onStorage(storage: ProcId, e: TraceEvent & { kind: "storage" }): void {
    if (!e.accepted) return;
    const max = this.storageMax.get(e.resource) ?? 0;
    if (e.token < max) {
      this.host.report(
        e.fencing
          ? {
              invariant: "fencing-monotonic",
              nodes: [storage, e.holder],
              detail: `storage accepted ${e.holder}'s write to ${e.resource} with token ${e.token} after accepting token ${max}`,
            }
          : {
              invariant: "storage-corruption",
              nodes: [storage, e.holder],
              detail: `fencing is off: storage accepted ${e.holder}'s late write to ${e.resource} with token ${e.token} after a newer holder wrote with token ${max}; their writes interleaved`,
            },
      );
    }
    this.storageMax.set(e.resource, Math.max(max, e.token));
  }
}
