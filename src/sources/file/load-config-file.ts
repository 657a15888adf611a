/** Reads a configuration file once and validates it (adapter: the only fs access on the model's side). */
import { DiagnosticCode, type DocumentCache, type ParseOptions, type ParseResult } from '../../model';
import { DEFAULT_MAX_CONFIG_BYTES } from './config-file-checks';
import { type ConfigParser, ConfigParseError, parseInProcess } from './config-parser';
import type { ParsedConfigFile, ReadingsToReuse } from './parse-config-bytes';
import type { ConfigPart } from './config-directory';
import { readConfigSource } from './read-config-source';

export interface LoadConfigOptions extends ParseOptions {
  /** Files larger than this are refused (fileTooLarge); default DEFAULT_MAX_CONFIG_BYTES. */
  readonly maxBytes?: number;
  /** Where the bytes are judged and parsed; default in-process. */
  readonly parse?: ConfigParser;
}

/**
 * A parsed file, or why the parser could not finish (digest undefined: nothing is known about the content);
 * `documents`: what the parse read, when it was asked to keep it (`reuse`) and could.
 */
export type ParseOutcome = { readonly result: ParseResult; readonly digest: string | undefined; readonly documents?: DocumentCache };

/**
 * Runs `parse` over bytes read from `file`. A parse that could not finish (worker out of memory, timed out) becomes
 * an error diagnostic like any other; an abort rejects, for the caller who asked for it. `reuse`: the caller parses
 * this file again and again (ParseRequest.reuse).
 */
export async function parseConfigFileBytes(
  bytes: Uint8Array,
  file: string,
  parse: ConfigParser,
  options: ParseOptions,
  signal?: AbortSignal,
  parts?: readonly ConfigPart[],
  reuse?: ReadingsToReuse,
): Promise<ParseOutcome> {
  // Only what the parser needs: options may carry functions (a FileSource's clock), which cannot go to a worker.
  const parseOptions: ParseOptions = options.knownSubnets ? { knownSubnets: options.knownSubnets } : {};
  let parsed: ParsedConfigFile;
  try {
    parsed = await parse({ bytes, file, options: parseOptions, ...(parts ? { parts } : {}), ...(reuse ? { reuse } : {}) }, signal);
  } catch (error) {
    if (!(error instanceof ConfigParseError) || error.code === 'parseAborted') throw error;
    return {
      result: {
        ok: false,
        diagnostics: [{ severity: 'error', code: DiagnosticCode.parseFailed, message: `${file} could not be parsed: ${error.message}` }],
      },
      digest: undefined,
    };
  }
  return parsed;
}

/**
 * Reads `path` (a file, or a directory of *.yaml and *.yml files: config-directory.ts) and parses it; diagnostics
 * name `path` as written, or the file of the directory they are in. Rejects with the fs error (ENOENT, EACCES,
 * ...) when it cannot be opened, so callers can word that themselves; a file that is not a regular one, too
 * large, cut off or empty is an invalid configuration (ok: false) with the reason.
 */
export async function loadConfigFile(path: string, options: LoadConfigOptions = {}): Promise<ParseResult> {
  const read = await readConfigSource(path, path, options.maxBytes ?? DEFAULT_MAX_CONFIG_BYTES);
  if (!read.ok) return { ok: false, diagnostics: [read.diagnostic] };
  return (await parseConfigFileBytes(read.bytes, path, options.parse ?? parseInProcess, options, undefined, read.parts)).result;
}
