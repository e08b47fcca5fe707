import { afterEach, describe, expect, it, vi } from "vitest";
import { dataSet, FileProblem, fetchFiles } from "../../src/app/dataFiles";
import { buildCatalog } from "../../src/app/lesson/catalog";
import { buildLibrary } from "../../src/app/library/catalog";

describe("the lesson and scenario files, fetched (src/app/dataFiles.ts)", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("fetches every file; one that fails (offline, a 404) becomes a problem in words, and the others still arrive", async () => {
    vi.stubGlobal("fetch", async (url: string) => {
      if (url === "/a.json") return new Response('{"x":1}', { status: 200 });
      if (url === "/b.json") return new Response("no", { status: 404, statusText: "Not Found" });
      throw new TypeError("Failed to fetch");
    });
    const files = await fetchFiles({ "lessons/a.json": "/a.json", "lessons/b.json": "/b.json", "lessons/c.json": "/c.json" });
    expect(files["lessons/a.json"]).toEqual({ x: 1 });
    expect(files["lessons/b.json"]).toBeInstanceOf(FileProblem);
    expect((files["lessons/b.json"] as FileProblem).message).toBe("the server answered 404 Not Found");
    expect((files["lessons/c.json"] as FileProblem).message).toBe("it could not be fetched (is the page offline?): Failed to fetch");
  });

  it("the course and the library list a file that could not be fetched with its reason, and keep the rest", () => {
    const gone = new FileProblem("it could not be fetched (is the page offline?): Failed to fetch");
    const c = buildCatalog({ "lessons/07-fencing.json": gone });
    expect(c.entries).toEqual([{ file: "07-fencing.json", lesson: null, errors: [gone.message] }]);
    const lib = buildLibrary({ "scenarios/raft/a.json": gone, "scenarios/raft/b.json": { name: "b" } });
    expect(lib.groups[0]?.entries.map((e) => [e.id, e.errors])).toEqual([
      ["raft/a", [gone.message]],
      ["raft/b", []],
    ]);
    expect([...lib.byId.keys()]).toEqual(["raft/b"]);
  });

  it("a data set is fetched and built once, the same promise for every caller; Node's files replace the fetch", async () => {
    let fetches = 0;
    vi.stubGlobal("fetch", async () => {
      fetches++;
      return new Response('{"n":1}', { status: 200 });
    });
    let builds = 0;
    const set = dataSet({ "d/a.json": "/a.json" }, (files) => ({ n: ++builds, files }), "the things");
    expect(set.loaded()).toBeNull();
    expect(() => set.get()).toThrow("the things are not loaded yet");
    const p = set.load();
    expect(set.load()).toBe(p);
    const v = await p;
    expect(v.files).toEqual({ "d/a.json": { n: 1 } });
    expect(set.get()).toBe(v);
    expect([fetches, builds]).toEqual([1, 1]);
    set.readWith(() => ({ "d/a.json": { n: 2 } }));
    expect(set.get().files).toEqual({ "d/a.json": { n: 2 } });
    expect(await set.load()).toBe(set.get());
    expect([fetches, builds]).toEqual([1, 2]);
  });
});
