/**
 * The one TCP listener (port 179 by default) that passive sessions share: it hands each accepted connection to the
 * session registered for the peer's address and closes connections from anyone else at once. Peers with a
 * password get their TCP MD5 key on the listening socket (RFC 2385), so the kernel drops their unsigned or
 * wrongly signed SYNs before any connection exists; that needs a descriptor the addon made (src/native/tcp-md5.ts),
 * so the listener is built on one whenever the addon is there, and on a plain Node listener otherwise.
 */
import { createServer, isIP, type Server, type Socket } from 'node:net';
import { openListenSocket, setMd5Key, tcpMd5Available } from '../../../native/tcp-md5';
import { BGP_PORT } from './session-config';
import { BgpSessionError } from './session-errors';
import { type Log } from '../../../runtime/log';

/** Both families on one socket (v4-mapped), as Node's own default listener does. */
const DEFAULT_LISTEN_ADDRESS = '::';

export interface BgpListenerOptions {
  readonly address?: string;
  readonly port?: number;
  readonly logger: Log;
}

interface Registration {
  readonly password: string | undefined;
  readonly onConnection: (socket: Socket) => void;
}

/** An IPv4 peer reaching an IPv6 socket shows up as ::ffff:a.b.c.d; sessions know it as a.b.c.d. */
export function plainAddress(address: string | undefined): string {
  if (address === undefined) return '';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address.toLowerCase();
}

export class BgpListener {
  private readonly server: Server;
  private readonly peers = new Map<string, Registration>();
  /** The listening descriptor when the addon made it (keys can be set on it); undefined for a plain listener. */
  private fd: number | undefined;
  private listening = false;

  constructor(private readonly options: BgpListenerOptions) {
    this.server = createServer((socket) => this.route(socket));
    this.server.on('error', (error) => options.logger.warn({ event: 'bgpListener', error: error.message }, 'BGP listener error'));
  }

  /** Starts listening; resolves with the bound address and port (port 0 picks a free one). */
  async listen(): Promise<{ address: string; port: number }> {
    const address = this.options.address ?? DEFAULT_LISTEN_ADDRESS;
    const port = this.options.port ?? BGP_PORT;
    if (tcpMd5Available()) {
      this.fd = openListenSocket(address, port);
      for (const [peer, r] of this.peers) if (r.password !== undefined) setMd5Key(this.fd, peer, r.password);
      await new Promise<void>((resolve, reject) => {
        this.server.once('error', reject);
        this.server.listen({ fd: this.fd }, () => {
          this.server.off('error', reject);
          resolve();
        });
      });
    } else {
      if ([...this.peers.values()].some((r) => r.password !== undefined)) throw md5Unavailable();
      await new Promise<void>((resolve, reject) => {
        this.server.once('error', reject);
        this.server.listen({ host: address, port }, () => {
          this.server.off('error', reject);
          resolve();
        });
      });
    }
    this.listening = true;
    const bound = this.server.address();
    if (bound === null || typeof bound === 'string') return { address, port };
    return { address: bound.address, port: bound.port };
  }

  get port(): number | undefined {
    const bound = this.server.address();
    return bound && typeof bound !== 'string' ? bound.port : undefined;
  }

  /**
   * Routes the connections from `peerAddress` to `onConnection`, keyed with `password` when given. Returns the
   * function that undoes it (the key is removed too).
   */
  register(peerAddress: string, password: string | undefined, onConnection: (socket: Socket) => void): () => void {
    if (!isIP(peerAddress)) throw new BgpSessionError('invalidConfig', `peer address "${peerAddress}" is not a numeric IP address`);
    const peer = plainAddress(peerAddress);
    if (this.peers.has(peer)) throw new BgpSessionError('listenerConflict', `another session already accepts connections from ${peer}`);
    if (password !== undefined) {
      if (this.fd !== undefined) setMd5Key(this.fd, peer, password);
      else if (this.listening || !tcpMd5Available()) throw md5Unavailable();
    }
    const registration: Registration = { password, onConnection };
    this.peers.set(peer, registration);
    return () => {
      if (this.peers.get(peer) !== registration) return;
      this.peers.delete(peer);
      if (password !== undefined && this.fd !== undefined) setMd5Key(this.fd, peer, undefined);
    };
  }

  async close(): Promise<void> {
    if (!this.listening) return;
    this.listening = false;
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private route(socket: Socket): void {
    const peer = plainAddress(socket.remoteAddress);
    const registration = this.peers.get(peer);
    if (!registration) {
      this.options.logger.debug({ event: 'bgpListener', peer }, 'closed a connection from an address that is no configured passive peer');
      socket.destroy();
      return;
    }
    registration.onConnection(socket);
  }
}

function md5Unavailable(): BgpSessionError {
  return new BgpSessionError('md5Unavailable', 'a BGP password needs TCP MD5, which needs the native addon (npm rebuild)');
}
