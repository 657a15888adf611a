/**
 * TCP whose segments may be signed with an RFC 2385 MD5 key (BGPPeer.password): dials that sign their SYN, and a
 * listener holding a key per peer address, so the kernel drops unsigned or wrongly signed SYNs before any
 * connection exists. The streams are the runtime's ByteStream. The real implementation (real-signed-tcp.ts) keys
 * descriptors through the native addon (src/native/tcp-md5.ts); without the addon only unsigned TCP works. The
 * virtual network does not carry it (no whole-cluster test runs BGP): virtual-host-io.ts throws
 * NetworkError('notOnVirtualNetwork').
 */
import type { ByteStream, DialOptions, SocketAddress, TcpListener } from './runtime';

export interface SignedDialOptions extends DialOptions {
  /** Signs the connection with this key (RFC 2385); the kernel needs the key before the SYN leaves. */
  readonly md5Password?: string;
  /** Gives the dial up (it rejects); the caller's own timer, say, on its own clock. */
  readonly signal?: AbortSignal;
}

export interface KeyedTcpListener extends TcpListener {
  /** True when keys can be set (the listening descriptor came from the addon). */
  readonly keyed: boolean;
  /** Sets (password) or removes (undefined) the key for connections from `peer`; throws when not `keyed`. */
  setPeerKey(peer: string, password: string | undefined): void;
}

export interface SignedTcpNetwork {
  /** Whether MD5-signed connections can be made here (the native addon is loaded). */
  md5Available(): boolean;
  /**
   * Dials `to`. Rejects with NetworkError('dialFailed') (its cause is the system's error), ('dialTimeout') after
   * options.timeoutMs, or the key's own error (a TcpMd5Error: a key the kernel cannot use).
   */
  connectSigned(to: SocketAddress, options: SignedDialOptions): Promise<ByteStream>;
  /**
   * Listens on `bind` (port 0 picks a free one) with `keys` (peer address -> password) set before the first SYN
   * can arrive; keyed whenever MD5 is available. Rejects when keys are given and MD5 is not available.
   */
  listenKeyed(
    bind: SocketAddress,
    keys: ReadonlyMap<string, string>,
    onConnection: (stream: ByteStream) => void,
    onError?: (error: Error) => void,
  ): Promise<KeyedTcpListener>;
  /**
   * The address the kernel would send from towards `peer` (its route's preferred source), or undefined when it
   * has no route. Nothing is sent.
   */
  sourceAddressFor(peer: string): Promise<string | undefined>;
}
