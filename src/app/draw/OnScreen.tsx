/**
 * A part of the page that is redrawn only while it is on screen (while a run plays; see
 * PanelGate in store.ts). It adds no box around its children: a hidden marker element
 * before them tells it which elements are its own (up to the next part's marker), so
 * the columns' grid and flex layout and their `.col > .panel` rules stay as they were.
 */
import { type ReactNode, useEffect, useRef, useState } from "react";
import { createPanelGate, GateContext, useLabStore } from "../store";

/** How far outside the screen a part counts as on it (it is redrawn just before it scrolls in). */
const MARGIN = "200px 0px";

/** The elements after `marker` up to the next part's marker. */
function ownElements(marker: Element): Element[] {
  const out: Element[] = [];
  for (let el = marker.nextElementSibling; el !== null && !el.hasAttribute("data-on-screen"); el = el.nextElementSibling) out.push(el);
  return out;
}

export function OnScreen({ children }: { readonly children?: ReactNode }) {
  const store = useLabStore();
  const [gate] = useState(() => createPanelGate(store));
  const markerRef = useRef<HTMLSpanElement>(null);
  useEffect(() => {
    const marker = markerRef.current;
    const parent = marker?.parentElement;
    const disconnect = gate.connect();
    if (marker === null || parent === null || parent === undefined || typeof IntersectionObserver === "undefined") return disconnect;
    const seen = new Map<Element, boolean>();
    const io = new IntersectionObserver(
      (entries) => {
        for (const e of entries) seen.set(e.target, e.isIntersecting);
        gate.setOnScreen([...seen.values()].some((v) => v) || seen.size === 0);
      },
      { rootMargin: MARGIN },
    );
    // The part's elements come and go (a lazy panel loads, a panel shows nothing for a while).
    const watch = (): void => {
      const own = ownElements(marker);
      for (const el of [...seen.keys()]) {
        if (own.includes(el)) continue;
        io.unobserve(el);
        seen.delete(el);
      }
      for (const el of own) {
        if (seen.has(el)) continue;
        seen.set(el, true);
        io.observe(el);
      }
      if (own.length === 0) gate.setOnScreen(true);
    };
    watch();
    const mo = new MutationObserver(watch);
    mo.observe(parent, { childList: true });
    return () => {
      mo.disconnect();
      io.disconnect();
      gate.setOnScreen(true);
      disconnect();
    };
  }, [gate]);
  return (
    <GateContext.Provider value={gate}>
      <span ref={markerRef} data-on-screen="" hidden />
      {children}
    </GateContext.Provider>
  );
}
