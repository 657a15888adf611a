/**
 * A UDP receive socket that tells the received TTL (IPv4) or Hop Limit (IPv6) of each datagram: the one thing
 * Node's own UDP sockets cannot, and what single-hop BFD's GTSM check needs (RFC 5881 section 5: discard unless 255).
 * The C++ side is udp-ttl.cc, built by node-gyp as its own module, build/Release/mlb_udp_ttl.node.
 *
 * Loading is addon-loader.ts's, as for native-addon.ts: on first use, never at import, looking beside this
 * module (the bundle's dist/), then ../build/Release and ../../build/Release (from source); MLB_UDP_TTL_ADDON
 * names another file.
 * Without it, udpTtlAddonStatus() says why and openUdpTtlSocket() throws; the real runtime (src/runtime/real-ttl-udp.ts,
 * its only caller) then falls back to a socket that cannot read the TTL and says so.
 */
import { loadAddon } from './addon-loader';
import type { AddonStatus } from './addon-status';

const UDP_TTL_ADDON_FILE_NAME = 'mlb_udp_ttl.node';

/** What the kernel reports when it gave no TTL (should not happen once IP_RECVTTL is set). */
export const TTL_UNKNOWN = -1;

export interface UdpTtlDatagram {
  readonly payload: Buffer;
  readonly address: string;
  readonly port: number;
  /** 0-255, or TTL_UNKNOWN. */
  readonly ttl: number;
}

interface NativeUdpTtlSocket {
  port(): number;
  ref(): void;
  unref(): void;
  close(): void;
}

interface UdpTtlAddon {
  UdpTtlSocket: new (
    address: string,
    port: number,
    onMessage: (payload: Buffer, address: string, port: number, ttl: number) => void,
    onError: (error: Error) => void,
  ) => NativeUdpTtlSocket;
}

export interface UdpTtlSocket {
  /** The bound port. */
  readonly port: number;
  ref(): void;
  unref(): void;
  /** Idempotent. */
  close(): void;
}

export type UdpTtlAddonStatus = AddonStatus;

const SPEC = {
  fileName: UDP_TTL_ADDON_FILE_NAME,
  overrideEnv: 'MLB_UDP_TTL_ADDON',
  missingHint: '(npm rebuild builds it)',
} as const;

/** Loads the module if not yet tried; never throws. */
export function udpTtlAddonStatus(): UdpTtlAddonStatus {
  return loadAddon<UdpTtlAddon>(SPEC).status;
}

/**
 * Binds UDP `address`:`port` (port 0: any) and calls onMessage once per datagram. Throws the addon's error
 * (with `code`, e.g. EADDRINUSE) when the socket cannot be opened, or an Error when the addon is missing.
 */
export function openUdpTtlSocket(options: {
  address: string;
  port: number;
  onMessage: (datagram: UdpTtlDatagram) => void;
  onError: (error: Error) => void;
}): UdpTtlSocket {
  const { status: s, addon } = loadAddon<UdpTtlAddon>(SPEC);
  if (!s.loaded || !addon) throw new Error(`the UDP TTL addon is not available: ${s.loaded ? 'unknown' : s.why}`);
  const { onMessage, onError } = options;
  const native = new addon.UdpTtlSocket(
    options.address,
    options.port,
    (payload, address, port, ttl) => onMessage({ payload, address, port, ttl }),
    onError,
  );
  const port = native.port();
  return {
    port,
    ref: () => native.ref(),
    unref: () => native.unref(),
    close: () => native.close(),
  };
}
