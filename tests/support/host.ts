/** The worker's host with a fake real clock and one pending timer, driven as the page drives it. */
import { type HostEnv, SimHost } from "../../src/worker/host";
import type { FromWorker, SimView } from "../../src/worker/protocol";

export interface FakeHost {
  readonly host: SimHost;
  readonly posts: FromWorker[];
  views(): SimView[];
  /** The newest view posted (throws when there is none). */
  last(): SimView;
  /** Runs the pending timer after `ms` of fake real time. */
  tick(ms: number): void;
  /** Timers pending (0 or 1). */
  timers(): number;
  /** The messages of the errors posted. */
  errors(): string[];
}

export function fakeHost(): FakeHost {
  const posts: FromWorker[] = [];
  let real = 0;
  let pending: { fn: () => void } | null = null;
  const env: HostEnv = {
    post: (m) => posts.push(m),
    nowMs: () => real,
    setTimer: (fn) => {
      pending = { fn };
      return pending;
    },
    clearTimer: (h) => {
      if (pending === h) pending = null;
    },
  };
  const views = (): SimView[] => posts.flatMap((p) => (p.type === "view" ? [p.view] : []));
  return {
    host: new SimHost(env),
    posts,
    views,
    last: () => {
      const v = views().at(-1);
      if (v === undefined) throw new Error("no view posted");
      return v;
    },
    tick: (ms) => {
      real += ms;
      const p = pending;
      pending = null;
      p?.fn();
    },
    timers: () => (pending === null ? 0 : 1),
    errors: () => posts.flatMap((p) => (p.type === "error" ? [p.message] : [])),
  };
}
