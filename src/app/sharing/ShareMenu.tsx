/**
 * "Share & export": the run as a link or a scenario file, opening one, the trace and
 * the client history, and pictures of the ring and the space-time diagram.
 *
 * Everything the worker knows (the scenario, the trace, the history) is asked of it as
 * an export; the pictures are made from the SVGs on the page.
 */
import { type KeyboardEvent as ReactKeyboardEvent, useCallback, useEffect, useId, useRef, useState } from "react";
import { DEFAULT_SPEED, type ExportKind } from "../../worker/protocol";
import { trapTab } from "../focusTrap";
import { formatTime } from "../format";
import { openedSettings, toSearch } from "../params";
import { startMessage } from "../simLink";
import { useLab } from "../store";
import { downloadBlob, downloadText, safeFilename } from "./download";
import { type DecodeResult, encodeRunHash, MAX_SCENARIO_BYTES, parseShareInput, shareLink } from "./link";
import { PICTURE_SELECTOR, PICTURE_WORDS, type PictureFormat, type PictureKind, pictureFilename, svgFileText, svgToPng } from "./pictures";

/** Accessible names of the controls (the end-to-end tests use these). */
export const SHARE_NAMES = {
  open: "Share & export",
  dialog: "Share & export",
  copyLink: "Copy share link",
  linkField: "Share link",
  downloadScenario: "Download scenario",
  importScenario: "Import scenario…",
  scenarioFile: "Scenario file",
  paste: "Paste a share link or scenario",
  openPasted: "Open",
  confirmReplace: "Replace the current run",
  keepCurrent: "Keep the current run",
  currentLink: "Current run link",
  exportTrace: "Export trace (NDJSON)",
  exportHistory: "Export client history (JSON)",
  close: "Close",
} as const;

export function pictureButtonName(kind: PictureKind, format: PictureFormat): string {
  return `Save ${PICTURE_WORDS[kind]} as ${format.toUpperCase()}`;
}

const PICTURES: readonly [PictureKind, PictureFormat][] = [
  ["ring", "svg"],
  ["ring", "png"],
  ["spacetime", "svg"],
  ["spacetime", "png"],
];

const CLIPBOARD_TIMEOUT_MS = 3000;

function pageBase(): string {
  return `${window.location.origin}${window.location.pathname}`;
}

function message(e: unknown): string {
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

function picturesPresent(): Record<PictureKind, boolean> {
  if (typeof document === "undefined") return { ring: false, spacetime: false };
  return {
    ring: document.querySelector(PICTURE_SELECTOR.ring) !== null,
    spacetime: document.querySelector(PICTURE_SELECTOR.spacetime) !== null,
  };
}

export function ShareMenu() {
  const [open, setOpen] = useState(false);
  const trigger = useRef<HTMLButtonElement>(null);
  const close = useCallback(() => {
    setOpen(false);
    queueMicrotask(() => trigger.current?.focus());
  }, []);
  return (
    <>
      <button ref={trigger} type="button" aria-haspopup="dialog" aria-expanded={open} onClick={() => setOpen(true)}>
        {SHARE_NAMES.open}
      </button>
      {open && <ShareDialog onClose={close} />}
    </>
  );
}

interface Confirm {
  readonly result: Extract<DecodeResult, { ok: true }>;
  readonly currentLink: string;
  readonly actions: number;
}

export function ShareDialog({ onClose }: { onClose: () => void }) {
  const titleId = useId();
  const linkId = useId();
  const fileId = useId();
  const pasteId = useId();
  const currentId = useId();
  const confirmTitleId = useId();
  const [busy, setBusy] = useState<string | null>(null);
  const [status, setStatus] = useState("");
  const [note, setNote] = useState<string | null>(null);
  const [link, setLink] = useState("");
  const [pasted, setPasted] = useState("");
  const [importErrors, setImportErrors] = useState<readonly string[]>([]);
  const [confirm, setConfirm] = useState<Confirm | null>(null);
  const [pictures, setPictures] = useState(picturesPresent);
  const first = useRef<HTMLButtonElement>(null);
  const keep = useRef<HTMLButtonElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);

  useEffect(() => {
    queueMicrotask(() => first.current?.focus());
    // The pictures' SVGs come and go with the panels: look again now and then.
    const timer = setInterval(() => setPictures(picturesPresent()), 1000);
    return () => clearInterval(timer);
  }, []);
  useEffect(() => {
    if (confirm !== null) queueMicrotask(() => keep.current?.focus());
  }, [confirm]);

  const onKeyDown = (e: ReactKeyboardEvent): void => {
    // The page's shortcuts (K kills a node, ...) are not for keys typed in here.
    e.stopPropagation();
    trapTab(e);
    if (e.key === "Escape") {
      e.preventDefault();
      if (confirm !== null) setConfirm(null);
      else onClose();
    }
  };

  /** Runs one task at a time, reporting failures in the status line. */
  const task = async (name: string, run: () => Promise<void>): Promise<void> => {
    if (busy !== null) return;
    setBusy(name);
    setStatus(`${name}…`);
    setNote(null);
    try {
      await run();
    } catch (e) {
      setStatus(`${name} failed: ${message(e)}.`);
    } finally {
      setBusy(null);
    }
  };

  const copyLink = (): Promise<void> =>
    task("Making the share link", async () => {
      const exp = await useLab.getState().requestExport("scenario");
      const url = await shareLink(pageBase(), exp.text);
      setLink(url);
      setNote(exp.note);
      const copied = await copyText(url);
      setStatus(
        copied.ok
          ? `Copied the share link to the clipboard. It is ${url.length} characters long.`
          : `Could not copy to the clipboard (${copied.reason}): select the link in the field below and copy it by hand. It is ${url.length} characters long.`,
      );
    });

  const exportFile = (what: ExportKind, label: string): Promise<void> =>
    task(label, async () => {
      const exp = await useLab.getState().requestExport(what, what === "scenario" ? undefined : 120_000);
      const fallback = what === "trace" ? "lease-lab-trace.ndjson" : what === "history" ? "lease-lab-history.json" : "lease-lab-scenario.json";
      const filename = safeFilename(exp.filename, fallback);
      downloadText(exp.text, filename, exp.mime || (what === "trace" ? "application/x-ndjson" : "application/json"));
      setNote(exp.note);
      setStatus(`Saved ${filename}.`);
    });

  const savePicture = (kind: PictureKind, format: PictureFormat): Promise<void> =>
    task(`Saving the ${PICTURE_WORDS[kind]}`, async () => {
      const svg = document.querySelector<SVGSVGElement>(PICTURE_SELECTOR[kind]);
      if (svg === null) throw new Error(`the ${PICTURE_WORDS[kind]} is not on the page`);
      const view = useLab.getState().view;
      const filename = pictureFilename(kind, view?.seed ?? 0, view?.now ?? 0, format);
      const file = svgFileText(svg);
      if (format === "svg") downloadText(file.text, filename, "image/svg+xml");
      else downloadBlob(await svgToPng(file.text, file.width, file.height), filename);
      setStatus(`Saved ${filename}.`);
    });

  /** Starts the imported run, and makes the address its link. */
  const replaceRun = async (r: Extract<DecodeResult, { ok: true }>): Promise<void> => {
    const sc = r.scenario;
    const st = useLab.getState();
    const settings = openedSettings(sc, st.view?.speed ?? st.settings?.speed ?? DEFAULT_SPEED);
    const hash = await encodeRunHash(r.text);
    const started = runStarted(st.view?.runId ?? null);
    st.send(startMessage(settings, sc));
    setConfirm(null);
    onClose();
    // The address names the new run only once the worker has taken it (it may refuse: then the error banner says why, and the old run and address stay).
    if (await started) {
      useLab.setState({ settings });
      window.history.replaceState(window.history.state, "", `${window.location.pathname}${toSearch(settings)}${hash}`);
    }
  };

  const openInput = (text: string, from: string): Promise<void> =>
    task(`Opening the ${from}`, async () => {
      setConfirm(null);
      const r = await parseShareInput(text);
      if (!r.ok) {
        setImportErrors(r.errors);
        setStatus(`The ${from} was not opened; the current run is unchanged.`);
        return;
      }
      setImportErrors([]);
      const actions = useLab.getState().view?.timeline.actions.length ?? 0;
      if (actions === 0) {
        await replaceRun(r);
        return;
      }
      let currentLink: string;
      try {
        currentLink = await shareLink(pageBase(), (await useLab.getState().requestExport("scenario")).text);
      } catch (e) {
        currentLink = `(its link could not be made: ${message(e)}; use Download scenario first to keep it)`;
      }
      setConfirm({ result: r, currentLink, actions });
      setStatus("");
    });

  const onFile = (files: FileList | null): void => {
    const file = files?.[0];
    if (file === undefined) return;
    if (file.size > MAX_SCENARIO_BYTES) {
      setImportErrors([`${file.name} is too large to be a scenario (${file.size} bytes; at most ${MAX_SCENARIO_BYTES}).`]);
      return;
    }
    void file.text().then(
      (text) => openInput(text, `file ${file.name}`),
      (e: unknown) => setImportErrors([`${file.name} could not be read: ${message(e)}`]),
    );
  };

  const working = busy !== null;
  return (
    <div className="overlay" role="presentation">
      <div className="dialog share-dialog" role="dialog" aria-modal="true" aria-labelledby={titleId} onKeyDown={onKeyDown}>
        <h2 id={titleId}>{SHARE_NAMES.dialog}</h2>
        <p className="small-print">
          A run is its settings, its seed and your actions at their exact times: the link and the scenario file carry all of them, so they
          reopen this very run, here or in <code>npm run sim -- --scenario FILE</code>.
        </p>

        <h3>Share this run</h3>
        <div className="actions">
          <button ref={first} type="button" className="primary" onClick={() => void copyLink()} disabled={working}>
            {SHARE_NAMES.copyLink}
          </button>
          <button type="button" onClick={() => void exportFile("scenario", "Saving the scenario")} disabled={working}>
            {SHARE_NAMES.downloadScenario}
          </button>
        </div>
        <TraceHash />
        <div className="form-field">
          <label htmlFor={linkId}>{SHARE_NAMES.linkField}</label>
          <input
            id={linkId}
            type="text"
            readOnly
            value={link}
            placeholder="Press Copy share link"
            onFocus={(e) => e.currentTarget.select()}
            style={{ width: "100%", fontFamily: "monospace" }}
          />
        </div>

        <h3>Open a run</h3>
        <p className="small-print">A scenario file, a share link or scenario text; opening one replaces the current run.</p>
        <div className="actions">
          <button type="button" onClick={() => fileInput.current?.click()} disabled={working}>
            {SHARE_NAMES.importScenario}
          </button>
        </div>
        <div className="form-field">
          <label htmlFor={fileId}>{SHARE_NAMES.scenarioFile}</label>
          <input
            id={fileId}
            ref={fileInput}
            type="file"
            accept=".json,application/json"
            disabled={working}
            onChange={(e) => {
              onFile(e.currentTarget.files);
              e.currentTarget.value = "";
            }}
          />
        </div>
        <div className="form-field">
          <label htmlFor={pasteId}>{SHARE_NAMES.paste}</label>
          <textarea
            id={pasteId}
            rows={3}
            value={pasted}
            spellCheck={false}
            onChange={(e) => setPasted(e.currentTarget.value)}
            style={{ width: "100%", fontFamily: "monospace" }}
          />
        </div>
        <div className="actions">
          <button type="button" onClick={() => void openInput(pasted, "pasted link or scenario")} disabled={working || pasted.trim() === ""}>
            {SHARE_NAMES.openPasted}
          </button>
        </div>
        {importErrors.length > 0 && (
          <div className="error" role="alert" style={{ display: "block" }}>
            <strong>Not opened; the current run is unchanged.</strong>
            <ul>
              {importErrors.map((e) => (
                <li key={e}>{e}</li>
              ))}
            </ul>
          </div>
        )}
        {confirm !== null && (
          <section className="notice" aria-labelledby={confirmTitleId} style={{ display: "block" }}>
            <h4 id={confirmTitleId} style={{ margin: 0 }}>
              Replace the current run?
            </h4>
            <p>
              The current run has {confirm.actions} action{confirm.actions === 1 ? "" : "s"} of yours. Opening “{confirm.result.scenario.name}”
              replaces it. Its link is below: keep it to come back to it.
            </p>
            <div className="form-field">
              <label htmlFor={currentId}>{SHARE_NAMES.currentLink}</label>
              <input
                id={currentId}
                type="text"
                readOnly
                value={confirm.currentLink}
                onFocus={(e) => e.currentTarget.select()}
                style={{ width: "100%", fontFamily: "monospace" }}
              />
            </div>
            <div className="actions">
              <button type="button" className="primary" onClick={() => void task("Opening the scenario", () => replaceRun(confirm.result))} disabled={working}>
                {SHARE_NAMES.confirmReplace}
              </button>
              <button ref={keep} type="button" onClick={() => setConfirm(null)}>
                {SHARE_NAMES.keepCurrent}
              </button>
            </div>
          </section>
        )}

        <h3>Exports</h3>
        <div className="actions">
          <button type="button" onClick={() => void exportFile("trace", "Exporting the trace")} disabled={working}>
            {SHARE_NAMES.exportTrace}
          </button>
          <button type="button" onClick={() => void exportFile("history", "Exporting the client history")} disabled={working}>
            {SHARE_NAMES.exportHistory}
          </button>
        </div>

        <h3>Pictures</h3>
        <div className="actions">
          {PICTURES.map(([kind, format]) => (
            <button
              key={`${kind}-${format}`}
              type="button"
              onClick={() => void savePicture(kind, format)}
              disabled={working || !pictures[kind]}
              title={pictures[kind] ? `The ${PICTURE_WORDS[kind]} as it is now, on white` : `The ${PICTURE_WORDS[kind]} is not on the page yet`}
            >
              {pictureButtonName(kind, format)}
            </button>
          ))}
        </div>

        <p role="status" aria-live="polite" className="small-print">
          {status}
        </p>
        {note !== null && (
          <p className="notice" role="note">
            {note}
          </p>
        )}
        <div className="actions dialog-actions">
          <button type="button" onClick={onClose}>
            {SHARE_NAMES.close}
          </button>
        </div>
      </div>
    </div>
  );
}

/** Resolves true when a view of a new run arrives, false on an error from the worker first (or after a minute). */
function runStarted(prevRunId: number | null): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      unsubscribe();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), 60_000);
    const unsubscribe = useLab.subscribe((s, p) => {
      if (s.error !== null && s.error !== p.error) done(false);
      else if (s.view !== null && s.view.runId !== prevRunId) done(true);
    });
  });
}

/**
 * The trace hash at the cursor: the CLI prints the same one (hash=...) for the downloaded
 * scenario when the cursor stands at the end of the run, so the two can be compared.
 */
function TraceHash() {
  const hash = useLab((s) => s.view?.traceHash ?? "");
  const now = useLab((s) => s.view?.now ?? 0);
  const end = useLab((s) => s.view?.timeline.end ?? 0);
  return (
    <p className="small-print">
      Trace hash at {formatTime(now)}: <code data-testid="trace-hash">{hash}</code>
      {now === end ? " (npm run sim prints the same for the downloaded scenario)" : " (move the cursor to the end to compare with npm run sim)"}
    </p>
  );
}
