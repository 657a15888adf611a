/**
 * The daemon's state directory (--state-dir): what must survive a restart. Every file is written atomically
 * (temporary file, fsync, rename, fsync of the directory), so a crash mid-write leaves the old file, never a
 * torn one.
 */
import { mkdir, open, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';

/** Only the daemon reads its state: it holds cluster membership (and later the allocation table). */
export const STATE_DIR_MODE = 0o700;
const STATE_FILE_MODE = 0o600;

export class StateDirError extends Error {
  readonly code = 'stateDirUnusable';
}

export async function ensureStateDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: STATE_DIR_MODE });
    const probe = join(dir, '.write-test');
    await writeFileAtomic(probe, '');
  } catch (error) {
    throw new StateDirError(`--state-dir ${dir} is not a writable directory: ${(error as Error).message}`);
  }
}

export async function writeFileAtomic(path: string, contents: string): Promise<void> {
  const temporary = `${path}.tmp-${process.pid}`;
  const file = await open(temporary, 'w', STATE_FILE_MODE);
  try {
    await file.writeFile(contents);
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(temporary, path);
  const directory = await open(join(path, '..'), 'r');
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}

/** A JSON state file, or undefined when it does not exist yet; a damaged one is reported, not trusted. */
export async function readJSONState<T>(path: string, isValid: (v: unknown) => v is T): Promise<T | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const value: unknown = JSON.parse(text);
  if (!isValid(value)) throw new StateDirError(`${path} does not hold what mlb wrote there; move it aside to start fresh`);
  return value;
}
