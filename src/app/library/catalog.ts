/**
 * The scenario library: every shipped scenario file in scenarios/, validated with
 * parseScenario. A new file appears by itself. The files are data, not code: shipped as JSON
 * files beside the page and fetched when the library or a scenario is first opened
 * (loadScenarioLibrary), as the course's lessons are; Node (the tests) hands them in read
 * from disk (readScenarioFilesWith). Files made for seed sweeps (scenarios/sweeps: a random nemesis, meant to be
 * run over many seeds) are not single runs to watch, and are left out.
 *
 * Pairs to compare side by side (the same run with and without a policy) are data: PAIRS,
 * in pairs.ts (the first screen needs them, not the scenario files).
 */
import { describeExpectation, scenarioActions } from "../../core/scenario/runner";
import { parseScenario, type Scenario } from "../../core/scenario/schema";
import { formatInstant } from "../../core/sim/time";
import { describeAction } from "../../worker/describe";
import { dataSet, FileProblem } from "../dataFiles";

/** Folders of scenarios/ whose files are seed sweeps, not single runs. */
export const SWEEP_FOLDERS: ReadonlySet<string> = new Set(["sweeps"]);

/** Folder headings in the library. */
const FOLDER_TITLES: Readonly<Record<string, string>> = { failover: "Failover of a database primary", lease: "Leases", raft: "Raft", reads: "Reads" };

export interface LibraryEntry {
  /** "lease/03-gc-pause-fenced": the folder and file name without ".json". */
  readonly id: string;
  readonly folder: string;
  readonly scenario: Scenario | null;
  /** Why the file could not be used (empty when it parsed). */
  readonly errors: readonly string[];
}

export interface LibraryGroup {
  readonly folder: string;
  readonly title: string;
  readonly entries: readonly LibraryEntry[];
}

export interface Library {
  /** Folders in name order, files in name order within each. */
  readonly groups: readonly LibraryGroup[];
  /** The scenarios that parsed, by id. */
  readonly byId: ReadonlyMap<string, Scenario>;
}

/** "../../../scenarios/lease/03-x.json" -> "lease/03-x" (null for a file outside a folder of scenarios/). */
export function scenarioId(path: string): string | null {
  const m = /scenarios\/([^/]+)\/([^/]+)\.json$/.exec(path);
  return m === null ? null : `${m[1]}/${m[2]}`;
}

function entryOf(id: string, folder: string, json: unknown): LibraryEntry {
  try {
    const r = parseScenario(json);
    return r.ok ? { id, folder, scenario: r.scenario, errors: [] } : { id, folder, scenario: null, errors: r.errors };
  } catch (e) {
    return { id, folder, scenario: null, errors: [`could not be read: ${e instanceof Error ? e.message : String(e)}`] };
  }
}

/** The library from files (path -> parsed JSON). */
export function buildLibrary(files: Readonly<Record<string, unknown>>): Library {
  const byId = new Map<string, Scenario>();
  const byFolder = new Map<string, LibraryEntry[]>();
  for (const [path, json] of Object.entries(files)) {
    const id = scenarioId(path);
    if (id === null) continue;
    const folder = id.slice(0, id.indexOf("/"));
    if (SWEEP_FOLDERS.has(folder)) continue;
    const entry: LibraryEntry = json instanceof FileProblem ? { id, folder, scenario: null, errors: [json.message] } : entryOf(id, folder, json);
    if (entry.scenario !== null) byId.set(id, entry.scenario);
    const list = byFolder.get(folder) ?? [];
    list.push(entry);
    byFolder.set(folder, list);
  }
  const groups = [...byFolder.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([folder, entries]) => ({ folder, title: FOLDER_TITLES[folder] ?? folder, entries: entries.sort((a, b) => a.id.localeCompare(b.id)) }));
  return { groups, byId };
}

/** Each scenario file as the address of its JSON file in the build (not the seed sweeps: the library leaves them out). */
const SCENARIO_URLS = import.meta.glob<string>(["../../../scenarios/*/*.json", "!../../../scenarios/sweeps/*.json"], {
  query: "?url&no-inline",
  import: "default",
  eager: true,
});

const scenarios = dataSet(SCENARIO_URLS, buildLibrary, "the scenarios");

/** Node (tests): where the scenario files come from instead of fetching them (path -> parsed JSON), read on first use. */
export const readScenarioFilesWith = scenarios.readWith;

/** Fetches and parses the scenarios once (the same promise every call). Never rejects: a file that cannot be fetched is a broken entry. */
export const loadScenarioLibrary = scenarios.load;

/** The library if it is loaded (or Node gave its files), else null. */
export const loadedScenarioLibrary = scenarios.loaded;

/** The scenarios shipped with the page; loadScenarioLibrary must have settled first (the page awaits it before using them). */
export const scenarioLibrary = scenarios.get;

/**
 * One line saying what to watch: the first scripted action, and the expectation that is
 * the point of the run (a reported violation if the run expects one, else the last one checked).
 */
export function whatToWatch(sc: Scenario): string {
  const first = scenarioActions(sc)[0];
  const end = sc.duration;
  const timed = sc.expect.map((e) => ({ e, at: Math.min(e.at ?? end, end) }));
  const point = timed.find((x) => x.e.that === "violation") ?? [...timed].sort((a, b) => a.at - b.at).at(-1);
  const parts = [
    first === undefined ? null : `at ${formatInstant(first.at)}, ${describeAction(first.action)}`,
    point === undefined ? null : `by ${formatInstant(point.at)}, ${describeExpectation(point.e)}`,
  ].filter((p) => p !== null);
  return parts.length === 0 ? "A healthy cluster, nothing scripted." : `Watch: ${parts.join("; then ")}.`;
}
