/**
 * The session's one error class, thrown only for its caller's mistakes (a configuration no session can run with,
 * a password without the addon). Anything a peer or the network does is a transition with a reason, never a throw.
 */

import { CodedError } from '../../../errors/coded-error';

export const BGP_SESSION_ERROR_CODES = [
  /** The configuration cannot work (ASN 0, hold time 1 or 2, no families, neither dialing nor accepting ...). */
  'invalidConfig',
  /** A password is set but TCP MD5 is unavailable (the native addon is not built). */
  'md5Unavailable',
  /** The listener cannot serve this session (another session already claims the peer address). */
  'listenerConflict',
] as const;
export type BgpSessionErrorCode = (typeof BGP_SESSION_ERROR_CODES)[number];

export class BgpSessionError extends CodedError<BgpSessionErrorCode> {}
