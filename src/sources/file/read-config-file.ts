/**
 * Reads the configuration file's bytes so that nothing can block: stat the path first (a FIFO or device is refused
 * before it is opened), open with O_NONBLOCK (a FIFO swapped in after the stat opens at once instead of waiting for
 * a writer), fstat the open descriptor (what is read is what was checked), and read at most the size that fstat
 * reported plus one byte. The reads run on libuv's threadpool and the bytes are not looked at here: decoding and
 * checking them is the parser's job (parse-config-bytes.ts), on its own thread in the daemon. Adapter: files only;
 * every decision is in config-file-checks.ts.
 */
import { constants } from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';
import { type Diagnostic, DiagnosticCode } from '../../model';
import { fileKindProblem, fileSizeProblem } from './config-file-checks';

/** What tells one version of the file from the next without reading it. */
export interface FileIdentity {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
}

function sameIdentity(a: FileIdentity | undefined, b: FileIdentity | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;
}

export type ConfigFileRead =
  /** bytes: a view of an ArrayBuffer of its own, so a worker parser can take it over without a copy. */
  | { readonly ok: true; readonly bytes: Uint8Array; readonly identity: FileIdentity }
  /** changing: the file changed while it was read; reading again once it settles may succeed. */
  | { readonly ok: false; readonly diagnostic: Diagnostic; readonly changing: boolean; readonly identity?: FileIdentity };

function identityOf(s: { size: number; mtimeMs: number; ino: number }): FileIdentity {
  return { size: s.size, mtimeMs: s.mtimeMs, ino: s.ino };
}

function changedWhileRead(file: string, identity: FileIdentity): ConfigFileRead {
  return {
    ok: false,
    changing: true,
    identity,
    diagnostic: {
      severity: 'error',
      code: DiagnosticCode.fileChanging,
      message: `${file} changed while it was being read: replace it atomically (write a temporary file beside it, then rename it over ${file})`,
    },
  };
}

/** Reads until end of file or until `buffer` is full; returns the number of bytes read. */
async function readInto(handle: FileHandle, buffer: Uint8Array): Promise<number> {
  let filled = 0;
  while (filled < buffer.length) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled;
}

/**
 * Reads `path` (named `file` in messages). Rejects with the fs error (ENOENT, EACCES, ...) when the file cannot be
 * opened, so callers word that themselves; resolves with a refusal when it is not a regular file, is over
 * `maxBytes`, or changed while being read.
 */
export async function readConfigFile(path: string, file: string, maxBytes: number): Promise<ConfigFileRead> {
  const before = await stat(path);
  const refused = fileKindProblem(before, file) ?? fileSizeProblem(before.size, maxBytes, file);
  if (refused) return { ok: false, diagnostic: refused, changing: false, identity: identityOf(before) };
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const opened = await handle.stat();
    const identity = identityOf(opened);
    const problem = fileKindProblem(opened, file) ?? fileSizeProblem(opened.size, maxBytes, file);
    if (problem) return { ok: false, diagnostic: problem, changing: false, identity };
    // One byte more than fstat reported: reading it means the file grew while being read. Not Buffer.allocUnsafe:
    // small Buffers share a pool, and handing the pool's ArrayBuffer to a worker would detach other Buffers.
    const buffer = new Uint8Array(opened.size + 1);
    const length = await readInto(handle, buffer);
    const after = identityOf(await handle.stat());
    if (length !== opened.size || !sameIdentity(identity, after)) return changedWhileRead(file, after);
    return { ok: true, bytes: buffer.subarray(0, length), identity };
  } finally {
    await handle.close();
  }
}
