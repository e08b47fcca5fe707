import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";
import { offline, sitePreview } from "./scripts/deploy.ts";

/**
 * `npm start` runs `vite --open`. On a Linux machine without a display there is no
 * browser to open (and xdg-open may be missing, which Vite reports with a stack trace),
 * so skip opening and say why. An explicit BROWSER setting is left alone.
 */
function openOnlyWithDisplay(): Plugin {
  return {
    name: "lease-lab:open-only-with-display",
    apply: "serve",
    config(config) {
      const headless = process.platform === "linux" && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY && !process.env.BROWSER;
      if (headless && config.server?.open) {
        config.server.open = false;
        console.warn(
          "Lease Lab: no display found (DISPLAY and WAYLAND_DISPLAY are unset), so no browser is opened. Open the Local URL below.",
        );
      }
    },
  };
}

/**
 * The core is pure (no DOM, timers or globals: docs/ARCHITECTURE.md), so a core module
 * nothing uses is left out even when its top level builds tables or zod schemas. The page
 * uses a few of the core's pure functions (words, settings); without this they would pull
 * in the whole simulator, which only the worker runs.
 */
const coreIsPure = (id: string): boolean | undefined => (/[\\/]src[\\/]core[\\/]/.test(id) ? false : undefined);

/** The headers that make the page cross-origin isolated (SharedArrayBuffer, Atomics.wait in workers). A static host must send them too. */
const ISOLATION_HEADERS = { "Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Embedder-Policy": "require-corp" };

export default defineConfig({
  // Relative asset paths: dist/ works from any sub-path of any static host (https://host/any/path/), and the worker loads from beside the page.
  base: "./",
  plugins: [react(), openOnlyWithDisplay(), offline(), sitePreview()],
  worker: { format: "es" },
  build: {
    target: "es2022",
    sourcemap: true,
    minify: process.env.NO_MINIFY ? false : "oxc",
    rolldownOptions: {
      treeshake: { moduleSideEffects: coreIsPure },
      // zod and the scenario file's schema in chunks of their own, loaded only with what parses files and
      // links (never by the first screen): left to itself, the bundler shares one chunk between them and the settings.
      output: {
        codeSplitting: {
          groups: [
            { name: "zod", includeDependenciesRecursively: false, test: /[\\/]node_modules[\\/]zod[\\/]/ },
            { name: "files", includeDependenciesRecursively: false, test: /[\\/]src[\\/]core[\\/](scenario[\\/](schema|actions|fields)|sim[\\/]configSchema|lesson[\\/]schema)\.ts$/ },
          ],
        },
      },
    },
  },
  // Cross-origin isolation, so a live run's pause is a real Atomics.wait on shared memory (src/live/, docs/live.md).
  server: { headers: ISOLATION_HEADERS },
  preview: { port: 4173, headers: ISOLATION_HEADERS },
});
