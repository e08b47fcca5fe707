/**
 * The way in: a welcome for a first visit (what Lease Lab is, and three ways in), the
 * course (every lesson, with how far the visitor got), and the glossary (every term the
 * lessons use). One dialog, three views; the toolbar's "Course" button opens it too.
 */
import { Suspense, use, useEffect, useRef } from "react";
import { glossaryTerms, loadedLessonCatalog, loadLessons } from "../lesson/catalog";
import { loadProgress } from "../lesson/progress";
import { useUi } from "../ui";
import { saveLastVisit } from "./visit";
import "./course.css";
import { Modal } from "../Modal";

export type CourseView = "welcome" | "course" | "glossary";

const TITLES: Readonly<Record<CourseView, string>> = { welcome: "Welcome to Lease Lab", course: "The course", glossary: "Glossary" };

export function CourseDialog() {
  const view = useUi((u) => u.courseView);
  const close = useUi((u) => u.closeCourse);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (view !== null) heading.current?.focus();
  }, [view]);
  if (view === null) return null;
  const leave = (): void => {
    if (view === "welcome") saveLastVisit("lab");
    close();
  };
  return (
    <Modal className="course-dialog" labelledBy="course-title" onClose={leave}>
      <h2 id="course-title" ref={heading} tabIndex={-1}>
        {TITLES[view]}
      </h2>
      {view === "welcome" && <Welcome onLab={leave} />}
      {view !== "welcome" && (
        // The welcome needs no lesson; the course and the glossary wait for the lesson files (fetched as the dialog opened).
        <Suspense fallback={<p className="loading">Loading the lessons…</p>}>
          {view === "course" && <Course />}
          {view === "glossary" && <Glossary />}
        </Suspense>
      )}
      <div className="actions dialog-actions">
        {view !== "welcome" && (
          <button type="button" onClick={() => useUi.getState().openCourse(view === "course" ? "glossary" : "course")}>
            {view === "course" ? "Glossary" : "The course"}
          </button>
        )}
        {view !== "welcome" && (
          <button type="button" className="primary" onClick={leave}>
            Close
          </button>
        )}
      </div>
    </Modal>
  );
}

function Welcome({ onLab }: { onLab: () => void }) {
  const openCourse = useUi((u) => u.openCourse);
  const openShare = (): void => {
    onLab();
    // The "Share & export" dialog opens scenario files and links.
    useUi.getState().setShareOpen(true);
  };
  return (
    <>
      <p className="welcome-lead">
        Lease Lab runs a real Raft cluster and a lease service in your browser, with clients that hold leases and a storage that checks
        fencing tokens. You can watch leases being granted, renewed and lost, and break things on purpose: crash nodes, split the network,
        freeze a client, skew a clock.
      </p>
      <ul className="ways-in">
        <li>
          <button type="button" className="primary big" onClick={() => openCourse("course")}>
            Start the course
          </button>
          <span>Short lessons, from "what is a lease" to fencing tokens and clock drift. Each one plays on the real engine.</span>
        </li>
        <li>
          <button type="button" className="big" onClick={onLab}>
            Open the free lab
          </button>
          <span>The cluster behind this window, already running. Click any node, holder or message.</span>
        </li>
        <li>
          <button type="button" className="big" onClick={openShare}>
            Open a scenario or link
          </button>
          <span>A scenario file from the command line, or a link someone shared.</span>
        </li>
      </ul>
    </>
  );
}

function Course() {
  const entries = (loadedLessonCatalog() ?? use(loadLessons()).catalog).entries;
  return (
    <ol className="course-list">
      {entries.map((e) => {
        if (e.lesson === null) {
          return (
            <li key={e.file} className="course-broken">
              {e.file} could not be loaded: {e.errors.slice(0, 2).join("; ")}
            </li>
          );
        }
        const l = e.lesson.lesson;
        const p = loadProgress(l.id);
        const count = l.steps.length;
        const where = p === null ? "not started" : p.done ? "done" : `reached step ${p.reached + 1} of ${count}`;
        const step = p !== null && !p.done ? `&step=${p.reached + 1}` : "";
        return (
          <li key={l.id} value={l.order}>
            <a href={`?lesson=${encodeURIComponent(l.id)}${step}`} className="course-link">
              {l.title}
            </a>
            <span className={`course-progress${p?.done ? " done" : ""}`}>
              {p?.done ? "✓ " : ""}
              {where}
            </span>
            <p className="course-summary">
              {l.summary} <span className="course-minutes">About {l.minutes} min.</span>
            </p>
          </li>
        );
      })}
      <li className="course-later">Read leases and write leases, and the failover of a database primary: lessons to come.</li>
    </ol>
  );
}

function Glossary() {
  if (loadedLessonCatalog() === null) use(loadLessons());
  return (
    <dl className="glossary">
      {glossaryTerms().map(([term, definition]) => (
        <div key={term}>
          <dt>
            <dfn>{term}</dfn>
          </dt>
          <dd>{definition}</dd>
        </div>
      ))}
    </dl>
  );
}
