import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../..");
const tsx = join(root, "node_modules/.bin/tsx");

function sim(...args: string[]) {
  const r = spawnSync(tsx, [join(root, "src/cli/main.ts"), ...args], { cwd: root, encoding: "utf8", timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe("npm run sim -- --check linearizability", () => {
  it("checks the run's history after the run, without changing the run", () => {
    const args = ["--seed", "3", "--nemesis", "random", "--duration", "10s", "--json"];
    const checked = sim(...args, "--check", "linearizability");
    expect(checked.code, checked.err).toBe(0);
    const doc = JSON.parse(checked.out);
    expect(doc.runs[0].linearizability.verdict).toBe("ok");
    expect(doc.runs[0].linearizability.keys.length).toBeGreaterThan(0);
    const plain = JSON.parse(sim(...args).out);
    expect(plain.runs[0].linearizability).toBeUndefined();
    expect(doc.runs[0].traceHash).toBe(plain.runs[0].traceHash);
  });

  it("prints the verdict in words; a search out of steps is unknown and does not fail the run", () => {
    const ok = sim("--seed", "4", "--duration", "3s", "--check", "linearizability");
    expect(ok.code, ok.err).toBe(0);
    expect(ok.out).toMatch(/linearizability: ok; (\d+) of \1 key\(s\) linearizable/);
    const tight = sim("--seed", "4", "--duration", "3s", "--check", "linearizability", "--check-steps", "2");
    expect(tight.code, tight.err).toBe(0);
    expect(tight.out).toContain("linearizability: unknown (timed out after 2 steps)");
    expect(tight.out).toMatch(/^ {5}key k\d: unknown \(timed out after 2 steps; \d+ operations\)$/m);
  });

  it("a history that is not linearizable fails the run (exit 1) and says which read saw what", () => {
    // The CLI with the "ReadIndex skipped" bug planted (a preloaded module), on the mutation hunt's settings.
    const dir = mkdtempSync(join(tmpdir(), "leaselab-lin-"));
    const file = join(dir, "hunt.json");
    const hunt = { intervalMin: "50ms", intervalMax: "500ms", quietAfter: "5s" };
    writeFileSync(file, JSON.stringify({ name: "hunt", duration: "6s", clients: { count: 3, workload: "random" }, nemesis: hunt }));
    const args = [join(root, "src/cli/main.ts"), "--scenario", file, "--seed", "13", "--check", "linearizability", "--quiet"];
    const planted = join(root, "tests/support/plant-readindex.ts");
    const r = spawnSync(process.execPath, ["--import", "tsx", "--import", planted, ...args], { cwd: root, encoding: "utf8", timeout: 60_000 });
    expect(r.status, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/key k\d+: NOT linearizable/);
    expect(r.stdout).toMatch(/and then this one cannot be placed: c\d \(session c\d\.\d, #\d+\) get k\d+, answered /);
    expect(r.stdout).toMatch(/at that point the key held ".+" \(written by c\d/);
    expect(r.stdout).toContain("1 not linearizable");
    expect(r.stdout).toContain("reproduce: npm run sim -- --scenario");
    // Without the plant, the same run is clean.
    const clean = spawnSync(process.execPath, ["--import", "tsx", ...args], { cwd: root, encoding: "utf8", timeout: 60_000 });
    expect(clean.status, clean.stdout).toBe(0);
    expect(clean.stdout).toContain("0 not linearizable");
  });

  it("a --seeds sweep checks linearizability by default (--check none turns it off), fails with the seed and the smallest offending set", () => {
    const dir = mkdtempSync(join(tmpdir(), "leaselab-lin-"));
    const file = join(dir, "hunt.json");
    const hunt = { intervalMin: "50ms", intervalMax: "500ms", quietAfter: "5s" };
    writeFileSync(file, JSON.stringify({ name: "hunt", duration: "6s", clients: { count: 3, workload: "random" }, nemesis: hunt }));
    const planted = join(root, "tests/support/plant-readindex.ts");
    const run = (...extra: string[]) =>
      spawnSync(process.execPath, ["--import", "tsx", "--import", planted, join(root, "src/cli/main.ts"), "--scenario", file, "--quiet", ...extra], {
        cwd: root,
        encoding: "utf8",
        timeout: 60_000,
      });
    const r = run("--seeds", "12..13");
    expect(r.status, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/not linearizable/);
    expect(r.stdout).toContain("reproduce: npm run sim -- --scenario");
    expect(r.stdout).toMatch(/--seed 13 --check linearizability/);
    const set = /seed 13: the smallest set of operations found that no order fits \((\d+)\):\n((?: {7}.+\n)+)/.exec(r.stdout);
    expect(set, r.stdout).not.toBeNull();
    const size = Number(set?.[1]);
    expect(size).toBeGreaterThanOrEqual(2);
    expect(size).toBeLessThanOrEqual(6);
    expect(set?.[2]?.trim().split("\n")).toHaveLength(size);
    expect(set?.[2]).toMatch(/get k\d+, answered/);
    const off = run("--seeds", "12..13", "--check", "none");
    expect(off.status, off.stdout).toBe(0);
    expect(off.stdout).not.toContain("linearizab");
    // One seed without --check: no check (as before).
    expect(run("--seed", "13").status).toBe(0);
  });

  it("refuses a bad --check or --check-steps before running (exit 2)", () => {
    for (const args of [
      ["--check", "serializability"],
      ["--check-steps", "10"],
      ["--seeds", "1..2", "--check", "none", "--check-steps", "10"],
      ["--check", "linearizability", "--check-steps", "0"],
      ["--lesson", "lessons/07-fencing.json", "--check", "linearizability"],
    ]) {
      const r = sim(...args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.err, args.join(" ")).toMatch(/--check|--lesson/);
    }
  });
});
