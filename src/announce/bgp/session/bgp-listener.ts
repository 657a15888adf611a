/**
 * The one TCP listener (port 179 by default) that passive sessions share: it hands each accepted connection to the
 * session registered for the peer's address and closes connections from anyone else at once. Peers with a
 * password get their TCP MD5 key on the listening socket (RFC 2385), so the kernel drops their unsigned or
 * wrongly signed SYNs before any connection exists; the runtime's keyed listener (src/runtime/signed-tcp.ts) is
 * built on a descriptor the addon made whenever the addon is there, and is a plain listener otherwise.
 */
import { parseIP } from '../../../ip';
import { realSignedTcp } from '../../../runtime/real-signed-tcp';
import type { ByteStream } from '../../../runtime/runtime';
import type { KeyedTcpListener, SignedTcpNetwork } from '../../../runtime/signed-tcp';
import { BGP_PORT } from './session-config';
import { BgpSessionError } from './session-errors';
import { type Log } from '../../../runtime/log';

/** Both families on one socket (v4-mapped), as Node's own default listener does. */
const DEFAULT_LISTEN_ADDRESS = '::';

export interface BgpListenerOptions {
  readonly address?: string;
  readonly port?: number;
  readonly logger: Log;
  /** Where the listening socket comes from (real, MD5-capable when the addon is there, by default). */
  readonly net?: SignedTcpNetwork;
}

interface Registration {
  readonly password: string | undefined;
  readonly onConnection: (stream: ByteStream) => void;
}

/** An IPv4 peer reaching an IPv6 socket shows up as ::ffff:a.b.c.d; sessions know it as a.b.c.d. */
export function plainAddress(address: string | undefined): string {
  if (address === undefined) return '';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address.toLowerCase();
}

export class BgpListener {
  private readonly peers = new Map<string, Registration>();
  private readonly net: SignedTcpNetwork;
  private listener: KeyedTcpListener | undefined;

  constructor(private readonly options: BgpListenerOptions) {
    this.net = options.net ?? realSignedTcp;
  }

  /** Starts listening; resolves with the bound address and port (port 0 picks a free one). */
  async listen(): Promise<{ address: string; port: number }> {
    const address = this.options.address ?? DEFAULT_LISTEN_ADDRESS;
    const port = this.options.port ?? BGP_PORT;
    const keys = new Map<string, string>();
    for (const [peer, r] of this.peers) if (r.password !== undefined) keys.set(peer, r.password);
    if (keys.size > 0 && !this.net.md5Available()) throw md5Unavailable();
    this.listener = await this.net.listenKeyed(
      { host: address, port },
      keys,
      (stream) => this.route(stream),
      (error) => this.options.logger.warn({ event: 'bgpListener', error: error.message }, 'BGP listener error'),
    );
    return { address: this.listener.local.host, port: this.listener.local.port };
  }

  get port(): number | undefined {
    return this.listener?.local.port;
  }

  /**
   * Routes the connections from `peerAddress` to `onConnection`, keyed with `password` when given. Returns the
   * function that undoes it (the key is removed too).
   */
  register(peerAddress: string, password: string | undefined, onConnection: (stream: ByteStream) => void): () => void {
    if (!parseIP(peerAddress)) throw new BgpSessionError('invalidConfig', `peer address "${peerAddress}" is not a numeric IP address`);
    const peer = plainAddress(peerAddress);
    if (this.peers.has(peer)) throw new BgpSessionError('listenerConflict', `another session already accepts connections from ${peer}`);
    if (password !== undefined) {
      if (this.listener?.keyed) this.listener.setPeerKey(peer, password);
      else if (this.listener || !this.net.md5Available()) throw md5Unavailable();
    }
    const registration: Registration = { password, onConnection };
    this.peers.set(peer, registration);
    return () => {
      if (this.peers.get(peer) !== registration) return;
      this.peers.delete(peer);
      if (password !== undefined && this.listener?.keyed) this.listener.setPeerKey(peer, undefined);
    };
  }

  async close(): Promise<void> {
    const listener = this.listener;
    if (!listener) return;
    this.listener = undefined;
    await listener.close();
  }

  private route(stream: ByteStream): void {
    const peer = plainAddress(stream.remote.host);
    const registration = this.peers.get(peer);
    if (!registration) {
      this.options.logger.debug({ event: 'bgpListener', peer }, 'closed a connection from an address that is no configured passive peer');
      stream.destroy();
      return;
    }
    registration.onConnection(stream);
  }
}

function md5Unavailable(): BgpSessionError {
  return new BgpSessionError('md5Unavailable', 'a BGP password needs TCP MD5, which needs the native addon (npm rebuild)');
}
