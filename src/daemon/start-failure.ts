/**
 * A daemon start that failed, said in one line that names what was being opened (a file, an address, a module) and
 * why. Node's own texts are not enough on their own: reading a directory gives "EISDIR: illegal operation on a
 * directory, read" without the path, and a missing package buries its name in a multi-line require stack.
 * Pure: the speaker names each step, this turns the step and the error into the message and the stable code.
 */
import { CodedError } from '../errors/coded-error';

export type StartErrorCode = 'startFailed';

/** What the speaker was doing when its start failed; `errno` is the system or module error code when there is one. */
export class StartError extends CodedError<StartErrorCode> {
  constructor(
    readonly step: string,
    readonly errno: string | undefined,
    message: string,
    options?: ErrorOptions,
  ) {
    super('startFailed', message, options);
  }
}

/** Node's codes for a module that cannot be found: require() and import() spell them differently. */
const MODULE_NOT_FOUND_CODES: ReadonlySet<string> = new Set(['MODULE_NOT_FOUND', 'ERR_MODULE_NOT_FOUND']);

/** The errno-style code of an error or of the error it wraps (NetworkError keeps the socket error as its cause). */
export function errorCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 3; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z][A-Z_]+$/.test(code)) return code;
  }
  return undefined;
}

/** Why a step failed, in words an operator can act on; the first line of the error's own message otherwise. */
export function startFailureReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const firstLine = message.split('\n', 1)[0] ?? message;
  const code = errorCode(error);
  if (code !== undefined && MODULE_NOT_FOUND_CODES.has(code)) {
    const name = /Cannot find (?:module|package) '([^']+)'/.exec(message)?.[1];
    return `the Node.js module '${name ?? '?'}' is not installed: mlb.mjs loads it from a node_modules folder beside or above it (copy node_modules with it)`;
  }
  if (code === 'EISDIR') return 'it is a directory, not a file (EISDIR)';
  if (code === 'EADDRNOTAVAIL') return 'no interface of this host has that address (EADDRNOTAVAIL)';
  return firstLine;
}

/** The StartError for a failed step: "STEP: REASON". */
export function startError(step: string, error: unknown): StartError {
  return new StartError(step, errorCode(error), `${step}: ${startFailureReason(error)}`, { cause: error });
}
