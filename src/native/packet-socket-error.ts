/**
 * The one error class of src/native, with stable codes a caller can switch on (docs/architecture.md, convention 6).
 * The addon's own errors carry the errno name (`errno`: "EPERM") and the system call; the code says what it means.
 */

import { CodedError } from '../errors/coded-error';

export const PACKET_SOCKET_ERROR_CODES = [
  /** The native addon is not built or cannot be loaded: every raw-socket feature is unavailable. */
  'addonMissing',
  /** No CAP_NET_RAW (EPERM/EACCES); the message says what to grant. */
  'permissionDenied',
  /** No interface by that name or index in this network namespace (ENODEV/ENXIO). */
  'noSuchInterface',
  /** The bound interface is down (ENETDOWN), reported through onError; the socket stays usable once it is up. */
  'interfaceDown',
  /** A frame longer than the interface's MTU plus its header (EMSGSIZE). */
  'frameTooLarge',
  /** A bad option, frame, MAC or BPF program (TypeError from the addon, EINVAL from the kernel). */
  'invalidArgument',
  /** send/addMembership/dropMembership after close(). */
  'closed',
  /** The onFrame callback threw: the frame is dropped and counted, the receive loop goes on. */
  'handlerFailed',
  /** Any other system error; errno names it. */
  'system',
] as const;

export type PacketSocketErrorCode = (typeof PACKET_SOCKET_ERROR_CODES)[number];

export const ADDON_MISSING_MESSAGE = 'the native addon was not built: run npm rebuild / check g++ and Node headers';

const CODE_BY_ERRNO: Readonly<Record<string, PacketSocketErrorCode>> = {
  EPERM: 'permissionDenied',
  EACCES: 'permissionDenied',
  ENODEV: 'noSuchInterface',
  ENXIO: 'noSuchInterface',
  ENETDOWN: 'interfaceDown',
  EMSGSIZE: 'frameTooLarge',
  EINVAL: 'invalidArgument',
  ECLOSED: 'closed',
};

export class PacketSocketError extends CodedError<PacketSocketErrorCode> {
  /** The errno name ("EPERM") when a system call failed. */
  readonly errno: string | undefined;
  readonly syscall: string | undefined;

  constructor(code: PacketSocketErrorCode, message: string, details: { errno?: string; syscall?: string; cause?: unknown } = {}) {
    super(code, message, details.cause === undefined ? undefined : { cause: details.cause });
    this.errno = details.errno;
    this.syscall = details.syscall;
  }

  /** Wraps whatever the addon threw or reported; `context` (e.g. 'eth0') is put before the message. */
  static fromNative(error: unknown, context?: string): PacketSocketError {
    if (error instanceof PacketSocketError) return error;
    const e = error as { message?: unknown; code?: unknown; syscall?: unknown };
    const errno = typeof e?.code === 'string' ? e.code : undefined;
    const syscall = typeof e?.syscall === 'string' ? e.syscall : undefined;
    const code: PacketSocketErrorCode = error instanceof TypeError ? 'invalidArgument' : (errno && CODE_BY_ERRNO[errno]) || 'system';
    const text = typeof e?.message === 'string' ? e.message : String(error);
    const message = context && code !== 'permissionDenied' ? `${context}: ${text}` : text;
    return new PacketSocketError(code, message, { errno, syscall, cause: error });
  }
}
