/** Reads a configuration file once and validates it (adapter: the only fs access on the model's side). */
import { DiagnosticCode, type ParseOptions, type ParseResult } from '../../model';
import { DEFAULT_MAX_CONFIG_BYTES, emptyConfigProblem } from './config-file-checks';
import { type ConfigParser, ConfigParseError, parseInProcess } from './config-parser';
import { readConfigFile } from './read-config-file';

export interface LoadConfigOptions extends ParseOptions {
  /** Files larger than this are refused (fileTooLarge); default DEFAULT_MAX_CONFIG_BYTES. */
  readonly maxBytes?: number;
  /** Where the text is parsed; default in-process. */
  readonly parse?: ConfigParser;
}

/**
 * Parses a text read from `file` with `parse`, then refuses a valid configuration that holds no objects. A parse
 * that could not finish (worker out of memory, timed out) becomes an error diagnostic like any other; an abort
 * rejects, for the caller who asked for it.
 */
export async function parseConfigText(
  text: string, file: string, parse: ConfigParser, options: ParseOptions, signal?: AbortSignal,
): Promise<ParseResult> {
  let result: ParseResult;
  try {
    result = await parse({ text, file, options: { ...(options.knownSubnets && { knownSubnets: options.knownSubnets }) } }, signal);
  } catch (error) {
    if (!(error instanceof ConfigParseError) || error.code === 'parseAborted') throw error;
    return {
      ok: false,
      diagnostics: [{ severity: 'error', code: DiagnosticCode.parseFailed, message: `${file} could not be parsed: ${error.message}` }],
    };
  }
  if (!result.ok) return result;
  const empty = emptyConfigProblem(result.snapshot, file);
  return empty ? { ok: false, diagnostics: [empty, ...result.diagnostics] } : result;
}

/**
 * Reads `path` and parses it; diagnostics name `path` as written. Rejects with the fs error (ENOENT, EACCES, ...)
 * when the file cannot be opened, so callers can word that themselves; a file that is not a regular one, too
 * large, cut off or empty is an invalid configuration (ok: false) with the reason.
 */
export async function loadConfigFile(path: string, options: LoadConfigOptions = {}): Promise<ParseResult> {
  const read = await readConfigFile(path, path, options.maxBytes ?? DEFAULT_MAX_CONFIG_BYTES);
  if (!read.ok) return { ok: false, diagnostics: [read.diagnostic] };
  return parseConfigText(read.text, path, options.parse ?? parseInProcess, options);
}
