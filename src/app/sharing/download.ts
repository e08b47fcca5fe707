/** Saving files from the page: a Blob, an object URL and a temporary <a download>. */

/** Offers `blob` as a download named `filename`. */
export function downloadBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  a.rel = "noopener";
  a.style.display = "none";
  document.body.appendChild(a);
  a.click();
  a.remove();
  // Some browsers read the URL after click() returns: revoke it a little later.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Offers text as a download (UTF-8). */
export function downloadText(text: string, filename: string, mime: string): void {
  const type = /charset=/i.test(mime) ? mime : `${mime};charset=utf-8`;
  downloadBlob(new Blob([text], { type }), filename);
}

/** A name that is safe as a file name on every system: letters, digits, ".", "-" and "_". */
export function safeFilename(name: string, fallback = "lease-lab-export"): string {
  const cleaned = name
    .normalize("NFKD")
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/-{2,}/g, "-")
    .replace(/-+\./g, ".")
    .replace(/^[-.]+|[-.]+$/g, "");
  return cleaned === "" ? fallback : cleaned.slice(0, 120);
}
