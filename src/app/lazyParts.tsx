/**
 * The parts of the page that load when first shown, not with the first screen (issue 15,
 * part 4: ship less). Each is a separate chunk; a panel shows a light placeholder while
 * its code arrives, and a dialog's code loads only when it first opens.
 */
import { type ComponentProps, lazy, type ReactNode, Suspense } from "react";
import type { PanelId } from "./lesson/panels";
import { useLibraryUi } from "./library/libraryUi";
import { useLab } from "./store";
import { useUi } from "./ui";

const SpaceTimeChunk = lazy(() => import("./diagram/SpaceTime").then((m) => ({ default: m.SpaceTime })));
const HolderPanelChunk = lazy(() => import("./panels/Statechart").then((m) => ({ default: m.HolderPanel })));
/** The lesson files (and the glossary) are fetched with the code of what shows them. */
const withLessons = () => import("./lesson/catalog").then((m) => m.loadLessons());
const LessonCardChunk = lazy(() => Promise.all([import("./lesson/LessonCard"), withLessons()]).then(([m]) => ({ default: m.LessonCard })));
const ScenarioCardChunk = lazy(() => import("./library/ScenarioCard").then((m) => ({ default: m.ScenarioCard })));
const ClassroomBoardChunk = lazy(() => import("./classroom/ClassroomBoard").then((m) => ({ default: m.ClassroomBoard })));
const LogGridChunk = lazy(() => import("./panels/LogGrid").then((m) => ({ default: m.LogGrid })));
const WidePanelsChunk = lazy(() => import("./widePanels").then((m) => ({ default: m.WidePanels })));
const ReadCheckDialogChunk = lazy(() => import("./reads/ReadCheck").then((m) => ({ default: m.ReadCheckDialog })));
const SettingsDialogChunk = lazy(() => import("./SettingsDialog").then((m) => ({ default: m.SettingsDialog })));
const CourseDialogChunk = lazy(() => {
  // The welcome shows at once; the lessons are fetched meanwhile, for the course and the glossary.
  void withLessons();
  return import("./course/CourseDialog").then((m) => ({ default: m.CourseDialog }));
});
const ResetDialogChunk = lazy(() => import("./ResetDialog").then((m) => ({ default: m.ResetDialog })));
// The library's list is the whole dialog: it opens with its files.
const LibraryDialogChunk = lazy(() =>
  Promise.all([import("./library/LibraryDialog"), import("./library/catalog").then((m) => m.loadScenarioLibrary())]).then(([m]) => ({ default: m.LibraryDialog })),
);

/** What a panel shows while its code loads: its place on the board, and a word. */
function Loading({ what }: { readonly what: string }) {
  return (
    <section className="panel lazy-panel" aria-busy="true">
      <p className="loading">Loading {what}…</p>
    </section>
  );
}

function WhenLoaded({ what, children }: { readonly what: string; readonly children: ReactNode }) {
  return <Suspense fallback={<Loading what={what} />}>{children}</Suspense>;
}

export function LazySpaceTime() {
  return (
    <WhenLoaded what="the space-time diagram">
      <SpaceTimeChunk />
    </WhenLoaded>
  );
}

export function LazyHolderPanel() {
  return (
    <WhenLoaded what="the lease holders' statecharts">
      <HolderPanelChunk />
    </WhenLoaded>
  );
}

/** Classroom mode's board: loaded when classroom mode is first turned on. */
export function LazyClassroomBoard(props: ComponentProps<typeof ClassroomBoardChunk>) {
  return (
    <Suspense fallback={<p className="loading">Loading classroom mode…</p>}>
      <ClassroomBoardChunk {...props} />
    </Suspense>
  );
}

/** The log grid, under the diagram: below the first screen. */
export function LazyLogGrid() {
  return (
    <WhenLoaded what="the logs">
      <LogGridChunk />
    </WhenLoaded>
  );
}

/** The board's third row (storage, checkers, reads, network, events): below the first screen. */
export function LazyWidePanels(props: { readonly shown: ReadonlySet<PanelId> | null }) {
  return (
    <WhenLoaded what="storage, the checkers and the event log">
      <WidePanelsChunk {...props} />
    </WhenLoaded>
  );
}

/** "Check the reads" answer's dialog: nothing until a check is asked for. */
export function LazyReadCheckDialog() {
  const asked = useLab((s) => s.readCheck !== null);
  if (!asked) return null;
  return (
    <Suspense fallback={null}>
      <ReadCheckDialogChunk />
    </Suspense>
  );
}

export function LazyLessonCard(props: ComponentProps<typeof LessonCardChunk>) {
  return (
    <WhenLoaded what="the lesson">
      <LessonCardChunk {...props} />
    </WhenLoaded>
  );
}

/** A run opened from a scenario: its card (it reads the bundled library, so it loads only then). */
export function LazyScenarioCard() {
  const scenario = useLab((s) => (s.view?.scenario ?? null) !== null);
  if (!scenario) return null;
  return (
    <WhenLoaded what="the scenario">
      <ScenarioCardChunk />
    </WhenLoaded>
  );
}

/** The reset question and the settings, course and library dialogs: nothing until one is first opened. */
export function LazyDialogs() {
  const reset = useUi((u) => u.resetOpen);
  const settings = useUi((u) => u.settingsOpen);
  const course = useUi((u) => u.courseView !== null);
  const library = useLibraryUi((u) => u.open);
  return (
    <Suspense fallback={null}>
      {reset && <ResetDialogChunk />}
      {settings && <SettingsDialogChunk />}
      {course && <CourseDialogChunk />}
      {library && <LibraryDialogChunk />}
    </Suspense>
  );
}
