/** Reads a configuration file once and validates it (adapter: the only fs access on the model's side). */
import { readFile } from 'node:fs/promises';
import { type ParseOptions, type ParseResult, parseConfig } from '../../model';

/**
 * Reads `path` as UTF-8 and parses it; diagnostics name `path` as written. Rejects with the fs error (ENOENT,
 * EACCES, ...) when the file cannot be read, so callers can word that themselves.
 */
export async function loadConfigFile(path: string, options: ParseOptions = {}): Promise<ParseResult> {
  const text = await readFile(path, 'utf8');
  return parseConfig(text, path, options);
}
