/**
 * Reads what --config names: one file (read-config-file.ts), or a directory of them (config-directory.ts), each
 * file read with every check a single file gets (regular file only, size limit, changed while read). Adapter:
 * files only. Identities are texts, so the watcher compares a directory's files as it compares one file's stat.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type Diagnostic, DiagnosticCode } from '../../model';
import { type ConfigPart, configFileNames, joinConfigFiles, joinedSizeProblem, noConfigFilesProblem } from './config-directory';
import { type ConfigFileRead, type FileIdentity, readConfigFile } from './read-config-file';

export type ConfigSourceRead =
  /** parts: the files a directory's text was joined from (undefined for a single file). */
  | { readonly ok: true; readonly bytes: Uint8Array; readonly identity: string; readonly parts?: readonly ConfigPart[] }
  | { readonly ok: false; readonly diagnostic: Diagnostic; readonly changing: boolean; readonly identity?: string };

function fileKey(identity: FileIdentity): string {
  return `${identity.size}:${identity.mtimeMs}:${identity.ino}`;
}

function directoryKey(entries: readonly (readonly [string, FileIdentity | undefined])[]): string {
  return `dir ${entries.map(([name, identity]) => `${name}=${identity ? fileKey(identity) : 'gone'}`).join(' ')}`;
}

/** True when `path` is a directory (follows links); rejects with the fs error when it cannot be stat'ed. */
export async function isDirectory(path: string): Promise<boolean> {
  return (await stat(path)).isDirectory();
}

/** What tells one version of the configuration from the next without reading it; undefined when it cannot be stat'ed. */
export async function statSourceIdentity(path: string): Promise<string | undefined> {
  return (await statSource(path))?.identity;
}

/**
 * The identity, and when the file (of a directory: any of its files, or the directory itself) was last touched:
 * the latest ctime, which every write, rename onto it, chmod or utime moves to the moment it happened (stat(2)),
 * so no change can have happened since.
 */
export async function statSource(path: string): Promise<{ readonly identity: string; readonly touchedMs: number } | undefined> {
  try {
    const s = await stat(path);
    if (!s.isDirectory()) return { identity: fileKey(s), touchedMs: s.ctimeMs };
    const names = configFileNames(await readdir(path));
    const identities = await Promise.all(names.map(async (name) => [name, await stat(join(path, name)).catch(() => undefined)] as const));
    const touchedMs = Math.max(s.ctimeMs, ...identities.map(([, i]) => i?.ctimeMs ?? s.ctimeMs));
    return { identity: directoryKey(identities), touchedMs };
  } catch {
    return undefined;
  }
}

function withKey(read: ConfigFileRead): ConfigSourceRead {
  const identity = read.identity ? fileKey(read.identity) : undefined;
  if (read.ok) return { ok: true, bytes: read.bytes, identity: identity as string };
  return { ok: false, diagnostic: read.diagnostic, changing: read.changing, ...(identity ? { identity } : {}) };
}

/**
 * Reads `path` (named `display` in messages). Rejects with the fs error when the path itself cannot be read; a
 * refused file (of a directory: the first one refused) is a refusal naming that file.
 */
export async function readConfigSource(path: string, display: string, maxBytes: number): Promise<ConfigSourceRead> {
  if (!(await isDirectory(path))) return withKey(await readConfigFile(path, display, maxBytes));
  const names = configFileNames(await readdir(path));
  if (names.length === 0) return { ok: false, diagnostic: noConfigFilesProblem(display), changing: false, identity: directoryKey([]) };
  const files: { file: string; bytes: Uint8Array }[] = [];
  const identities: [string, FileIdentity][] = [];
  for (const name of names) {
    const file = join(display, name);
    let read: ConfigFileRead;
    try {
      read = await readConfigFile(join(path, name), file, maxBytes);
    } catch (error) {
      // Listed, then gone: the directory changed while it was read (a file renamed away, an editor's save).
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      return {
        ok: false,
        changing: true,
        diagnostic: { severity: 'error', code: DiagnosticCode.fileChanging, message: `${file} went away while ${display} was being read` },
      };
    }
    if (!read.ok) return withKey(read);
    files.push({ file, bytes: read.bytes });
    identities.push([name, read.identity]);
  }
  const total = files.reduce((sum, f) => sum + f.bytes.length, 0);
  const tooLarge = joinedSizeProblem(total, maxBytes, display);
  const identity = directoryKey(identities);
  if (tooLarge) return { ok: false, diagnostic: tooLarge, changing: false, identity };
  const joined = joinConfigFiles(files);
  return { ok: true, bytes: joined.bytes, parts: joined.parts, identity };
}
