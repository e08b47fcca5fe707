/**
 * The CLI's input and output files, and its exit statuses (README "Command line",
 * docs/scenarios.md "Running", docs/live.md "Recordings").
 */
import { accessSync, closeSync, constants, openSync, readFileSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { clip } from "../core/sim/time";

export const EXIT_OK = 0;
export const EXIT_VIOLATION = 1;
export const EXIT_BAD_INPUT = 2;
export const EXIT_FAILED = 3;

/** Bad input on the command line or in a file: said with the usage, exit 2, before anything runs. */
export class UsageError extends Error {}

/** An input file's text: only regular files, and not huge ones (a device such as /dev/zero would be read for ever). */
export function readInput(kind: string, file: string, maxBytes: number): string {
  try {
    const st = statSync(file);
    if (!st.isFile()) throw new UsageError(`cannot read ${kind} ${clip(file)}: not a regular file`);
    if (st.size > maxBytes) {
      throw new UsageError(`cannot read ${kind} ${clip(file)}: ${st.size} bytes, over the ${maxBytes / 1024 / 1024} MB limit`);
    }
    return readFileSync(file, "utf8");
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(`cannot read ${kind} ${clip(file)}: ${(e as NodeJS.ErrnoException).code ?? clip((e as Error).message)}`);
  }
}

/** Refuses an output path that cannot be written, before the run (not with a stack trace after it). */
export function checkWritable(option: string, file: string): void {
  let exists = true;
  try {
    const st = statSync(file);
    if (st.isDirectory()) throw new UsageError(`${option} ${clip(file)}: is a directory`);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    if ((e as NodeJS.ErrnoException).code !== "ENOENT")
      throw new UsageError(`${option} ${clip(file)}: ${(e as NodeJS.ErrnoException).code}`);
    exists = false;
  }
  try {
    if (exists) {
      accessSync(file, constants.W_OK);
    } else {
      // Creating the file is the honest test (permissions, a missing directory, a read-only disk).
      const dir = dirname(file);
      accessSync(dir, constants.W_OK);
      closeSync(openSync(file, "w"));
    }
  } catch (e) {
    throw new UsageError(`${option} ${clip(file)} cannot be written: ${(e as NodeJS.ErrnoException).code ?? clip((e as Error).message)}`);
  }
}
