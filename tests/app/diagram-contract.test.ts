/**
 * The space-time diagram reads a few facts from the words the worker writes (a role
 * mark's first word, a holder mark's state, a drop's reason). This ties the two: if the
 * worker's wording changes, this fails before the diagram quietly draws the wrong thing.
 */
import { describe, expect, it } from "vitest";
import { dropFraction, roleOf } from "../../src/app/diagram/layout";
import type { DropReason, TraceEvent } from "../../src/core/sim/trace";
import { dropWords } from "../../src/worker/describe";
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

  it("every drop reason lands where the diagram means it to", () => {
    const at: Record<DropReason, number> = { down: 0.85, "inbox-full": 0.85, partition: 0.5, cut: 0.5, user: 0.5, loss: 0.65 };
    for (const [reason, fraction] of Object.entries(at)) expect(dropFraction(dropWords(reason)), reason).toBe(fraction);
  });
});
