/**
 * A UDP receive socket that tells the received TTL (IPv4) or Hop Limit (IPv6) of each datagram: the one thing
 * node's dgram cannot, and what single-hop BFD's GTSM check needs (RFC 5881 section 5: discard unless 255).
 * The C++ side is udp-ttl.cc, built by node-gyp as its own module, build/Release/mlb_udp_ttl.node.
 *
 * Loading mirrors native-addon.ts: on first use, never at import, looking beside this module (the bundle's
 * dist/), then ../build/Release and ../../build/Release (from source); MLB_UDP_TTL_ADDON names another file.
 * Without it, udpTtlAddonStatus() says why and openUdpTtlSocket() throws; callers fall back to dgram and say
 * that the TTL check is off.
 */
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const UDP_TTL_ADDON_FILE_NAME = 'mlb_udp_ttl.node';

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

export type UdpTtlAddonStatus = { loaded: true; path: string } | { loaded: false; why: string; looked: string[] };

let status: UdpTtlAddonStatus | undefined;
let addon: UdpTtlAddon | undefined;

function candidates(): string[] {
  const here = dirname(fileURLToPath(import.meta.url));
  const paths = [
    join(here, UDP_TTL_ADDON_FILE_NAME),
    join(here, '..', 'build', 'Release', UDP_TTL_ADDON_FILE_NAME),
    join(here, '..', '..', 'build', 'Release', UDP_TTL_ADDON_FILE_NAME),
  ];
  const override = process.env.MLB_UDP_TTL_ADDON;
  return override ? [override, ...paths] : paths;
}

/** Loads the module if not yet tried; never throws. */
export function udpTtlAddonStatus(): UdpTtlAddonStatus {
  if (status) return status;
  const looked = candidates();
  const path = looked.find((p) => existsSync(p));
  if (path === undefined) {
    status = { loaded: false, why: `no ${UDP_TTL_ADDON_FILE_NAME} found (npm rebuild builds it)`, looked };
    return status;
  }
  try {
    const module = { exports: {} as UdpTtlAddon };
    process.dlopen(module, path, constants.dlopen.RTLD_NOW);
    addon = module.exports;
    status = { loaded: true, path };
  } catch (error) {
    status = { loaded: false, why: `${path} did not load: ${(error as Error).message}`, looked };
  }
  return status;
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
  const s = udpTtlAddonStatus();
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
