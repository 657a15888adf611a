/**
 * Errors of the control API. On the wire every failure is `{ "error": { "code", "message" } }` with a stable code
 * that clients branch on; in the daemon, starting the server fails with a typed error instead of a bare errno.
 */
import { CodedError } from '../../errors/coded-error';

/** Codes in an error body; append-only (clients and scripts branch on them). */
export const ControlErrorCode = {
  /** No route has this path. */
  notFound: 'notFound',
  /** The path exists, the method does not (the Allow header lists the ones that do). */
  methodNotAllowed: 'methodNotAllowed',
  /** The request is malformed: unparsable HTTP, an unknown or invalid query parameter. */
  badRequest: 'badRequest',
  /** The daemon failed answering; its log has the detail. */
  internal: 'internal',
  /** A drain or undrain could not be written under --state-dir, so nothing changed (the message says why). */
  drainNotRecorded: 'drainNotRecorded',
  /** Every event stream the daemon keeps open is taken; one-shot requests (snapshot, explain) still answer. */
  tooManyStreams: 'tooManyStreams',
  /** `mlb drain NODE`: no member has that name (the message suggests the closest). */
  unknownNode: 'unknownNode',
  /** `mlb drain NODE` in a cluster without a gossip key: refused, gossip is not authenticated. */
  remoteDrainNeedsKey: 'remoteDrainNeedsKey',
  /** `mlb drain NODE` naming a plain MetalLB speaker. */
  notMlbNode: 'notMlbNode',
} as const;
export type ControlErrorCode = (typeof ControlErrorCode)[keyof typeof ControlErrorCode];

export interface ControlErrorBody {
  error: { code: ControlErrorCode; message: string };
}

export function errorBody(code: ControlErrorCode, message: string): ControlErrorBody {
  return { error: { code, message } };
}

/** Whether a parsed JSON value is an error body (the client reads daemon errors with it). */
export function isControlErrorBody(value: unknown): value is ControlErrorBody {
  if (typeof value !== 'object' || value === null) return false;
  const error = (value as { error?: unknown }).error;
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { code?: unknown }).code === 'string' &&
    typeof (error as { message?: unknown }).message === 'string'
  );
}

export type ControlSocketErrorCode =
  /** Another process answers on the socket: a second daemon on the same host. */
  | 'controlSocketInUse'
  /** Something other than a socket sits at the path; mlb does not delete what it did not make. */
  | 'controlSocketPathTaken'
  /** listen, chmod, chown or mkdir failed (permissions, a path too long for a unix socket...). */
  | 'controlSocketUnusable'
  /** --control-socket-group names a group this host does not have. */
  | 'controlSocketGroupUnknown';

/** Why the control server could not start. */
export class ControlSocketError extends CodedError<ControlSocketErrorCode> {
  constructor(message: string, code: ControlSocketErrorCode) {
    super(code, message);
  }
}
