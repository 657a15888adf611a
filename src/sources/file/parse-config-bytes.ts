/**
 * The whole judgement of a configuration file's content, from bytes to a result: complete UTF-8 text
 * (config-file-checks.ts), a valid configuration (model/parse), and one that holds something. Pure and
 * synchronous, so it runs the same in-process (tests, `mlb validate`) and on the daemon's parser thread, where the
 * bytes arrive untouched: the event loop never decodes or copies a large file.
 */
import { createHash } from 'node:crypto';
import type { ParseOptions, ParseResult } from '../../model';
import { parseConfig } from '../../model';
import { decodeConfigBytes, emptyConfigProblem } from './config-file-checks';
import type { ConfigPart } from './config-directory';

export interface ParsedConfigFile {
  readonly result: ParseResult;
  /** sha256 of the bytes, hex: a rewrite with the same content is recognised without keeping the content. */
  readonly digest: string;
}

/**
 * `parts`: the bytes are a directory's files joined (config-directory.ts). Each file is judged as text on its own,
 * so a refusal names the file that is cut off; positions name the file and its line.
 */
export function parseConfigBytes(
  bytes: Uint8Array,
  file: string,
  options: ParseOptions = {},
  parts: readonly ConfigPart[] = [],
): ParsedConfigFile {
  const digest = createHash('sha256').update(bytes).digest('hex');
  for (const part of parts) {
    const own = decodeConfigBytes(bytes.subarray(part.byteStart, part.byteEnd), part.file);
    if (!own.ok) return { result: { ok: false, diagnostics: [own.diagnostic] }, digest };
  }
  const decoded = decodeConfigBytes(bytes, file);
  if (!decoded.ok) return { result: { ok: false, diagnostics: [decoded.diagnostic] }, digest };
  const result = parseConfig(
    decoded.text,
    file,
    parts.length > 0 ? { ...options, parts: parts.map(({ file: f, lineOffset }) => ({ file: f, lineOffset })) } : options,
  );
  if (!result.ok) return { result, digest };
  const empty = emptyConfigProblem(result.snapshot, file);
  return { result: empty ? { ok: false, diagnostics: [empty, ...result.diagnostics] } : result, digest };
}
