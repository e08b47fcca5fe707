/**
 * Pictures of the ring and the space-time diagram, as SVG or PNG files.
 *
 * The page styles its SVGs with CSS classes, so a bare serialisation would lose its
 * colours: the export inlines the computed values of the properties that matter onto a
 * deep clone, gives it a size, a viewBox and a white background, then serialises it.
 * PNG draws that SVG on a canvas at 2x.
 */

export type PictureKind = "ring" | "spacetime";
export type PictureFormat = "svg" | "png";

export const PICTURE_SELECTOR: Readonly<Record<PictureKind, string>> = {
  ring: 'svg[data-export="ring"]',
  spacetime: 'svg[data-export="spacetime"]',
};

/** In words, for labels: "ring", "space-time diagram". */
export const PICTURE_WORDS: Readonly<Record<PictureKind, string>> = { ring: "ring", spacetime: "space-time diagram" };

/** The properties copied from the computed style, in this order. */
export const INLINED_PROPERTIES: readonly string[] = [
  "fill",
  "fill-opacity",
  "stroke",
  "stroke-width",
  "stroke-dasharray",
  "stroke-opacity",
  "stroke-linecap",
  "stroke-linejoin",
  "opacity",
  "font-family",
  "font-size",
  "font-weight",
  "font-style",
  "text-anchor",
  "dominant-baseline",
  "display",
  "visibility",
];

/** Inherited properties (all but opacity and display): written only where they differ from the parent's (the clone then inherits the same value). */
const INHERITED: ReadonlySet<string> = new Set(INLINED_PROPERTIES.filter((p) => p !== "opacity" && p !== "display"));

/** Initial values of the properties that are not inherited: left out when an element has them. */
const INITIAL: Readonly<Record<string, string>> = { opacity: "1", display: "inline" };

/** What inlining needs of an element (a DOM Element has all of it). */
export interface StyledElement {
  readonly children: ArrayLike<StyledElement>;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
}

export interface ComputedLike {
  getPropertyValue(name: string): string;
}

/**
 * Copies the computed styles of `source` and its descendants onto `target`, an
 * identical deep clone of it, as style attributes. `computed` is getComputedStyle on a
 * page. The top element gets every property; below it, an inherited property is written
 * only where it differs from the parent's value, so the file stays small.
 */
export function inlineStyles(source: StyledElement, target: StyledElement, computed: (el: StyledElement) => ComputedLike): void {
  const walk = (src: StyledElement, dst: StyledElement, parent: ReadonlyMap<string, string> | null): void => {
    const style = computed(src);
    const own = new Map<string, string>();
    const decls: string[] = [];
    for (const p of INLINED_PROPERTIES) {
      const v = style.getPropertyValue(p).trim();
      own.set(p, v);
      if (v === "") continue;
      if (parent !== null && INHERITED.has(p) && parent.get(p) === v) continue;
      if (parent !== null && INITIAL[p] === v) continue;
      decls.push(`${p}: ${v}`);
    }
    if (decls.length > 0) {
      const old = (dst.getAttribute("style") ?? "").trim().replace(/;$/, "");
      dst.setAttribute("style", old === "" ? decls.join("; ") : `${old}; ${decls.join("; ")}`);
    }
    const n = Math.min(src.children.length, dst.children.length);
    for (let i = 0; i < n; i++) walk(src.children[i] as StyledElement, dst.children[i] as StyledElement, own);
  };
  walk(source, target, null);
}

export interface PictureBox {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/**
 * The picture's box: the SVG's own viewBox when it has one, else its size on screen
 * (then the viewBox starts at 0 0). Width and height are the size on screen, or the
 * viewBox's when the SVG is not laid out.
 */
export function pictureBox(viewBoxAttr: string | null, shown: { width: number; height: number }): { viewBox: PictureBox; width: number; height: number } {
  const nums = (viewBoxAttr ?? "")
    .trim()
    .split(/[\s,]+/)
    .map(Number);
  const vb =
    nums.length === 4 && nums.every(Number.isFinite) && (nums[2] as number) > 0 && (nums[3] as number) > 0
      ? { x: nums[0] as number, y: nums[1] as number, width: nums[2] as number, height: nums[3] as number }
      : null;
  const width = shown.width > 0 ? shown.width : (vb?.width ?? 300);
  const height = shown.height > 0 ? shown.height : (vb?.height ?? 150);
  return { viewBox: vb ?? { x: 0, y: 0, width, height }, width: Math.round(width), height: Math.round(height) };
}

/** "lease-lab-seed-7-ring-at-12.345s.svg": the run, the picture, the moment shown. */
export function pictureFilename(kind: PictureKind, seed: number, nowUs: number, format: PictureFormat): string {
  const secs = Number((nowUs / 1_000_000).toFixed(6));
  return `lease-lab-seed-${seed}-${kind}-at-${secs}s.${format}`;
}

const SVG_NS = "http://www.w3.org/2000/svg";

/** The SVG on the page as a standalone file: styles inlined, sized, on white. */
export function svgFileText(svg: SVGSVGElement): { text: string; width: number; height: number } {
  const clone = svg.cloneNode(true) as SVGSVGElement;
  const view = svg.ownerDocument.defaultView;
  if (view !== null) inlineStyles(svg as unknown as StyledElement, clone as unknown as StyledElement, (el) => view.getComputedStyle(el as unknown as Element));
  const r = svg.getBoundingClientRect();
  const box = pictureBox(svg.getAttribute("viewBox"), { width: r.width, height: r.height });
  clone.setAttribute("xmlns", SVG_NS);
  clone.setAttribute("xmlns:xlink", "http://www.w3.org/1999/xlink");
  clone.setAttribute("width", String(box.width));
  clone.setAttribute("height", String(box.height));
  clone.setAttribute("viewBox", `${box.viewBox.x} ${box.viewBox.y} ${box.viewBox.width} ${box.viewBox.height}`);
  // Sized by its attributes now, not by the page's layout.
  clone.style.removeProperty("width");
  clone.style.removeProperty("height");
  clone.style.removeProperty("max-width");
  const bg = svg.ownerDocument.createElementNS(SVG_NS, "rect");
  bg.setAttribute("x", String(box.viewBox.x));
  bg.setAttribute("y", String(box.viewBox.y));
  bg.setAttribute("width", String(box.viewBox.width));
  bg.setAttribute("height", String(box.viewBox.height));
  bg.setAttribute("fill", "#ffffff");
  bg.setAttribute("data-export-background", "");
  clone.insertBefore(bg, clone.firstChild);
  const text = `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(clone)}`;
  return { text, width: box.width, height: box.height };
}

/** Largest side of the PNG in pixels (browsers refuse far larger canvases). */
export const MAX_PNG_SIDE = 16_384;

/** The PNG scale: 2x, less when that would make a side larger than MAX_PNG_SIDE. */
export function pngScale(width: number, height: number, wanted = 2): number {
  return Math.max(0.01, Math.min(wanted, MAX_PNG_SIDE / Math.max(1, width), MAX_PNG_SIDE / Math.max(1, height)));
}

/** Draws SVG text on a canvas (white background) and encodes it as PNG. */
export async function svgToPng(svgText: string, width: number, height: number): Promise<Blob> {
  const scale = pngScale(width, height);
  const url = URL.createObjectURL(new Blob([svgText], { type: "image/svg+xml;charset=utf-8" }));
  try {
    const img = new Image();
    await new Promise<void>((resolve, reject) => {
      img.onload = () => resolve();
      img.onerror = () => reject(new Error("the browser could not draw the SVG as an image"));
      img.src = url;
    });
    const canvas = document.createElement("canvas");
    canvas.width = Math.max(1, Math.round(width * scale));
    canvas.height = Math.max(1, Math.round(height * scale));
    const ctx = canvas.getContext("2d");
    if (ctx === null) throw new Error("this browser gives no 2D canvas");
    ctx.fillStyle = "#ffffff";
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
    const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, "image/png"));
    if (blob === null) throw new Error("the canvas could not be encoded as PNG");
    return blob;
  } finally {
    URL.revokeObjectURL(url);
  }
}
