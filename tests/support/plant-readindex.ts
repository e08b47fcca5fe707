/**
 * Preloaded into a CLI run by tests/cli/check.test.ts (node --import): plants the "ReadIndex
 * skipped" bug of tests/core/mutations.test.ts, so a run serves stale reads.
 */
import { RaftNode } from "../../src/core/raft/node";

const proto = RaftNode.prototype as unknown as Record<string, unknown>;
if (typeof proto.requestRead !== "function") throw new Error("RaftNode.prototype.requestRead is gone: the plant plants nothing");
proto.requestRead = function (this: RaftNode, ctx: unknown) {
  if (this.role !== "leader") return false;
  (this as unknown as { st: { readStates: { ctx: unknown; index: number }[] } }).st.readStates.push({ ctx, index: this.commitIndex });
  return true;
};
