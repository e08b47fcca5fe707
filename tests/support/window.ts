/** A stand-in for the browser's window in Node tests: a location, and a history whose replaceState moves it. */
export type FakeWindow = {
  location: { pathname: string; search: string; hash: string };
  history: { state: unknown; replaceState: (s: unknown, t: string, url: string) => void };
};

const g = globalThis as unknown as { window?: FakeWindow };

/** Installs a fake window at `url`; `replaced` lists every address replaceState wrote. */
export function installFakeWindow(url: string): { win: FakeWindow; replaced: string[] } {
  const u = new URL(url, "http://localhost");
  const replaced: string[] = [];
  const win: FakeWindow = {
    location: { pathname: u.pathname, search: u.search, hash: u.hash },
    history: {
      state: null,
      replaceState: (_s, _t, next) => {
        replaced.push(next);
        const n = new URL(next, "http://localhost");
        win.location = { pathname: n.pathname, search: n.search, hash: n.hash };
      },
    },
  };
  g.window = win;
  return { win, replaced };
}

export function removeFakeWindow(): void {
  delete g.window;
}
