/**
 * The share dialog's accessible names, apart from the dialog (ShareMenu.tsx), which loads
 * only when opened: the button that opens it needs them on the first screen.
 */

/** Accessible names of the controls (the end-to-end tests use these). */
export const SHARE_NAMES = {
  open: "Share & export",
  dialog: "Share & export",
  copyLink: "Copy share link",
  linkField: "Share link",
  copyEmbed: "Copy embed code",
  embedField: "Embed code for slides (800×450)",
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
