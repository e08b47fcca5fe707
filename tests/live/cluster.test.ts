/**
 * The page's side of a live run (src/live/cluster.ts) with stand-in workers: what it asks of a
 * worker that is killed, or of a run that ends, before the answer comes; a restart asked twice.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { defaultConfig, mergeConfig } from "../../src/core/sim/config";
import { LiveCluster, type LiveListener } from "../../src/live/cluster";

/** A Worker that answers nothing: it keeps what it was sent, and says whether it was terminated. */
class SilentWorker {
  static made: SilentWorker[] = [];
  readonly sent: unknown[] = [];
  terminated = false;
  onmessage: ((e: MessageEvent) => void) | null = null;
  onerror: ((e: ErrorEvent) => void) | null = null;
  constructor(
    readonly url: URL,
    readonly options: { name?: string },
  ) {
    SilentWorker.made.push(this);
  }
  postMessage(m: unknown): void {
    this.sent.push(m);
  }
  terminate(): void {
    this.terminated = true;
  }
}

const listener: LiveListener = { feed: () => {}, full: () => {}, changed: () => {}, error: () => {} };
const config = mergeConfig(defaultConfig(), { seed: 3, holders: { count: 2 }, clients: { count: 1 } });
const resolve = (ref: string): string | null => (ref === "leader" ? "n1" : ref);
const worker = (name: string): SilentWorker => {
  const w = SilentWorker.made.find((x) => x.options.name === `lease-lab-${name}`);
  if (w === undefined) throw new Error(`no worker for ${name}`);
  return w;
};

/** Clusters made by a test, disposed after it (their start timers and stand-in workers). */
let made: LiveCluster[] = [];
const cluster = (): LiveCluster => {
  const c = new LiveCluster(config, 1, listener);
  made.push(c);
  return c;
};

beforeEach(() => {
  SilentWorker.made = [];
  made = [];
  vi.stubGlobal("Worker", SilentWorker);
});
afterEach(() => {
  for (const c of made) c.dispose();
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe("a live run's requests", () => {
  it("a request to a process that is killed before it answers is answered: it was killed", async () => {
    const c = cluster();
    const asked = c.act({ type: "clock", proc: "h1", driftPpm: 5000 }, resolve);
    expect(worker("h1").sent.some((m) => (m as { type: string }).type === "act")).toBe(true);
    await c.act({ type: "crash", proc: "h1" }, resolve);
    expect(worker("h1").terminated).toBe(true);
    await expect(asked).resolves.toBe("h1 was killed before it handled it");
  });

  it("a request to another process is still waited for when one is killed", async () => {
    const c = cluster();
    let answered = false;
    void c.act({ type: "clock", proc: "h2", driftPpm: 5000 }, resolve).then(() => {
      answered = true;
    });
    await c.act({ type: "crash", proc: "h1" }, resolve);
    await new Promise((r) => setTimeout(r, 10));
    expect(answered).toBe(false);
  });

  it("the run's end answers every request still waiting, to a process or to the router", async () => {
    const c = cluster();
    const toProcess = c.act({ type: "clock", proc: "n2", driftPpm: 5000 }, resolve);
    const toRouter = c.act({ type: "heal" }, resolve);
    const restart = (async () => {
      await c.act({ type: "crash", proc: "n3" }, resolve);
      return c.act({ type: "restart", proc: "n3" }, resolve);
    })();
    await new Promise((r) => setTimeout(r, 10));
    c.dispose();
    await expect(toProcess).resolves.toBe("the live run ended first");
    await expect(toRouter).resolves.toBe("the live run ended first");
    await expect(restart).resolves.toBe("the live run ended first");
  });
});

describe("ending a live run", () => {
  it("a router that never hands over the recording: finish gives up with a reason, after a while", async () => {
    vi.useFakeTimers();
    const outcome = cluster()
      .finish()
      .then(
        () => "recording",
        (e: Error) => e.message,
      );
    await vi.advanceTimersByTimeAsync(9_000);
    let settled = false;
    void outcome.then(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(2_000);
    await expect(outcome).resolves.toMatch(/router did not hand over the recording in 10 s/);
  });

  it("a run disposed while it is finishing: finish says so", async () => {
    const c = cluster();
    const done = c.finish();
    c.dispose();
    await expect(done).rejects.toThrow("the live run ended first");
  });
});

describe("restarting a process", () => {
  it("twice before the router answers starts one new worker, not two", async () => {
    const c = cluster();
    await c.act({ type: "crash", proc: "h2" }, resolve);
    const router = worker("router");
    const first = c.act({ type: "restart", proc: "h2" }, resolve);
    const second = c.act({ type: "restart", proc: "h2" }, resolve);
    const asks = router.sent.filter((m) => (m as { type: string }).type === "restart") as { requestId: number }[];
    expect(asks).toHaveLength(1);
    router.onmessage?.({ data: { type: "restarted", requestId: asks[0]?.requestId, incarnation: 1, clock: { baseT: 0, baseLocal: 0, driftPpm: 0 } } } as MessageEvent);
    await expect(first).resolves.toBeNull();
    await expect(second).resolves.toBeNull();
    expect(SilentWorker.made.filter((w) => w.options.name === "lease-lab-h2")).toHaveLength(2);
    expect(c.state().threads.find((t) => t.id === "h2")?.incarnation).toBe(1);
  });
});
