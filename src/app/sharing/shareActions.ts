/**
 * What the share dialog's buttons do, without React: each is given the page's store,
 * asks the worker for what it needs, and says what happened in a sentence for the
 * dialog's status line. The dialog (ShareMenu.tsx) keeps only its own state.
 */
import { DEFAULT_SPEED, type ExportKind } from "../../worker/protocol";
import { openedSettings, toSearch } from "../params";
import { startMessage } from "../simLink";
import type { LabStore } from "../store";
import { downloadBlob, downloadText, safeFilename } from "./download";
import { type DecodeResult, encodeRunHash, parseShareInput, shareLink } from "./link";
import { PICTURE_SELECTOR, PICTURE_WORDS, type PictureFormat, type PictureKind, pictureFilename, svgFileText, svgToPng } from "./pictures";

const CLIPBOARD_TIMEOUT_MS = 3000;

export function pageBase(): string {
  return `${window.location.origin}${window.location.pathname}`;
}

export function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Copies text, or says why it could not (no clipboard here, refused, or no answer). */
async function copyText(text: string): Promise<{ ok: true } | { ok: false; reason: string }> {
  const clip = typeof navigator === "undefined" ? undefined : navigator.clipboard;
  if (clip === undefined || typeof clip.writeText !== "function") return { ok: false, reason: "this page has no clipboard access" };
  try {
    await Promise.race([
      clip.writeText(text),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("the browser did not answer")), CLIPBOARD_TIMEOUT_MS)),
    ]);
    return { ok: true };
  } catch (e) {
    return { ok: false, reason: message(e) || "the browser refused" };
  }
}

/** Which pictures can be taken now (their SVGs come and go with the panels). */
export function picturesPresent(): Record<PictureKind, boolean> {
  if (typeof document === "undefined") return { ring: false, spacetime: false };
  return {
    ring: document.querySelector(PICTURE_SELECTOR.ring) !== null,
    spacetime: document.querySelector(PICTURE_SELECTOR.spacetime) !== null,
  };
}

/** The outcome of a task: the status line, and the worker's note on the export, if any. */
export interface TaskOutcome {
  readonly status: string;
  readonly note: string | null;
}

/** The run's share link, and the worker's note on it. */
export async function makeShareLink(lab: LabStore): Promise<{ readonly link: string; readonly note: string | null }> {
  const exp = await lab.getState().requestExport("scenario");
  return { link: await shareLink(pageBase(), exp.text), note: exp.note };
}

/** Copies the embed code (an iframe of the run) to the clipboard; says how that went. */
export async function copyEmbedStatus(snippet: string): Promise<string> {
  const copied = await copyText(snippet);
  return copied.ok
    ? "Copied the embed code: paste it into a slide or a course page that takes HTML. It shows the cluster and its controls at 800×450."
    : `Could not copy to the clipboard (${copied.reason}): select the embed code in the field below and copy it by hand.`;
}

/** Copies a share link to the clipboard; says how that went. */
export async function copyLinkStatus(url: string): Promise<string> {
  const copied = await copyText(url);
  return copied.ok
    ? `Copied the share link to the clipboard. It is ${url.length} characters long.`
    : `Could not copy to the clipboard (${copied.reason}): select the link in the field below and copy it by hand. It is ${url.length} characters long.`;
}

/** Asks the worker for an export and downloads it. */
export async function exportToFile(lab: LabStore, what: ExportKind): Promise<TaskOutcome> {
  const exp = await lab.getState().requestExport(what, what === "scenario" ? undefined : 120_000);
  const fallback = what === "trace" ? "lease-lab-trace.ndjson" : what === "history" ? "lease-lab-history.json" : "lease-lab-scenario.json";
  const filename = safeFilename(exp.filename, fallback);
  downloadText(exp.text, filename, exp.mime || (what === "trace" ? "application/x-ndjson" : "application/json"));
  return { status: `Saved ${filename}.`, note: exp.note };
}

/** Downloads a picture of a drawing on the page, as it is now. */
export async function savePicture(lab: LabStore, kind: PictureKind, format: PictureFormat): Promise<TaskOutcome> {
  const svg = document.querySelector<SVGSVGElement>(PICTURE_SELECTOR[kind]);
  if (svg === null) throw new Error(`the ${PICTURE_WORDS[kind]} is not on the page`);
  const view = lab.getState().view;
  const filename = pictureFilename(kind, view?.seed ?? 0, view?.now ?? 0, format);
  const file = svgFileText(svg);
  if (format === "svg") downloadText(file.text, filename, "image/svg+xml");
  else downloadBlob(await svgToPng(file.text, file.width, file.height), filename);
  return { status: `Saved ${filename}.`, note: null };
}

export type OpenedRun = Extract<DecodeResult, { ok: true }>;

/** An opened run that would replace one with actions of the user's: it waits for a yes. */
export interface Confirm {
  readonly result: OpenedRun;
  readonly currentLink: string;
  readonly actions: number;
}

/** What opening a link or scenario comes to: errors, a run to start now, or a question first. */
export type OpenOutcome =
  | { readonly kind: "errors"; readonly errors: readonly string[] }
  | { readonly kind: "replace"; readonly result: OpenedRun }
  | { readonly kind: "confirm"; readonly confirm: Confirm };

/** Reads a pasted link or scenario text; a run with actions of the user's is not replaced without asking. */
export async function openShared(lab: LabStore, text: string): Promise<OpenOutcome> {
  const r = await parseShareInput(text);
  if (!r.ok) return { kind: "errors", errors: r.errors };
  const actions = lab.getState().view?.timeline.actions.length ?? 0;
  if (actions === 0) return { kind: "replace", result: r };
  let currentLink: string;
  try {
    currentLink = await shareLink(pageBase(), (await lab.getState().requestExport("scenario")).text);
  } catch (e) {
    currentLink = `(its link could not be made: ${message(e)}; use Download scenario first to keep it)`;
  }
  return { kind: "confirm", confirm: { result: r, currentLink, actions } };
}

/**
 * Starts the opened run, and makes the address its link. `sent` is called once the
 * worker has been asked (the dialog closes then).
 */
export async function replaceRun(lab: LabStore, r: OpenedRun, sent: () => void): Promise<void> {
  const sc = r.scenario;
  const st = lab.getState();
  const settings = openedSettings(sc, st.view?.speed ?? st.settings?.speed ?? DEFAULT_SPEED);
  const hash = await encodeRunHash(r.text);
  const started = runStarted(lab, st.view?.runId ?? null);
  st.send(startMessage(settings, sc));
  sent();
  // The address names the new run only once the worker has taken it (it may refuse: then the error banner says why, and the old run and address stay).
  if (await started) {
    lab.setState({ settings });
    window.history.replaceState(window.history.state, "", `${window.location.pathname}${toSearch(settings)}${hash}`);
  }
}

/** Resolves true when a view of a new run arrives, false on an error from the worker first (or after a minute). */
function runStarted(lab: LabStore, prevRunId: number | null): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      unsubscribe();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), 60_000);
    const unsubscribe = lab.subscribe((s, p) => {
      if (s.error !== null && s.error !== p.error) done(false);
      else if (s.view !== null && s.view.runId !== prevRunId) done(true);
    });
  });
}
