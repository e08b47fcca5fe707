/**
 * The lesson card (?lesson=ID): the lesson's title, "Step 3 of 9", the step's words with
 * their glossary terms, what the engine is doing, and Back / Next / Do it for me. Large
 * text, for a projector. The worker plays the steps (worker/lessonPlayer.ts); the card
 * shows the step the view names and sends what the learner asks.
 */
import { type RefObject, useEffect, useId, useRef, useState } from "react";
import type { Lesson, LessonStep } from "../../core/lesson/schema";
import { describeExpectation } from "../../core/scenario/runner";
import { formatDuration, formatInstant } from "../../core/sim/time";
import type { LessonView } from "../../worker/protocol";
import { selectSend, selectSetHighlight, useLab, useLabStore } from "../store";
import { glossary } from "./catalog";
import { lessonFocus, lessonKey, stepControls } from "./lessonUi";
import { loadProgress, saveProgress, stepAddress } from "./progress";
import { prosePieces } from "./prose";
import "./lesson.css";

export function LessonCard({ lesson }: { readonly lesson: Lesson }) {
  const lv = useLab((s) => s.view?.lesson ?? null);
  if (lv === null || lv.id !== lesson.lesson.id) return null;
  if (lv.exploringFrom !== null) return <ExploringBar lesson={lesson} lv={lv} />;
  return <LessonCardView lesson={lesson} lv={lv} />;
}

/** The lesson's title and where the learner is in it. */
function LessonHead({ lesson, lv }: { readonly lesson: Lesson; readonly lv: LessonView }) {
  return (
    <div className="lesson-head">
      <h2 id="lesson-title">{lesson.lesson.title}</h2>
      <span className="lesson-count" data-testid="lesson-step-count">
        Step {lv.index + 1} of {lv.count}
      </span>
    </div>
  );
}

/** While the learner explores freely: where they left the lesson, and the way back. */
function ExploringBar({ lesson, lv }: { readonly lesson: Lesson; readonly lv: LessonView }) {
  const send = useLab(selectSend);
  return (
    <section className="lesson-card lesson-exploring" aria-labelledby="lesson-title" data-testid="lesson-card">
      <LessonHead lesson={lesson} lv={lv} />
      <p className="lesson-explore-note">
        You are exploring freely from {formatInstant(lv.exploringFrom ?? 0)}, on a branch of its own: do anything. The lesson waits where
        you left it.{" "}
        <button type="button" className="primary" onClick={() => send({ type: "lesson-return" })}>
          Back to the lesson
        </button>
      </p>
    </section>
  );
}

function LessonCardView({ lesson, lv }: { readonly lesson: Lesson; readonly lv: LessonView }) {
  const send = useLab(selectSend);
  const running = useLab((s) => s.view?.playing ?? false);
  const step = lesson.lesson.steps[lv.index] as LessonStep;
  const controls = stepControls(lv, step);
  const back = (): void => send({ type: "lesson-step", index: lv.index - 1 });
  const next = (): void => send({ type: "lesson-step", index: lv.index + 1 });
  const last = lv.index === lv.count - 1;
  useLessonKeys(controls.canBack ? back : null, controls.canNext ? next : null);
  useLessonHighlights(step);
  const titleRef = useStepFocus(lv.index);
  useEffect(() => saveProgress(lv.id, lv.reached, lv.count), [lv.id, lv.reached, lv.count]);
  // The address follows the step, so a reload, a bookmark or a copied address opens this step.
  useEffect(() => window.history.replaceState(window.history.state, "", stepAddress(window.location, lv.id, lv.index)), [lv.id, lv.index]);
  return (
    <section className="lesson-card" aria-labelledby="lesson-title" data-testid="lesson-card">
      <LessonHead lesson={lesson} lv={lv} />
      <div className="lesson-body">
        <div className="lesson-words">
          <h3 className="lesson-step-title" ref={titleRef} tabIndex={-1}>{step.title ?? KIND_TITLE[step.kind]}</h3>
          <StepWords step={step} />
          {step.kind === "predict" && <Question step={step} lv={lv} />}
          <p className={`lesson-status lesson-${lv.status}`} role="status" data-testid="lesson-status">
            {statusText(step, lv, running)}
          </p>
          {last && lesson.lesson.sources.length > 0 && <Sources sources={lesson.lesson.sources} />}
        </div>
        <div className="lesson-buttons">
          <button type="button" onClick={back} disabled={!controls.canBack}>
            <span aria-hidden="true">←</span> Back
          </button>
          {controls.doItForMe && (
            <button type="button" onClick={() => send({ type: "lesson-do-it-for-me" })}>
              Do it for me
            </button>
          )}
          <button type="button" className="primary" onClick={next} disabled={!controls.canNext}>
            {last ? (
              "The end"
            ) : (
              <>
                Next <span aria-hidden="true">→</span>
              </>
            )}
          </button>
          <button type="button" onClick={() => send({ type: "lesson-explore" })} title="The free lab from this moment, on a branch of its own">
            Explore from here
          </button>
          <span className="lesson-moment">This step began at {formatInstant(lv.startedAt)}</span>
          <Resume id={lv.id} index={lv.index} />
        </div>
      </div>
    </section>
  );
}

const KIND_TITLE: Readonly<Record<LessonStep["kind"], string>> = {
  narrate: "Read",
  play: "Watch",
  act: "The lesson acts",
  "your-turn": "Your turn",
  predict: "Predict",
};

function StepWords({ step }: { readonly step: LessonStep }) {
  const text = "text" in step ? step.text : undefined;
  return (
    <>
      {text !== undefined && (
        <p className="lesson-text">
          <Prose text={text} />
        </p>
      )}
      {step.kind === "your-turn" && step.hint !== undefined && (
        <p className="lesson-hint">
          <strong>Hint:</strong> <Prose text={step.hint} />
        </p>
      )}
    </>
  );
}

/** Prose with its [[term]] marks as definitions: shown on hover and on keyboard focus. */
function Prose({ text }: { readonly text: string }) {
  const base = useId();
  return (
    <>
      {prosePieces(text, glossary()).map((p, i) => {
        if (p.kind === "text") return p.text;
        const key = `${i}-${p.term}`;
        if (p.definition === null) return <dfn key={key}>{p.text}</dfn>;
        const tip = `${base}-${i}`;
        return (
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a term is focusable so its definition shows for keyboard users too
          <dfn key={key} className="lesson-term" tabIndex={0} aria-describedby={tip}>
            {p.text}
            <span id={tip} role="tooltip" className="lesson-tip">
              {p.term}: {p.definition}
            </span>
          </dfn>
        );
      })}
    </>
  );
}

function Question({ step, lv }: { readonly step: Extract<LessonStep, { kind: "predict" }>; readonly lv: LessonView }) {
  const send = useLab(selectSend);
  const picked = lv.choice === null ? null : step.choices[lv.choice];
  const correct = step.choices.find((c) => c.correct);
  return (
    <fieldset className="lesson-choices">
      <legend>Your answer</legend>
      {step.choices.map((c, i) => (
        <button
          // biome-ignore lint/suspicious/noArrayIndexKey: a lesson's choices are fixed
          key={i}
          type="button"
          className={lv.choice === i ? "lesson-choice is-picked" : "lesson-choice"}
          aria-pressed={lv.choice === i}
          disabled={lv.choice !== null || lv.status !== "waiting"}
          onClick={() => send({ type: "lesson-choose", choice: i })}
        >
          {c.text}
        </button>
      ))}
      {picked !== undefined && picked !== null && (
        <div className="lesson-feedback" aria-live="polite">
          <p>
            <strong>{picked.correct ? "Right." : "Not quite."}</strong> <Prose text={picked.feedback} />
          </p>
          {!picked.correct && correct !== undefined && (
            <p>
              <strong>The answer:</strong> {correct.text}
            </p>
          )}
        </div>
      )}
    </fieldset>
  );
}

function statusText(step: LessonStep, lv: LessonView, running: boolean): string {
  switch (lv.status) {
    case "playing": {
      const until = step.kind === "play" ? step.until : step.kind === "predict" ? step.reveal.until : undefined;
      const span = step.kind === "play" && step.for !== undefined ? ` for ${formatDuration(step.for)}` : "";
      const what = until === undefined ? span : ` until ${describeExpectation(until)}`;
      return running ? `Playing${what}…` : `Paused: press Play to go on${what}.`;
    }
    case "waiting":
      if (step.kind === "predict") return "Choose an answer: then the engine plays on and shows what happens.";
      return lv.detail === "" ? "Waiting for you." : lv.detail;
    case "failed":
      return lv.detail;
    case "done":
      return lv.detail === "" ? "" : lv.detail;
  }
}

function Sources({ sources }: { readonly sources: readonly { readonly title: string; readonly url: string }[] }) {
  return (
    <div className="lesson-sources">
      <h3>Sources</h3>
      <ul>
        {sources.map((s) => (
          <li key={s.url}>
            <a href={s.url} target="_blank" rel="noreferrer">
              {s.title}
            </a>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** "You got to step 5 last time": a link that opens the lesson there. */
function Resume({ id, index }: { readonly id: string; readonly index: number }) {
  // The progress saved before this page opened (this visit's steps are saved as they come).
  const [saved] = useState(() => loadProgress(id));
  if (saved === null || saved.reached <= index) return null;
  return (
    <a className="lesson-resume" href={`?lesson=${encodeURIComponent(id)}&step=${saved.reached + 1}`}>
      Go on from step {saved.reached + 1}
    </a>
  );
}

/**
 * A new step's title takes the focus when the focus would otherwise be lost (the button
 * just pressed is now disabled, or nothing had it), so a screen reader reads the new step.
 */
function useStepFocus(index: number): RefObject<HTMLHeadingElement | null> {
  const ref = useRef<HTMLHeadingElement>(null);
  const shown = useRef(index);
  useEffect(() => {
    if (shown.current === index) return;
    shown.current = index;
    const active = document.activeElement;
    const lost = active === null || active === document.body || (active instanceof HTMLButtonElement && active.disabled);
    if (lost) ref.current?.focus();
  }, [index]);
  return ref;
}

/** PageDown / ArrowRight: Next; PageUp / ArrowLeft: Back (not while typing or on a slider). */
function useLessonKeys(back: (() => void) | null, next: (() => void) | null): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      const go = lessonKey(e, back, next);
      if (go === null) return;
      e.preventDefault();
      go();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [back, next]);
}

/** The step's processes outlined in the ring (the page's highlight) and its panels outlined. */
function useLessonHighlights(step: LessonStep): void {
  const setHighlight = useLab(selectSetHighlight);
  const lab = useLabStore();
  useEffect(() => {
    const { procs, panels } = lessonFocus(step);
    const leader = lab.getState().view?.leader ?? null;
    setHighlight(procs.map((p) => (p === "leader" && leader !== null ? leader : p)));
    document.body.dataset.lessonPanels = panels.join(" ");
    return () => {
      delete document.body.dataset.lessonPanels;
    };
  }, [step, setHighlight, lab]);
}
