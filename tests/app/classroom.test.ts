import { describe, expect, it } from "vitest";
import { captionOf, classroomPanels, latestMoment } from "../../src/app/classroom/moment";
import type { TimelineMarker } from "../../src/worker/protocol";

const m = (t: number, kind: TimelineMarker["kind"], label: string): TimelineMarker => ({ t, n: t, kind, label });
const markers = [m(200_000, "election", "n3 leads term 1"), m(2_500_000, "rejection", "write by h1 (token 7) rejected"), m(2_600_000, "action", "crash n1")];

describe("classroom mode", () => {
  it("captions the newest moment at or before the cursor, not the user's own actions nor the future", () => {
    expect(latestMoment(markers, 100_000)).toBeNull();
    expect(latestMoment(markers, 2_499_999)?.kind).toBe("election");
    expect(latestMoment(markers, 9_000_000)?.kind).toBe("rejection");
    expect(captionOf(latestMoment(markers, 9_000_000))).toBe(
      "At 2.500 s: The storage rejected a stale write: write by h1 (token 7) rejected.",
    );
    expect(captionOf(null)).toContain("Nothing notable yet");
  });

  it("puts the panel the moment is about beside the cluster, then the lease story, two at most", () => {
    expect(classroomPanels(null, markers[1] as TimelineMarker, 2)).toEqual(["storage", "lease-timeline"]);
    expect(classroomPanels(null, markers[0] as TimelineMarker, 2)).toEqual(["log", "lease-timeline"]);
    expect(classroomPanels(null, null, 2)).toEqual(["lease-timeline", "storage"]);
    expect(classroomPanels(null, null, 1)).toEqual(["lease-timeline"]);
  });

  it("in a lesson, shows the panels the step points at and nothing else", () => {
    expect(classroomPanels({ kind: "narrate", text: "x", highlight: [{ panel: "storage" }] }, null, 1)).toEqual(["storage"]);
    expect(classroomPanels({ kind: "narrate", text: "x" }, markers[1] as TimelineMarker, 1)).toEqual([]);
  });
});
