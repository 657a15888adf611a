/** Why a router (FRR in the lab, or any router of the interop tests) could not do what was asked; stable codes. */

import { CodedError } from '../../errors/coded-error';

export const ROUTER_ERROR_CODES = [
  /** A daemon did not start, or did not answer its control socket before the deadline. */
  'startFailed',
  /** A query (vtysh, birdc, gobgp) exited non-zero or timed out. */
  'commandFailed',
  /** A query's output was not what the parser knows (not JSON, an unknown shape). */
  'badOutput',
  /** waitFor's condition did not hold before its deadline. */
  'timeout',
  /** Options that cannot be rendered into a configuration (mixed ASNs on one listen range...). */
  'invalidOptions',
] as const;
export type RouterErrorCode = (typeof ROUTER_ERROR_CODES)[number];

export class RouterError extends CodedError<RouterErrorCode> {}
