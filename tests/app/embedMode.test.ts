import { describe, expect, it } from "vitest";
import { fullLabHref, isEmbed } from "../../src/app/embed/embedMode";

describe("embed mode's address", () => {
  it("?embed=1 (or true, yes, on, or bare ?embed) asks for embed mode; anything else does not", () => {
    for (const s of ["?embed=1", "?seed=4&embed=1", "?embed=true", "?embed=YES", "?embed=on", "?embed"]) expect(isEmbed(s), s).toBe(true);
    for (const s of ["", "?seed=4", "?embed=0", "?embed=no", "?embedded=1"]) expect(isEmbed(s), s).toBe(false);
  });

  it("the link out is the same run without embed: path, other parameters and the #run= link kept", () => {
    expect(fullLabHref("https://u.edu/ds/lab/?embed=1&seed=4&nodes=3#run=1.abc")).toBe("https://u.edu/ds/lab/?seed=4&nodes=3#run=1.abc");
    expect(fullLabHref("https://u.edu/ds/lab/?seed=4")).toBe("https://u.edu/ds/lab/?seed=4");
  });
});
