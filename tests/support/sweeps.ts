import { join } from "node:path";

/** The sweep tests' scenarios, shipped as files so a failing seed can be rerun from the CLI. */
export const sweeps = join(import.meta.dirname, "../../scenarios/sweeps");

/** The command that reruns exactly the run a sweep test made for `seed`. */
export function reproduce(file: string, seed: number): string {
  return `npm run sim -- --scenario scenarios/sweeps/${file} --seed ${seed}`;
}
