/**
 * The space-time diagram reads a few facts from the words the worker writes (a role
 * mark's first word, a holder mark's state, a drop's reason). This ties the two: if the
 * worker's wording changes, this fails before the diagram quietly draws the wrong thing.
 */
import { describe, expect, it } from "vitest";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { withoutKinds } from "../../src/app/diagram/input";
import { dropFraction } from "../../src/app/diagram/arrows";
import { roleOf } from "../../src/app/diagram/marks";
import { SpaceTimeLegend } from "../../src/app/diagram/SpaceTime";
import type { DropReason, TraceEvent } from "../../src/core/sim/trace";
import { messageKind } from "../../src/app/theme";
import type { Snapshot } from "../../src/core/raft/types";
import { describeMessage, dropWords } from "../../src/worker/describe";
import { diagramMarkOf } from "../../src/worker/journal";

const role = (r: "leader" | "candidate" | "pre-candidate" | "follower"): TraceEvent =>
  ({ t: 5, n: 1, proc: "n2", kind: "role", role: r, term: 4, leader: null, reason: "test" }) as unknown as TraceEvent;

describe("the diagram reads the worker's words", () => {
  it("role marks start with the role", () => {
    expect(roleOf(diagramMarkOf(role("leader"), undefined)?.label ?? "")).toBe("leader");
    expect(roleOf(diagramMarkOf(role("candidate"), undefined)?.label ?? "")).toBe("candidate");
    expect(roleOf(diagramMarkOf(role("pre-candidate"), undefined)?.label ?? "")).toBe("precandidate");
    expect(roleOf(diagramMarkOf(role("follower"), undefined)?.label ?? "")).toBe("follower");
  });

  it("holder marks start with the holder's top-level state", () => {
    const e = { t: 5, n: 2, proc: "h1", kind: "holder", state: "holding.waiting", leaseName: "lock", token: 7, deadlineUs: 9, event: "x" } as unknown as TraceEvent;
    expect(diagramMarkOf(e, "requesting.sending")?.label).toMatch(/^holding\b/);
    const j = { ...e, state: "jeopardy.renewing" } as unknown as TraceEvent;
    expect(diagramMarkOf(j, "holding.renewing")).toMatchObject({ label: "jeopardy", bad: true });
  });

  it("InstallSnapshot has its own label and arrow kind; its answer (an append reply) is replication", () => {
    const snapshot: Snapshot = { index: 40, term: 3, voters: ["n1", "n2", "n3"], data: null, digest: 1 };
    const d = describeMessage({ type: "InstallSnapshot", term: 3, snapshot });
    expect(d.label).toBe("snapshot");
    expect(d.detail).toMatch(/up to 40 \(term 3\)/);
    expect(messageKind(d.label)).toBe("snapshot");
    const reply = describeMessage({
      type: "AppendEntriesResp",
      term: 3,
      success: true,
      matchIndex: 40,
      rejectIndex: 0,
      conflictIndex: 0,
      conflictTerm: 0,
      readCtx: 0,
    });
    expect(messageKind(reply.label)).toBe("replication");
  });

  it("every drop reason lands where the diagram means it to", () => {
    const at: Record<DropReason, number> = { down: 0.85, "inbox-full": 0.85, partition: 0.5, cut: 0.5, user: 0.5, loss: 0.65 };
    for (const [reason, fraction] of Object.entries(at)) expect(dropFraction(dropWords(reason)), reason).toBe(fraction);
  });
});

describe("hiding arrow kinds", () => {
  const msg = (id: number, label: string) => ({ id, from: "n1", to: "n2", sentAt: 0, endAt: 1, label, outcome: "delivered" as const, reason: null });
  const flying = (id: number, label: string) => ({
    id,
    from: "n1",
    to: "n2",
    sentAt: 0,
    deliverAt: 5,
    label,
    detail: "",
    fate: "ok" as const,
    dup: false,
    queued: false,
  });
  const data = {
    runId: 1,
    now: 2,
    playing: false,
    nodes: [],
    holders: [],
    storage: null,
    finished: [msg(1, "heartbeat"), msg(2, "vote"), msg(3, "append reply"), msg(4, "write"), msg(5, "refresh"), msg(8, "snapshot")],
    inFlight: [flying(6, "heartbeat"), flying(7, "acquire")],
    marks: [],
    horizon: null,
    focus: null,
    highlight: [],
  };

  it("drops exactly the hidden kinds, and keeps the same lists when nothing is hidden", () => {
    const shown = withoutKinds(data, new Set(["replication"]));
    expect(shown.finished.map((m) => m.id)).toEqual([2, 4, 5, 8]);
    expect(shown.inFlight.map((m) => m.id)).toEqual([7]);
    expect(withoutKinds(data, new Set())).toBe(data);
    // The same source list filtered the same way is the same object (the drawing skips unchanged lists).
    expect(withoutKinds(data, new Set(["replication"])).finished).toBe(shown.finished);
    expect(withoutKinds(data, new Set(["lease", "storage"])).finished.map((m) => m.id)).toEqual([1, 2, 3, 8]);
    expect(withoutKinds(data, new Set(["snapshot"])).finished.map((m) => m.id)).toEqual([1, 2, 3, 4, 5]);
  });

  it("the legend's switches say whether each kind is shown and toggle it", () => {
    const toggled: string[] = [];
    const html = renderToStaticMarkup(createElement(SpaceTimeLegend, { hidden: new Set(["replication"] as const), onToggle: (k) => toggled.push(k) }));
    expect(html).toMatch(/aria-pressed="false"[^>]*title="Show append \/ heartbeat arrows"/);
    // Six kinds (vote, append, snapshot, lease, storage, other), one hidden.
    expect((html.match(/aria-pressed="true"/g) ?? []).length).toBe(5);
    expect(html).toMatch(/title="Hide snapshot \(InstallSnapshot\) arrows"/);
  });
});
