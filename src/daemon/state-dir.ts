/**
 * The daemon's state directory (--state-dir): what must survive a restart. Every file is written atomically
 * (temporary file, fsync, rename, fsync of the directory), so a crash mid-write leaves the old file, never a
 * torn one. A write that fails removes its temporary file; one a crash left behind is removed at the next start
 * (removeStaleTemporaryFiles), so the directory holds only mlb's records. The daemon's modules reach these files
 * through the StateFiles seam (directory-state-files.ts), so a simulated node can keep its state in memory.
 */
import { lstat, mkdir, open, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CodedError } from '../errors/coded-error';
import type { StateFiles } from '../runtime/state-files';

/** Only the daemon reads its state: it holds cluster membership (and later the allocation table). */
const STATE_DIR_MODE = 0o700;
const STATE_FILE_MODE = 0o600;

type StateDirErrorCode =
  /** The directory cannot be created or written. */
  | 'stateDirUnusable'
  /** A state file holds something mlb did not write there. */
  | 'stateFileDamaged';

class StateDirError extends CodedError<StateDirErrorCode> {}

/**
 * Creates the directory if needed, removes temporary files a crashed writer left (returned, for the log), and
 * proves the directory writable.
 */
export async function ensureStateDir(dir: string): Promise<string[]> {
  try {
    await mkdir(dir, { recursive: true, mode: STATE_DIR_MODE });
    const removed = await removeStaleTemporaryFiles(dir);
    const probe = join(dir, '.write-test');
    await writeFileAtomic(probe, '');
    return removed;
  } catch (error) {
    throw new StateDirError('stateDirUnusable', `--state-dir ${dir} is not a writable directory: ${(error as Error).message}`);
  }
}

/**
 * The temporary file writeFileAtomic uses for `path`: one per file and process, so writes to one file from one
 * process must run one after another (directory-state-files.ts queues the daemon's writes per file).
 */
export function temporaryPathFor(path: string): string {
  return `${path}.tmp-${process.pid}`;
}

const TEMPORARY_NAME = /^.+\.tmp-(\d+)$/;

/** The process id in a temporary file's name (temporaryPathFor's pattern), undefined for any other name. Pure. */
export function temporaryFileWriter(name: string): number | undefined {
  const match = TEMPORARY_NAME.exec(name);
  return match ? Number(match[1]) : undefined;
}

/**
 * Whether a leftover temporary file may be deleted (pure): its writer is gone, or has this process's id, which
 * at start-up can only mean an earlier process with the same id (a container's pid 1 after a restart).
 */
export function isStaleTemporaryFile(writer: number, ownPid: number, isRunning: (pid: number) => boolean): boolean {
  return writer === ownPid || !isRunning(writer);
}

/** Whether a process with this id exists (signal 0 checks without sending; EPERM means it exists as another user). */
function processIsRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the regular files in `dir` named like temporaryPathFor's whose writer is no longer running (a crash or
 * kill -9 mid-write); a live writer's file and anything that is not a regular file are left alone. Call it at
 * start-up, before this process writes there. Returns the paths removed.
 */
export async function removeStaleTemporaryFiles(dir: string, isRunning: (pid: number) => boolean = processIsRunning): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(dir)) {
    const writer = temporaryFileWriter(name);
    if (writer === undefined || !isStaleTemporaryFile(writer, process.pid, isRunning)) continue;
    const path = join(dir, name);
    const stat = await lstat(path).catch(() => undefined);
    if (!stat?.isFile()) continue;
    // One that cannot be removed is harmless (only its name is ours): never a reason not to start.
    if (
      await unlink(path).then(
        () => true,
        () => false,
      )
    )
      removed.push(path);
  }
  return removed;
}

/**
 * Replaces `path` with `contents`. When it rejects, the temporary file is gone and `path` holds its old contents
 * (unless only the final fsync of the directory failed: then the new contents are in place but may not survive a
 * power cut).
 */
export async function writeFileAtomic(path: string, contents: string): Promise<void> {
  const temporary = temporaryPathFor(path);
  // Nothing to clean up when open fails: it created nothing (or the path is not ours, e.g. a directory).
  const file = await open(temporary, 'w', STATE_FILE_MODE);
  try {
    try {
      await file.writeFile(contents);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
  const directory = await open(dirname(path), 'r');
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}

/**
 * The guard for callers that check a state file's shape themselves, each with its own more specific error: any
 * JSON value passes (JSON.parse never returns undefined).
 */
export function isAnyJSON(value: unknown): value is unknown {
  return value !== undefined;
}

/**
 * A JSON state file, or undefined when it does not exist yet. A file that is not JSON throws the SyntaxError, one
 * that fails `isValid` a StateDirError (stateFileDamaged); callers decide what a damaged file means.
 */
export async function readJSONState<T>(path: string, isValid: (v: unknown) => v is T): Promise<T | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return parseJSONState(text, path, isValid);
}

/** readJSONState through the state-files seam (the daemon's modules read their files this way). */
export async function readStateFileJSON<T>(files: StateFiles, name: string, isValid: (v: unknown) => v is T): Promise<T | undefined> {
  const text = await files.read(name);
  return text === undefined ? undefined : parseJSONState(text, files.pathOf(name), isValid);
}

/** A state file's text as JSON (pure): the SyntaxError when it is not JSON, stateFileDamaged when not `isValid`. */
function parseJSONState<T>(text: string, path: string, isValid: (v: unknown) => v is T): T {
  const value: unknown = JSON.parse(text);
  if (!isValid(value))
    throw new StateDirError('stateFileDamaged', `${path} does not hold what mlb wrote there; move it aside to start fresh`);
  return value;
}
