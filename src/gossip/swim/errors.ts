/**
 * Errors the SWIM state machine throws. It throws only for mistakes of its caller (a configuration it cannot
 * run with, local meta over the limit), never for anything that arrives from the network: bad input from peers
 * is dropped with a log effect carrying the reason.
 */

import { CodedError } from '../../errors/coded-error';

export const SwimConfigErrorCode = {
  /** The local node's meta is longer than META_MAX_BYTES (memberlist panics; we refuse at configuration). */
  metaTooLong: 'metaTooLong',
  /** A timer or count is out of its range (zero interval, timeout above interval, negative count). */
  invalidConfig: 'invalidConfig',
  /** The local identity is unusable: empty name, address not 4 or 16 bytes, port outside 1..65535. */
  invalidIdentity: 'invalidIdentity',
  /** The Vsn is not exactly six bytes or names impossible protocol versions. */
  invalidVsn: 'invalidVsn',
} as const;
export type SwimConfigErrorCode = (typeof SwimConfigErrorCode)[keyof typeof SwimConfigErrorCode];

export class SwimConfigError extends CodedError<SwimConfigErrorCode> {}
