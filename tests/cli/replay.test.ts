/**
 * `npm run sim -- --replay FILE`: a recording made by a live run (the Node stand-in for the
 * workers) replays in the CLI to the same digests (exit 0); an edited digest is found (3); a
 * live run where the storage took a stale write reports that violation (1); a malformed file
 * is refused with its problem named (2).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { LiveRecording } from "../../src/core/live/recording";
import { recordingToText } from "../../src/core/live/schema";
import { faultyRun, unfencedRun } from "../support/liveRuns";

const root = join(import.meta.dirname, "../..");
const tsx = join(root, "node_modules/.bin/tsx");

function sim(...args: string[]) {
  const r = spawnSync(tsx, [join(root, "src/cli/main.ts"), ...args], { cwd: root, encoding: "utf8", timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

let dir: string;
let rec: LiveRecording;
let good: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "replay-cli-"));
  rec = faultyRun(3, 3_000_000).recording();
  good = join(dir, "good.json");
  writeFileSync(good, recordingToText(rec));
});

describe("npm run sim -- --replay", () => {
  it("a recording replays to every digest recorded live: exit 0, each process 'same'", () => {
    const r = sim("--replay", good);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain(`seed ${rec.config.seed}`);
    for (const [id, d] of Object.entries(rec.digests)) expect(r.out).toMatch(new RegExp(`^  ${id}\\s+${d}  ${d}  same$`, "m"));
    expect(r.out).not.toContain("DIFFERENT");
    expect(r.out).toMatch(/^ok: every process ended in the state it ended in live/m);
  });

  it("a digest edited in the file: exit 3, that process DIFFERENT, the others same, the seed named", () => {
    const edited = JSON.parse(readFileSync(good, "utf8")) as LiveRecording & { digests: Record<string, string> };
    const real = edited.digests.n2 as string;
    edited.digests.n2 = real === "0123456789abcdef" ? "fedcba9876543210" : "0123456789abcdef";
    const file = join(dir, "edited.json");
    writeFileSync(file, JSON.stringify(edited));
    const r = sim("--replay", file);
    expect(r.code).toBe(3);
    expect(r.out).toMatch(new RegExp(`^  n2\\s+${edited.digests.n2}  ${real}  DIFFERENT$`, "m"));
    expect(r.out).toMatch(new RegExp(`^  n1\\s+${rec.digests.n1}  ${rec.digests.n1}  same$`, "m"));
    expect(r.out).toMatch(/^FAIL: the replay is not the live run \(seed 3\): n2 ended in another state/m);
    const doc = JSON.parse(sim("--replay", file, "--json").out);
    expect(doc.digests.n2).toEqual({ live: edited.digests.n2, replay: real, same: false });
    expect(doc.digests.n1.same).toBe(true);
    expect(doc.ok).toBe(false);
  });

  it("a live run whose storage took a stale write (fencing off): exit 1, the violation printed, the digests the same", () => {
    const file = join(dir, "unfenced.json");
    const unfenced = unfencedRun(1, 8_000_000).recording();
    writeFileSync(file, recordingToText(unfenced));
    const r = sim("--replay", file);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^ {2}VIOLATION storage-corruption at .*fencing is off: storage accepted h\d's late write/m);
    expect(r.out).not.toContain("DIFFERENT");
    const trace = join(dir, "unfenced.ndjson");
    const j = sim("--replay", file, "--json", "--trace", trace);
    expect(j.code).toBe(1);
    const doc = JSON.parse(j.out);
    expect(doc.seed).toBe(1);
    expect(doc.endAt).toBe(unfenced.endAt);
    expect(doc.diverged).toBeNull();
    expect(doc.violations.map((v: { invariant: string }) => v.invariant)).toContain("storage-corruption");
    expect(Object.values(doc.digests).every((d) => (d as { same: boolean }).same)).toBe(true);
    // The replay's trace, one event a line, with the violation in it.
    const events = readFileSync(trace, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(events.length).toBeGreaterThan(100);
    expect(events.some((e) => e.kind === "violation" && e.invariant === "storage-corruption")).toBe(true);
  });

  it("a recording the replay cannot follow (a message the live run never sent): exit 3, 'diverged'", () => {
    const j = JSON.parse(readFileSync(good, "utf8")) as { plans: Record<string, number[]> };
    const first = Object.keys(j.plans).find((k) => !rec.script.some((x) => "key" in x.input && x.input.key === k));
    expect(first).toBeDefined();
    delete j.plans[first as string];
    const file = join(dir, "diverges.json");
    writeFileSync(file, JSON.stringify(j));
    const r = sim("--replay", file, "--json");
    expect(r.code).toBe(3);
    expect(JSON.parse(r.out).diverged).toMatch(/the replay diverged from the live run: .* that it did not send in the live run/);
  });

  it("a malformed file, a missing one, or other options with it: exit 2, the problem named", () => {
    const bad = join(dir, "bad.json");
    const j = JSON.parse(readFileSync(good, "utf8"));
    j.script[3].proc = "n42";
    writeFileSync(bad, JSON.stringify(j));
    const r = sim("--replay", bad);
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(r.err).toMatch(/recording .*bad\.json is not valid:\n {2}script\[3\]\.proc: no process named "n42" in this run/);
    writeFileSync(bad, "{ not json");
    expect(sim("--replay", bad).err).toMatch(/not valid JSON, so not a recording/);
    const missing = sim("--replay", join(dir, "nope.json"));
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/cannot read recording .*nope\.json: ENOENT/);
    const withSeed = sim("--replay", good, "--seed", "4");
    expect(withSeed.code).toBe(2);
    expect(withSeed.err).toMatch(/--replay replays the recording as it was made: give it alone, with --json or --trace \(not --seed\)/);
  });
});
