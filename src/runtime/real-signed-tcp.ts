/**
 * MD5-signable TCP on this host. The kernel must hold a key before the first segment: for a client before
 * connect(2) (the SYN is signed), for a listener before the peer's SYN arrives. Node's net.connect creates its
 * descriptor inside connect() with no hook before it, so the addon creates and keys the descriptor
 * (src/native/tcp-md5.ts) and Node does everything else:
 *
 * - client: `new Socket({ fd })` wraps the unconnected descriptor, and `socket.connect({ host, port })` reuses
 *   that handle (net.Socket.connect only makes a new handle when it has none), so the kernel signs the SYN. The
 *   read Node starts in the constructor only registers interest; the socket is polled after connect() has begun.
 * - listener: a bound descriptor goes to `server.listen({ fd })` (Node calls listen(2) on it); keys are added and
 *   removed per peer address at any time, and an accepted connection inherits its peer's key from the listener.
 */
import { createSocket } from 'node:dgram';
import { createServer, isIP, Socket, type Server } from 'node:net';
import {
  closeDescriptor,
  openListenSocket,
  openMd5ClientSocket,
  setMd5Key,
  tcpMd5Available,
  TcpMd5Error,
  type Md5SocketOptions,
} from '../native/tcp-md5';
import { NetworkError } from './network-error';
import { adaptSocket } from './real-network';
import type { ByteStream, SocketAddress } from './runtime';
import type { KeyedTcpListener, SignedDialOptions, SignedTcpNetwork } from './signed-tcp';

export const realSignedTcp: SignedTcpNetwork = { md5Available: tcpMd5Available, connectSigned, listenKeyed, sourceAddressFor };

function text(a: SocketAddress): string {
  return a.host.includes(':') ? `[${a.host}]:${a.port}` : `${a.host}:${a.port}`;
}

/**
 * An unconnected Node socket whose connection to `peerAddress` is MD5-signed. Call
 * `socket.connect({ host: peerAddress, port })` on it next (without localAddress: it is already bound).
 */
export function createMd5Socket(options: Md5SocketOptions): Socket {
  const fd = openMd5ClientSocket(options);
  try {
    return new Socket({ fd });
  } catch (error) {
    closeDescriptor(fd);
    throw new TcpMd5Error('system', `MD5 socket to ${options.peerAddress}: ${(error as Error).message}`, undefined, { cause: error });
  }
}

function connectSigned(to: SocketAddress, options: SignedDialOptions): Promise<ByteStream> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) return reject(new NetworkError('dialFailed', `the dial to ${text(to)} was given up`));
    const { md5Password: password, localAddress } = options;
    let socket: Socket;
    try {
      socket =
        password !== undefined
          ? createMd5Socket({ peerAddress: to.host, password, ...(localAddress !== undefined ? { localAddress } : {}) })
          : new Socket();
    } catch (error) {
      return reject(error as Error);
    }
    const settle = (): void => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = (): void => {
      settle();
      socket.destroy();
      reject(new NetworkError('dialFailed', `the dial to ${text(to)} was given up`));
    };
    const timer = setTimeout(() => {
      settle();
      socket.destroy();
      reject(new NetworkError('dialTimeout', `no TCP connection to ${text(to)} within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => {
      settle();
      socket.removeAllListeners('error');
      socket.setNoDelay(true);
      resolve(adaptSocket(socket));
    });
    socket.once('error', (e) => {
      settle();
      socket.destroy();
      reject(new NetworkError('dialFailed', `cannot connect to ${text(to)}: ${e.message}`, { cause: e }));
    });
    // An MD5 socket is already bound to the source address (the key had to be set before connect).
    const bindHere = password === undefined && localAddress !== undefined;
    socket.connect({ host: to.host, port: to.port, ...(bindHere ? { localAddress } : {}) });
  });
}

async function listenKeyed(
  bind: SocketAddress,
  keys: ReadonlyMap<string, string>,
  onConnection: (stream: ByteStream) => void,
  onError?: (error: Error) => void,
): Promise<KeyedTcpListener> {
  const server = createServer({ noDelay: true }, (socket) => onConnection(adaptSocket(socket)));
  let fd: number | undefined;
  if (tcpMd5Available()) {
    fd = openListenSocket(bind.host, bind.port);
    for (const [peer, password] of keys) setMd5Key(fd, peer, password);
    await listen(server, { fd }, bind);
  } else {
    if (keys.size > 0) throw new TcpMd5Error('addonMissing', 'TCP MD5 needs the native addon (npm rebuild)');
    await listen(server, { host: bind.host, port: bind.port }, bind);
  }
  server.on('error', (error) => onError?.(error));
  const address = server.address();
  const port = address !== null && typeof address === 'object' ? address.port : bind.port;
  const keyedFd = fd;
  return {
    local: { host: address !== null && typeof address === 'object' ? address.address : bind.host, port },
    keyed: keyedFd !== undefined,
    setPeerKey(peer, password) {
      if (keyedFd === undefined) throw new TcpMd5Error('addonMissing', 'this listener cannot hold TCP MD5 keys (no native addon)');
      setMd5Key(keyedFd, peer, password);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function listen(server: Server, how: { fd: number } | { host: string; port: number }, bind: SocketAddress): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = (e: Error): void =>
      reject(new NetworkError('bindFailed', `cannot listen on TCP ${text(bind)}: ${e.message}`, { cause: e }));
    server.once('error', fail);
    server.listen(how, () => {
      server.off('error', fail);
      resolve();
    });
  });
}

/** A connected UDP socket sends nothing, and its local address is the route's source towards `peer`. */
function sourceAddressFor(peer: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = createSocket(isIP(peer) === 6 ? 'udp6' : 'udp4');
    socket.on('error', () => {
      socket.close();
      resolve(undefined);
    });
    socket.connect(179, peer, () => {
      const local = socket.address().address;
      socket.close();
      resolve(local);
    });
  });
}
