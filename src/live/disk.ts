/**
 * A live process's disk: a file of its own on the origin's private file system, written through
 * a synchronous access handle (so a write is done, flushed, before the worker sends anything
 * that depends on it), in a folder per run. Where that is missing (an old browser, a private
 * window), the page keeps the disk in memory: the worker posts it each time before sending,
 * and a restarted worker gets it back. Which one a run uses is shown with the threads.
 */
import type { DiskKind } from "./protocol";

/** The parts of the file system's synchronous access handle used here (lib.dom's types lack them). */
interface SyncHandle {
  getSize(): number;
  read(buffer: Uint8Array, options: { at: number }): number;
  write(buffer: Uint8Array, options: { at: number }): number;
  truncate(size: number): void;
  flush(): void;
  close(): void;
}

export interface ProcessDisk {
  readonly kind: DiskKind;
  /** Why the file system is not used, when it is not. */
  readonly note: string | null;
  read(): string | null;
  write(text: string): void;
  close(): void;
}

/** The folder every live run's disks are in. */
export const LIVE_DIR = "lease-lab-live";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Opens `id`'s disk in the run's folder; `memory` is the page's copy, used when there is no file system. */
export async function openDisk(runDir: string, id: string, memory: string | null, post: (text: string) => void): Promise<ProcessDisk> {
  try {
    const handle = await openFile(runDir, `${id}.json`);
    return {
      kind: "opfs",
      note: null,
      read() {
        const size = handle.getSize();
        if (size === 0) return null;
        const buf = new Uint8Array(size);
        handle.read(buf, { at: 0 });
        return decoder.decode(buf);
      },
      write(text) {
        const bytes = encoder.encode(text);
        handle.write(bytes, { at: 0 });
        handle.truncate(bytes.length);
        handle.flush();
      },
      close: () => handle.close(),
    };
  } catch (e) {
    let text = memory;
    return {
      kind: "memory",
      note: `the browser's private file system is not available here (${e instanceof Error ? e.message : String(e)}): the page keeps each disk in memory`,
      read: () => text,
      write(t) {
        text = t;
        post(t);
      },
      close() {},
    };
  }
}

async function openFile(runDir: string, name: string): Promise<SyncHandle> {
  const root = await navigator.storage.getDirectory();
  const dir = await (await root.getDirectoryHandle(LIVE_DIR, { create: true })).getDirectoryHandle(runDir, { create: true });
  const file = (await dir.getFileHandle(name, { create: true })) as FileSystemFileHandle & { createSyncAccessHandle?: () => Promise<SyncHandle> };
  if (file.createSyncAccessHandle === undefined) throw new Error("no synchronous file access in this browser");
  // A terminated worker's handle is let go a moment after it dies: its restarted worker waits for it.
  for (let attempt = 0; ; attempt++) {
    try {
      return await file.createSyncAccessHandle();
    } catch (e) {
      if (attempt >= 40 || !(e instanceof DOMException) || e.name !== "NoModificationAllowedError") throw e;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

/** Reads a process's disk from the page (a terminated process's, for its digest), or null. */
export async function readDiskFile(runDir: string, id: string): Promise<string | null> {
  try {
    const root = await navigator.storage.getDirectory();
    const dir = await (await root.getDirectoryHandle(LIVE_DIR)).getDirectoryHandle(runDir);
    const file = await (await dir.getFileHandle(`${id}.json`)).getFile();
    return await file.text();
  } catch {
    return null;
  }
}

/** Removes the disks of earlier runs (all but `keep`). */
export async function clearOldRuns(keep: string): Promise<void> {
  try {
    const root = await navigator.storage.getDirectory();
    const dir = await root.getDirectoryHandle(LIVE_DIR, { create: true });
    const names: string[] = [];
    for await (const name of (dir as unknown as { keys(): AsyncIterable<string> }).keys()) names.push(name);
    for (const name of names) if (name !== keep) await dir.removeEntry(name, { recursive: true }).catch(() => {});
  } catch {
    // No file system: nothing to clear.
  }
}
