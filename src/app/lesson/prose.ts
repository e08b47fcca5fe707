/**
 * A lesson's prose as pieces for the page: plain text, and glossary terms marked
 * [[term]] or [[term|shown words]] with their definitions.
 */
export type ProsePiece =
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "term"; readonly term: string; readonly text: string; readonly definition: string | null };

const MARK = /\[\[([^\]|]+)(?:\|([^\]]*))?\]\]/g;

/** Splits prose at its [[term]] marks; a term's definition comes from `glossary` (case-insensitive), null when missing. */
export function prosePieces(text: string, glossary: ReadonlyMap<string, string>): ProsePiece[] {
  const out: ProsePiece[] = [];
  let at = 0;
  for (const m of text.matchAll(MARK)) {
    const start = m.index ?? 0;
    if (start > at) out.push({ kind: "text", text: text.slice(at, start) });
    const term = (m[1] as string).trim();
    const shown = m[2]?.trim();
    out.push({ kind: "term", term, text: shown === undefined || shown === "" ? term : shown, definition: glossary.get(term.toLowerCase()) ?? null });
    at = start + m[0].length;
  }
  if (at < text.length) out.push({ kind: "text", text: text.slice(at) });
  return out;
}
