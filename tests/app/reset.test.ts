/** Reset (R and the toolbar's button) asks first when it would throw away the user's actions or branches. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { lossWords, resetLoses } from "../../src/app/reset";
import { handleKey } from "../../src/app/shortcuts";
import { createLabStore, type LabStore } from "../../src/app/store";
import { useUi } from "../../src/app/ui";
import type { TimedActionView, ToWorker } from "../../src/worker/protocol";
import { timelineFixture, viewFixture } from "../support/views";

const action = (scripted: boolean): TimedActionView => ({ at: 1_000_000, action: { type: "heal" }, text: "heal the network", scripted });
const branch = (id: number) => ({ id, name: id === 0 ? "main" : `branch ${id + 1}`, parent: id === 0 ? null : 0, forkedAt: 0, end: 0, actions: 1, firstAction: null });

describe("Reset", () => {
  let lab: LabStore;
  const send = vi.fn<(msg: ToWorker) => void>();
  beforeEach(() => {
    lab = createLabStore();
    lab.setState({ send });
    send.mockReset();
    useUi.setState({ resetOpen: false });
  });
  afterEach(() => useUi.setState({ resetOpen: false }));

  it("with nothing of the user's to lose, R starts again at once (a scenario's scripted actions come back with the run)", () => {
    const view = viewFixture({ timeline: timelineFixture({ actions: [action(true)] }) });
    expect(resetLoses(view)).toBeNull();
    expect(handleKey(lab.getState(), "r", view)).toBe(true);
    expect(send.mock.calls).toEqual([[{ type: "restart" }]]);
    expect(useUi.getState().resetOpen).toBe(false);
  });

  it("with the user's actions or branches, R asks instead, and Escape answers no", () => {
    const view = viewFixture({ timeline: timelineFixture({ actions: [action(true), action(false)], branches: [branch(0), branch(1)] }) });
    expect(resetLoses(view)).toEqual({ actions: 1, branches: 1 });
    expect(lossWords({ actions: 1, branches: 1 })).toBe("your 1 action on this branch and 1 other branch");
    expect(lossWords({ actions: 3, branches: 0 })).toBe("your 3 actions on this branch");
    expect(handleKey(lab.getState(), "r", view)).toBe(true);
    expect(send).not.toHaveBeenCalled();
    expect(useUi.getState().resetOpen).toBe(true);
    expect(handleKey(lab.getState(), "escape", view)).toBe(true);
    expect(useUi.getState().resetOpen).toBe(false);
    expect(send).not.toHaveBeenCalled();
  });
});
