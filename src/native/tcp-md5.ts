/**
 * TCP descriptors signed with RFC 2385 MD5 (BGPPeer.password), through the addon (tcp-md5.cc). This module makes
 * and keys descriptors only; wrapping them in Node sockets is the real runtime's (src/runtime/real-signed-tcp.ts,
 * whose header says why the descriptor must come from here).
 *
 * The kernel must hold the key before the first segment: for a client before connect(2) (the SYN is signed), for
 * a listener before the peer's SYN arrives; a segment with a missing or wrong signature is dropped silently, so a
 * wrong password looks like an unreachable peer. Keys on a listening descriptor are added and removed per peer
 * address at any time, and an accepted connection inherits its peer's key from the listener.
 */
import { CodedError } from '../errors/coded-error';
import { closeSync } from 'node:fs';
import { parseIP } from '../ip';
import { nativeAddon } from './native-addon';

/** Linux keeps at most TCP_MD5SIG_MAXKEYLEN (80) bytes of key per peer. */
export const TCP_MD5_MAX_KEY_BYTES = 80;

export const TCP_MD5_ERROR_CODES = [
  /** The native addon is not built: MD5-signed sessions are unavailable (sessions without a password still work). */
  'addonMissing',
  /** The password is longer than TCP_MD5_MAX_KEY_BYTES in UTF-8, or empty. */
  'invalidKey',
  /** Not a numeric address, or the local and peer addresses are of different families. */
  'invalidAddress',
  /** A system call failed; errno names it (ENOPROTOOPT: a kernel without CONFIG_TCP_MD5SIG). */
  'system',
] as const;
export type TcpMd5ErrorCode = (typeof TCP_MD5_ERROR_CODES)[number];

export class TcpMd5Error extends CodedError<TcpMd5ErrorCode> {
  constructor(
    code: TcpMd5ErrorCode,
    message: string,
    readonly errno?: string,
    options?: ErrorOptions,
  ) {
    super(code, message, options);
  }
}

/** What tcp-md5.cc adds to the addon's exports. */
interface TcpMd5Addon {
  tcpSocket(family: 4 | 6): number;
  tcpBind(fd: number, address: string, port: number, reuseAddress: boolean): void;
  tcpSetMd5Key(fd: number, peerAddress: string, key: Buffer): void;
}

function addon(): TcpMd5Addon {
  try {
    return nativeAddon() as unknown as TcpMd5Addon;
  } catch (error) {
    throw new TcpMd5Error('addonMissing', `TCP MD5 needs the native addon: ${(error as Error).message}`, undefined, { cause: error });
  }
}

/** True when the addon is loaded and has the TCP MD5 functions (it is loaded on first use). */
export function tcpMd5Available(): boolean {
  try {
    return typeof addon().tcpSetMd5Key === 'function';
  } catch {
    return false;
  }
}

function keyBytes(password: string): Buffer {
  const key = Buffer.from(password, 'utf8');
  if (key.length === 0 || key.length > TCP_MD5_MAX_KEY_BYTES) {
    throw new TcpMd5Error('invalidKey', `a TCP MD5 password has 1 to ${TCP_MD5_MAX_KEY_BYTES} bytes (this one has ${key.length})`);
  }
  return key;
}

/** 4 or 6 for a numeric IP address; a TcpMd5Error('invalidAddress') naming `what` otherwise. */
function ipVersionOfAddress(address: string, what: string): 4 | 6 {
  const family = parseIP(address)?.family;
  if (family === undefined) throw new TcpMd5Error('invalidAddress', `${what} "${address}" is not a numeric IP address`);
  return family;
}

function fromNative(error: unknown, context: string): TcpMd5Error {
  if (error instanceof TcpMd5Error) return error;
  const e = error as { message?: unknown; code?: unknown };
  const errno = typeof e?.code === 'string' ? e.code : undefined;
  const code: TcpMd5ErrorCode = error instanceof TypeError ? 'invalidAddress' : 'system';
  return new TcpMd5Error(code, `${context}: ${String(e?.message ?? error)}`, errno, { cause: error });
}

/** Runs `prepare` on a new descriptor; closes it if anything throws. */
function withNewSocket(family: 4 | 6, context: string, prepare: (fd: number) => void): number {
  const native = addon();
  let fd: number;
  try {
    fd = native.tcpSocket(family);
  } catch (error) {
    throw fromNative(error, context);
  }
  try {
    prepare(fd);
    return fd;
  } catch (error) {
    closeSync(fd);
    throw fromNative(error, context);
  }
}

export interface Md5SocketOptions {
  readonly peerAddress: string;
  readonly password: string;
  /** The source address (BGPPeer.sourceAddress); the kernel picks one when absent. */
  readonly localAddress?: string;
}

/**
 * An unconnected TCP descriptor whose connection to `peerAddress` will be MD5-signed, already bound to the source
 * address when one is given. The caller owns it (wraps it in a socket, or closes it).
 */
export function openMd5ClientSocket(options: Md5SocketOptions): number {
  const family = ipVersionOfAddress(options.peerAddress, 'peer address');
  if (options.localAddress !== undefined && ipVersionOfAddress(options.localAddress, 'source address') !== family) {
    const message = `source address ${options.localAddress} and peer ${options.peerAddress} are of different families`;
    throw new TcpMd5Error('invalidAddress', message);
  }
  const key = keyBytes(options.password);
  return withNewSocket(family, `MD5 socket to ${options.peerAddress}`, (fd) => {
    const native = addon();
    native.tcpSetMd5Key(fd, options.peerAddress, key);
    if (options.localAddress !== undefined) native.tcpBind(fd, options.localAddress, 0, false);
  });
}

/** Closes a descriptor from openMd5ClientSocket or openListenSocket that was never handed to a socket. */
export function closeDescriptor(fd: number): void {
  closeSync(fd);
}

/**
 * A bound TCP descriptor for `server.listen({ fd })`, so peers' keys can be set on it (setMd5Key) before and while
 * it listens. '::' listens on IPv4 too (v4-mapped), as Node's own listeners do.
 */
export function openListenSocket(address: string, port: number): number {
  const family = ipVersionOfAddress(address, 'listen address');
  return withNewSocket(family, `listener on ${address} port ${port}`, (fd) => addon().tcpBind(fd, address, port, true));
}

/**
 * Sets (password) or removes (undefined) the key for one peer address on a listening descriptor from
 * openListenSocket. An IPv4 peer on an IPv6 listener is keyed by its v4-mapped address.
 */
export function setMd5Key(fd: number, peerAddress: string, password: string | undefined): void {
  ipVersionOfAddress(peerAddress, 'peer address');
  const key = password === undefined ? Buffer.alloc(0) : keyBytes(password);
  try {
    addon().tcpSetMd5Key(fd, peerAddress, key);
  } catch (error) {
    throw fromNative(error, `MD5 key for ${peerAddress}`);
  }
}
