import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import { bootLesson } from "./lesson/boot";
import type { Catalog } from "./lesson/catalog";
import { bootParams, momentText, type ParsedParams, parseParams, toSearch } from "./params";
import { startUrlSync } from "./sharing/urlSync";
import { createLabStore, LabProvider } from "./store";
import { useUi } from "./ui";
import { bareAddressOpens, isBareAddress, loadLastVisit, saveLastVisit } from "./course/visit";
import "./styles.css";
import type { Library } from "./library/catalog";
import type { bootScenario, compareParams } from "./library/open";
import { embedded } from "./embed/embedMode";

const root = document.getElementById("root");
if (root === null) throw new Error("index.html has no #root element");
const rootEl = root;
/** The page's one store (the tests make their own). */
const lab = createLabStore();

/**
 * The lessons, the scenario library and the compare page are chunks of their own, and the
 * lesson and scenario files JSON files of their own: loaded before the first render only
 * when the address needs them. Their dialogs load them when opened.
 */
interface Loaded {
  readonly lessonCatalog: () => Catalog;
  readonly scenarioLibrary: () => Library;
  /** How ?scenario= and ?compare= open (loaded with the library, when the address has either). */
  readonly bootScenario: typeof bootScenario;
  readonly compareParams: typeof compareParams;
  readonly ComparePage: typeof import("./library/ComparePage").ComparePage | null;
}

const NO_LESSONS: Catalog = { entries: [], byId: new Map() };
const NO_LIBRARY: Library = { groups: [], byId: new Map() };

async function loadWhatTheAddressNeeds(): Promise<Loaded> {
  const { search, hash } = window.location;
  const q = new URLSearchParams(search);
  const last = isBareAddress(search, hash) ? loadLastVisit() : null;
  const lessons = q.has("lesson") || (last !== null && last !== "lab");
  const library = q.has("scenario") || q.has("compare");
  const [lessonModule, libraryModule, openModule, compareModule] = await Promise.all([
    lessons ? import("./lesson/catalog").then(async (m) => (await m.loadLessons(), m)) : null,
    library ? import("./library/catalog").then(async (m) => (await m.loadScenarioLibrary(), m)) : null,
    library ? import("./library/open") : null,
    q.has("compare") ? import("./library/ComparePage") : null,
  ]);
  return {
    lessonCatalog: lessonModule?.lessonCatalog ?? (() => NO_LESSONS),
    scenarioLibrary: libraryModule?.scenarioLibrary ?? (() => NO_LIBRARY),
    // Without ?scenario= or ?compare= neither has anything to open.
    bootScenario: openModule?.bootScenario ?? ((_search, params) => params),
    compareParams: openModule?.compareParams ?? (() => null),
    ComparePage: compareModule?.ComparePage ?? null,
  };
}

function render(parsed: ParsedParams, loaded: Loaded): void {
  const { lessonCatalog, scenarioLibrary, bootScenario, compareParams, ComparePage } = loaded;
  // The bare address takes a returning visitor back where they were (an unfinished lesson), and
  // greets a first visit; an address that names anything opens what it names.
  const { search, hash, pathname } = window.location;
  if (isBareAddress(search, hash)) {
    const opens = bareAddressOpens(lessonCatalog());
    if (opens === "welcome") useUi.getState().openCourse("welcome");
    else if (opens !== "lab") window.history.replaceState(window.history.state, "", `${pathname}${opens.search}`);
  }
  // ?lesson=ID: the lesson's scenario is the run, and its card is on top (an unknown id is explained, and the normal lab opens).
  const { params, lesson } = bootLesson(window.location.search, parsed, lessonCatalog);
  if (params.run !== undefined && lesson === undefined) {
    // The link is the authority: make the query say the same run (the hash stays: it is this run's link).
    const { pathname, hash } = window.location;
    const moment = params.at === undefined ? "" : `&t=${momentText(params.at)}`;
    window.history.replaceState(window.history.state, "", `${pathname}${toSearch(params.settings)}${moment}${hash}`);
  }
  // ?compare=A,B: two scenario runs side by side, on a page of their own (two stores, two workers).
  const compare = compareParams(search, scenarioLibrary);
  if (compare !== null && !("problem" in compare)) {
    // loadWhatTheAddressNeeds loads the page whenever the address has ?compare=.
    if (ComparePage === null) throw new Error("the compare page was not loaded");
    createRoot(rootEl).render(
      <StrictMode>
        <ComparePage left={compare.left} right={compare.right} />
      </StrictMode>,
    );
    return;
  }
  const withProblem = compare === null ? params : { ...params, problems: [compare.problem, ...params.problems] };
  // ?scenario=ID: a library scenario is the run, and the address keeps naming it.
  const libParams = lesson === undefined ? bootScenario(search, withProblem, scenarioLibrary) : params;
  // A lesson's address stays the lesson's: no share link is written into it.
  if (lesson === undefined) startUrlSync(lab);
  // An embedded lab (a slide's iframe) is not a visit: the bare address still returns to the visitor's unfinished lesson.
  if (embedded()) {
    // Nothing is saved.
  } else if (lesson !== undefined) saveLastVisit({ lesson: lesson.lesson.lesson.id });
  else if (useUi.getState().courseView === null) saveLastVisit("lab");
  createRoot(rootEl).render(
    <StrictMode>
      <LabProvider store={lab}>
        <App params={libParams} {...(lesson === undefined ? {} : { lesson })} />
      </LabProvider>
    </StrictMode>,
  );
}

// A share link (#run=…) is decompressed asynchronously; without one this settles at once.
const parsedParams = bootParams(window.location.search, window.location.hash).catch((e: unknown): ParsedParams => {
  const p = parseParams(window.location.search);
  return {
    settings: p.settings,
    problems: [`The share link in the address could not be opened (${e instanceof Error ? e.message : String(e)}), so a normal run started instead.`, ...p.problems],
  };
});
Promise.all([parsedParams, loadWhatTheAddressNeeds()]).then(([parsed, loaded]) => render(parsed, loaded));
