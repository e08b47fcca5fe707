/**
 * "Share & export": the run as a link or a scenario file, opening one, the trace and
 * the client history, and pictures of the ring and the space-time diagram.
 *
 * Everything the worker knows (the scenario, the trace, the history) is asked of it as
 * an export; the pictures are made from the SVGs on the page. What each button does is
 * in shareActions.ts; here are the dialog, its state and its sections.
 */
import { formatInstant } from "../../core/sim/time";
import { type KeyboardEvent as ReactKeyboardEvent, type RefObject, useEffect, useId, useRef, useState } from "react";
import type { ExportKind } from "../../worker/protocol";
import { trapTab, useFocusBack } from "../focusTrap";
import { useLab, useLabStore } from "../store";
import { EMBED_HEIGHT, EMBED_WIDTH, embedSnippet, MAX_SCENARIO_BYTES } from "./link";
import { SHARE_NAMES } from "./names";
import { PICTURE_WORDS, type PictureFormat, type PictureKind } from "./pictures";
import {
  type Confirm,
  copyEmbedStatus,
  copyLinkStatus,
  exportToFile,
  makeShareLink,
  message,
  type OpenedRun,
  openShared,
  picturesPresent,
  replaceRun,
  savePicture,
} from "./shareActions";

export function pictureButtonName(kind: PictureKind, format: PictureFormat): string {
  return `Save ${PICTURE_WORDS[kind]} as ${format.toUpperCase()}`;
}

const PICTURES: readonly [PictureKind, PictureFormat][] = [
  ["ring", "svg"],
  ["ring", "png"],
  ["spacetime", "svg"],
  ["spacetime", "png"],
];

export function ShareDialog({ onClose }: { onClose: () => void }) {
  const lab = useLabStore();
  const titleId = useId();
  const [busy, setBusy] = useState<string | null>(null);
  const [status, setStatus] = useState("");
  const [note, setNote] = useState<string | null>(null);
  const [link, setLink] = useState("");
  const [importErrors, setImportErrors] = useState<readonly string[]>([]);
  const [confirm, setConfirm] = useState<Confirm | null>(null);
  const [pictures, setPictures] = useState(picturesPresent);
  const first = useRef<HTMLButtonElement>(null);
  const keep = useRef<HTMLButtonElement>(null);
  const dialog = useRef<HTMLDivElement>(null);
  const noteFocus = useFocusBack(busy !== null, dialog, first);

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
    noteFocus();
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

  /** Makes the run's link and copies it, or the embed code made from it. */
  const copyRun = (what: "link" | "embed"): Promise<void> =>
    task(what === "link" ? "Making the share link" : "Making the embed code", async () => {
      const made = await makeShareLink(lab);
      setLink(made.link);
      setNote(made.note);
      setStatus(what === "link" ? await copyLinkStatus(made.link) : await copyEmbedStatus(embedSnippet(made.link)));
    });

  /** Runs `outcome` as a task named `name`; its status line and note go to the dialog. */
  const report = (name: string, outcome: () => Promise<{ status: string; note: string | null }>): Promise<void> =>
    task(name, async () => {
      const done = await outcome();
      setNote(done.note);
      setStatus(done.status);
    });
  const exportFile = (what: ExportKind, label: string): Promise<void> => report(label, () => exportToFile(lab, what));
  const saveAs = (kind: PictureKind, format: PictureFormat): Promise<void> =>
    report(`Saving the ${PICTURE_WORDS[kind]}`, () => savePicture(lab, kind, format));

  /** Starts the imported run, and makes the address its link. */
  const replace = (r: OpenedRun): Promise<void> =>
    replaceRun(lab, r, () => {
      setConfirm(null);
      onClose();
    });

  const openInput = (text: string, from: string): Promise<void> =>
    task(`Opening the ${from}`, async () => {
      setConfirm(null);
      const opened = await openShared(lab, text);
      if (opened.kind === "errors") {
        setImportErrors(opened.errors);
        setStatus(`The ${from} was not opened; the current run is unchanged.`);
        return;
      }
      setImportErrors([]);
      if (opened.kind === "replace") {
        await replace(opened.result);
        return;
      }
      setConfirm(opened.confirm);
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
      <div ref={dialog} className="dialog share-dialog" role="dialog" aria-modal="true" aria-labelledby={titleId} onKeyDown={onKeyDown}>
        <h2 id={titleId}>{SHARE_NAMES.dialog}</h2>
        <p className="small-print">
          A run is its settings, its seed and your actions at their exact times: the link and the scenario file carry all of them, so they
          reopen this very run, here or in <code>npm run sim -- --scenario FILE</code>.
        </p>
        <ShareRun
          first={first}
          working={working}
          link={link}
          onCopy={() => copyRun("link")}
          onCopyEmbed={() => copyRun("embed")}
          onDownload={() => exportFile("scenario", "Saving the scenario")}
        />
        <OpenRun
          working={working}
          importErrors={importErrors}
          onFile={onFile}
          onOpen={(text) => openInput(text, "pasted link or scenario")}
        />
        {confirm !== null && (
          <ReplaceConfirm
            confirm={confirm}
            working={working}
            keep={keep}
            onReplace={() => task("Opening the scenario", () => replace(confirm.result))}
            onKeep={() => setConfirm(null)}
          />
        )}
        <Exports working={working} onExport={exportFile} />
        <Pictures working={working} pictures={pictures} onSave={saveAs} />
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

/** "Share this run": copy the link, download the scenario, the trace hash, and the link once made. */
function ShareRun(props: {
  readonly first: RefObject<HTMLButtonElement | null>;
  readonly working: boolean;
  readonly link: string;
  readonly onCopy: () => Promise<void>;
  readonly onCopyEmbed: () => Promise<void>;
  readonly onDownload: () => Promise<void>;
}) {
  const { first, working, link, onCopy, onCopyEmbed, onDownload } = props;
  const linkId = useId();
  const embedId = useId();
  return (
    <>
      <h3>Share this run</h3>
      <div className="actions">
        <button ref={first} type="button" className="primary" onClick={() => void onCopy()} disabled={working}>
          {SHARE_NAMES.copyLink}
        </button>
        <button type="button" onClick={() => void onDownload()} disabled={working}>
          {SHARE_NAMES.downloadScenario}
        </button>
        <button type="button" onClick={() => void onCopyEmbed()} disabled={working}>
          {SHARE_NAMES.copyEmbed}
        </button>
      </div>
      <TraceHash />
      <LinkField id={linkId} label={SHARE_NAMES.linkField} value={link} placeholder="Press Copy share link" />
      <LinkField
        id={embedId}
        label={SHARE_NAMES.embedField}
        value={link === "" ? "" : embedSnippet(link)}
        placeholder={`Press ${SHARE_NAMES.copyEmbed}: an iframe of ${EMBED_WIDTH}×${EMBED_HEIGHT} for a slide`}
      />
    </>
  );
}

/** "Open a run": a scenario file, or pasted link or scenario text; why one was not opened. */
function OpenRun(props: {
  readonly working: boolean;
  readonly importErrors: readonly string[];
  readonly onFile: (files: FileList | null) => void;
  readonly onOpen: (text: string) => Promise<void>;
}) {
  const { working, importErrors, onFile, onOpen } = props;
  const fileId = useId();
  const pasteId = useId();
  const [pasted, setPasted] = useState("");
  const fileInput = useRef<HTMLInputElement>(null);
  return (
    <>
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
        <button type="button" onClick={() => void onOpen(pasted)} disabled={working || pasted.trim() === ""}>
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
    </>
  );
}

/** Replacing a run with actions of the user's: its link to keep, and a yes or a no. */
function ReplaceConfirm(props: {
  readonly confirm: Confirm;
  readonly working: boolean;
  readonly keep: RefObject<HTMLButtonElement | null>;
  readonly onReplace: () => Promise<void>;
  readonly onKeep: () => void;
}) {
  const { confirm, working, keep, onReplace, onKeep } = props;
  const currentId = useId();
  const confirmTitleId = useId();
  return (
    <section className="notice" aria-labelledby={confirmTitleId} style={{ display: "block" }}>
      <h4 id={confirmTitleId} style={{ margin: 0 }}>
        Replace the current run?
      </h4>
      <p>
        The current run has {confirm.actions} action{confirm.actions === 1 ? "" : "s"} of yours. Opening “{confirm.result.scenario.name}”
        replaces it. Its link is below: keep it to come back to it.
      </p>
      <LinkField id={currentId} label={SHARE_NAMES.currentLink} value={confirm.currentLink} />
      <div className="actions">
        <button type="button" className="primary" onClick={() => void onReplace()} disabled={working}>
          {SHARE_NAMES.confirmReplace}
        </button>
        <button ref={keep} type="button" onClick={onKeep}>
          {SHARE_NAMES.keepCurrent}
        </button>
      </div>
    </section>
  );
}

function Exports({
  working,
  onExport,
}: {
  readonly working: boolean;
  readonly onExport: (what: ExportKind, label: string) => Promise<void>;
}) {
  return (
    <>
      <h3>Exports</h3>
      <div className="actions">
        <button type="button" onClick={() => void onExport("trace", "Exporting the trace")} disabled={working}>
          {SHARE_NAMES.exportTrace}
        </button>
        <button type="button" onClick={() => void onExport("history", "Exporting the client history")} disabled={working}>
          {SHARE_NAMES.exportHistory}
        </button>
      </div>
    </>
  );
}

function Pictures(props: {
  readonly working: boolean;
  readonly pictures: Record<PictureKind, boolean>;
  readonly onSave: (kind: PictureKind, format: PictureFormat) => Promise<void>;
}) {
  const { working, pictures, onSave } = props;
  return (
    <>
      <h3>Pictures</h3>
      <div className="actions">
        {PICTURES.map(([kind, format]) => (
          <button
            key={`${kind}-${format}`}
            type="button"
            onClick={() => void onSave(kind, format)}
            disabled={working || !pictures[kind]}
            title={pictures[kind] ? `The ${PICTURE_WORDS[kind]} as it is now, on white` : `The ${PICTURE_WORDS[kind]} is not on the page yet`}
          >
            {pictureButtonName(kind, format)}
          </button>
        ))}
      </div>
    </>
  );
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
      Trace hash at {formatInstant(now)}: <code data-testid="trace-hash">{hash}</code>
      {now === end ? " (npm run sim prints the same for the downloaded scenario)" : " (move the cursor to the end to compare with npm run sim)"}
    </p>
  );
}

/** A link to copy: read-only, selected whole on focus. */
function LinkField({ id, label, value, placeholder }: { id: string; label: string; value: string; placeholder?: string }) {
  return (
    <div className="form-field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="text"
        readOnly
        value={value}
        placeholder={placeholder}
        onFocus={(e) => e.currentTarget.select()}
        style={{ width: "100%", fontFamily: "monospace" }}
      />
    </div>
  );
}
