import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS } from "../../src/app/params";
import { SimHost } from "../../src/worker/host";
import type { FromWorker } from "../../src/worker/protocol";

const root = join(import.meta.dirname, "../..");
const tsx = join(root, "node_modules/.bin/tsx");

function sim(...args: string[]) {
  const r = spawnSync(tsx, [join(root, "src/cli/main.ts"), ...args], { cwd: root, encoding: "utf8", timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe("npm run sim", () => {
  it("--json prints one document with runs, violations and per-run seed and traceHash", () => {
    const r = sim("--seeds", "1..3", "--duration", "2s", "--json");
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out);
    expect(doc.ok).toBe(true);
    expect(doc.violations).toEqual([]);
    expect(doc.runs.map((x: { seed: number }) => x.seed)).toEqual([1, 2, 3]);
    for (const run of doc.runs) expect(run.traceHash).toMatch(/^[0-9a-f]{16}$/);
    // Same seed, same hash, across processes.
    const again = JSON.parse(sim("--seed", "2", "--duration", "2s", "--json").out);
    expect(again.runs[0].traceHash).toBe(doc.runs[1].traceHash);
  });

  it("a run made in the dashboard's worker, saved as a scenario file, runs in the CLI to the same trace hash", () => {
    const posts: FromWorker[] = [];
    let real = 0;
    let tick: (() => void) | null = null;
    const host = new SimHost({
      post: (m) => posts.push(m),
      nowMs: () => real,
      setTimer: (fn) => {
        tick = fn;
        return fn;
      },
      clearTimer: () => {
        tick = null;
      },
    });
    const views = () => posts.flatMap((p) => (p.type === "view" ? [p.view] : []));
    const play = (ms: number) => {
      host.handle({ type: "play" });
      for (let t = 0; t < ms; t += 40) {
        real += 40;
        const f = tick;
        tick = null;
        f?.();
      }
      host.handle({ type: "pause" });
    };
    host.handle({ type: "start", settings: { ...DEFAULT_SETTINGS, seed: 31, speed: 1, autoplay: false } });
    play(1500);
    host.handle({ type: "act", action: { type: "crash", proc: views().at(-1)?.leader as string } });
    play(700);
    host.handle({ type: "act", action: { type: "gc-pause", holder: "h2", durationUs: 2_500_000 } });
    play(1800);
    host.handle({ type: "export", what: "scenario", requestId: 1 });
    const file = posts.at(-1);
    if (file?.type !== "export") throw new Error("no scenario exported");
    const dir = mkdtempSync(join(tmpdir(), "leaselab-"));
    writeFileSync(join(dir, file.filename), file.text);
    const r = sim("--scenario", join(dir, file.filename), "--json");
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out).runs[0].traceHash).toBe(views().at(-1)?.traceHash);
  });

  it("runs a scenario file and writes an NDJSON trace", () => {
    const dir = mkdtempSync(join(tmpdir(), "leaselab-"));
    const trace = join(dir, "trace.ndjson");
    const r = sim("--scenario", "scenarios/raft/leader-crash.json", "--trace", trace);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/ok {3}leader crash and re-election seed=2/);
    const lines = readFileSync(trace, "utf8").trim().split("\n");
    expect(lines.length).toBeGreaterThan(100);
    const kinds = new Set(lines.map((l) => JSON.parse(l).kind));
    for (const k of ["send", "deliver", "role", "crash", "commit"]) expect(kinds.has(k), k).toBe(true);
  });

  it("exits 3 on a failed expectation (no safety rule broke) and prints the command that reproduces it", () => {
    const dir = mkdtempSync(join(tmpdir(), "leaselab-"));
    const file = join(dir, "impossible.json");
    writeFileSync(
      file,
      JSON.stringify({ name: "impossible", duration: "1s", network: { dropRate: 1 }, expect: [{ that: "leader-exists" }] }),
    );
    const r = sim("--scenario", file, "--seed", "9");
    expect(r.code).toBe(3);
    expect(r.out).toContain("FAIL");
    expect(r.out).toContain(`reproduce: npm run sim -- --scenario ${file} --seed 9`);
    const j = JSON.parse(sim("--scenario", file, "--seed", "9", "--json").out);
    expect(j.failedExpectations[0].seed).toBe(9);
  });

  it("exits 2 with a clear message on bad input", () => {
    const dir = mkdtempSync(join(tmpdir(), "leaselab-"));
    const bad = join(dir, "bad.json");
    writeFileSync(bad, JSON.stringify({ cluster: { nodes: 40 } }));
    const cases: [string[], RegExp][] = [
      [["--nodes", "0"], /--nodes must be from 1 to 9/],
      [["--seeds", "5..1"], /below/],
      [["--duration", "forever"], /not a duration/],
      [["--frobnicate"], /Unknown option/],
      [["--scenario", join(dir, "missing.json")], /cannot read scenario .*ENOENT/],
      [["--scenario", bad], /cluster\.nodes/],
      [["--seeds", "1..2", "--trace", join(dir, "t.ndjson")], /--trace writes one run/],
      [["--scenario", "/dev/zero"], /cannot read scenario \/dev\/zero: not a regular file/],
      [["--scenario", dir], /not a regular file/],
      [["--trace", join(dir, "no-such-dir", "t.ndjson")], /--trace .* cannot be written: ENOENT/],
      [["--history", dir], /--history .*: is a directory/],
      [["--history", join(bad, "h.json")], /--history .*ENOTDIR/],
    ];
    for (const [args, message] of cases) {
      const r = sim(...args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.err, args.join(" ")).toMatch(message);
    }
  });
});

describe("npm run sim: bad input found by fuzzing, and exit statuses", () => {
  it("refuses a scenario file over 10 MB, and clips echoed values to 80 characters", () => {
    const dir = mkdtempSync(join(tmpdir(), "leaselab-"));
    const huge = join(dir, "huge.json");
    writeFileSync(huge, " ".repeat(10 * 1024 * 1024 + 1));
    const r = sim("--scenario", huge);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/over the 10 MB limit/);
    const long = join(dir, "long.json");
    writeFileSync(long, JSON.stringify({ duration: "x".repeat(1_000_000), ["k".repeat(1_000_000)]: 1 }));
    const l = sim("--scenario", long);
    expect(l.code).toBe(2);
    expect(l.err).toMatch(/duration: not a duration: "x{80}…"/);
    expect(l.err.length).toBeLessThan(5000);
    const n = sim("--nodes", "9".repeat(100_000));
    expect(n.code).toBe(2);
    expect(n.err).toMatch(/--nodes must be from 1 to 9, got 9{80}…/);
    expect(n.err.length).toBeLessThan(5000);
  });

  it("exits 1 when a safety rule broke (a violation the scenario does not expect)", () => {
    const dir = mkdtempSync(join(tmpdir(), "leaselab-"));
    const unfenced = JSON.parse(readFileSync(join(root, "scenarios/lease/04-gc-pause-unfenced.json"), "utf8"));
    // The file expects its storage corruption; without that expectation it is a broken safety rule.
    unfenced.expect = unfenced.expect.filter((e: { that: string }) => e.that !== "violation");
    const file = join(dir, "unfenced.json");
    writeFileSync(file, JSON.stringify(unfenced));
    const r = sim("--scenario", file, "--quiet");
    expect(r.out).toContain("VIOLATION storage-corruption");
    expect(r.code).toBe(1);
    expect(sim("--scenario", join(root, "scenarios/lease/04-gc-pause-unfenced.json"), "--quiet").code).toBe(0);
  });
});

describe("npm run sim with lease holders", () => {
  it("the default run has holders; --json reports leases, holders and the storage log", () => {
    const r = sim("--seed", "4", "--duration", "4s", "--json");
    expect(r.code).toBe(0);
    const run = JSON.parse(r.out).runs[0];
    expect(run.holders.map((h: { id: string }) => h.id)).toEqual(["h1", "h2", "h3"]);
    expect(run.leases).toEqual([expect.objectContaining({ name: "lock", state: "held" })]);
    expect(run.storageLog.length).toBeGreaterThan(3);
    expect(run.storageLog[0]).toMatchObject({ resource: "lock", accepted: true });
    const none = JSON.parse(sim("--seed", "4", "--duration", "1s", "--holders", "0", "--json").out).runs[0];
    expect(none.holders).toEqual([]);
  });

  it("--history writes every client and holder operation with call and return times", () => {
    const dir = mkdtempSync(join(tmpdir(), "leaselab-"));
    const file = join(dir, "history.json");
    const r = sim("--scenario", "scenarios/lease/03-gc-pause-fenced.json", "--history", file);
    expect(r.code).toBe(0);
    const h = JSON.parse(readFileSync(file, "utf8"));
    expect(h.format).toBe("lease-lab-history/1");
    expect(h.seed).toBe(13);
    const grants = h.operations.filter((o: { operation: string }) => o.operation === "grant");
    expect(grants.length).toBeGreaterThanOrEqual(2);
    expect(grants[0]).toMatchObject({ client: "h1", key: "lock", outcome: "ok", output: { kind: "granted" } });
    // The late write after the GC pause is in the history as a refused storage write.
    const rejected = h.operations.filter(
      (o: { operation: string; outcome: string }) => o.operation === "storage-write" && o.outcome === "fail",
    );
    expect(rejected.length).toBeGreaterThanOrEqual(1);
    expect(rejected[0]).toMatchObject({ client: "h1", output: { accepted: false, reason: "stale-token" } });
    for (const op of h.operations) {
      expect(op.callUs).toBeTypeOf("number");
      if (op.returnUs !== null) expect(op.returnUs).toBeGreaterThanOrEqual(op.callUs);
    }
  });
});

describe("--lesson", () => {
  it("walks a lesson to its end (exit 0), and stops at the first step whose condition is not met (exit 3, naming it)", () => {
    const ok = sim("--lesson", "lessons/07-fencing.json");
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/ok {3}lessons\/07-fencing\.json: lesson fencing/);
    const dir = mkdtempSync(join(tmpdir(), "lesson-"));
    const file = join(dir, "bad.json");
    const steps = [
      { kind: "narrate", text: "Hello." },
      { kind: "play", title: "Never", until: { that: "term-at-least", term: 99 }, within: "1s" },
    ];
    writeFileSync(file, JSON.stringify({ seed: 1, lesson: { id: "bad", title: "Bad", summary: "s", minutes: 3, order: 1, steps } }));
    const bad = sim("--lesson", file, "--json");
    expect(bad.code).toBe(3);
    const doc = JSON.parse(bad.out);
    expect(doc.ok).toBe(false);
    expect(doc.lessons[0].failure).toMatch(/^lesson bad, step 2 \(play: Never\): not within 1 s/);
    const mixed = sim("--lesson", file, "--seed", "2");
    expect(mixed.code).toBe(2);
    expect(mixed.err).toMatch(/--lesson runs lessons as they are written/);
  });
});

describe("--trace", () => {
  it("writes a violation after the event that caused it (events in the order of their position n)", () => {
    const dir = mkdtempSync(join(tmpdir(), "leaselab-"));
    const file = join(dir, "trace.ndjson");
    const r = sim("--scenario", "scenarios/lease/04-gc-pause-unfenced.json", "--trace", file, "--quiet");
    expect(r.code).toBe(0);
    const events = readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { n: number; kind: string });
    const violations = events.filter((e) => e.kind === "violation");
    expect(violations.length).toBeGreaterThan(0);
    expect(events.map((e) => e.n)).toEqual(events.map((_, i) => i));
    for (const v of violations) expect(events[v.n - 1]?.kind).toBe("storage");
  });
});

describe("--json's storage log", () => {
  it("holds every storage write of the run, not only the storage's latest 1,000", () => {
    const dir = mkdtempSync(join(tmpdir(), "leaselab-"));
    const file = join(dir, "busy.json");
    writeFileSync(file, JSON.stringify({ name: "busy", seed: 2, duration: "15s", holders: { count: 2, workIntervalMs: 10, workGapMs: 1 } }));
    const r = sim("--scenario", file, "--json");
    expect(r.code, r.err).toBe(0);
    const run = JSON.parse(r.out).runs[0];
    const totals = run.holders.reduce((s: number, h: { storageAccepted: number; storageRejected: number }) => s + h.storageAccepted + h.storageRejected, 0);
    expect(totals).toBeGreaterThan(1000);
    // The holders count the replies they got; a write or two may still be unanswered at the end.
    expect(run.storageLog.length).toBeGreaterThanOrEqual(totals);
    expect(run.storageLog.length).toBeLessThanOrEqual(totals + 2);
    expect(run.storageLog[0]).toMatchObject({ reqId: 1, resource: "lock", accepted: true, value: expect.stringMatching(/^h\d#1$/) });
    expect(run.storageLog.every((w: { atUs: number }, i: number, all: { atUs: number }[]) => i === 0 || w.atUs >= (all[i - 1] as { atUs: number }).atUs)).toBe(true);
  });
});
