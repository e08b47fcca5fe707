/**
 * Classroom mode: the projector layout. The cluster fills the screen, the panels the moment
 * needs sit beside it (not five screens down), and a caption bar says the latest important
 * event in one sentence. "." blanks the screen.
 */
import type { ReactNode } from "react";
import type { Lesson, LessonStep } from "../../core/lesson/schema";
import { LazyHolderPanel, LazyLessonCard, LazyScenarioCard } from "../lazyParts";
import type { PanelId } from "../lesson/panels";
import { CheckerPanel } from "../panels/CheckerPanel";
import { EventLog } from "../panels/EventLog";
import { LeaseTimeline } from "../panels/LeaseTimeline";
import { LogGrid } from "../panels/LogGrid";
import { StoragePanel } from "../panels/StoragePanel";
import { Ring } from "../ring/Ring";
import { useLab } from "../store";
import { captionOf, classroomPanels, latestMoment } from "./moment";
import "./classroom.css";

const PANEL: Partial<Record<PanelId, () => ReactNode>> = {
  "lease-timeline": () => <LeaseTimeline />,
  storage: () => <StoragePanel />,
  log: () => <LogGrid />,
  checkers: () => <CheckerPanel />,
  holders: () => <LazyHolderPanel />,
  events: () => <EventLog />,
};

export function ClassroomBoard({ lesson }: { readonly lesson?: Lesson }) {
  const index = useLab((s) => s.view?.lesson?.index ?? null);
  const exploring = useLab((s) => (s.view?.lesson?.exploringFrom ?? null) !== null);
  const moment = useLab((s) => (s.view === null ? null : latestMoment(s.view.moments ?? [], s.view.now)));
  const pausedHere = useLab((s) => moment !== null && s.view?.pausedBy?.n === moment.n);
  const step = lesson === undefined || index === null || exploring ? null : ((lesson.lesson.steps[index] as LessonStep | undefined) ?? null);
  // In a lesson the card takes most of the side: one panel, the one the step points at.
  const panels = lesson !== undefined && !exploring ? classroomPanels(step, null, 1) : classroomPanels(null, moment, 2);
  return (
    <main className="classroom-board">
      <p className="classroom-caption" role="status" aria-live="polite" data-testid="classroom-caption">
        {pausedHere ? "Paused: " : ""}
        {captionOf(moment)}
      </p>
      <div className="classroom-stage">
        <div className="classroom-ring">
          <Ring />
        </div>
        <div className="classroom-side" data-testid="classroom-side">
          {lesson !== undefined && <LazyLessonCard lesson={lesson} />}
          {lesson === undefined && <LazyScenarioCard />}
          {panels.map((p) => (
            <div key={p} className="classroom-panel" data-panel={p}>
              {PANEL[p]?.()}
            </div>
          ))}
        </div>
      </div>
    </main>
  );
}
