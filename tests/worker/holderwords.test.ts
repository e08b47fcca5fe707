/** Every state, event and guard of the holder's statechart has words; drift reads as a percentage. */
import { describe, expect, it } from "vitest";
import { allNodes, machineTransitions, type MachineLike, pathId } from "../../src/app/panels/statechartMachine";
import { holderMachine } from "../../src/core/holder/holderMachine";
import {
  driftWords,
  EVENT_WORDS,
  eventWordsOf,
  GUARD_WORDS,
  holderChangeDetail,
  holderChangeText,
  STATE_WORDS,
  topOfState,
} from "../../src/worker/holderWords";
import { describeEvent } from "../../src/worker/describe";

const machine = holderMachine as unknown as MachineLike;

describe("the holder's words", () => {
  it("every state of the machine has words (a new state without words fails here)", () => {
    const states = allNodes(machine.root)
      .map((n) => pathId(n.path))
      .filter((p) => p !== "");
    expect(states.length).toBeGreaterThan(15);
    for (const s of states) expect(STATE_WORDS[s], `words for state ${s}`).toBeTruthy();
  });

  it("every event and timer of the machine has words, and so has the process's start", () => {
    const events = new Set(machineTransitions(machine).map((t) => t.event));
    expect(events.size).toBeGreaterThan(10);
    for (const e of [...events, "start"]) {
      expect(EVENT_WORDS[e], `words for event ${e}`).toBeTruthy();
      expect(eventWordsOf(e)).not.toMatch(/[A-Z_]{4,}|after:|until[A-Z]/);
    }
  });

  it("every guard has words", () => {
    for (const t of machineTransitions(machine)) if (t.guard !== null) expect(GUARD_WORDS[t.guard], `words for guard ${t.guard}`).toBeTruthy();
  });

  it("the event log says a holder's change in words; the machine's names only in the detail", () => {
    expect(holderChangeText("h1", "holding.waiting", "holding.renewing", 3, "after:untilRenew")).toBe("h1: time to renew: holding, renewing (token 3)");
    expect(holderChangeText("h1", "jeopardy.renewing", "lost", null, "REFRESH_LOST")).toBe("h1: lost the lease (refresh refused): lost the lease");
    expect(holderChangeDetail("holding.waiting", "holding.renewing", "after:untilRenew")).toBe("holding.waiting → holding.renewing on after:untilRenew");
    const d = describeEvent(
      { n: 1, t: 5, kind: "holder", proc: "h2", state: "holding.renewing", leaseName: "lock", token: 7, deadlineUs: null, event: "after:untilRenew" } as never,
      "holding.waiting",
      () => undefined,
    );
    expect(d?.text).toBe("h2: time to renew: holding, renewing (token 7)");
    expect(d?.text).not.toContain("untilRenew");
    expect(d?.detail).toContain("after:untilRenew");
  });
});

describe("drift in words", () => {
  it("reads as a percentage, fast or slow", () => {
    expect(driftWords(400_000)).toBe("40 % fast");
    expect(driftWords(-100_000)).toBe("10 % slow");
    expect(driftWords(20_000)).toBe("2 % fast");
    expect(driftWords(15_000)).toBe("1.5 % fast");
    expect(driftWords(200)).toBe("0.02 % fast");
    expect(driftWords(-5)).toBe("0.0005 % slow");
    expect(driftWords(0)).toBe("on time");
  });
});

describe("topOfState", () => {
  it("gives a state's top level, as splitting at the first dot does, for every state (asked twice: the remembered answer too)", () => {
    for (const s of [...Object.keys(STATE_WORDS), "a.b.c", "plain"]) {
      expect(topOfState(s)).toBe(s.split(".")[0]);
      expect(topOfState(s)).toBe(s.split(".")[0]);
    }
    expect(topOfState("holding.renewing")).toBe("holding");
  });
});
