/** The client protocol of the key-value service (client <-> Raft node). */
import type { LeaseQuery, LeaseResult } from "../lease/types";
import type { ClientOp, KvQuery, NodeId } from "../raft/types";

export interface KvResult {
  readonly kind: "kv";
  /** The value after a write, or the value read; null when the key is absent. */
  readonly value: string | null;
  /** For cas: whether the swap happened. */
  readonly applied?: boolean;
  /** Why a write had no effect (e.g. it named a lease that is not held). */
  readonly error?: string;
}

/** The answer to any client operation. */
export type OpResult = KvResult | LeaseResult;

export interface ClientWrite {
  readonly type: "ClientWrite";
  readonly clientId: string;
  readonly seq: number;
  readonly op: ClientOp;
}

export interface ClientRead {
  readonly type: "ClientRead";
  readonly clientId: string;
  readonly seq: number;
  readonly query: KvQuery | LeaseQuery;
}

export type ClientReply =
  | { readonly type: "ClientReply"; readonly seq: number; readonly ok: true; readonly result: OpResult }
  | { readonly type: "ClientReply"; readonly seq: number; readonly ok: false; readonly leaderHint: NodeId | null };

export type KvMessage = ClientWrite | ClientRead | ClientReply;
