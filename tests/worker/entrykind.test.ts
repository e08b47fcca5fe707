import { describe, expect, it } from "vitest";
import type { Command } from "../../src/core/raft/types";
import { entryKind } from "../../src/worker/describe";

describe("entryKind", () => {
  it("names what each command in the log does", () => {
    const cases: [Command, string][] = [
      [{ type: "noop" }, "noop"],
      [{ type: "config", voters: ["n1", "n2"] }, "config"],
      [{ type: "system", op: { type: "checkpoint", leases: [] } }, "checkpoint"],
      [{ type: "system", op: { type: "expire", name: "lock", token: 3, grantIndex: 3 } }, "expire"],
      [{ type: "system", op: { type: "free", name: "lock" } }, "free"],
      [{ type: "client", clientId: "h1", seq: 1, op: { type: "grant", name: "lock", holder: "h1", ttlMs: 2000 } }, "grant"],
      [{ type: "client", clientId: "h1", seq: 2, op: { type: "revoke", name: "lock", holder: "h1", token: 3 } }, "revoke"],
      [{ type: "client", clientId: "c1", seq: 1, op: { type: "put", key: "k", value: "v" } }, "put"],
      [{ type: "client", clientId: "c1", seq: 2, op: { type: "append", key: "k", value: "v" } }, "put"],
      [{ type: "client", clientId: "c1", seq: 3, op: { type: "delete", key: "k" } }, "put"],
    ];
    for (const [cmd, kind] of cases) expect(entryKind(cmd)).toBe(kind);
  });
});
