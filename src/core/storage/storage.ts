/**
 * The fenced resource (Kleppmann's storage service): per resource it remembers the
 * highest fencing token it has accepted and rejects any write that carries an older
 * one. With fencing off it accepts everything (an "efficiency lock"), which is what
 * lets a paused holder's late write through.
 */
import type { ProcessContext, ProcessLogic } from "../sim/process";
import type { Payload, ProcId } from "../sim/trace";
import type { StorageRejection, StorageSettings, StorageWrite } from "./types";

/** How many write records the storage keeps for the UI and the CLI (older ones are counted, not kept). */
export const STORAGE_LOG_LIMIT = 1000;

export interface StorageLogEntry {
  readonly reqId: number;
  readonly holder: string;
  readonly resource: string;
  readonly token: number;
  readonly value: string;
  readonly accepted: boolean;
  readonly reason: StorageRejection | null;
  /** Highest token accepted for the resource after this write. */
  readonly highestAfter: number;
  /** The storage's local clock reading when it handled the write (µs). */
  readonly atUs: number;
}

export interface StorageTotals {
  readonly writes: number;
  readonly accepted: number;
  readonly rejected: number;
}

export interface StorageState {
  /** Whether tokens are checked; starts from the settings and can be switched at run time. */
  fencing: boolean;
  /** Highest accepted token per resource: the database itself. */
  highest: Map<string, number>;
  /** Last value written per resource (what a reader would see). */
  values: Map<string, string>;
  /** The most recent writes, oldest first (trimmed back to STORAGE_LOG_LIMIT in chunks; read through `log`). */
  log: StorageLogEntry[];
  writes: number;
  accepted: number;
  rejected: number;
}

export function emptyStorageState(settings: StorageSettings): StorageState {
  return { fencing: settings.fencing, highest: new Map(), values: new Map(), log: [], writes: 0, accepted: 0, rejected: 0 };
}

export class FencedStorage implements ProcessLogic {
  readonly kind = "storage" as const;

  constructor(
    readonly id: string,
    readonly settings: StorageSettings,
    private readonly st: StorageState = emptyStorageState(settings),
  ) {}

  /** Everything it keeps: a database's table survives a crash (a live run writes it to disk). */
  get durableState(): StorageState {
    return this.st;
  }

  get fencing(): boolean {
    return this.st.fencing;
  }

  /** Turns token checking on or off from now on (a lesson's switch); the table is kept either way. */
  setFencing(on: boolean): void {
    this.st.fencing = on;
  }

  /** Highest token accepted for `resource`, or null before its first write. */
  highest(resource: string): number | null {
    return this.st.highest.get(resource) ?? null;
  }

  /** The value of the last accepted write to `resource`, or null. */
  value(resource: string): string | null {
    return this.st.values.get(resource) ?? null;
  }

  /** Every resource written so far, with its highest token. */
  resources(): readonly { readonly resource: string; readonly highest: number; readonly value: string | null }[] {
    return [...this.st.highest].map(([resource, highest]) => ({ resource, highest, value: this.st.values.get(resource) ?? null }));
  }

  /** The most recent writes (at most STORAGE_LOG_LIMIT), oldest first. */
  get log(): readonly StorageLogEntry[] {
    const log = this.st.log;
    return log.length > STORAGE_LOG_LIMIT ? log.slice(log.length - STORAGE_LOG_LIMIT) : log;
  }

  get totals(): StorageTotals {
    return { writes: this.st.writes, accepted: this.st.accepted, rejected: this.st.rejected };
  }

  start(_ctx: ProcessContext): void {
    // Nothing to rebuild: the table is durable and there is no volatile state.
  }

  /** A database keeps its table across a crash; the storage has nothing volatile to lose. */
  crash(): void {}

  nextDeadline(): number | null {
    return null;
  }

  onTimer(_ctx: ProcessContext): void {}

  onMessage(ctx: ProcessContext, from: ProcId, p: Payload): void {
    if (p.type !== "StorageWrite") return;
    const entry = this.write(p, ctx.now);
    ctx.emit({
      kind: "storage",
      reqId: p.reqId,
      resource: p.resource,
      holder: p.holder,
      token: p.token,
      accepted: entry.accepted,
      reason: entry.reason,
      highest: entry.highestAfter,
      fencing: this.st.fencing,
      value: p.value,
      atUs: entry.atUs,
    });
    ctx.send(
      from,
      entry.accepted
        ? { type: "StorageReply", reqId: p.reqId, resource: p.resource, accepted: true, highest: entry.highestAfter }
        : {
            type: "StorageReply",
            reqId: p.reqId,
            resource: p.resource,
            accepted: false,
            reason: "stale-token",
            highest: entry.highestAfter,
          },
    );
  }

  clone(): FencedStorage {
    const s = this.st;
    return new FencedStorage(this.id, this.settings, {
      fencing: s.fencing,
      highest: new Map(s.highest),
      values: new Map(s.values),
      // Entries are immutable once logged, so a shallow copy of the list is a deep copy.
      log: s.log.slice(),
      writes: s.writes,
      accepted: s.accepted,
      rejected: s.rejected,
    });
  }

  /** The fencing rule: a token at least as high as any accepted so far goes through. */
  private admits(highest: number | undefined, token: number): boolean {
    const stale = highest !== undefined && token < highest;
    return !stale || !this.st.fencing;
  }

  private write(w: StorageWrite, atUs: number): StorageLogEntry {
    const s = this.st;
    if (!Number.isSafeInteger(w.token)) throw new Error(`storage ${this.id}: token must be an integer, got ${w.token}`);
    const before = s.highest.get(w.resource);
    const accepted = this.admits(before, w.token);
    // Paired with the checkers' fencing check: with fencing on, nothing older than the
    // highest token seen gets through.
    if (s.fencing && accepted && before !== undefined && w.token < before) {
      throw new Error(
        `storage ${this.id}: accepted a write to ${w.resource} with token ${w.token} below the highest seen, ${before}, with fencing on`,
      );
    }
    // Even an efficiency lock tracks the highest token, so the UI can show which writes were stale.
    const highestAfter = before === undefined ? w.token : Math.max(before, w.token);
    s.highest.set(w.resource, highestAfter);
    if (accepted) s.values.set(w.resource, w.value);
    s.writes += 1;
    if (accepted) s.accepted += 1;
    else s.rejected += 1;
    const entry: StorageLogEntry = {
      reqId: w.reqId,
      holder: w.holder,
      resource: w.resource,
      token: w.token,
      value: w.value,
      accepted,
      reason: accepted ? null : "stale-token",
      highestAfter,
      atUs,
    };
    s.log.push(entry);
    // Trimmed in chunks, not one shift per write: shifting a full log on every write costs O(limit).
    if (s.log.length >= 2 * STORAGE_LOG_LIMIT) s.log.splice(0, s.log.length - STORAGE_LOG_LIMIT);
    return entry;
  }
}
