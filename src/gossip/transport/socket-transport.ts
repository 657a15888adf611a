/**
 * memberlist's network transport: UDP for packets and TCP for streams on one port (memberlist
 * net_transport.go), over IPv4 or IPv6. An adapter: bytes in, bytes out; framing and meaning live in the codec
 * and the state machine. Send failures are counted and reported, never thrown into the receive path.
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, connect, isIP, type Server, type Socket } from 'node:net';
import type { HostPort } from './address';
import { formatHostPort } from './address';
import { CodedError } from '../../errors/coded-error';

/** The kernel socket buffer asked for, so bursts of gossip are not dropped while the event loop is busy. */
export const UDP_SOCKET_BUFFER_BYTES = 2 * 1024 * 1024;

export interface TransportHandlers {
  /** A datagram arrived; `at` is the receive time (ms since epoch), kept for RTT and awareness maths. */
  onPacket(bytes: Uint8Array, from: HostPort, at: number): void;
  /** A peer opened a stream (push/pull, TCP ping, user message); the handler owns the socket. */
  onStream(socket: Socket, from: HostPort): void;
  /** A socket-level problem worth a log line (send failure, server error); never fatal by itself. */
  onError?(what: string, error: Error): void;
}

export class TransportError extends CodedError<'bindFailed' | 'dialFailed' | 'dialTimeout'> {}

export class SocketTransport {
  private constructor(
    private readonly udp: UdpSocket,
    private readonly tcp: Server,
    readonly local: HostPort,
    private readonly handlers: TransportHandlers,
  ) {}

  /** Binds TCP first (port 0 picks a free one), then UDP on the same port, as memberlist does. */
  static async listen(bind: HostPort, handlers: TransportHandlers): Promise<SocketTransport> {
    const family = isIP(bind.host) === 6 ? 'udp6' : 'udp4';
    const tcp = createServer({ noDelay: true });
    tcp.on('connection', (socket) => {
      handlers.onStream(socket, { host: stripMapped(socket.remoteAddress ?? ''), port: socket.remotePort ?? 0 });
    });
    await new Promise<void>((resolve, reject) => {
      tcp.once('error', (e) => reject(new TransportError('bindFailed', `cannot listen on TCP ${formatHostPort(bind)}: ${e.message}`, { cause: e })));
      tcp.listen({ host: bind.host, port: bind.port, exclusive: true }, resolve);
    });
    const port = (tcp.address() as { port: number }).port;
    const udp = createSocket({ type: family, recvBufferSize: UDP_SOCKET_BUFFER_BYTES, sendBufferSize: UDP_SOCKET_BUFFER_BYTES });
    udp.on('message', (msg, rinfo) => {
      handlers.onPacket(new Uint8Array(msg.buffer, msg.byteOffset, msg.byteLength), { host: stripMapped(rinfo.address), port: rinfo.port }, Date.now());
    });
    try {
      await new Promise<void>((resolve, reject) => {
        udp.once('error', (e) => reject(new TransportError('bindFailed', `cannot bind UDP ${bind.host}:${port}: ${e.message}`, { cause: e })));
        udp.bind({ address: bind.host, port, exclusive: true }, resolve);
      });
    } catch (error) {
      tcp.close();
      throw error;
    }
    udp.on('error', (e) => handlers.onError?.('udp', e));
    tcp.on('error', (e) => handlers.onError?.('tcp', e));
    return new SocketTransport(udp, tcp, { host: bind.host, port }, handlers);
  }

  sendPacket(to: HostPort, bytes: Uint8Array): void {
    this.udp.send(bytes, to.port, to.host, (error) => {
      if (error) this.handlers.onError?.(`udp send to ${formatHostPort(to)}`, error);
    });
  }

  /** Opens a stream to a peer, failing after timeoutMs (memberlist TCPTimeout). */
  dialStream(to: HostPort, timeoutMs: number): Promise<Socket> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: to.host, port: to.port, noDelay: true });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new TransportError('dialTimeout', `no TCP connection to ${formatHostPort(to)} within ${timeoutMs} ms`));
      }, timeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        resolve(socket);
      });
      socket.once('error', (e) => {
        clearTimeout(timer);
        reject(new TransportError('dialFailed', `cannot connect to ${formatHostPort(to)}: ${e.message}`));
      });
    });
  }

  async close(): Promise<void> {
    await Promise.all([
      new Promise<void>((resolve) => this.udp.close(() => resolve())),
      new Promise<void>((resolve) => this.tcp.close(() => resolve())),
    ]);
  }
}

/** "::ffff:10.0.0.1" (a v4 peer on a dual-stack socket) is 10.0.0.1 to everyone else. */
function stripMapped(host: string): string {
  return host.startsWith('::ffff:') && isIP(host.slice(7)) === 4 ? host.slice(7) : host;
}
