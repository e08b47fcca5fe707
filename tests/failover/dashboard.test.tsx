/** How the page shows database replicas: the ring's holder boxes and the holders panel. */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { groupCheckers, holderRowLabel, replicaRoleText } from "../../src/app/panels/explain";
import { HolderPanelView } from "../../src/app/panels/Statechart";
import { holderLabel, holderStateWord } from "../../src/app/ring/geometry";
import { HOLDER_COLOR } from "../../src/app/ring/holderLayer";
import { holderFixture, viewFixture } from "../support/views";

const primary = holderFixture({ id: "h1", state: "holding.waiting", token: 2, role: "primary" });
const secondary = holderFixture({ id: "h2", state: "requesting.denied", role: "secondary" });
const offline = holderFixture({ id: "h3", state: "jeopardy.renewing", token: 1, role: "offline" });
const plain = holderFixture({ id: "h4", state: "holding.waiting", token: 7, role: null });

describe("replicas on the ring", () => {
  it("a replica's box says its role, a plain holder's its state", () => {
    expect([primary, secondary, offline, plain].map(holderStateWord)).toEqual(["primary", "secondary", "offline", "holding"]);
    expect(holderStateWord({ ...primary, status: "down" })).toBe("down");
    for (const w of ["primary", "secondary", "offline"]) expect(HOLDER_COLOR[w], w).toBeDefined();
  });

  it("a replica's button is named with its role", () => {
    expect(holderLabel(primary)).toBe("replica h1, primary, token 2");
    expect(holderLabel(offline)).toBe("replica h3, offline (self-fenced), token 1");
    expect(holderLabel(plain)).toBe("holder h4, holding, token 7");
    expect(holderLabel(secondary)).toBe("replica h2, secondary, no token");
  });
});

describe("replicas in the holders panel", () => {
  it("each replica's row says its role in words", () => {
    expect(replicaRoleText(primary)).toBe("primary: accepts the writes");
    expect(replicaRoleText(secondary)).toBe("secondary: follows the primary");
    expect(replicaRoleText(offline)).toBe("offline (self-fenced): accepts no writes");
    expect(replicaRoleText(plain)).toBeNull();
    expect(replicaRoleText({ ...primary, status: "down" })).toBeNull();
    expect(holderRowLabel(primary)).toBe("replica h1, primary: accepts the writes, holding.waiting, token 2");
  });

  it("the panel is titled for replicas and shows each role", () => {
    const html = renderToStaticMarkup(
      <HolderPanelView view={viewFixture({ holders: [primary, secondary, offline] })} select={() => {}} selected={null} highlight={[]} />,
    );
    expect(html).toContain('<h2 id="holders-title">Database replicas (lease holders)</h2>');
    expect(html).toContain('<th scope="col">Replica</th>');
    expect(html).toContain('<div class="replica-role role-primary">primary: accepts the writes</div>');
    expect(html).toContain('<div class="replica-role role-offline">offline (self-fenced): accepts no writes</div>');
    const plainHtml = renderToStaticMarkup(<HolderPanelView view={viewFixture({ holders: [plain] })} select={() => {}} selected={null} highlight={[]} />);
    expect(plainHtml).toContain('<h2 id="holders-title">Lease holders</h2>');
    expect(plainHtml).not.toContain("replica-role");
    expect(plainHtml).toContain('<th scope="col">Holder</th>');
  });
});

describe("the invariants panel", () => {
  it("lists two-primaries with the lease and storage invariants, not Raft's", () => {
    const g = groupCheckers([
      { invariant: "two-primaries", rule: "x", violations: 0, firstAt: null },
      { invariant: "election-safety", rule: "y", violations: 0, firstAt: null },
    ]);
    expect(g.lease.map((c) => c.invariant)).toEqual(["two-primaries"]);
    expect(g.raft.map((c) => c.invariant)).toEqual(["election-safety"]);
  });
});

