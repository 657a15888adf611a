/**
 * Pure decisions about a configuration file as it lies on disk, before and after parsing: is it a regular file,
 * is it small enough, does it look complete, is it text, does it hold anything. Each returns the diagnostic that
 * refuses the file (naming it and what to do), or undefined when the file passes. The reader (read-config-file.ts)
 * and the watcher (file-source.ts) act on them; a refused file is treated like any invalid one: the daemon keeps
 * the last good configuration and reports itself stale, `mlb validate` exits 1.
 */
import { isUtf8 } from 'node:buffer';
import { type Diagnostic, DiagnosticCode, type Snapshot } from '../../model';

/**
 * The default --max-config-bytes. A configuration of a few hundred services is some 100 KB; 16 MiB leaves two
 * orders of magnitude of room, while bounding what one file can cost the daemon: the text, the parser's memory
 * (a worker thread, see worker-parser.ts) and the copy of the result that comes back.
 */
export const DEFAULT_MAX_CONFIG_BYTES = 16 * 1024 * 1024;

/** What `replace it atomically` means, said in every refusal a writer in progress can cause. */
function atomicHint(file: string): string {
  return `write the new content to a temporary file beside ${file}, then rename it over ${file} (an atomic replace)`;
}

/** The parts of fs.Stats the checks read (a plain object in tests). */
export interface FileKind {
  isFile(): boolean;
  isDirectory(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
}

function kindName(kind: FileKind): string {
  if (kind.isDirectory()) return 'directory';
  if (kind.isFIFO()) return 'FIFO (named pipe)';
  if (kind.isSocket()) return 'socket';
  if (kind.isCharacterDevice()) return 'character device';
  if (kind.isBlockDevice()) return 'block device';
  return 'special file';
}

/**
 * Only regular files: opening a FIFO waits for a writer and reading a device may never end, and either would
 * hold one of libuv's four threadpool threads (and the reload) forever.
 */
export function fileKindProblem(kind: FileKind, file: string): Diagnostic | undefined {
  if (kind.isFile()) return undefined;
  return {
    severity: 'error',
    code: DiagnosticCode.fileNotRegular,
    message:
      `${file} is a ${kindName(kind)}, not a regular file: mlb reads its configuration only from a regular ` +
      'file (a pipe or device could block the reload forever); point --config at a regular file',
  };
}

export function fileSizeProblem(size: number, maxBytes: number, file: string): Diagnostic | undefined {
  if (size <= maxBytes) return undefined;
  return {
    severity: 'error',
    code: DiagnosticCode.fileTooLarge,
    message:
      `${file} is ${size} bytes, more than the limit of ${maxBytes} bytes: if it really is meant to be ` +
      'this large, raise --max-config-bytes (MLB_MAX_CONFIG_BYTES)',
  };
}

const NEWLINE = 0x0a;
const NUL = 0x00;

/** Line and column (1-based) of a byte offset, as editors count: columns in characters of the line's text. */
function bytePosition(bytes: Uint8Array, offset: number, file: string): { file: string; line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let at = bytes.indexOf(NEWLINE); at !== -1 && at < offset; at = bytes.indexOf(NEWLINE, at + 1)) {
    line++;
    lineStart = at + 1;
  }
  const column = new TextDecoder('utf-8').decode(bytes.subarray(lineStart, offset)).length + 1;
  return { file, line, column };
}

export type DecodedText = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly diagnostic: Diagnostic };

/**
 * Turns the file's bytes into text, refusing what is not a complete UTF-8 text file:
 * - no final newline: POSIX text files end with one, and every editor and `>` redirection writes it, so a
 *   non-empty file without one was almost always caught in the middle of being written (a truncate-and-write
 *   save, `head -c`, a copy in progress) and its last document is cut off;
 * - a NUL byte: never in YAML text, but what a preallocated file that has not been filled in yet reads as;
 * - invalid UTF-8: YAML is Unicode text (YAML 1.2, section 5.2), and a cut inside a multi-byte character
 *   leaves one.
 */
export function decodeConfigBytes(bytes: Uint8Array, file: string): DecodedText {
  if (bytes.length > 0 && bytes[bytes.length - 1] !== NEWLINE) {
    return {
      ok: false,
      diagnostic: {
        severity: 'error',
        code: DiagnosticCode.fileIncomplete,
        position: bytePosition(bytes, bytes.length, file),
        message:
          `${file} does not end with a newline, so it looks cut off: it may still be being written. ` +
          `To change it, ${atomicHint(file)}; if the file is complete, end its last line with a newline`,
      },
    };
  }
  const nul = bytes.indexOf(NUL);
  if (nul !== -1) {
    return {
      ok: false,
      diagnostic: {
        severity: 'error',
        code: DiagnosticCode.fileNotText,
        position: bytePosition(bytes, nul, file),
        message:
          `${file} contains a NUL byte at offset ${nul}: it is not YAML text, or parts of it have not been ` +
          `written yet. To change it, ${atomicHint(file)}`,
      },
    };
  }
  if (!isUtf8(bytes)) {
    return {
      ok: false,
      diagnostic: {
        severity: 'error',
        code: DiagnosticCode.fileNotText,
        message: `${file} is not valid UTF-8 text: YAML must be Unicode (save it as UTF-8)`,
      },
    };
  }
  return { ok: true, text: new TextDecoder('utf-8').decode(bytes) };
}

function objectCount(snapshot: Snapshot): number {
  return (
    snapshot.pools.length +
    snapshot.l2Advertisements.length +
    snapshot.bgpAdvertisements.length +
    snapshot.bgpPeers.length +
    snapshot.bfdProfiles.length +
    snapshot.communities.length +
    snapshot.services.length +
    snapshot.nodes.length
  );
}

/**
 * A valid configuration with no object at all is refused: an emptied file (`: > mlb.yaml`, a truncate before a
 * write) would otherwise withdraw every IP, and no one runs mlb to announce nothing on purpose.
 */
export function emptyConfigProblem(snapshot: Snapshot, file: string): Diagnostic | undefined {
  if (objectCount(snapshot) > 0) return undefined;
  return {
    severity: 'error',
    code: DiagnosticCode.fileEmpty,
    message:
      `${file} holds no objects (it is empty, or only comments): mlb will not run without a configuration. ` +
      `To change it, ${atomicHint(file)}`,
  };
}
