/**
 * The one error class of src/announce/addr, with stable codes a caller can switch on (docs/architecture.md,
 * convention 6). Netlink failures carry the errno name the kernel gave (`errno`: "EPERM").
 */

import { CodedError } from '../../errors/coded-error';

export const VIP_BIND_ERROR_CODES = [
  /** The `netlink` package (prebuilt N-API binary) cannot be loaded. */
  'netlinkUnavailable',
  /** EPERM (or EACCES on a sysctl file): mlb needs CAP_NET_ADMIN to manage mlb0 and root to write ARP sysctls. */
  'permissionDenied',
  /** The kernel has neither a dummy nor an ifb driver, so no VIP interface can be made. */
  'linkKindUnsupported',
  /** An interface by mlb0's name exists but is not one mlb makes (dummy or ifb): mlb will not touch it. */
  'notOurInterface',
  /** Any other failure creating, reading or setting up the interface. */
  'linkFailed',
  /** Listing the interface's addresses failed. */
  'addressListFailed',
  /** The kernel refused an address (the VIP stays unbound; the others go on). */
  'addressAddFailed',
  /** The kernel refused to remove an address (it stays bound; the others go on). */
  'addressRemoveFailed',
  /** /proc/sys/net/ipv4/conf/<scope>/<name> could not be written. */
  'sysctlWriteFailed',
  /** A call after close(). */
  'closed',
] as const;

export type VipBindErrorCode = (typeof VIP_BIND_ERROR_CODES)[number];

export class VipBindError extends CodedError<VipBindErrorCode> {
  /** The errno name ("EEXIST") when the kernel refused. */
  readonly errno: string | undefined;
  /** The address or sysctl concerned, as text. */
  readonly subject: string | undefined;

  constructor(code: VipBindErrorCode, message: string, details: { errno?: string; subject?: string; cause?: unknown } = {}) {
    super(code, message, details.cause === undefined ? undefined : { cause: details.cause });
    this.errno = details.errno;
    this.subject = details.subject;
  }
}

/**
 * The errno name of a failure: node's fs errors carry it in `code`; the netlink package (0.3.0) throws a plain
 * Error "Request rejected: EEXIST" for a netlink error reply, so it is read from the message.
 */
export function errnoOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^E[A-Z0-9]+$/.test(code)) return code;
  const match = /Request rejected: (E[A-Z0-9]+|-?\d+)/.exec(String((error as Error | null)?.message ?? ''));
  return match?.[1];
}

/**
 * EPERM becomes permissionDenied whatever the operation, and EACCES on a sysctl file; everything else keeps the
 * operation's code. (Netlink's EACCES is no permission problem: the kernel gives it for an IPv6 address on an
 * interface with disable_ipv6 set.)
 */
export function vipBindErrorFrom(code: VipBindErrorCode, message: string, error: unknown, subject?: string): VipBindError {
  if (error instanceof VipBindError) return error;
  const errno = errnoOf(error);
  const denied = errno === 'EPERM' || (errno === 'EACCES' && code === 'sysctlWriteFailed');
  const finalCode = denied ? 'permissionDenied' : code;
  const reason = errno ?? String((error as Error | null)?.message ?? error);
  return new VipBindError(finalCode, `${message}: ${reason}`, { errno, subject, cause: error });
}
