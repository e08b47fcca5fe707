import { describe, expect, it } from "vitest";
import { captionOf, classroomPanels, latestMoment } from "../../src/app/classroom/moment";
import type { Moment } from "../../src/worker/moments";

const m = (t: number, kind: Moment["kind"], text: string): Moment => ({ t, n: t, kind, procs: ["h1"], at: "h1", short: "", text });
const moments = [
  m(200_000, "leader-elected", "n3 was elected leader for term 1."),
  m(2_500_000, "write-rejected", "The storage rejected h1's write: its token 2 is older than the 11 the storage has already seen."),
];

describe("classroom mode", () => {
  it("captions the newest moment at or before the cursor, in its own sentence", () => {
    expect(latestMoment(moments, 100_000)).toBeNull();
    expect(latestMoment(moments, 2_499_999)?.kind).toBe("leader-elected");
    expect(latestMoment(moments, 9_000_000)?.kind).toBe("write-rejected");
    expect(captionOf(latestMoment(moments, 9_000_000))).toBe(
      "At 2.500 s: The storage rejected h1's write: its token 2 is older than the 11 the storage has already seen.",
    );
    expect(captionOf(null)).toContain("Nothing notable yet");
  });

  it("puts the panel the moment is about beside the cluster, then the lease story, two at most", () => {
    expect(classroomPanels(null, moments[1] as Moment, 2)).toEqual(["storage", "lease-timeline"]);
    expect(classroomPanels(null, moments[0] as Moment, 2)).toEqual(["log", "lease-timeline"]);
    expect(classroomPanels(null, m(1, "jeopardy", "x"), 2)).toEqual(["holders", "lease-timeline"]);
    expect(classroomPanels(null, null, 2)).toEqual(["lease-timeline", "storage"]);
    expect(classroomPanels(null, null, 1)).toEqual(["lease-timeline"]);
  });

  it("in a lesson, shows the panels the step points at and nothing else", () => {
    expect(classroomPanels({ kind: "narrate", text: "x", highlight: [{ panel: "storage" }] }, null, 1)).toEqual(["storage"]);
    expect(classroomPanels({ kind: "narrate", text: "x" }, moments[1] as Moment, 1)).toEqual([]);
  });
});
