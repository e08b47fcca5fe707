/**
 * Opening a library scenario: the same start the Import path sends (startMessage with the
 * scenario, the page's settings from openedSettings), and an address that names it:
 * ?scenario=lease/03-gc-pause-fenced (a reload opens it again), or ?compare=a,b.
 */
import type { Scenario } from "../../core/scenario/schema";
import { DEFAULT_SPEED, type RunSettings } from "../../worker/protocol";
import { openedSettings, type ParsedParams } from "../params";
import { startMessage } from "../simLink";
import type { LabStore } from "../store";
import type { Library } from "./catalog";
import { pairOf } from "./pairs";

/** The page's settings for a library run: the file's own settings, paused at 0 so the story can be read first. */
export function librarySettings(sc: Scenario, speed: number): RunSettings {
  return { ...openedSettings(sc, speed), autoplay: false };
}

export function scenarioSearch(id: string): string {
  return `?scenario=${encodeURIComponent(id).replace(/%2F/g, "/")}`;
}

export function compareSearch(left: string, right: string): string {
  return `?compare=${encodeURIComponent(left).replace(/%2F/g, "/")},${encodeURIComponent(right).replace(/%2F/g, "/")}`;
}

/** Starts a library scenario in the lab, and makes the address name it. */
export function openLibraryScenario(lab: LabStore, id: string, sc: Scenario): void {
  const st = lab.getState();
  const settings = librarySettings(sc, st.view?.speed ?? st.settings?.speed ?? DEFAULT_SPEED);
  st.send(startMessage(settings, sc));
  lab.setState({ settings, error: null });
  if (typeof window !== "undefined") window.history.replaceState(window.history.state, "", `${window.location.pathname}${scenarioSearch(id)}`);
}

/** Goes to the compare page of a pair (a new page: it runs two simulations). */
export function goCompare(id: string): void {
  const p = pairOf(id);
  if (p !== null && typeof window !== "undefined") window.location.assign(`${window.location.pathname}${compareSearch(p.left, p.right)}`);
}

function unknown(name: string, lib: Library): string {
  return `There is no scenario "${name.slice(0, 60)}" in the library, so the normal lab opened. The scenarios are named like ${[...lib.byId.keys()].slice(0, 3).join(", ")} (open "Scenarios" in the toolbar for all of them).`;
}

/**
 * ?scenario=ID: the library's scenario is the run (a share link in the hash wins: it is
 * this run with the user's actions). An unknown name is explained, and the normal lab opens.
 */
export function bootScenario(search: string, params: ParsedParams, libraryOf: () => Library): ParsedParams {
  const id = new URLSearchParams(search).get("scenario");
  if (id === null || params.run !== undefined) return params;
  const lib = libraryOf();
  const sc = lib.byId.get(id);
  if (sc === undefined) return { ...params, problems: [unknown(id, lib), ...params.problems] };
  // The moment (&t=…) is kept: the address names the scenario and where its cursor was paused.
  return { settings: librarySettings(sc, params.settings.speed), problems: params.problems, run: sc, ...(params.at === undefined ? {} : { at: params.at }) };
}

/** ?compare=A,B: the two scenarios, or the reason they cannot be compared. */
export function compareParams(search: string, libraryOf: () => Library): { left: [string, Scenario]; right: [string, Scenario] } | { problem: string } | null {
  const raw = new URLSearchParams(search).get("compare");
  if (raw === null) return null;
  const ids = raw.split(",").map((s) => s.trim());
  const lib = libraryOf();
  if (ids.length !== 2) return { problem: `?compare= needs two scenario names separated by a comma (it had ${ids.length}), so the normal lab opened.` };
  const [l, r] = ids as [string, string];
  const left = lib.byId.get(l);
  const right = lib.byId.get(r);
  if (left === undefined) return { problem: unknown(l, lib) };
  if (right === undefined) return { problem: unknown(r, lib) };
  return { left: [l, left], right: [r, right] };
}
