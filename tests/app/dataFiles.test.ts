import { afterEach, describe, expect, it, vi } from "vitest";
import { FileProblem, fetchFiles } from "../../src/app/dataFiles";
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
});
