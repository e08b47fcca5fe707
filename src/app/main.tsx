import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import { bootLesson } from "./lesson/boot";
import { lessonCatalog } from "./lesson/catalog";
import { bootParams, momentText, type ParsedParams, parseParams, toSearch } from "./params";
import { startUrlSync } from "./sharing/urlSync";
import { createLabStore, LabProvider } from "./store";
import { useUi } from "./ui";
import { bareAddressOpens, isBareAddress, saveLastVisit } from "./course/visit";
import "./styles.css";
import { scenarioLibrary } from "./library/catalog";
import { bootScenario, compareParams } from "./library/open";
import { ComparePage } from "./library/ComparePage";
import { embedded } from "./embed/embedMode";

const root = document.getElementById("root");
if (root === null) throw new Error("index.html has no #root element");
const rootEl = root;
/** The page's one store (the tests make their own). */
const lab = createLabStore();

function render(parsed: ParsedParams): void {
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
bootParams(window.location.search, window.location.hash).then(render, (e: unknown) => {
  const p = parseParams(window.location.search);
  render({
    settings: p.settings,
    problems: [`The share link in the address could not be opened (${e instanceof Error ? e.message : String(e)}), so a normal run started instead.`, ...p.problems],
  });
});
