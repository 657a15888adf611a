/**
 * The UDP sockets of single-hop BFD (RFC 5881), thin: no BFD logic here.
 *
 * - Receive: one socket per endpoint bound to the local address and UDP 3784 (section 4). With the native addon
 *   (src/native/udp-ttl) each datagram carries its received TTL / Hop Limit, so the endpoint can apply the GTSM
 *   check of section 5 (discard unless 255). Without it, node's dgram is used and the TTL is unknown: the check
 *   is then OFF, and the endpoint reports ttlCheck 'unavailable' (an off-link sender able to reach UDP 3784
 *   with a guessed discriminator could then keep a session up or take it down).
 * - Transmit: one socket per session, bound to the local address and a source port drawn from 49152-65535 and kept
 *   for the session's life (section 4), sending with TTL / Hop Limit 255 (section 5).
 */
import { createSocket, type Socket } from 'node:dgram';
import { openUdpTtlSocket, udpTtlAddonStatus, TTL_UNKNOWN } from '../../native/udp-ttl';
import { BfdError } from './bfd-error';

/** UDP destination port of single-hop BFD Control packets (RFC 5881 section 4). */
export const BFD_CONTROL_PORT = 3784;
/** Source ports for BFD Control packets (RFC 5881 section 4: 49152 through 65535). */
export const BFD_SOURCE_PORT_MIN = 49152;
export const BFD_SOURCE_PORT_MAX = 65535;
/** Random source ports tried before giving up: 64 collisions in a row means the range is nearly full. */
const MAX_SOURCE_PORT_ATTEMPTS = 64;
/** Every Control packet leaves with TTL / Hop Limit 255, and only such are accepted (RFC 5881 section 5). */
export const BFD_TTL = 255;

export interface BfdDatagram {
  readonly payload: Uint8Array;
  readonly address: string;
  readonly port: number;
  /** The received TTL / Hop Limit; undefined when this socket cannot tell. */
  readonly ttl: number | undefined;
}

export type TtlCheck = 'enforced' | 'unavailable';

export interface BfdReceiveSocket {
  readonly port: number;
  readonly ttlCheck: TtlCheck;
  /** Why the TTL check is unavailable (undefined when enforced). */
  readonly ttlCheckGap: string | undefined;
  close(): void;
}

export interface ReceiveSocketOptions {
  readonly address: string;
  readonly family: 4 | 6;
  readonly port: number;
  readonly onDatagram: (datagram: BfdDatagram) => void;
  readonly onError: (error: Error) => void;
  /** Use dgram even when the addon is there (tests of the fallback). */
  readonly withoutAddon?: boolean;
}

function bindError(error: unknown, what: string): BfdError {
  const code = (error as { code?: unknown })?.code;
  return new BfdError('bindFailed', `${what}: ${typeof code === 'string' ? code : ((error as Error)?.message ?? String(error))}`, {
    cause: error,
  });
}

export async function openBfdReceiveSocket(options: ReceiveSocketOptions): Promise<BfdReceiveSocket> {
  const where = `cannot bind UDP ${options.address} port ${options.port} for BFD`;
  const addon = udpTtlAddonStatus();
  if (addon.loaded && !options.withoutAddon) {
    try {
      const socket = openUdpTtlSocket({
        address: options.address,
        port: options.port,
        onMessage: (d) =>
          options.onDatagram({ payload: d.payload, address: d.address, port: d.port, ttl: d.ttl === TTL_UNKNOWN ? undefined : d.ttl }),
        onError: options.onError,
      });
      return { port: socket.port, ttlCheck: 'enforced', ttlCheckGap: undefined, close: () => socket.close() };
    } catch (error) {
      throw bindError(error, where);
    }
  }
  const gap = options.withoutAddon ? 'the UDP TTL addon was not used' : `the UDP TTL addon is missing (${addon.loaded ? '' : addon.why})`;
  const socket = createSocket({ type: options.family === 4 ? 'udp4' : 'udp6' });
  await bindDgram(socket, options.address, options.port).catch((error: unknown) => {
    throw bindError(error, where);
  });
  socket.on('message', (payload, rinfo) => options.onDatagram({ payload, address: rinfo.address, port: rinfo.port, ttl: undefined }));
  socket.on('error', options.onError);
  return {
    port: socket.address().port,
    ttlCheck: 'unavailable',
    ttlCheckGap: `${gap}: node's dgram cannot read the received TTL, so the RFC 5881 TTL 255 check is off`,
    close: () => closeQuietly(socket),
  };
}

export interface BfdTransmitSocket {
  readonly port: number;
  /** Fire and forget; a failure (no route, ENOBUFS) goes to onError. */
  send(packet: Uint8Array, address: string, port: number): void;
  close(): void;
}

/** Binds a transmit socket to `address` and a random free source port in 49152-65535, TTL 255. */
export async function openBfdTransmitSocket(options: {
  readonly address: string;
  readonly family: 4 | 6;
  readonly random: () => number;
  readonly onError: (error: Error) => void;
}): Promise<BfdTransmitSocket> {
  const span = BFD_SOURCE_PORT_MAX - BFD_SOURCE_PORT_MIN + 1;
  for (let attempt = 0; attempt < MAX_SOURCE_PORT_ATTEMPTS; attempt++) {
    const port = BFD_SOURCE_PORT_MIN + Math.min(span - 1, Math.floor(options.random() * span));
    const socket = createSocket({ type: options.family === 4 ? 'udp4' : 'udp6' });
    try {
      await bindDgram(socket, options.address, port);
    } catch (error) {
      closeQuietly(socket);
      if ((error as { code?: unknown })?.code === 'EADDRINUSE') continue;
      throw bindError(error, `cannot bind a BFD source port on ${options.address}`);
    }
    // Sets IP_TTL or IPV6_UNICAST_HOPS (libuv picks by family).
    socket.setTTL(BFD_TTL);
    socket.on('error', options.onError);
    return {
      port,
      send(packet, toAddress, toPort) {
        socket.send(packet, toPort, toAddress, (error) => {
          if (error) options.onError(error);
        });
      },
      close: () => closeQuietly(socket),
    };
  }
  throw new BfdError(
    'noSourcePort',
    `no free BFD source port on ${options.address} after ${MAX_SOURCE_PORT_ATTEMPTS} tries in ${BFD_SOURCE_PORT_MIN}-${BFD_SOURCE_PORT_MAX}`,
  );
}

function bindDgram(socket: Socket, address: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = (error: Error): void => reject(error);
    socket.once('error', fail);
    socket.bind({ address, port, exclusive: true }, () => {
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
