/**
 * TTL-aware UDP on this host: receivers through the native addon (src/native/udp-ttl.ts: IP_RECVTTL /
 * IPV6_RECVHOPLIMIT), or Node's node:dgram when the addon is missing or not wanted, which cannot read the TTL
 * and says so in ttlGap; senders on node:dgram with setTTL (libuv sets IP_TTL or IPV6_UNICAST_HOPS by family).
 */
import { createSocket, type Socket } from 'node:dgram';
import { isIP } from 'node:net';
import { openUdpTtlSocket, udpTtlAddonStatus, TTL_UNKNOWN } from '../native/udp-ttl';
import { NetworkError } from './network-error';
import type { SocketAddress } from './runtime';
import type { TtlUdpNetwork, TtlUdpReceiver, TtlUdpSender } from './ttl-udp';

export const realTtlUdp: TtlUdpNetwork = { bindTtlReceiver, bindTtlSender };

function text(a: SocketAddress): string {
  return a.host.includes(':') ? `[${a.host}]:${a.port}` : `${a.host}:${a.port}`;
}

function bindFailed(error: unknown, bind: SocketAddress): NetworkError {
  const code = (error as { code?: unknown })?.code;
  const why = typeof code === 'string' ? code : ((error as Error)?.message ?? String(error));
  return new NetworkError(code === 'EADDRINUSE' ? 'portInUse' : 'bindFailed', `cannot bind UDP ${text(bind)}: ${why}`, { cause: error });
}

async function bindTtlReceiver(
  bind: SocketAddress,
  handlers: Parameters<TtlUdpNetwork['bindTtlReceiver']>[1],
  options: Parameters<TtlUdpNetwork['bindTtlReceiver']>[2] = {},
): Promise<TtlUdpReceiver> {
  const addon = udpTtlAddonStatus();
  if (addon.loaded && !options.withoutTtlAddon) {
    try {
      const socket = openUdpTtlSocket({
        address: bind.host,
        port: bind.port,
        onMessage: (d) =>
          handlers.onDatagram({
            bytes: d.payload,
            from: { host: d.address, port: d.port },
            ttl: d.ttl === TTL_UNKNOWN ? undefined : d.ttl,
          }),
        onError: (error) => handlers.onError(error),
      });
      return { local: { host: bind.host, port: socket.port }, ttlGap: undefined, close: () => socket.close() };
    } catch (error) {
      throw bindFailed(error, bind);
    }
  }
  const gap = options.withoutTtlAddon
    ? 'the UDP TTL addon was not used'
    : `the UDP TTL addon is missing (${addon.loaded ? '' : addon.why})`;
  const socket = createSocket({ type: isIP(bind.host) === 6 ? 'udp6' : 'udp4' });
  await bindDgram(socket, bind).catch((error: unknown) => {
    throw bindFailed(error, bind);
  });
  socket.on('message', (payload, rinfo) =>
    handlers.onDatagram({ bytes: payload, from: { host: rinfo.address, port: rinfo.port }, ttl: undefined }),
  );
  socket.on('error', (error) => handlers.onError(error));
  return {
    local: { host: bind.host, port: socket.address().port },
    ttlGap: `${gap}: node's dgram cannot read the received TTL`,
    close: () => closeQuietly(socket),
  };
}

async function bindTtlSender(bind: SocketAddress, ttl: number, onError: (error: Error) => void): Promise<TtlUdpSender> {
  const socket = createSocket({ type: isIP(bind.host) === 6 ? 'udp6' : 'udp4' });
  try {
    await bindDgram(socket, bind);
  } catch (error) {
    closeQuietly(socket);
    throw bindFailed(error, bind);
  }
  socket.setTTL(ttl);
  socket.on('error', onError);
  return {
    local: { host: bind.host, port: socket.address().port },
    send(to, bytes) {
      socket.send(bytes, to.port, to.host, (error) => {
        if (error) onError(error);
      });
    },
    close: () => closeQuietly(socket),
  };
}

function bindDgram(socket: Socket, bind: SocketAddress): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = (error: Error): void => reject(error);
    socket.once('error', fail);
    socket.bind({ address: bind.host, port: bind.port, exclusive: true }, () => {
      socket.off('error', fail);
      resolve();
    });
  });
}

function closeQuietly(socket: Socket): void {
  try {
    socket.close();
  } catch {
    // already closed
  }
}
