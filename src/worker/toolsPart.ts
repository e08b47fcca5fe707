/** The worker's tools a first run does not need (parts.ts loads them on demand): checking and measuring the reads, and the scenario export. */
export { branchHistory, checkReads } from "./readCheck";
export { measureHolders, measureReads, withReads } from "./readFigures";
export { exportScenarioText } from "./exporting";
