import { describe, expect, it } from "vitest";
import type { ProcessContext } from "../../src/core/sim/process";
import type { Payload, ProcEvent } from "../../src/core/sim/trace";
import { FencedStorage, STORAGE_LOG_LIMIT } from "../../src/core/storage/storage";
import type { StorageReply, StorageWrite } from "../../src/core/storage/types";

class FakeCtx implements ProcessContext {
  now = 0;
  readonly sends: { to: string; payload: Payload }[] = [];
  readonly emits: ProcEvent[] = [];
  send(to: string, payload: Payload): void {
    this.sends.push({ to, payload });
  }
  emit(e: ProcEvent): void {
    this.emits.push(e);
  }
  pauseSelf(): void {
    throw new Error("storage never pauses itself");
  }
}

let reqIds = 0;
function write(holder: string, token: number, resource = "R"): StorageWrite {
  reqIds += 1;
  return { type: "StorageWrite", reqId: reqIds, resource, holder, token, value: `${holder}#${reqIds}` };
}

function lastReply(ctx: FakeCtx): StorageReply {
  const s = ctx.sends[ctx.sends.length - 1];
  if (s === undefined || s.payload.type !== "StorageReply") throw new Error("no storage reply");
  return s.payload;
}

describe("FencedStorage", () => {
  it("accepts equal and higher tokens and rejects older ones with the highest it has seen", () => {
    const st = new FencedStorage("s1", { fencing: true });
    const ctx = new FakeCtx();
    expect(st.highest("R")).toBeNull();

    st.onMessage(ctx, "h1", write("h1", 33));
    expect(lastReply(ctx)).toMatchObject({ accepted: true, highest: 33, resource: "R" });
    expect(ctx.sends[0]?.to).toBe("h1");

    st.onMessage(ctx, "h1", write("h1", 33));
    expect(lastReply(ctx).accepted).toBe(true);

    st.onMessage(ctx, "h2", write("h2", 34));
    expect(lastReply(ctx)).toMatchObject({ accepted: true, highest: 34 });
    expect(ctx.sends[2]?.to).toBe("h2");

    // Kleppmann's story: client 1 wakes up from its pause and writes with token 33.
    const late = write("h1", 33);
    st.onMessage(ctx, "h1", late);
    expect(lastReply(ctx)).toEqual({
      type: "StorageReply",
      reqId: late.reqId,
      resource: "R",
      accepted: false,
      reason: "stale-token",
      highest: 34,
    });
    expect(st.highest("R")).toBe(34);
    expect(st.value("R")).toBe("h2#3");

    expect(ctx.emits[3]).toEqual({
      kind: "storage",
      reqId: late.reqId,
      resource: "R",
      holder: "h1",
      token: 33,
      accepted: false,
      reason: "stale-token",
      highest: 34,
      fencing: true,
      value: "h1#4",
      atUs: 0,
    });
    expect(ctx.emits.map((e) => (e.kind === "storage" ? e.accepted : null))).toEqual([true, true, true, false]);
    expect(st.totals).toEqual({ writes: 4, accepted: 3, rejected: 1 });
    expect(st.log.map((e) => [e.token, e.accepted, e.reason, e.highestAfter])).toEqual([
      [33, true, null, 33],
      [33, true, null, 33],
      [34, true, null, 34],
      [33, false, "stale-token", 34],
    ]);
  });

  it("keeps a highest token per resource", () => {
    const st = new FencedStorage("s1", { fencing: true });
    const ctx = new FakeCtx();
    st.onMessage(ctx, "h1", write("h1", 10, "A"));
    st.onMessage(ctx, "h2", write("h2", 5, "B"));
    expect(lastReply(ctx).accepted).toBe(true);
    st.onMessage(ctx, "h2", write("h2", 5, "A"));
    expect(lastReply(ctx).accepted).toBe(false);
    expect(st.resources()).toEqual([
      { resource: "A", highest: 10, value: `h1#${reqIds - 2}` },
      { resource: "B", highest: 5, value: `h2#${reqIds - 1}` },
    ]);
  });

  it("with fencing off (an efficiency lock) accepts every write but still tracks the highest token", () => {
    const st = new FencedStorage("s1", { fencing: false });
    const ctx = new FakeCtx();
    st.onMessage(ctx, "h2", write("h2", 34));
    st.onMessage(ctx, "h1", write("h1", 33));
    expect(lastReply(ctx)).toMatchObject({ accepted: true, highest: 34 });
    expect(st.highest("R")).toBe(34);
    // The stale write overwrote the newer one: the damage fencing prevents.
    expect(st.value("R")).toMatch(/^h1#/);
    expect(ctx.emits[1]).toMatchObject({ kind: "storage", accepted: true, reason: null, highest: 34, fencing: false, token: 33 });
    expect(st.totals).toEqual({ writes: 2, accepted: 2, rejected: 0 });
  });

  it("fencing can be switched at run time; the highest token is kept across the switch", () => {
    const st = new FencedStorage("s1", { fencing: false });
    const ctx = new FakeCtx();
    st.onMessage(ctx, "h2", write("h2", 34));
    st.onMessage(ctx, "h1", write("h1", 33));
    expect(lastReply(ctx).accepted).toBe(true);
    st.setFencing(true);
    expect(st.fencing).toBe(true);
    st.onMessage(ctx, "h1", write("h1", 33));
    expect(lastReply(ctx)).toMatchObject({ accepted: false, highest: 34 });
    expect(ctx.emits.at(-1)).toMatchObject({ fencing: true, accepted: false });
    const copy = st.clone();
    copy.setFencing(false);
    expect(st.fencing).toBe(true);
  });

  it("is durable across a crash, has no timers, and ignores other messages", () => {
    const st = new FencedStorage("s1", { fencing: true });
    const ctx = new FakeCtx();
    st.onMessage(ctx, "h1", write("h1", 7));
    st.crash();
    st.start(ctx);
    expect(st.highest("R")).toBe(7);
    expect(st.nextDeadline()).toBeNull();
    st.onMessage(ctx, "n1", { type: "ClientReply", seq: 1, ok: false, leaderHint: null });
    expect(ctx.sends).toHaveLength(1);
  });

  it("clones deeply: writes to a clone leave the original alone", () => {
    const st = new FencedStorage("s1", { fencing: true });
    const ctx = new FakeCtx();
    st.onMessage(ctx, "h1", write("h1", 7));
    const copy = st.clone();
    copy.onMessage(ctx, "h2", write("h2", 9, "R"));
    copy.onMessage(ctx, "h2", write("h2", 1, "Other"));
    expect(st.highest("R")).toBe(7);
    expect(st.highest("Other")).toBeNull();
    expect(st.log).toHaveLength(1);
    expect(st.totals.writes).toBe(1);
    expect(copy.highest("R")).toBe(9);
    expect(copy.log).toHaveLength(3);
  });

  it("keeps only the last writes in its log but counts them all", () => {
    const st = new FencedStorage("s1", { fencing: true });
    const ctx = new FakeCtx();
    const n = STORAGE_LOG_LIMIT + 25;
    for (let i = 1; i <= n; i++) st.onMessage(ctx, "h1", write("h1", i));
    expect(st.log).toHaveLength(STORAGE_LOG_LIMIT);
    expect(st.log[0]?.token).toBe(26);
    expect(st.log[st.log.length - 1]?.token).toBe(n);
    expect(st.totals).toEqual({ writes: n, accepted: n, rejected: 0 });
  });
});
