/**
 * The parse step as a dependency: FileSource and loadConfigFile receive a ConfigParser instead of calling the
 * parser themselves, so the daemon can parse on a worker thread (worker-parser.ts: the event loop keeps serving
 * gossip, ARP and BFD while a large file is parsed) and unit tests and one-shot commands parse in-process.
 */
import { CodedError } from '../../errors/coded-error';
import type { ParseOptions } from '../../model';
import type { ConfigPart } from './config-directory';
import { type ParsedConfigFile, type ReadingsToReuse, parseConfigBytes } from './parse-config-bytes';

export interface ParseRequest {
  /** The file's content as read. A worker parser takes it over: the caller must not use it afterwards. */
  readonly bytes: Uint8Array;
  /** The file as the user named it, for positions and messages. */
  readonly file: string;
  readonly options: ParseOptions;
  /** The files `bytes` was joined from, when --config is a directory (config-directory.ts). */
  readonly parts?: readonly ConfigPart[];
  /**
   * Set by a source that parses the same file again and again (FileSource): what its last parse read of each
   * document. The in-process parser reads only the documents that changed and answers with its own readings
   * (ParsedConfigFile.documents); a worker does not take them (they live on this thread) and reads everything.
   */
  readonly reuse?: ReadingsToReuse;
}

/** Resolves with the judgement of the bytes; rejects with a ConfigParseError when the parse could not finish. */
export type ConfigParser = (request: ParseRequest, signal?: AbortSignal) => Promise<ParsedConfigFile>;

export type ConfigParseErrorCode =
  /** The worker exceeded its heap limit (PARSE_HEAP_LIMIT_MB). */
  | 'parseOutOfMemory'
  /** The worker took longer than PARSE_TIMEOUT_MS. */
  | 'parseTimedOut'
  /** The worker could not start or ended without an answer. */
  | 'parseWorkerFailed'
  /** The caller gave up (the source was stopped). */
  | 'parseAborted';

export class ConfigParseError extends CodedError<ConfigParseErrorCode> {}

/** Parses on the calling thread: synchronous work behind a promise (tests, `mlb validate`, `mlb explain`). */
export const parseInProcess: ConfigParser = async ({ bytes, file, options, parts, reuse }) =>
  parseConfigBytes(bytes, file, options, parts, reuse);
