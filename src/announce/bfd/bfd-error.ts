/**
 * The one error class of src/announce/bfd, with stable codes a caller can switch on (docs/architecture.md,
 * convention 6). Received packets never raise these: they are dropped with a BfdDropReason. These are for
 * programming and set-up mistakes: encoding an impossible packet, a bad profile, a socket that cannot open.
 */

import { CodedError } from '../../errors/coded-error';

export const BFD_ERROR_CODES = [
  /** A packet field outside its wire range (encodeBfdControl). */
  'invalidField',
  /** A BFDProfile value outside MetalLB's documented range. */
  'invalidProfile',
  /** Not an IP address, or a peer of the other family than the endpoint's local address. */
  'invalidAddress',
  /** A second session for the same peer on one endpoint. */
  'duplicateSession',
  /** Binding UDP 3784, or a source port, failed (EADDRINUSE, EADDRNOTAVAIL, EACCES ...). */
  'bindFailed',
  /** Every source port in 49152-65535 that was tried is taken. */
  'noSourcePort',
  /** The endpoint or session is closed. */
  'closed',
] as const;

export type BfdErrorCode = (typeof BFD_ERROR_CODES)[number];

export class BfdError extends CodedError<BfdErrorCode> {}
