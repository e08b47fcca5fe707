/** The fenced storage service's protocol (holder <-> storage process). */

export interface StorageWrite {
  readonly type: "StorageWrite";
  readonly reqId: number;
  readonly resource: string;
  readonly holder: string;
  /** The fencing token of the lease the holder believes it holds. */
  readonly token: number;
  readonly value: string;
}

export type StorageRejection = "stale-token";

export type StorageReply =
  | { readonly type: "StorageReply"; readonly reqId: number; readonly resource: string; readonly accepted: true; readonly highest: number }
  | {
      readonly type: "StorageReply";
      readonly reqId: number;
      readonly resource: string;
      readonly accepted: false;
      readonly reason: StorageRejection;
      /** The highest token the resource has accepted, which made this write stale. */
      readonly highest: number;
    };

export type StorageMessage = StorageWrite | StorageReply;

export interface StorageSettings {
  /** Check fencing tokens (off: an "efficiency lock", every write is accepted). */
  readonly fencing: boolean;
}
