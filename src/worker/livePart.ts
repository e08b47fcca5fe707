/** Live mode's part of the worker (parts.ts): the shadow of a live run and the replay of a recording. */
export { ReplaySimulation } from "../core/live/replay";
export { checkReplay, LiveShadow } from "./liveShadow";
