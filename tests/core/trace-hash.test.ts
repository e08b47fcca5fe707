/**
 * The trace hash covers every event and message field by field: no JSON fallback (so key
 * order does not matter and nothing is serialised), long strings by their text, and a change
 * to any field an event carries changes the hash (but for the two things it names rather
 * than walks: an AppendEntries' entries beyond their terms, a snapshot's data).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { runScenario } from "../../src/core/scenario/runner";
import { parseScenarioText } from "../../src/core/scenario/schema";
import type { TraceEvent } from "../../src/core/sim/trace";
import { TraceHasher } from "../../src/core/sim/traceHash";

function hashOf(...events: unknown[]): string {
  const h = new TraceHasher();
  for (const e of events) h.add(e as TraceEvent);
  return h.hex;
}

function clientOk(value: string): unknown {
  return { kind: "client", t: 1, n: 0, proc: "c1", phase: "ok", clientId: "c1.1", seq: 3, op: { type: "get", key: "k1" }, result: { kind: "kv", value } };
}

/** One sample of each shape of event (its kind, its message's type, its operation's, its answer's), from the shipped scenarios. */
function samples(): Map<string, TraceEvent> {
  const out = new Map<string, TraceEvent>();
  const root = join(import.meta.dirname, "../../scenarios");
  for (const group of readdirSync(root)) {
    if (group === "sweeps") continue;
    for (const file of readdirSync(join(root, group)).filter((f) => f.endsWith(".json"))) {
      const parsed = parseScenarioText(readFileSync(join(root, group, file), "utf8"));
      if (!parsed.ok) throw new Error(`${file}: ${parsed.errors.join("; ")}`);
      runScenario(parsed.scenario, {
        onTrace: (e) => {
          const m = e.kind === "send" ? e.msg : null;
          const shape = [
            e.kind,
            m?.type,
            m !== null && "ok" in m ? m.ok : undefined,
            m?.type === "ClientReply" && m.ok ? m.result.kind : undefined,
            m !== null && "entries" in m ? Math.min(m.entries.length, 2) : undefined,
            e.kind === "client" ? `${e.phase}/${e.op.type}/${e.result?.kind}` : undefined,
            "op" in e && typeof e.op === "string" ? e.op : undefined,
            "phase" in e && typeof e.phase === "string" ? e.phase : undefined,
          ].join(" ");
          if (!out.has(shape)) out.set(shape, structuredClone(e));
        },
      });
    }
  }
  return out;
}

/** Every leaf of `x` with its path (arrays by index). */
function leaves(x: unknown, path: (string | number)[] = []): { path: (string | number)[]; value: unknown }[] {
  if (x !== null && typeof x === "object") {
    return Object.entries(x as Record<string, unknown>).flatMap(([k, v]) => leaves(v, [...path, Array.isArray(x) ? Number(k) : k]));
  }
  return [{ path, value: x }];
}

function changed(v: unknown): unknown[] {
  if (typeof v === "string") return [`${v}x`, v.slice(1)];
  if (typeof v === "number") return [v + 1, v + 0.5];
  if (typeof v === "boolean") return [!v];
  if (v === null) return ["", 0];
  return [];
}

function withLeaf(e: unknown, path: (string | number)[], v: unknown): unknown {
  const copy = structuredClone(e) as Record<string | number, unknown>;
  let at = copy;
  for (const p of path.slice(0, -1)) at = at[p] as Record<string | number, unknown>;
  at[path.at(-1) as string | number] = v;
  return copy;
}

/** What the hash names rather than walks (docs/trace.md). */
function named(path: (string | number)[]): boolean {
  const p = path.join(".");
  return /^msg\.entries\.\d+\.(index|cmd)/.test(p) || p.startsWith("msg.snapshot.data");
}

/** Whether the event hashes other than `base` (an event no real run makes, such as a refusal with an answer, may throw: that is noticed too). */
function differs(e: unknown, base: string | undefined): boolean {
  try {
    return hashOf(e) !== base;
  } catch {
    return true;
  }
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("trace hash", () => {
  it("covers the text of short strings", () => {
    expect(hashOf(clientOk("c1:1;"))).not.toBe(hashOf(clientOk("c1:2;")));
  });

  it("covers the text of long strings too, not only their length", () => {
    const a = "x".repeat(1000);
    expect(hashOf(clientOk(a))).not.toBe(hashOf(clientOk("y".repeat(1000))));
    expect(hashOf(clientOk(a))).not.toBe(hashOf(clientOk(`${a}z`)));
  });

  it("does not depend on the order of an event's keys (it reads fields, not text)", () => {
    const a = { t: 5, n: 1, kind: "clock", proc: "n1", driftPpm: 12.5, jumpUs: -3 };
    const b = { jumpUs: -3, driftPpm: 12.5, proc: "n1", kind: "clock", n: 1, t: 5 };
    expect(hashOf(a)).toBe(hashOf(b));
    expect(hashOf(a)).not.toBe(hashOf({ ...a, driftPpm: 12.25 }));
  });

  it("tells apart numbers that only differ in their fraction, and absent fields from present ones", () => {
    const net = { t: 5, n: 1, kind: "network", dropRate: 0.1, duplicateRate: 0, latencyMinUs: 1000, latencyMaxUs: 5000 };
    expect(hashOf(net)).not.toBe(hashOf({ ...net, dropRate: 0.2 }));
    expect(hashOf(net)).not.toBe(hashOf({ ...net, latencyByType: {} }));
  });

  it("changes when any field of any event or message changes, and never serialises", () => {
    const all = samples();
    // The shipped scenarios show most kinds; the few they do not are made here.
    const made: unknown[] = [
      { t: 9, n: 2, kind: "note", text: "hello" },
      { t: 9, n: 3, kind: "heal" },
      { t: 9, n: 4, kind: "violation", invariant: "election-safety", nodes: ["n1", "n2"], detail: "two leaders" },
      { t: 9, n: 5, kind: "slow-link", from: "n1", to: "n2", delayUs: 200_000 },
      { t: 9, n: 6, kind: "partition", groups: [["n1"], ["n2", "n3"]] },
      { t: 9, n: 7, kind: "pause", proc: "n1", untilUs: 3_000_000 },
    ];
    const events = [...all.values(), ...made];
    const kinds = new Set(events.map((e) => (e as TraceEvent).kind));
    for (const k of ["send", "deliver", "drop", "role", "vote", "log", "lease", "holder", "client", "storage", "readlease", "write-wait", "replica", "crash", "network"]) {
      expect(kinds.has(k as TraceEvent["kind"]), k).toBe(true);
    }
    const stringify = vi.spyOn(JSON, "stringify");
    const bases = events.map((e) => hashOf(e));
    expect(stringify).not.toHaveBeenCalled();
    stringify.mockRestore();
    const missed: string[] = [];
    for (const [i, e] of events.entries()) {
      const base = bases[i];
      for (const { path, value } of leaves(e)) {
        // A kind or type names the case itself (and another one would be another event).
        if (named(path) || path.at(-1) === "kind" || path.at(-1) === "type") continue;
        for (const v of changed(value)) {
          if (v === value) continue;
          if (differs(withLeaf(e, path, v), base)) continue;
          missed.push(`${(e as TraceEvent).kind} ${path.join(".")} = ${JSON.stringify(v)}`);
        }
      }
    }
    expect(missed).toEqual([]);
  });
});
