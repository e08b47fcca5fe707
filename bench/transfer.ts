/**
 * What each view costs on its way from the worker to the page (issue 15, part 3): the
 * structured clone's size (node:v8's serializer is the one postMessage uses in Chromium),
 * the time to rebuild it on the page's side (deserialize), and the store's intake
 * (unpacking the diagram's messages, the comparison with the previous view), for a run of
 * 7 nodes and 10 holders at 1x and at top speed, and after a jump in time (the whole
 * history). "objects" is the form views had before: the diagram's messages as one object
 * each, and the store comparing the whole view (deltas included) with the previous one.
 *
 * Run: npx tsx bench/transfer.ts
 */
import { deserialize, serialize } from "node:v8";
import { DEFAULT_SETTINGS } from "../src/app/params";
import { shareEqual } from "../src/app/share";
import { withoutDeltas } from "../src/app/store";
import { type HostEnv, SimHost } from "../src/worker/host";
import { columnBuffers, unpackInto, unpackMessages } from "../src/worker/messageColumns";
import type { DiagramMessage, SimView } from "../src/worker/protocol";

function views(speed: number, seconds: number): SimView[] {
  const out: SimView[] = [];
  let real = 0;
  let pending: (() => void) | null = null;
  const env: HostEnv = {
    post: (m) => {
      if (m.type === "view") out.push(m.view);
    },
    nowMs: () => real,
    setTimer: (fn) => {
      pending = fn;
      return fn;
    },
    clearTimer: () => {
      pending = null;
    },
  };
  const host = new SimHost(env);
  host.handle({ type: "start", settings: { ...DEFAULT_SETTINGS, autoplay: false, seed: 1, nodes: 7, holders: 10, speed } });
  host.handle({ type: "play" });
  for (let i = 0; i < seconds * 25; i++) {
    real += 40;
    const p = pending as (() => void) | null;
    pending = null;
    p?.();
  }
  host.handle({ type: "seek", t: (out.at(-1)?.now ?? 0) / 2 });
  return out;
}

interface Figures {
  bytes: number;
  decodeMs: number;
  intakeMs: number;
  messages: number;
}

function measure(list: readonly SimView[], packed: boolean): Figures {
  const wire = list.map((v) => (packed ? v : { ...v, newMessages: unpackMessages(v.newMessages) }));
  let bytes = 0;
  let decodeMs = 0;
  let intakeMs = 0;
  let messages = 0;
  // Warm up the JIT on the same work.
  for (const w of wire.slice(0, 20)) deserialize(serialize(w));
  let prev: unknown = null;
  let pending: DiagramMessage[] = [];
  for (const w of wire) {
    const s = serialize(w);
    bytes += s.length;
    let t = performance.now();
    const got = deserialize(s) as SimView;
    decodeMs += performance.now() - t;
    t = performance.now();
    if (packed) {
      unpackInto(pending, got.newMessages);
      const live = withoutDeltas(got);
      prev = prev === null ? live : shareEqual(prev, live);
    } else {
      pending = pending.concat(got.newMessages as unknown as DiagramMessage[]);
      prev = prev === null ? got : shareEqual(prev, got);
    }
    intakeMs += performance.now() - t;
    if (pending.length > 6000) pending = pending.slice(-6000);
    messages += packed ? got.newMessages.nums.length / 3 : (got.newMessages as unknown as DiagramMessage[]).length;
  }
  const n = wire.length;
  return { bytes: bytes / n, decodeMs: decodeMs / n, intakeMs: intakeMs / n, messages: messages / n };
}

const row = (name: string, f: Figures): string =>
  `${name.padEnd(34)} ${f.messages.toFixed(0).padStart(6)} ${(f.bytes / 1024).toFixed(1).padStart(9)} ${f.decodeMs.toFixed(3).padStart(9)} ${f.intakeMs.toFixed(3).padStart(9)}`;

/** The best of ROUNDS passes (objects and columns interleaved): on a shared machine the least disturbed pass is the truest. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

function best(list: readonly SimView[], packed: boolean, into: Figures | null): Figures {
  const f = measure(list, packed);
  if (into === null) return f;
  return { bytes: f.bytes, messages: f.messages, decodeMs: Math.min(into.decodeMs, f.decodeMs), intakeMs: Math.min(into.intakeMs, f.intakeMs) };
}

console.log(`per view (best of ${ROUNDS} passes)  msgs   KB/view  clone ms  store ms`);
for (const speed of [1, 5]) {
  const all = views(speed, 60);
  const jump = all.at(-1) as SimView;
  const playing = all.slice(25, -1);
  // After a jump: the whole retained history in one view (repeated to time it).
  const jumps = Array.from({ length: 30 }, () => jump);
  const figs: Record<string, Figures | null> = {};
  for (let r = 0; r < ROUNDS; r++) {
    for (const packed of [false, true]) {
      const form = packed ? "columns" : "objects";
      figs[`${speed}x playing, ${form}`] = best(playing, packed, figs[`${speed}x playing, ${form}`] ?? null);
      figs[`${speed}x after a jump, ${form}`] = best(jumps, packed, figs[`${speed}x after a jump, ${form}`] ?? null);
    }
  }
  for (const [name, f] of Object.entries(figs)) if (f !== null) console.log(row(name, f));
  // The transfer list is what the host hands to postMessage.
  if (columnBuffers(jump.newMessages).length !== 2) throw new Error("the jump's view has no buffers to hand over");
}
