import { describe, expect, it } from "vitest";
import { createMachine } from "xstate";
import holderChart from "../../src/app/panels/holderChart.json";
import { layoutStatechart, machineTransitions } from "../../src/app/panels/statechartLayout";
import { fromPlain, plainMachine } from "../../src/app/panels/statechartPlain";
import { holderMachine } from "../../src/core/holder/holderMachine";

describe("the statechart's plain copy of the holder machine (no xstate in the page)", () => {
  it("holderChart.json is the machine's shape now (if this fails, run `npm run chart`)", () => {
    expect(holderChart, "src/app/panels/holderChart.json is stale: run `npm run chart`").toEqual(
      JSON.parse(JSON.stringify(plainMachine(holderMachine))),
    );
  });

  it("gives the same transitions and layout as the live machine", () => {
    const plain = fromPlain(JSON.parse(JSON.stringify(plainMachine(holderMachine))));
    expect(machineTransitions(plain)).toEqual(machineTransitions(holderMachine));
    const a = layoutStatechart(plain);
    const b = layoutStatechart(holderMachine);
    expect(a.boxes).toEqual(b.boxes);
    expect(a.edges).toEqual(b.edges);
  });

  it("keeps guards, named and numeric delays, targetless transitions and initial states through JSON", () => {
    const m = createMachine({
      id: "m",
      initial: "a",
      states: {
        a: {
          initial: "a1",
          states: { a1: { after: { 250: "a2" } }, a2: { on: { PING: {} } } },
          after: { wait: "b" },
          on: { GO: [{ target: "b", guard: "ready" }, { target: "a" }] },
        },
        b: {},
      },
    });
    const plain = fromPlain(JSON.parse(JSON.stringify(plainMachine(m))));
    expect(machineTransitions(plain)).toEqual(machineTransitions(m));
    expect(machineTransitions(plain)).toContainEqual({ source: "a.a1", event: "GO", target: "b", guard: "ready" });
    expect(machineTransitions(plain).map((t) => t.event)).toContain("after 250 ms");
    expect(machineTransitions(plain).map((t) => t.event)).toContain("after:wait");
  });
});
