/**
 * Share links: a whole run in the URL's hash, `#run=1.<payload>`, where the payload is
 * base64url (no padding) of the deflate-raw-compressed scenario JSON. The scenario
 * (settings, seed, the user's timed actions, `ui.at` for the cursor) reproduces the run
 * exactly, so the link is all another browser needs.
 *
 * Decoding never trusts the link: every way it can be wrong (an unknown version, not
 * base64url, damaged or cut-short compressed data, too large once unpacked, not JSON,
 * a scenario that does not validate) gives its own message, naming what is wrong.
 *
 * Pure apart from the standard CompressionStream / DecompressionStream (async; in every
 * current browser and in Node 20).
 */
import type { Scenario } from "../../core/scenario/schema";
import { HASH_KEY, runPayloadFromHash } from "./linkHash";

/** The link format version written by encode; the `1.` in `#run=1.`. */
export const LINK_VERSION = 1;
/**
 * A link's scenario may be at most this large once unpacked (bytes), so unpacking a hostile
 * link stays cheap. (Running it is bounded by the worker: it opens a run in at most a few
 * seconds, and the schema keeps the nemesis from acting more than once a millisecond.)
 */
export const MAX_SCENARIO_BYTES = 1_000_000;
/** Longest payload looked at (characters); deflate never makes data much larger, so a valid link is always shorter. */
export const MAX_PAYLOAD_CHARS = Math.ceil((MAX_SCENARIO_BYTES * 4) / 3) + 1024;

export type DecodeResult =
  | { readonly ok: true; readonly scenario: Scenario; /** The scenario JSON as carried (compact). */ readonly text: string }
  | { readonly ok: false; readonly errors: readonly string[] };

const B64URL = /^[A-Za-z0-9_-]*$/;
const MB = (bytes: number): string => `${Math.round((bytes / 1_000_000) * 10) / 10} MB`;

/** Scenario JSON without the whitespace (the link carries exactly the same fields and values). */
export function compactScenarioText(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text;
  }
}

// ---- base64url ----

export function toBase64Url(bytes: Uint8Array): string {
  let bin = "";
  const CHUNK = 0x8000;
  for (let i = 0; i < bytes.length; i += CHUNK) bin += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** base64url (padding optional) -> bytes, or a message saying what is wrong. */
export function fromBase64Url(s: string): { ok: true; bytes: Uint8Array } | { ok: false; error: string } {
  const body = s.replace(/=+$/, "");
  if (!B64URL.test(body)) {
    const i = [...body].findIndex((c) => !/[A-Za-z0-9_-]/.test(c));
    const bad = [...body][i] ?? "?";
    return {
      ok: false,
      error: `The share link is damaged: its data is not base64url (it has ${JSON.stringify(bad)} at position ${i + 1}; only letters, digits, "-" and "_" belong there).`,
    };
  }
  if (body.length % 4 === 1)
    return { ok: false, error: "The share link is damaged or cut short: its base64url data has an impossible length. Copy the whole link again." };
  const bin = atob(body.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (body.length % 4)) % 4));
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return { ok: true, bytes };
}

// ---- deflate-raw ----

async function readAll(stream: ReadableStream<Uint8Array>, cap: number): Promise<{ ok: true; bytes: Uint8Array } | { ok: false; tooLarge: true }> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > cap) {
      await reader.cancel().catch(() => {});
      return { ok: false, tooLarge: true };
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return { ok: true, bytes: out };
}

function through(bytes: Uint8Array, transform: CompressionStream | DecompressionStream): ReadableStream<Uint8Array> {
  const writer = transform.writable.getWriter();
  // Errors surface on the readable side; these promises only need to be handled.
  writer.write(bytes as Uint8Array<ArrayBuffer>).catch(() => {});
  writer.close().catch(() => {});
  return transform.readable as ReadableStream<Uint8Array>;
}

export async function deflateRaw(bytes: Uint8Array): Promise<Uint8Array> {
  const r = await readAll(through(bytes, new CompressionStream("deflate-raw")), Number.POSITIVE_INFINITY);
  if (!r.ok) throw new Error("unreachable");
  return r.bytes;
}

/** Inflates at most `cap` bytes: past that it stops and says so. */
export async function inflateRaw(
  bytes: Uint8Array,
  cap: number,
): Promise<{ ok: true; bytes: Uint8Array } | { ok: false; tooLarge: true } | { ok: false; tooLarge: false; reason: string }> {
  try {
    return await readAll(through(bytes, new DecompressionStream("deflate-raw")), cap);
  } catch (e) {
    return { ok: false, tooLarge: false, reason: e instanceof Error ? e.message : String(e) };
  }
}

// ---- links ----

/** Scenario JSON text -> the hash payload "1.<base64url>" (whitespace dropped first). */
export async function encodeRunPayload(scenarioText: string): Promise<string> {
  const bytes = new TextEncoder().encode(compactScenarioText(scenarioText));
  return `${LINK_VERSION}.${toBase64Url(await deflateRaw(bytes))}`;
}

/** The URL hash for a scenario: "#run=1.<base64url>". */
export async function encodeRunHash(scenarioText: string): Promise<string> {
  return `#${HASH_KEY}=${await encodeRunPayload(scenarioText)}`;
}

/** A full share link: `base` (origin + path) followed by the run hash. */
export async function shareLink(base: string, scenarioText: string): Promise<string> {
  return `${base}${await encodeRunHash(scenarioText)}`;
}

/** The size of the embedded lab: what ?embed=1 is laid out for (a 16:9 slide's content area). */
export const EMBED_WIDTH = 800;
export const EMBED_HEIGHT = 450;

/** A value inside a double-quoted HTML attribute. */
function attr(v: string): string {
  return v.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** The embed address of a share link: the same run (its #run=…) in embed mode (?embed=1), other query parameters dropped. */
export function embedUrl(shareUrl: string): string {
  const url = new URL(shareUrl);
  url.search = "?embed=1";
  return url.href;
}

/**
 * The HTML to paste into a slide or a course page: an 800×450 iframe of the run in embed
 * mode (the cluster and its controls, and a link out to the full lab).
 */
export function embedSnippet(shareUrl: string, title = "Lease Lab: a shared run"): string {
  return `<iframe src="${attr(embedUrl(shareUrl))}" width="${EMBED_WIDTH}" height="${EMBED_HEIGHT}" title="${attr(title)}" style="border:0" loading="lazy" allowfullscreen></iframe>`;
}


/**
 * Scenario text -> the scenario, or its errors each starting with `prefix` (linkCheck.ts).
 * The scenario schema (and zod) is a chunk of its own, loaded when a link or a file is
 * opened: a page opened without one never loads it.
 */
export async function checkScenarioText(text: string, prefix: string): Promise<DecodeResult> {
  const { checkScenario } = await import("./linkCheck");
  return checkScenario(text, prefix);
}

/** "1.<base64url>" -> the scenario it carries, or every problem with it, in words. */
export async function decodeRunPayload(payload: string): Promise<DecodeResult> {
  const p = payload.trim();
  if (p === "") return { ok: false, errors: ["The share link is empty: nothing follows #run=. Copy the whole link again."] };
  const dot = p.indexOf(".");
  const version = dot < 0 ? "" : p.slice(0, dot);
  if (!/^\d{1,6}$/.test(version))
    return {
      ok: false,
      errors: [`The share link has no version: its data should start with "${LINK_VERSION}." (as in #run=${LINK_VERSION}.…). It may be damaged or from something else.`],
    };
  if (Number(version) !== LINK_VERSION)
    return {
      ok: false,
      errors: [
        `The share link is version ${Number(version)}, which this Lease Lab cannot read (it reads version ${LINK_VERSION} links). It may come from a newer Lease Lab.`,
      ],
    };
  const data = p.slice(dot + 1);
  if (data.length > MAX_PAYLOAD_CHARS)
    return {
      ok: false,
      errors: [`The share link is too large: ${data.length} characters of data (at most ${MAX_PAYLOAD_CHARS} are read, for a scenario of at most ${MB(MAX_SCENARIO_BYTES)}).`],
    };
  const b = fromBase64Url(data);
  if (!b.ok) return { ok: false, errors: [b.error] };
  const inflated = await inflateRaw(b.bytes, MAX_SCENARIO_BYTES);
  if (!inflated.ok) {
    return {
      ok: false,
      errors: [
        inflated.tooLarge
          ? `The share link is too large: its scenario unpacks to more than ${MB(MAX_SCENARIO_BYTES)}, the most Lease Lab reads from a link.`
          : `The share link is damaged or cut short: its data cannot be decompressed (${inflated.reason}). Copy the whole link again.`,
      ],
    };
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(inflated.bytes);
  } catch {
    return { ok: false, errors: ["The share link is damaged: its data unpacks to something that is not text (not UTF-8)."] };
  }
  try {
    JSON.parse(text);
  } catch (e) {
    return { ok: false, errors: [`The share link's data is not JSON, so it is not a scenario: ${(e as Error).message}`] };
  }
  return checkScenarioText(text, "The share link's scenario is not valid: ");
}

/** Decodes the run a URL hash carries; null when it carries none. */
export async function decodeRunHash(hash: string): Promise<DecodeResult | null> {
  const payload = runPayloadFromHash(hash);
  return payload === null ? null : decodeRunPayload(payload);
}

/**
 * What the user pasted or imported: a share link (a whole URL, or just "#run=…"), or
 * scenario JSON. Scenario errors name the field ("actions[2].node: …").
 */
export async function parseShareInput(input: string): Promise<DecodeResult> {
  const s = input.trim();
  if (s === "") return { ok: false, errors: ["Nothing to open: paste a share link or a scenario (JSON), or choose a scenario file."] };
  if (s.length > MAX_SCENARIO_BYTES + MAX_PAYLOAD_CHARS)
    return { ok: false, errors: [`That is too large to open: at most ${MB(MAX_SCENARIO_BYTES)}.`] };
  if (s.startsWith("{") || s.startsWith("[")) {
    if (new TextEncoder().encode(s).length > MAX_SCENARIO_BYTES)
      return { ok: false, errors: [`The scenario is too large: at most ${MB(MAX_SCENARIO_BYTES)}.`] };
    return checkScenarioText(s, "The scenario is not valid: ");
  }
  const hashAt = s.indexOf("#");
  if (hashAt >= 0) {
    const payload = runPayloadFromHash(s.slice(hashAt));
    if (payload === null)
      return { ok: false, errors: [`That link carries no run: a share link ends in #${HASH_KEY}=${LINK_VERSION}.… (copy it with "Copy share link").`] };
    return decodeRunPayload(payload);
  }
  if (s.startsWith(`${HASH_KEY}=`)) return decodeRunPayload(s.slice(HASH_KEY.length + 1));
  if (/^\d+\./.test(s)) return decodeRunPayload(s);
  return {
    ok: false,
    errors: [`That is neither a share link (…#${HASH_KEY}=${LINK_VERSION}.…) nor a scenario (JSON starting with "{").`],
  };
}
