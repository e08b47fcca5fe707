/** The client protocol of the key-value service (client <-> Raft node). */
import type { KvOp, KvQuery, NodeId } from "../raft/types";

export interface KvResult {
  /** The value after a write, or the value read; null when the key is absent. */
  readonly value: string | null;
  /** For cas: whether the swap happened. */
  readonly applied?: boolean;
}

export interface ClientWrite {
  readonly type: "ClientWrite";
  readonly clientId: string;
  readonly seq: number;
  readonly op: KvOp;
}

export interface ClientRead {
  readonly type: "ClientRead";
  readonly clientId: string;
  readonly seq: number;
  readonly query: KvQuery;
}

export type ClientReply =
  | { readonly type: "ClientReply"; readonly seq: number; readonly ok: true; readonly result: KvResult }
  | { readonly type: "ClientReply"; readonly seq: number; readonly ok: false; readonly leaderHint: NodeId | null };

export type KvMessage = ClientWrite | ClientRead | ClientReply;
