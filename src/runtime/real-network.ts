/**
 * The network on real sockets: UDP datagrams and TCP streams over IPv4 or IPv6, each adapted to the runtime's
 * byte-level interfaces. Send failures are reported to the caller's error handler, never thrown into a receive path.
 */
import { createSocket } from 'node:dgram';
import { connect, createServer, isIP, type Socket } from 'node:net';
import { NetworkError } from './network-error';
import type { ByteStream, DialOptions, Network, SocketAddress, TcpListener, UdpEndpoint, UdpHandlers } from './runtime';

/** The kernel socket buffer asked for, so bursts of gossip are not dropped while the event loop is busy. */
const UDP_SOCKET_BUFFER_BYTES = 2 * 1024 * 1024;

export const realNetwork: Network = { bindUdp, listenTcp, connectTcp };

function text(a: SocketAddress): string {
  return a.host.includes(':') ? `[${a.host}]:${a.port}` : `${a.host}:${a.port}`;
}

async function bindUdp(bind: SocketAddress, handlers: UdpHandlers): Promise<UdpEndpoint> {
  const udp = createSocket({
    type: isIP(bind.host) === 6 ? 'udp6' : 'udp4',
    recvBufferSize: UDP_SOCKET_BUFFER_BYTES,
    sendBufferSize: UDP_SOCKET_BUFFER_BYTES,
  });
  udp.on('message', (msg, rinfo) => {
    handlers.onMessage(new Uint8Array(msg.buffer, msg.byteOffset, msg.byteLength), { host: stripMapped(rinfo.address), port: rinfo.port });
  });
  await new Promise<void>((resolve, reject) => {
    udp.once('error', (e) => reject(new NetworkError('bindFailed', `cannot bind UDP ${text(bind)}: ${e.message}`, { cause: e })));
    udp.bind({ address: bind.host, port: bind.port, exclusive: true }, resolve);
  });
  udp.on('error', (e) => handlers.onError?.(e));
  const port = udp.address().port;
  return {
    local: { host: bind.host, port },
    send(to, bytes) {
      udp.send(bytes, to.port, to.host, (error) => {
        if (error) handlers.onError?.(new Error(`udp send to ${text(to)}: ${error.message}`));
      });
    },
    close: () => new Promise<void>((resolve) => udp.close(() => resolve())),
  };
}

async function listenTcp(
  bind: SocketAddress,
  onConnection: (stream: ByteStream) => void,
  onError?: (error: Error) => void,
): Promise<TcpListener> {
  const server = createServer({ noDelay: true });
  server.on('connection', (socket) => onConnection(adaptSocket(socket)));
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e) => reject(new NetworkError('bindFailed', `cannot listen on TCP ${text(bind)}: ${e.message}`, { cause: e })));
    server.listen({ host: bind.host, port: bind.port, exclusive: true }, resolve);
  });
  server.on('error', (e) => onError?.(e));
  const port = (server.address() as { port: number }).port;
  return { local: { host: bind.host, port }, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

function connectTcp(to: SocketAddress, options: DialOptions): Promise<ByteStream> {
  return new Promise((resolve, reject) => {
    const socket = connect({
      host: to.host,
      port: to.port,
      noDelay: true,
      ...(options.localAddress ? { localAddress: options.localAddress } : {}),
    });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new NetworkError('dialTimeout', `no TCP connection to ${text(to)} within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(adaptSocket(socket));
    });
    socket.once('error', (e) => {
      clearTimeout(timer);
      reject(new NetworkError('dialFailed', `cannot connect to ${text(to)}: ${e.message}`, { cause: e }));
    });
  });
}

/** A connected node:net socket as a ByteStream. */
export function adaptSocket(socket: Socket): ByteStream {
  let closeHandler: ((error?: Error) => void) | undefined;
  let failure: Error | undefined;
  socket.on('error', (e) => {
    failure = e;
    socket.destroy();
  });
  socket.once('close', () => closeHandler?.(failure));
  return {
    local: { host: stripMapped(socket.localAddress ?? ''), port: socket.localPort ?? 0 },
    remote: { host: stripMapped(socket.remoteAddress ?? ''), port: socket.remotePort ?? 0 },
    onData: (handler) => socket.on('data', (chunk: Buffer) => handler(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))),
    onEnd: (handler) => socket.once('end', handler),
    onClose: (handler) => {
      closeHandler = handler;
    },
    write: (bytes) => void socket.write(bytes),
    end: (bytes, flushed) => {
      if (bytes) socket.end(bytes, flushed);
      else socket.end(flushed);
    },
    destroy: () => void socket.destroy(),
  };
}

/** "::ffff:10.0.0.1" (a v4 peer on a dual-stack socket) is 10.0.0.1 to everyone else. */
function stripMapped(host: string): string {
  return host.startsWith('::ffff:') && isIP(host.slice(7)) === 4 ? host.slice(7) : host;
}
