/**
 * `--config -`: the configuration from standard input (`kubectl get ... | mlb validate -`, `mlb validate - <
 * mlb.yaml`). Read to its end, but never more than --max-config-bytes: the limit bounds what a pipe can cost as
 * it bounds a file. The bytes are then judged like a file's (complete UTF-8 text, a valid configuration).
 */
import { DEFAULT_MAX_CONFIG_BYTES, fileSizeProblem, parseConfigFileBytes, parseInProcess } from '../sources/file';
import type { ParseResult } from '../model';

/** How diagnostics name standard input (file:line:column), as compilers and linters do. */
export const STDIN_NAME = '<stdin>';

/** Reads `input` to its end; undefined (and the rest left unread) once it holds more than maxBytes. */
async function readBounded(
  input: AsyncIterable<Uint8Array | string>,
  maxBytes: number,
): Promise<{ bytes: Uint8Array } | { tooLarge: number }> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of input) {
    const bytes = typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk;
    chunks.push(bytes);
    length += bytes.length;
    if (length > maxBytes) return { tooLarge: length };
  }
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return { bytes };
}

export async function loadStdinConfig(
  maxBytes = DEFAULT_MAX_CONFIG_BYTES,
  input: AsyncIterable<Uint8Array | string> = process.stdin,
): Promise<ParseResult> {
  const read = await readBounded(input, maxBytes);
  if ('tooLarge' in read) {
    const problem = fileSizeProblem(read.tooLarge, maxBytes, STDIN_NAME);
    return { ok: false, diagnostics: problem ? [{ ...problem, message: `${problem.message} (read so far)` }] : [] };
  }
  return (await parseConfigFileBytes(read.bytes, STDIN_NAME, parseInProcess, {})).result;
}
