/** The tests drive the worker's host directly, as one message after another: its on-demand parts (src/worker/parts.ts) are loaded first, as the worker loads them before a message needs them. */
import { loadAllParts } from "../../src/worker/parts";

await loadAllParts();
