/**
 * The UDP sockets of single-hop BFD (RFC 5881), thin: no BFD logic here.
 *
 * - Receive: one socket per endpoint bound to the local address and UDP 3784 (section 4). With the native addon
 *   (src/native/udp-ttl) each datagram carries its received TTL / Hop Limit, so the endpoint can apply the GTSM
 *   check of section 5 (discard unless 255). Without it the runtime's fallback socket cannot tell the TTL: the check
 *   is then OFF, and the endpoint reports ttlCheck 'unavailable' (an off-link sender able to reach UDP 3784
 *   with a guessed discriminator could then keep a session up or take it down).
 *   The sockets themselves are the runtime's (src/runtime/ttl-udp.ts); this file holds BFD's ports and rules.
 * - Transmit: one socket per session, bound to the local address and a source port drawn from 49152-65535 and kept
 *   for the session's life (section 4), sending with TTL / Hop Limit 255 (section 5).
 */
import { NetworkError } from '../../runtime/network-error';
import { realTtlUdp } from '../../runtime/real-ttl-udp';
import type { TtlUdpNetwork } from '../../runtime/ttl-udp';
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
  readonly port: number;
  readonly onDatagram: (datagram: BfdDatagram) => void;
  readonly onError: (error: Error) => void;
  /** Use a socket that cannot read the TTL even when the addon is there (tests of the fallback). */
  readonly withoutAddon?: boolean;
  /** Where the sockets come from (real ones by default). */
  readonly udp?: TtlUdpNetwork;
}

/** The system's reason (EADDRINUSE, EADDRNOTAVAIL) under the runtime's NetworkError, as `what: CODE`. */
function bindError(error: unknown, what: string): BfdError {
  if (error instanceof NetworkError && error.cause === undefined)
    return new BfdError('bindFailed', `${what}: ${error.message}`, { cause: error });
  const cause = error instanceof NetworkError ? error.cause : error;
  const code = (cause as { code?: unknown })?.code;
  return new BfdError('bindFailed', `${what}: ${typeof code === 'string' ? code : ((cause as Error)?.message ?? String(cause))}`, {
    cause,
  });
}

export async function openBfdReceiveSocket(options: ReceiveSocketOptions): Promise<BfdReceiveSocket> {
  const where = `cannot bind UDP ${options.address} port ${options.port} for BFD`;
  const udp = options.udp ?? realTtlUdp;
  const receiver = await udp
    .bindTtlReceiver(
      { host: options.address, port: options.port },
      {
        onDatagram: (d) => options.onDatagram({ payload: d.bytes, address: d.from.host, port: d.from.port, ttl: d.ttl }),
        onError: options.onError,
      },
      { withoutTtlAddon: options.withoutAddon ?? false },
    )
    .catch((error: unknown) => {
      throw bindError(error, where);
    });
  return {
    port: receiver.local.port,
    ttlCheck: receiver.ttlGap === undefined ? 'enforced' : 'unavailable',
    ttlCheckGap: receiver.ttlGap === undefined ? undefined : `${receiver.ttlGap}, so the RFC 5881 TTL 255 check is off`,
    close: () => receiver.close(),
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
  readonly random: () => number;
  readonly onError: (error: Error) => void;
  readonly udp?: TtlUdpNetwork;
}): Promise<BfdTransmitSocket> {
  const udp = options.udp ?? realTtlUdp;
  const span = BFD_SOURCE_PORT_MAX - BFD_SOURCE_PORT_MIN + 1;
  for (let attempt = 0; attempt < MAX_SOURCE_PORT_ATTEMPTS; attempt++) {
    const port = BFD_SOURCE_PORT_MIN + Math.min(span - 1, Math.floor(options.random() * span));
    let sender;
    try {
      sender = await udp.bindTtlSender({ host: options.address, port }, BFD_TTL, options.onError);
    } catch (error) {
      if (error instanceof NetworkError && error.code === 'portInUse') continue;
      throw bindError(error, `cannot bind a BFD source port on ${options.address}`);
    }
    const bound = sender;
    return {
      port,
      send: (packet, toAddress, toPort) => bound.send({ host: toAddress, port: toPort }, packet),
      close: () => bound.close(),
    };
  }
  throw new BfdError(
    'noSourcePort',
    `no free BFD source port on ${options.address} after ${MAX_SOURCE_PORT_ATTEMPTS} tries in ${BFD_SOURCE_PORT_MIN}-${BFD_SOURCE_PORT_MAX}`,
  );
}
