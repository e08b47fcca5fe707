import { afterEach, describe, expect, it } from "vitest";
import { RaftNode } from "../../src/core/raft/node";
import { type Disk, emptyDisk } from "../../src/core/raft/server";
import type { Entry } from "../../src/core/raft/types";
import { type BoundBroken, type CheckerHost, Checkers, type HolderTiming, type Violation } from "../../src/core/sim/checkers";
import { defaultConfig, mergeConfig } from "../../src/core/sim/config";
import { ALL_FAULTS } from "../../src/core/sim/nemesis";
import { Simulation } from "../../src/core/sim/sim";
import type { TraceEvent } from "../../src/core/sim/trace";

/** A checker fed by hand-written events, over hand-written disks. */
function harness() {
  const disks = new Map<string, Disk>();
  const found: Omit<Violation, "time" | "seed">[] = [];
  const bounds: Omit<BoundBroken, "time">[] = [];
  /** Every process's local clock reading, set by hand (default: virtual time). */
  const clocks = new Map<string, number>();
  const timings = new Map<string, HolderTiming>();
  const host: CheckerHost & { now: number } = {
    seed: 1,
    now: 0,
    nodeIds: ["n1", "n2", "n3"],
    holderIds: ["h1", "h2"],
    diskOf: (id) => disks.get(id),
    stateOf: () => null,
    isUp: () => true,
    localNow: (id) => clocks.get(id) ?? host.now,
    holderTiming: (id) => timings.get(id) ?? null,
    report: (v) => found.push(v),
    boundBroken: (b) => bounds.push(b),
  };
  const c = new Checkers(host);
  let n = 0;
  const feed = (e: Record<string, unknown>) => c.observe({ t: 0, n: n++, ...e } as TraceEvent);
  const setLog = (node: string, terms: number[], key = "x") => {
    const log: Entry[] = terms.map((term, i) => ({
      index: i + 1,
      term,
      cmd: { type: "client", clientId: `${key}${i}`, seq: 1, op: { type: "put", key, value: `${term}` } },
    }));
    const disk = disks.get(node) ?? emptyDisk();
    disk.log = log;
    disks.set(node, disk);
    feed({ kind: "log", proc: node, truncatedFrom: 1, from: 1, lastIndex: log.length, lastTerm: terms[terms.length - 1] ?? 0 });
  };
  return { c, found, bounds, feed, setLog, disks, host, clocks, timings };
}

describe("checkers detect each violation", () => {
  it("election safety: two leaders in one term", () => {
    const h = harness();
    h.feed({ kind: "role", proc: "n1", role: "leader", term: 3, leader: "n1", reason: "" });
    expect(h.found).toEqual([]);
    h.feed({ kind: "role", proc: "n2", role: "leader", term: 3, leader: "n2", reason: "" });
    expect(h.found.map((v) => v.invariant)).toEqual(["election-safety"]);
    expect(h.found[0]?.nodes).toEqual(["n1", "n2"]);
  });

  it("log matching: same index and term, different prefix", () => {
    const h = harness();
    h.setLog("n1", [1, 1, 2]);
    h.setLog("n2", [1, 1, 2]);
    expect(h.found).toEqual([]);
    h.setLog("n3", [1, 1, 2], "other-key");
    expect(h.found.map((v) => v.invariant)).toContain("log-matching");
  });

  it("state machine safety: two nodes commit different entries at one index", () => {
    const h = harness();
    h.setLog("n1", [1, 2]);
    h.setLog("n2", [1, 3]);
    h.feed({ kind: "commit", proc: "n1", index: 2 });
    expect(h.found).toEqual([]);
    h.feed({ kind: "commit", proc: "n2", index: 2 });
    expect(h.found.map((v) => v.invariant)).toEqual(["state-machine-safety"]);
  });

  it("leader completeness: a leader of a later term missing a committed entry", () => {
    const h = harness();
    h.feed({ kind: "hard", proc: "n1", term: 2, votedFor: "n1" });
    h.setLog("n1", [1, 2]);
    h.feed({ kind: "commit", proc: "n1", index: 2 });
    h.setLog("n2", [1]);
    // A leader of an older term, elected late (e.g. it was paused with its votes in its inbox),
    // need not hold what was committed in term 2.
    h.feed({ kind: "role", proc: "n2", role: "leader", term: 1, leader: "n2", reason: "" });
    expect(h.found).toEqual([]);
    h.feed({ kind: "role", proc: "n2", role: "leader", term: 3, leader: "n2", reason: "" });
    expect(h.found.map((v) => v.invariant)).toEqual(["leader-completeness"]);
  });

  it("term and commit index never decrease", () => {
    const h = harness();
    h.feed({ kind: "hard", proc: "n1", term: 5, votedFor: null });
    h.feed({ kind: "hard", proc: "n1", term: 4, votedFor: null });
    h.setLog("n1", [1, 1, 1]);
    h.feed({ kind: "commit", proc: "n1", index: 3 });
    h.feed({ kind: "commit", proc: "n1", index: 2 });
    expect(h.found.map((v) => v.invariant)).toEqual(["term-monotonic", "commit-monotonic"]);
    // A crash forgets the commit index legitimately.
    h.feed({ kind: "crash", proc: "n1" });
    h.feed({ kind: "commit", proc: "n1", index: 1 });
    expect(h.found.length).toBe(2);
  });

  it("persist before send: a vote reply before the vote is on disk", () => {
    const h = harness();
    h.disks.set("n1", { ...emptyDisk(), hard: { term: 2, votedFor: null } });
    h.feed({
      kind: "send",
      id: 1,
      from: "n1",
      to: "n2",
      deliverAt: 1,
      dup: false,
      msg: { type: "RequestVoteResp", term: 2, granted: true, preVote: false },
    });
    expect(h.found.map((v) => v.invariant)).toEqual(["persist-before-send"]);
  });

  it("an acknowledged write that was never committed", () => {
    const h = harness();
    h.feed({
      kind: "client",
      proc: "c1",
      phase: "ok",
      clientId: "c1.1",
      seq: 1,
      op: { type: "put", key: "k", value: "v" },
      result: { value: "v" },
    });
    expect(h.found.map((v) => v.invariant)).toEqual(["acknowledged-write-durable"]);
  });
});

describe("checkers across log compaction (section 7)", () => {
  const snap = (node: string, op: "take" | "install", index: number, digest: number, logStart: number, lastIndex: number) => ({
    kind: "snapshot",
    proc: node,
    op,
    index,
    term: 1,
    digest,
    logStart,
    lastIndex,
  });

  it("a snapshot of an index nobody committed, or two different states at one index, break state machine safety", () => {
    const h = harness();
    h.setLog("n1", [1, 1, 1]);
    h.setLog("n2", [1, 1, 1]);
    h.feed({ kind: "commit", proc: "n1", index: 2 });
    h.feed(snap("n1", "take", 2, 7, 1, 3));
    expect(h.found).toEqual([]);
    h.feed(snap("n2", "take", 3, 7, 3, 3));
    expect(h.found.map((v) => v.invariant)).toEqual(["state-machine-safety"]);
    expect(h.found[0]?.detail).toMatch(/which no node has committed/);
    h.feed(snap("n2", "take", 2, 8, 2, 3));
    expect(h.found.map((v) => v.invariant)).toEqual(["state-machine-safety", "state-machine-safety"]);
    expect(h.found[1]?.detail).toMatch(/different state/);
  });

  it("after compacting, a node's commits and a leader's completeness are still checked against the committed prefix", () => {
    const h = harness();
    h.setLog("n1", [1, 1, 1]);
    h.feed({ kind: "commit", proc: "n1", index: 3 });
    h.feed(snap("n1", "take", 3, 7, 2, 3));
    // n2 installs n1's snapshot (its log was empty), then commits it: nothing wrong.
    h.feed(snap("n2", "install", 3, 7, 3, 3));
    h.feed({ kind: "commit", proc: "n2", index: 3 });
    h.feed({ kind: "role", proc: "n2", role: "leader", term: 2, leader: "n2", reason: "" });
    expect(h.found).toEqual([]);
    // n3 keeps a suffix after index 3 although its log differs before it.
    // (Its entry 3 of term 1 behind a different prefix is already a log-matching violation.)
    h.setLog("n3", [2, 2, 1, 1]);
    const before = h.found.length;
    h.feed(snap("n3", "install", 3, 7, 3, 4));
    expect(h.found.slice(before).map((v) => v.invariant)).toEqual(["log-matching"]);
    expect(h.found.at(-1)?.detail).toMatch(/kept its entries after index 3/);
  });
});

describe("lease checkers", () => {
  const lease = (proc: string, op: string, name: string, holder: string | null, token: number) => ({
    kind: "lease",
    proc,
    op,
    name,
    holder,
    token,
  });
  const write = (accepted: boolean, token: number, fencing: boolean, holder = "h1") => ({
    kind: "storage",
    proc: "s1",
    reqId: token,
    resource: "lock",
    holder,
    token,
    accepted,
    reason: accepted ? null : "stale-token",
    highest: token,
    fencing,
  });

  it("lease exclusivity: a grant to another holder while the name is held", () => {
    const h = harness();
    h.feed(lease("n1", "grant", "lock", "h1", 5));
    h.feed(lease("n1", "grant", "lock", "h1", 5)); // the same grant again is fine
    expect(h.found).toEqual([]);
    h.feed(lease("n1", "grant", "lock", "h2", 8));
    expect(h.found.map((v) => v.invariant)).toEqual(["lease-exclusive"]);
  });

  it("tokens only grow per name", () => {
    const h = harness();
    h.feed(lease("n1", "grant", "lock", "h1", 5));
    h.feed(lease("n1", "revoke", "lock", "h1", 5));
    h.feed(lease("n1", "grant", "lock", "h2", 4));
    expect(h.found.map((v) => v.invariant)).toEqual(["token-monotonic"]);
  });

  it("fencing on: storage must never accept an older token; off: the same is reported as corruption", () => {
    const on = harness();
    on.feed(write(true, 34, true, "h2"));
    on.feed(write(false, 33, true));
    expect(on.found).toEqual([]);
    on.feed(write(true, 33, true));
    expect(on.found.map((v) => v.invariant)).toEqual(["fencing-monotonic"]);
    const off = harness();
    off.feed(write(true, 34, false, "h2"));
    off.feed(write(true, 33, false));
    expect(off.found.map((v) => v.invariant)).toEqual(["storage-corruption"]);
  });

  it("a lease that expires while nothing went wrong is reported, but not after a fault", () => {
    const h = harness();
    h.feed(lease("n1", "grant", "lock", "h1", 5));
    h.feed(lease("n1", "expire", "lock", "h1", 5));
    expect(h.found.map((v) => v.invariant)).toEqual(["renewed-lease-kept"]);
    const g = harness();
    g.feed({ kind: "pause", proc: "h1", untilUs: 10 });
    g.feed(lease("n1", "grant", "lock", "h1", 5));
    g.feed(lease("n1", "expire", "lock", "h1", 5));
    expect(g.found).toEqual([]);
  });
});

describe("lease-belief: no holder believes in a lease the service has ended", () => {
  const TTL_MS = 2000;
  const MARGIN_PPM = 20_000;
  /**
   * h1 sends a grant request at virtual 1 s (its clock and every node's read the same), is
   * granted token 5 and times its lease from that send: deadline 1 s + 2 s x 0.98 = 2.96 s.
   */
  function holding() {
    const h = harness();
    h.host.now = 1_000_000;
    h.feed({
      kind: "send",
      id: 1,
      from: "h1",
      to: "n1",
      deliverAt: 0,
      dup: false,
      msg: { type: "ClientWrite", clientId: "h1.1", seq: 1, op: { type: "grant", name: "lock", holder: "h1", ttlMs: TTL_MS } },
    });
    h.host.now = 1_010_000;
    h.feed({ kind: "lease", proc: "n1", op: "grant", name: "lock", holder: "h1", token: 5, index: 5 });
    h.timings.set("h1", { sentAtUs: 1_000_000, ttlMs: TTL_MS, driftMarginPpm: MARGIN_PPM });
    h.feed({ kind: "holder", proc: "h1", state: "holding.waiting", leaseName: "lock", token: 5, deadlineUs: 2_960_000, event: "granted" });
    h.feed({ kind: "lease", proc: "n1", op: "expiring", name: "lock", holder: "h1", token: 5 });
    return h;
  }

  it("an expiry applied while the holder's own deadline is ahead, with clocks in bounds, is a violation", () => {
    const h = holding();
    h.host.now = 1_500_000;
    h.feed({ kind: "lease", proc: "n1", op: "expire", name: "lock", holder: "h1", token: 5, index: 20 });
    expect(h.found.map((v) => v.invariant)).toContain("lease-belief");
    expect(h.found.find((v) => v.invariant === "lease-belief")?.detail).toMatch(
      /h1 believes it holds lock \(token 5\) for 1460\.0 ms more/,
    );
    expect(h.bounds).toEqual([]);
  });

  it("the same, when the deciding leader's clock ran faster than the holders' margin, is a broken clock bound, not a violation", () => {
    const h = holding();
    h.host.now = 2_500_000;
    // n1's clock gained 1.2 s in 1.5 s of real time: 80 % fast.
    h.clocks.set("n1", 3_700_000);
    h.feed({ kind: "lease", proc: "n1", op: "expire", name: "lock", holder: "h1", token: 5, index: 20 });
    expect(h.found.filter((v) => v.invariant === "lease-belief")).toEqual([]);
    expect(h.bounds).toHaveLength(1);
    expect(h.bounds[0]?.detail).toMatch(/n1's clock ran 80 % fast against h1's .*the holders assume at most 2 %/);
  });

  it("a grant to another holder while h1 still believes is a violation; nothing once h1's deadline has passed or it left holding", () => {
    const h = holding();
    h.host.now = 1_500_000;
    h.feed({ kind: "lease", proc: "n2", op: "grant", name: "lock", holder: "h2", token: 9, index: 9 });
    expect(h.found.map((v) => v.invariant)).toContain("lease-belief");

    // A node catching up applies history: an old grant it replays is no news to anyone.
    const replay = holding();
    replay.host.now = 1_500_000;
    replay.feed({ kind: "lease", proc: "n3", op: "grant", name: "lock", holder: "h2", token: 3, index: 3 });
    expect(replay.found.filter((v) => v.invariant === "lease-belief")).toEqual([]);

    const late = holding();
    late.host.now = 3_000_000;
    late.feed({ kind: "lease", proc: "n1", op: "expire", name: "lock", holder: "h1", token: 5, index: 20 });
    expect(late.found.filter((v) => v.invariant === "lease-belief")).toEqual([]);

    const left = holding();
    left.feed({ kind: "holder", proc: "h1", state: "jeopardy", leaseName: "lock", token: 5, deadlineUs: 2_960_000, event: "x" });
    left.host.now = 1_500_000;
    left.feed({ kind: "lease", proc: "n1", op: "expire", name: "lock", holder: "h1", token: 5, index: 20 });
    expect(left.found.filter((v) => v.invariant === "lease-belief")).toEqual([]);
  });

  it("a holder's crash ends its belief, and is not a fault of the run: other holders' leases must still be kept", () => {
    const h = holding();
    h.feed({ kind: "crash", proc: "h1" });
    h.host.now = 1_500_000;
    h.feed({ kind: "lease", proc: "n1", op: "expire", name: "lock", holder: "h1", token: 5, index: 20 });
    expect(h.found).toEqual([]);
    // h2's lease, on the same run, still counts.
    h.feed({ kind: "lease", proc: "n1", op: "grant", name: "other", holder: "h2", token: 12 });
    h.feed({ kind: "lease", proc: "n1", op: "expire", name: "other", holder: "h2", token: 12 });
    expect(h.found.map((v) => v.invariant)).toEqual(["renewed-lease-kept"]);
  });
});

describe("checkers catch bugs planted in a real cluster", () => {
  const proto = RaftNode.prototype as unknown as Record<string, unknown>;
  const saved = { onRequestVote: proto.onRequestVote };
  afterEach(() => Object.assign(proto, saved));

  const churn = (seed: number, snapshotEveryEntries = defaultConfig().raft.snapshotEveryEntries) =>
    new Simulation(mergeConfig(defaultConfig(), { seed, clients: { count: 3, workload: "random" }, raft: { snapshotEveryEntries } }), {
      intervalMinUs: 50_000,
      intervalMaxUs: 300_000,
      faults: ALL_FAULTS,
      quietAfterUs: 60_000_000,
      includeClients: false,
    });

  it("a node that votes for every candidate breaks election safety", () => {
    // The planted bug: grant every vote request, ignoring the one-vote-per-term rule.
    proto.onRequestVote = function (
      this: { st: { votedFor: string | null; hardDirty: boolean; term: number }; send: (to: string, m: unknown) => void },
      _now: number,
      from: string,
      m: { preVote: boolean; term: number },
    ) {
      if (!m.preVote) {
        this.st.votedFor = from;
        this.st.hardDirty = true;
      }
      this.send(from, { type: "RequestVoteResp", term: m.preVote ? m.term : this.st.term, granted: true, preVote: m.preVote });
    };
    let caught: Violation | undefined;
    for (let seed = 1; seed <= 30 && caught === undefined; seed++) {
      const sim = churn(seed);
      sim.advanceTo(20_000_000);
      caught = sim.violations.find((v) => v.invariant === "election-safety");
    }
    expect(caught, "no seed in 1..30 exposed the double vote").toBeDefined();
    expect(caught?.detail).toMatch(/both leader in term/);
  });

  it("a vote that ignores the up-to-date check (section 5.4.1) loses committed entries, and is caught", () => {
    // The planted bug: vote for any candidate not yet voted against, whatever its log.
    proto.onRequestVote = function (
      this: {
        st: { votedFor: string | null; leader: string | null; hardDirty: boolean; term: number };
        send: (to: string, m: unknown) => void;
        resetElectionTimer: (now: number) => void;
      },
      now: number,
      from: string,
      m: { preVote: boolean; term: number },
    ) {
      const s = this.st;
      if (m.preVote) {
        this.send(from, { type: "RequestVoteResp", term: Math.max(m.term, s.term), granted: m.term > s.term, preVote: true });
        return;
      }
      const granted = s.votedFor === from || (s.votedFor === null && s.leader === null);
      if (granted) {
        s.votedFor = from;
        s.hardDirty = true;
        this.resetElectionTimer(now);
      }
      this.send(from, { type: "RequestVoteResp", term: s.term, granted, preVote: false });
    };
    // With compaction off, and with snapshots every 20 entries (the logs then start at their snapshots).
    for (const every of [0, 20]) {
      let caught: Violation | undefined;
      let seed = 1;
      for (; seed <= 60 && caught === undefined; seed++) {
        const sim = churn(seed, every);
        sim.advanceTo(20_000_000);
        caught = sim.violations[0];
      }
      expect(caught, `no seed in 1..60 exposed the missing up-to-date check (snapshots every ${every})`).toBeDefined();
      expect(["leader-completeness", "state-machine-safety", "assertion"]).toContain(caught?.invariant);
    }
  });
});
