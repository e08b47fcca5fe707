/** The summary's LEASE card shows every lease, not only the first. */
import { describe, expect, it } from "vitest";
import { leaseCard } from "../../src/app/leaseCard";
import { DEFAULT_SETTINGS } from "../../src/app/params";
import { parseScenarioText } from "../../src/core/scenario/schema";
import type { LeaseRowView } from "../../src/worker/protocol";
import { fakeHost } from "../support/host";

const row = (name: string, holder: string | null, token: number, state: LeaseRowView["state"] = holder ? "held" : "free"): LeaseRowView =>
  ({ name, holder, token, state }) as LeaseRowView;

describe("the LEASE card", () => {
  it("one lease: its holder and token, or why it is free (as before)", () => {
    expect(leaseCard([row("lock", "h1", 34)])).toEqual({ value: "h1", lines: ["token 34"] });
    expect(leaseCard([row("lock", null, 3)])).toEqual({ value: "free", lines: ["nobody holds it"] });
    expect(leaseCard([row("lock", null, 3, "delayed")])).toEqual({ value: "free", lines: ["in lock-delay"] });
    expect(leaseCard([])).toEqual({ value: "free", lines: ["no holders"] });
  });

  it("several leases: how many, how many are held, and one line for each", () => {
    expect(leaseCard([row("lock", "h1", 34), row("queue", null, 0), row("jobs", null, 2, "delayed")])).toEqual({
      value: "3 leases",
      lines: ["1 held", "lock: h1 · token 34", "queue: free", "jobs: in lock-delay"],
    });
  });

  it("a run with two lease names has two rows in the view, and the card names both", () => {
    const parsed = parseScenarioText(JSON.stringify({ seed: 3, duration: "5s", holders: { count: 4, leaseNames: ["lock", "queue"] }, ui: { at: "5s" } }));
    if (!parsed.ok) throw new Error(parsed.errors.join("; "));
    const h = fakeHost();
    h.host.handle({ type: "start", settings: { ...DEFAULT_SETTINGS, autoplay: false }, scenario: parsed.scenario });
    const leases = h.last().leases;
    expect(leases.map((l) => l.name).sort()).toEqual(["lock", "queue"]);
    const card = leaseCard(leases);
    expect(card.value).toBe("2 leases");
    expect(card.lines.join("\n")).toMatch(/lock: h\d · token \d+/);
    expect(card.lines.join("\n")).toMatch(/queue: h\d · token \d+/);
  });
});
