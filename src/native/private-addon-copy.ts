/**
 * Loads a native module whose bytes are in memory (an asset of the one-file build, dist/mlb) without ever giving
 * it a name another user could write to. dlopen(3) takes only a path, and Node offers no memfd_create(2), so:
 *
 * 1. mkdtemp(3) makes a fresh directory, mode 0700, owned by this user (XDG_RUNTIME_DIR first, then the temporary
 *    directory); it is checked again with lstat before use, so a symlink or someone else's directory is refused.
 * 2. The bytes go into an O_TMPFILE file there: an inode with no name at all, reachable only through this
 *    process's descriptor, loaded as /proc/self/fd/N. Where the file system has no O_TMPFILE or /proc is not
 *    mounted, a named file created with O_EXCL inside the private directory is loaded and unlinked at once.
 * 3. The directory is removed; the mapping dlopen made stays. The descriptor of an unnamed file stays open for the
 *    life of the process: glibc's dlopen knows a loaded library by the name it was opened with, so a later
 *    /proc/self/fd/N with N reused would be answered with the earlier library instead of being loaded (seen: the
 *    second addon loaded this way got the first one's exports).
 *
 * A world-writable place shared by name (/tmp/mlb_native.node) would let another local user plant a library that
 * a root daemon then runs.
 */
import {
  closeSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  openSync,
  rmdirSync,
  unlinkSync,
  writeSync,
  constants as fsConstants,
} from 'node:fs';
import { constants as osConstants, tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Linux's __O_TMPFILE bit (include/uapi/asm-generic/fcntl.h; the same on x86, arm and arm64). Node's fs.constants
 * lacks O_TMPFILE; the kernel wants it together with O_DIRECTORY, which fs.constants has for this architecture.
 */
const O_TMPFILE_BIT = 0o20000000;
/** Owner read/write/execute only: the directory and the file. */
const PRIVATE_MODE = 0o700;
/** Any permission bit for the group or others. */
const GROUP_OR_OTHER_BITS = 0o077;
/** The prefix of the private directory's name (mkdtemp adds six random characters). */
const DIRECTORY_PREFIX = 'mlb-addon-';
/** Where a descriptor's file can be opened again by path; missing in a chroot without /proc. */
const OWN_FDS = '/proc/self/fd';

export interface DirectoryFacts {
  readonly isDirectory: boolean;
  readonly isSymbolicLink: boolean;
  readonly uid: number;
  readonly mode: number;
}

/** Why `dir` must not hold a library this process will load, or undefined when it is private to `uid`. */
export function privateDirectoryProblem(dir: DirectoryFacts, uid: number): string | undefined {
  if (dir.isSymbolicLink) return 'it is a symbolic link';
  if (!dir.isDirectory) return 'it is not a directory';
  if (dir.uid !== uid) return `it is owned by uid ${dir.uid}, not ${uid}`;
  if ((dir.mode & GROUP_OR_OTHER_BITS) !== 0) return `its mode ${(dir.mode & 0o777).toString(8)} lets others in`;
  return undefined;
}

/** The directories tried, in order: the user's runtime directory (a private tmpfs), then the temporary directory. */
export function privateDirectoryBases(env: NodeJS.ProcessEnv = process.env): string[] {
  return [env.XDG_RUNTIME_DIR, tmpdir()].filter((d): d is string => typeof d === 'string' && d.length > 0);
}

/** Loads `bytes` as a native module (as process.dlopen would load a file named `name`); throws why it could not. */
export function dlopenPrivateCopy<T>(name: string, bytes: Uint8Array): T {
  const failures: string[] = [];
  for (const base of privateDirectoryBases()) {
    let dir: string;
    try {
      dir = mkdtempSync(join(base, DIRECTORY_PREFIX));
    } catch (error) {
      failures.push(`${base}: ${(error as Error).message}`);
      continue;
    }
    try {
      return loadInPrivateDirectory<T>(dir, name, bytes);
    } catch (error) {
      failures.push(`${base}: ${(error as Error).message}`);
    } finally {
      rmdirSync(dir);
    }
  }
  throw new Error(`no private place to load ${name} from (${failures.join('; ')})`);
}

function loadInPrivateDirectory<T>(dir: string, name: string, bytes: Uint8Array): T {
  const uid = process.getuid?.() ?? -1;
  const stat = lstatSync(dir);
  const problem = privateDirectoryProblem(
    { isDirectory: stat.isDirectory(), isSymbolicLink: stat.isSymbolicLink(), uid: stat.uid, mode: stat.mode },
    uid,
  );
  if (problem !== undefined) throw new Error(`${dir} is not private: ${problem}`);
  const unnamed = existsSync(OWN_FDS) ? openUnnamed(dir) : undefined;
  const named = unnamed === undefined ? join(dir, name) : undefined;
  const fd =
    unnamed ?? openSync(named!, fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_RDWR | fsConstants.O_NOFOLLOW, PRIVATE_MODE);
  let loaded = false;
  try {
    writeAll(fd, bytes);
    const module = { exports: {} as T };
    process.dlopen(module, named ?? `${OWN_FDS}/${fd}`, osConstants.dlopen.RTLD_NOW);
    loaded = true;
    return module.exports;
  } finally {
    if (named !== undefined) {
      closeSync(fd);
      unlinkSync(named);
    } else if (!loaded) closeSync(fd);
  }
}

/** An O_TMPFILE descriptor in `dir`, or undefined where the file system cannot make one (EOPNOTSUPP, EISDIR). */
function openUnnamed(dir: string): number | undefined {
  try {
    return openSync(dir, O_TMPFILE_BIT | fsConstants.O_DIRECTORY | fsConstants.O_RDWR, PRIVATE_MODE);
  } catch {
    return undefined;
  }
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
}
