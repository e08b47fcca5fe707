/** Server rendering of page components for the tests: each render gets a store of its own, as each page has. */
import { createElement, type ReactElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { createLabStore, LabProvider, type LabStore } from "../../src/app/store";

/** The static markup of `el` under a LabProvider with `lab` (a fresh, empty store unless given). */
export function renderWithLab(el: ReactElement, lab: LabStore = createLabStore()): string {
  return renderToStaticMarkup(createElement(LabProvider, { store: lab }, el));
}
