/**
 * A directory as one configuration (--config /etc/mlb/conf.d): its *.yaml and *.yml files, in name order, joined
 * into one multi-document text, as if they had been written one after the other in one file. Pure: the choice
 * of files, the joining, and the refusals that concern the directory as a whole. Reading each file (and every
 * check a single file gets: regular file, size, settle, complete UTF-8 text) is read-config-source.ts's job.
 */
import { type Diagnostic, DiagnosticCode, type SourcePart } from '../../model';

/** The files a directory contributes: YAML by the two extensions Kubernetes tooling writes. */
const CONFIG_FILE_NAME = /\.ya?ml$/;

/**
 * Between two files: YAML's document end marker. It closes whatever the previous file left open (a block scalar,
 * a document without "---") and lets the next file start however it likes: a bare document, "---", or a %YAML
 * directive (YAML 1.2, section 9.1.3).
 */
const FILE_SEPARATOR = new TextEncoder().encode('...\n');
const NEWLINE = 0x0a;

/**
 * Whether a directory entry is part of the configuration. Hidden entries are not: editors' lock and backup files
 * (Emacs' `.#mlb.yaml`) and the `..data` links of a Kubernetes ConfigMap volume start with a dot.
 */
function isConfigFileName(name: string): boolean {
  return !name.startsWith('.') && CONFIG_FILE_NAME.test(name);
}

/** The configuration's files among a directory's entries, in the order they are joined: by name, bytewise (as `ls` in the C locale). */
export function configFileNames(entries: readonly string[]): string[] {
  return entries.filter(isConfigFileName).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** One file of the joined text: SourcePart's line offset for positions, and its bytes' range for its own checks. */
export interface ConfigPart extends SourcePart {
  readonly byteStart: number;
  readonly byteEnd: number;
}

export interface JoinedConfig {
  /** A view of an ArrayBuffer of its own, so a worker parser can take it over. */
  readonly bytes: Uint8Array;
  readonly parts: readonly ConfigPart[];
}

function countNewlines(bytes: Uint8Array): number {
  let count = 0;
  for (let at = bytes.indexOf(NEWLINE); at !== -1; at = bytes.indexOf(NEWLINE, at + 1)) count++;
  return count;
}

/** The files' bytes one after the other, a separator between each two, and where each one lies. */
export function joinConfigFiles(files: readonly { readonly file: string; readonly bytes: Uint8Array }[]): JoinedConfig {
  const total = files.reduce((sum, f) => sum + f.bytes.length, 0) + FILE_SEPARATOR.length * Math.max(0, files.length - 1);
  const bytes = new Uint8Array(total);
  const parts: ConfigPart[] = [];
  let at = 0;
  let lines = 0;
  files.forEach((f, i) => {
    if (i > 0) {
      bytes.set(FILE_SEPARATOR, at);
      at += FILE_SEPARATOR.length;
      lines += 1;
    }
    bytes.set(f.bytes, at);
    parts.push({ file: f.file, lineOffset: lines, byteStart: at, byteEnd: at + f.bytes.length });
    at += f.bytes.length;
    lines += countNewlines(f.bytes);
  });
  return { bytes, parts };
}

/** A directory with no configuration file in it: starting on it would announce nothing. */
export function noConfigFilesProblem(directory: string): Diagnostic {
  return {
    severity: 'error',
    code: DiagnosticCode.fileEmpty,
    message:
      `${directory} is a directory with no *.yaml or *.yml file in it (names starting with a dot are skipped): ` +
      'put the configuration there, or point --config at a file',
  };
}

/**
 * The files together over the limit: each one passed, but the parser holds the joined text, and the limit is
 * what one configuration may cost the daemon.
 */
export function joinedSizeProblem(total: number, maxBytes: number, directory: string): Diagnostic | undefined {
  if (total <= maxBytes) return undefined;
  return {
    severity: 'error',
    code: DiagnosticCode.fileTooLarge,
    message:
      `the files of ${directory} hold ${total} bytes together, more than the limit of ${maxBytes} bytes: if ` +
      'the configuration really is this large, raise --max-config-bytes (MLB_MAX_CONFIG_BYTES)',
  };
}
