/**
 * The whole judgement of a configuration file's content, from bytes to a result: complete UTF-8 text
 * (config-file-checks.ts), a valid configuration (model/parse), and one that holds something. Pure and
 * synchronous, so it runs the same in-process (tests, `mlb validate`) and on the daemon's parser thread, where the
 * bytes arrive untouched: the event loop never decodes or copies a large file.
 */
import { createHash } from 'node:crypto';
import type { Diagnostic, DocumentCache, ParseOptions, ParseResult } from '../../model';
import { parseConfig, parseConfigReusing } from '../../model';
import { decodeConfigBytes, emptyConfigProblem } from './config-file-checks';
import type { ConfigPart } from './config-directory';

export interface ParsedConfigFile {
  readonly result: ParseResult;
  /** sha256 of the bytes, hex: a rewrite with the same content is recognised without keeping the content. */
  readonly digest: string;
  /** What was read of each document, for the next parse of the same file (only when asked: `reuse`). */
  readonly documents?: DocumentCache;
}

/** What a source that parses the same file again keeps from its last parse (ParseRequest.reuse). */
export interface ReadingsToReuse {
  /** Undefined before the first parse (and after one that kept none: a worker's). */
  readonly documents: DocumentCache | undefined;
}

/**
 * `parts`: the bytes are a directory's files joined (config-directory.ts). Each file is judged as text on its own,
 * so a refusal names the file that is cut off; positions name the file and its line.
 *
 * `reuse`: the file is parsed again (a daemon's reload): the documents the last parse read unchanged are not read
 * again (model/parse/document-cache.ts), and the answer carries this parse's readings for the next one. Bytes
 * refused before parsing leave the last readings as they were.
 */
export function parseConfigBytes(
  bytes: Uint8Array,
  file: string,
  options: ParseOptions = {},
  parts: readonly ConfigPart[] = [],
  reuse?: ReadingsToReuse,
): ParsedConfigFile {
  const digest = createHash('sha256').update(bytes).digest('hex');
  const refused = (diagnostic: Diagnostic): ParsedConfigFile => ({
    result: { ok: false, diagnostics: [diagnostic] },
    digest,
    ...(reuse?.documents !== undefined && { documents: reuse.documents }),
  });
  for (const part of parts) {
    const own = decodeConfigBytes(bytes.subarray(part.byteStart, part.byteEnd), part.file);
    if (!own.ok) return refused(own.diagnostic);
  }
  const decoded = decodeConfigBytes(bytes, file);
  if (!decoded.ok) return refused(decoded.diagnostic);
  const parseOptions =
    parts.length > 0 ? { ...options, parts: parts.map(({ file: f, lineOffset }) => ({ file: f, lineOffset })) } : options;
  const { result, documents } = reuse
    ? parseConfigReusing(decoded.text, file, parseOptions, reuse.documents)
    : { result: parseConfig(decoded.text, file, parseOptions), documents: undefined };
  const kept = documents !== undefined ? { documents } : {};
  if (!result.ok) return { result, digest, ...kept };
  const empty = emptyConfigProblem(result.snapshot, file);
  return { result: empty ? { ok: false, diagnostics: [empty, ...result.diagnostics] } : result, digest, ...kept };
}
