/**
 * The state-files seam (src/runtime/state-files.ts) on a directory: the daemon's --state-dir, every file written
 * atomically by state-dir.ts. Also the one place that turns a module's `stateDir` option into StateFiles, so the
 * modules take either and the speaker can hand them its own store (a simulated node's memory) instead of a path.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { StateFiles } from '../runtime/state-files';
import { ensureStateDir, writeFileAtomic } from './state-dir';

/**
 * The write in progress (or queued last) per path: writeFileAtomic's temporary name is the same for every write
 * to one file from this process, so two writes at once would share it. Module-wide, so two StateFiles on the same
 * directory queue behind each other too.
 */
const lastWrite = new Map<string, Promise<void>>();

function queuedWrite(path: string, contents: string): Promise<void> {
  const previous = lastWrite.get(path) ?? Promise.resolve();
  const write = previous.catch(() => undefined).then(() => writeFileAtomic(path, contents));
  lastWrite.set(path, write);
  const forget = (): void => {
    if (lastWrite.get(path) === write) lastWrite.delete(path);
  };
  write.then(forget, forget);
  return write;
}

export function directoryStateFiles(dir: string): StateFiles {
  const pathOf = (name: string): string => join(dir, name);
  return {
    where: dir,
    pathOf,
    async read(name) {
      try {
        return await readFile(pathOf(name), 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
    writeAtomic: (name, contents) => queuedWrite(pathOf(name), contents),
    prepare: () => ensureStateDir(dir),
  };
}

/**
 * Where a module keeps its files: `stateDir` (a directory, what the daemon passes today) or `stateFiles` (any
 * store: the speaker's own, a simulated node's memory). Exactly one.
 */
export type StateFilesOption =
  { readonly stateDir: string; readonly stateFiles?: undefined } | { readonly stateFiles: StateFiles; readonly stateDir?: undefined };

/** The StateFiles a StateFilesOption names. */
export function stateFilesOf(option: StateFilesOption): StateFiles {
  return option.stateFiles !== undefined ? option.stateFiles : directoryStateFiles(option.stateDir);
}

/** A directory path or a store, as the functions that took a path accept. */
export function asStateFiles(where: string | StateFiles): StateFiles {
  return typeof where === 'string' ? directoryStateFiles(where) : where;
}
