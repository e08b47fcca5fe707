/**
 * What survives a process's crash in a live run, how it is written to disk and read back,
 * how a restarted worker builds its process from it, and a digest of a process's whole state
 * (a live run and its replay must end with the same digests).
 *
 * What each kind keeps: a Raft node its disk (term, vote, log and snapshot: Raft's rule), the
 * storage its table (a database), a holder or client how many times it has started (each
 * incarnation takes a fresh client id). Every incarnation after the first draws from a random
 * stream of its own (its name and the incarnation), in the worker and in the replay alike.
 */
import type { LeaseHolder } from "../holder/holder";
import type { KvClient } from "../kv/client";
import type { Disk } from "../raft/server";
import { buildProcess, clusterIds } from "../sim/cluster";
import type { SimConfig } from "../sim/config";
import type { ProcessLogic } from "../sim/process";
import { hashString, Rng } from "../sim/rng";
import { FencedStorage, type StorageState } from "../storage/storage";
import type { ProcId } from "../sim/trace";

/** What one process keeps on its disk, as plain data. */
export type Durable =
  | { readonly kind: "node"; readonly disk: Disk }
  | { readonly kind: "storage"; readonly state: StorageState }
  | { readonly kind: "holder" | "client"; readonly incarnation: number };

export function durableOf(logic: ProcessLogic): Durable {
  switch (logic.kind) {
    case "node":
      return { kind: "node", disk: (logic as unknown as { disk: Disk }).disk };
    case "storage":
      return { kind: "storage", state: (logic as FencedStorage).durableState };
    case "holder":
    case "client":
      return { kind: logic.kind, incarnation: (logic as LeaseHolder | KvClient).incarnation };
  }
}

/**
 * A cheap mark that changes whenever the durable state may have: the worker writes its disk
 * when the mark moved: a Raft disk's term and vote, its snapshot (replaced, never changed in
 * place), and its log's length and last entry (entries are never changed in place); the
 * storage counts its writes.
 */
export function durableMark(logic: ProcessLogic): readonly unknown[] {
  switch (logic.kind) {
    case "node": {
      const d = (logic as unknown as { disk: Disk }).disk;
      return [d.hard.term, d.hard.votedFor, d.start, d.log.length, d.log[d.log.length - 1]];
    }
    case "storage": {
      const s = (logic as FencedStorage).durableState;
      return [s.writes, s.fencing];
    }
    default:
      return [(logic as LeaseHolder | KvClient).incarnation];
  }
}

export function sameMark(a: readonly unknown[] | null, b: readonly unknown[]): boolean {
  return a !== null && a.length === b.length && a.every((x, i) => x === b[i]);
}

/** The random stream of incarnation `n` of a process (the first is the simulator's own). */
function rngLabel(kind: string, id: ProcId, n: number): string | undefined {
  return n === 0 ? undefined : `${kind}:${id}#${n}`;
}

/**
 * A process as a worker builds it: fresh for its first incarnation, from what its disk kept
 * for a later one. The replay builds a restarted process the same way.
 */
export function incarnate(config: SimConfig, id: ProcId, n: number, durable: Durable | null): ProcessLogic {
  const root = Rng.fromSeed(config.seed);
  if (durable === null) return buildProcess(config, root, id, rngLabel(kindOf(config, id), id, n));
  switch (durable.kind) {
    case "node":
      return buildProcess(config, root, id, rngLabel("node", id, n), durable.disk);
    case "storage":
      return new FencedStorage(id, { fencing: config.storage.fencing }, durable.state);
    case "holder":
    case "client": {
      const logic = buildProcess(config, root, id, rngLabel(durable.kind, id, n)) as LeaseHolder | KvClient;
      logic.continueIncarnations(durable.incarnation);
      return logic;
    }
  }
}

/** The kind of a process in this cluster, from its id. */
export function kindOf(config: SimConfig, id: ProcId): ProcessLogic["kind"] {
  const ids = clusterIds(config);
  if (ids.nodeIds.includes(id)) return "node";
  if (ids.clientIds.includes(id)) return "client";
  if (ids.holderIds.includes(id)) return "holder";
  if (id === ids.storageId) return "storage";
  throw new Error(`no process named "${id}" in this cluster`);
}

// ---- on disk: JSON that keeps Maps and Sets ----

export function encodeDurable(d: Durable): string {
  return JSON.stringify(d, (_k, v: unknown) => {
    if (v instanceof Map) return { $map: [...v] };
    if (v instanceof Set) return { $set: [...v] };
    return v;
  });
}

export function decodeDurable(text: string): Durable {
  const d = JSON.parse(text, (_k, v: unknown) => {
    if (v !== null && typeof v === "object" && !Array.isArray(v)) {
      const o = v as { $map?: [unknown, unknown][]; $set?: unknown[] };
      if (o.$map !== undefined && Object.keys(o).length === 1) return new Map(o.$map);
      if (o.$set !== undefined && Object.keys(o).length === 1) return new Set(o.$set);
    }
    return v;
  }) as Durable;
  if (d === null || typeof d !== "object" || !["node", "storage", "holder", "client"].includes((d as { kind: string }).kind)) {
    throw new Error("not a process's disk");
  }
  return d;
}

/** Copies a process's durable state through the disk's form: what a restarted worker reads back. */
export function throughDisk(d: Durable): Durable {
  return decodeDurable(encodeDurable(d));
}

// ---- digests ----

/**
 * Fields that are caches, not state: a snapshot's shared chunks (a replay makes them, a
 * worker never does), the holder's resolved statechart snapshot and its last state words
 * (both rebuilt from its plain state).
 */
export const NOT_STATE: ReadonlySet<string> = new Set(["chunks", "frozen", "snap", "shownValue", "shownState", "parts"]);

/**
 * A digest of a value's whole structure (objects by their sorted own fields, Maps and Sets in
 * order, typed arrays by their numbers), leaving out functions, undefined fields and caches.
 *
 * It is a digest of the value, whatever is shared: an object reached twice is walked twice.
 * In a worker every message is a copy of its own (postMessage clones it); in the replay a
 * process holds the very object its sender sent, so one object can sit in two places of its
 * state (a request that reached the leader twice, say, in two log entries) where the worker
 * holds two equal copies. Equal states must digest the same either way. Only a cycle (an object
 * inside itself) is written as a reference, to the depth of the object it repeats.
 */
export function stateDigest(value: unknown): string {
  /** The objects being walked, outermost first, by their depth. */
  const open = new Map<object, number>();
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  const word = (s: string): void => {
    h1 = hashString(s, h1);
    h2 = hashString(s, (h2 ^ 0x5bd1e995) >>> 0);
  };
  const walk = (v: unknown): void => {
    if (v === null) {
      word("n");
      return;
    }
    switch (typeof v) {
      case "undefined": {
        word("u");
        return;
      }
      case "number": {
        word(Object.is(v, -0) ? "0" : `#${v}`);
        return;
      }
      case "string": {
        word(`s${v.length}:${v}`);
        return;
      }
      case "boolean": {
        word(v ? "T" : "F");
        return;
      }
      case "bigint": {
        word(`b${v}`);
        return;
      }
      case "function":
      case "symbol": {
        word("f");
        return;
      }
    }
    const o = v as object;
    const ref = open.get(o);
    if (ref !== undefined) {
      word(`@${ref}`);
      return;
    }
    open.set(o, open.size);
    walkObject(o);
    open.delete(o);
  };
  const walkObject = (o: object): void => {
    if (Array.isArray(o)) {
      word(`[${o.length}`);
      for (const x of o) walk(x);
      word("]");
      return;
    }
    if (ArrayBuffer.isView(o)) {
      word(`t${Array.from(o as Uint32Array).join(",")}`);
      return;
    }
    if (o instanceof Map) {
      word(`M${o.size}`);
      for (const [k, x] of o) {
        walk(k);
        walk(x);
      }
      return;
    }
    if (o instanceof Set) {
      word(`S${o.size}`);
      for (const x of o) walk(x);
      return;
    }
    const rec = o as Record<string, unknown>;
    const keys = Object.keys(rec)
      .filter((k) => !NOT_STATE.has(k) && rec[k] !== undefined && typeof rec[k] !== "function")
      .sort();
    word(`{${keys.length}`);
    for (const k of keys) {
      word(k);
      walk(rec[k]);
    }
    word("}");
  };
  walk(value);
  return (h1 >>> 0).toString(16).padStart(8, "0") + (h2 >>> 0).toString(16).padStart(8, "0");
}
