/**
 * UDP that knows the IP TTL (IPv4) / Hop Limit (IPv6): every datagram received carries the TTL it arrived with,
 * and a sender sends with a fixed one. Single-hop BFD needs both (RFC 5881 section 5, GTSM: send with 255,
 * discard anything received with less); the plain Network's UDP cannot do either. The real implementation
 * (real-ttl-udp.ts) reads the TTL through the native addon (src/native/udp-ttl.ts) and falls back to Node's
 * sockets, which cannot, saying why. The virtual network does not carry it (no whole-cluster test runs BFD):
 * virtual-host-io.ts throws NetworkError('notOnVirtualNetwork').
 */
import type { SocketAddress } from './runtime';

export interface TtlDatagram {
  readonly bytes: Uint8Array;
  readonly from: SocketAddress;
  /** The received TTL / Hop Limit; undefined when this receiver cannot tell (ttlGap says why). */
  readonly ttl: number | undefined;
}

export interface TtlUdpReceiver {
  readonly local: SocketAddress;
  /** Why received TTLs are unknown; undefined when every datagram carries its TTL. */
  readonly ttlGap: string | undefined;
  /** Idempotent. */
  close(): void;
}

export interface TtlUdpSender {
  readonly local: SocketAddress;
  /** Fire and forget; a failure (no route, ENOBUFS) goes to the sender's onError. */
  send(to: SocketAddress, bytes: Uint8Array): void;
  /** Idempotent. */
  close(): void;
}

export interface TtlUdpReceiverOptions {
  /** Use a socket that cannot read the TTL even when one that can is available (tests of the fallback). */
  readonly withoutTtlAddon?: boolean;
}

export interface TtlUdpNetwork {
  /** Binds a receiver; rejects with NetworkError('bindFailed') (its cause carries the errno `code`). */
  bindTtlReceiver(
    bind: SocketAddress,
    handlers: { onDatagram(datagram: TtlDatagram): void; onError(error: Error): void },
    options?: TtlUdpReceiverOptions,
  ): Promise<TtlUdpReceiver>;
  /**
   * Binds a sender whose every datagram leaves with TTL / Hop Limit `ttl`. Rejects with NetworkError('portInUse')
   * when only the port is taken (a caller drawing random ports tries another), NetworkError('bindFailed') otherwise.
   */
  bindTtlSender(bind: SocketAddress, ttl: number, onError: (error: Error) => void): Promise<TtlUdpSender>;
}
